// The option vocabularies (layout, on_bad, transform): one table each, read by the parsers and
// by the lists the command line checks against; and the one table of numeric bounds that
// resolve() applies.
#include "feedrate/options.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "feedrate/error.h"
#include "loader/pipeline/option_bounds.h"

namespace feedrate {
namespace {

// The message of the feedrate::Error that `f` throws; fails the test when it throws none.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no feedrate::Error thrown";
  return "";
}

TEST(Options, LayoutWordsParseToTheirLayouts) {
  EXPECT_EQ(layout_names(), (std::vector<std::string>{"uint8", "float32", "float16"}));
  EXPECT_EQ(parse_layout("uint8"), OutputLayout::kUint8NHWC);
  EXPECT_EQ(parse_layout("float32"), OutputLayout::kFloat32NCHW);
  EXPECT_EQ(parse_layout("float16"), OutputLayout::kFloat16NCHW);
  EXPECT_STREQ(layout_name(parse_layout("float16")), "float16-nchw");
}

TEST(Options, BadLayoutNamesTheOptionTheValueAndTheWords) {
  EXPECT_EQ(error_of([] { parse_layout("f16"); }),
            "option layout: 'f16' is not one of uint8, float32, float16");
  // Python calls the option dtype; the words are the same.
  EXPECT_EQ(error_of([] { parse_layout("half", "dtype"); }),
            "option dtype: 'half' is not one of uint8, float32, float16");
  // Words match exactly: no case folding, and the full names of reports are not words.
  for (const char* bad : {"", "UINT8", "float", "uint8-nhwc", " uint8"}) {
    EXPECT_NE(error_of([&] { parse_layout(bad); }).find(std::string("'") + bad + "'"),
              std::string::npos)
        << bad;
  }
}

TEST(Options, PolicyWordsRoundTrip) {
  EXPECT_EQ(policy_names(), (std::vector<std::string>{"error", "skip"}));
  EXPECT_EQ(parse_policy("error"), BadInputPolicy::kError);
  EXPECT_EQ(parse_policy("skip"), BadInputPolicy::kSkip);
  for (BadInputPolicy policy : {BadInputPolicy::kError, BadInputPolicy::kSkip}) {
    EXPECT_EQ(parse_policy(policy_name(policy)), policy);
  }
  EXPECT_EQ(error_of([] { parse_policy("ignore"); }),
            "option on_bad: 'ignore' is not one of error, skip");
}

TEST(Options, ShuffleWordsRoundTripAndBlocksNeedChunks) {
  EXPECT_EQ(shuffle_names(), (std::vector<std::string>{"full", "blocks", "none"}));
  for (const ShuffleMode mode : {ShuffleMode::kFull, ShuffleMode::kBlocks, ShuffleMode::kNone}) {
    EXPECT_EQ(parse_shuffle(shuffle_name(mode)), mode);
  }
  EXPECT_EQ(error_of([] { parse_shuffle("random"); }),
            "option shuffle: 'random' is not one of full, blocks, none");
  LoaderOptions o;
  o.source = "anything";
  o.shuffle = ShuffleMode::kBlocks;
  o.tar_chunk_bytes = 0;
  EXPECT_NE(error_of([&] { resolve(o); }).find("tar_chunk_bytes"), std::string::npos);
  o.tar_chunk_bytes = 1 << 20;
  o.shuffle_window_mb = 0;
  EXPECT_NE(error_of([&] { resolve(o); }).find("shuffle_window_mb"), std::string::npos);
}

TEST(Options, TransformIsASpecText) {
  EXPECT_EQ(parse_transform("train", 176).kind, TransformKind::kTrain);
  EXPECT_EQ(parse_transform("train", 176).size, 176);
  EXPECT_EQ(parse_transform("eval", 224).resize, 256);
  EXPECT_EQ(parse_transform("rrc(176),hflip,ta_wide", 224).pixel_steps.size(), 1u);
  EXPECT_NE(error_of([] { parse_transform("test", 224); }).find("option transform: 'test'"),
            std::string::npos);
  EXPECT_EQ(transform_problem("rrc(176),ra"), "");
  EXPECT_NE(transform_problem("rrc(176),blur").find("unknown step 'blur'"), std::string::npos);
}

TEST(Options, TransformOutputStageMatchesTheLayout) {
  LoaderOptions o;
  o.source = "/data";
  o.transform = parse_transform("rrc(176),normalize(mean=0.5,std=0.25)", 224);
  EXPECT_NE(error_of([&] { resolve(o); }).find("normalize needs a float layout"),
            std::string::npos);
  o.layout = OutputLayout::kFloat32NCHW;
  const LoaderOptions resolved = resolve(o);
  EXPECT_EQ(resolved.transform.normalization.mean[1], 0.5f);  // the spec's Normalize sets it
  EXPECT_EQ(resolved.transform.normalization.std[2], 0.25f);
  o.transform = parse_transform("rrc(176),erase(0.5,value=random)", 224);
  o.layout = OutputLayout::kUint8NHWC;
  EXPECT_NE(error_of([&] { resolve(o); }).find("value=random"), std::string::npos);
  o.transform = parse_transform("rrc(176),erase(0.5)", 224);
  EXPECT_NO_THROW(resolve(o));  // constant erasing on uint8
  o.layout = OutputLayout::kFloat32NCHW;
  o.device = "cuda";
  EXPECT_NE(error_of([&] { resolve(o); }).find("GPU after loading"), std::string::npos);
}

TEST(Options, ParseWordReadsAnyTable) {
  enum class Colour { kRed, kGreen };
  constexpr std::array<Word<Colour>, 2> colours{{{"red", Colour::kRed}, {"green", Colour::kGreen}}};
  EXPECT_EQ(texts_of(colours), (std::vector<std::string>{"red", "green"}));
  EXPECT_EQ(parse_word("colour", "green", colours), Colour::kGreen);
  EXPECT_EQ(error_of([&] { parse_word("colour", "blue", colours); }),
            "option colour: 'blue' is not one of red, green");
}

// A dataset path that resolve() accepts before it looks at the dataset.
LoaderOptions valid() {
  LoaderOptions o;
  o.source = "data";
  o.rank = 0;
  o.world_size = 1;
  return o;
}

TEST(OptionBounds, ResolveAcceptsEachBoundAndRejectsBeyondIt) {
  const std::vector<std::pair<std::string, std::function<void(LoaderOptions&, double)>>> fields = {
      {"batch_size",
       [](LoaderOptions& o, double v) { o.batch_size = static_cast<std::size_t>(v); }},
      {"num_workers", [](LoaderOptions& o, double v) { o.num_workers = static_cast<int>(v); }},
      {"prefetch_batches",
       [](LoaderOptions& o, double v) { o.prefetch_batches = static_cast<std::size_t>(v); }},
      {"io_queue_depth",
       [](LoaderOptions& o, double v) { o.io_queue_depth = static_cast<unsigned>(v); }},
      {"cache_gb", [](LoaderOptions& o, double v) { o.cache_gb = v; }},
      {"size", [](LoaderOptions& o, double v) { o.transform.size = static_cast<int>(v); }},
      {"flip_probability", [](LoaderOptions& o, double v) { o.transform.flip_probability = v; }},
      {"ratio", [](LoaderOptions& o, double v) { o.transform.ratio_max = v; }},
  };
  for (const auto& [name, set] : fields) {
    const OptionBound& bound = option_bound(name);
    for (const double inside : {bound.low, bound.high}) {
      LoaderOptions o = valid();
      if (name == "ratio") o.transform.ratio_min = inside;
      set(o, inside);
      EXPECT_NO_THROW(resolve(o)) << name << " = " << inside;
    }
    const double step = bound.integral ? 1 : bound.high / 100;
    LoaderOptions above = valid();
    set(above, bound.high + step);
    EXPECT_EQ(error_of([&] {
                resolve(above);
              }).rfind("option " + name + " must be in " + range_text(bound) + ", got ", 0),
              0u)
        << name;
    if (bound.low > 0) {
      LoaderOptions below = valid();
      set(below, bound.low - step);
      if (name == "ratio") below.transform.ratio_min = bound.low - step;
      EXPECT_NE(error_of([&] { resolve(below); }).find("option " + name + " must be in "),
                std::string::npos)
          << name;
    }
  }
}

TEST(OptionBounds, ARemoteSourceKeepsAtMost1024RequestsInFlight) {
  for (const char* source : {"s3://bucket/train/", "https://host/shard-{0..9}.tar"}) {
    LoaderOptions options;
    options.source = source;
    options.io_queue_depth = 1024;
    EXPECT_EQ(resolve(options).io_queue_depth, 1024u) << source;
    options.io_queue_depth = 1025;
    EXPECT_EQ(error_of([&] { resolve(options); }),
              std::string("option io_queue_depth must be in [1, 1024] for a remote source (") +
                  source + "): it is the GETs kept in flight, got 1025");
  }
  LoaderOptions local;  // a local disk takes the table's bound
  local.source = "/data/train";
  local.io_queue_depth = 4096;
  EXPECT_EQ(resolve(local).io_queue_depth, 4096u);
}

TEST(OptionBounds, TextsAndTypes) {
  EXPECT_EQ(range_text(option_bound("batch_size")), "[1, 65536]");
  EXPECT_EQ(range_text(option_bound("scale")), "(0, 1]");
  EXPECT_EQ(range_text(option_bound("ratio")), "[0.001, 1000]");
  EXPECT_FALSE(in_range(option_bound("scale"), 0));
  EXPECT_TRUE(in_range(option_bound("scale"), 1));
  EXPECT_FALSE(in_range(option_bound("batch_size"), 2.5));
  EXPECT_EQ(error_of([] { check_option("batch_size", 2.5); }),
            "option batch_size must be an integer, got 2.5");
  EXPECT_EQ(error_of([] { check_option("size", 9000); }),
            "option size must be in [1, 8192], got 9000");
  EXPECT_THROW(option_bound("no_such_option"), std::invalid_argument);
}

TEST(OptionBounds, TheTransformSpecTextIsCheckedAgainstTheSameTable) {
  LoaderOptions o = valid();
  o.transform = parse_transform("rrc(9000)", 224);
  EXPECT_EQ(error_of([&] { resolve(o); }), "option size must be in [1, 8192], got 9000");
}

}  // namespace
}  // namespace feedrate
