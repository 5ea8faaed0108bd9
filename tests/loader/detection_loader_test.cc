// Detection datasets through the Loader's C++ API: a COCO json written here, its images decoded
// whole and moved by the detection transform with their boxes, each image delivered once an
// epoch with its targets (Batch::targets), the same batches whatever the workers and after a
// resume, batches of sizes that vary padded to their largest, and the bad entries named.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

constexpr int kImages = 10;

struct Box {
  float x, y, w, h;
  int category;
};

int width_of(int i) {
  return 40 + 8 * i;
}
int height_of(int i) {
  return 36 + 4 * (i % 4);
}

std::vector<Box> boxes_of(int i) {
  std::vector<Box> boxes;
  for (int b = 0; b <= i % 3; ++b) {
    boxes.push_back(
        {2.0f + 3 * b, 1.5f + b, 10.0f + i, 8.0f + 2 * b, (b == 0) ? 1 : 3 + 4 * (b - 1)});
  }
  return boxes;
}

class DetectionLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "images");
    std::string images, annotations;
    int annotation = 1;
    for (int i = 0; i < kImages; ++i) {
      const std::string name = "img_" + std::to_string(i) + ".jpg";
      testing::write_file(dir_ / "images" / name, testing::small_jpeg(static_cast<std::uint64_t>(i),
                                                                      width_of(i), height_of(i)));
      images += std::string(images.empty() ? "" : ",") + "{\"id\": " + std::to_string(100 + i) +
                ", \"file_name\": \"" + name + "\", \"width\": " + std::to_string(width_of(i)) +
                ", \"height\": " + std::to_string(height_of(i)) + "}";
      for (const Box& box : boxes_of(i)) {
        annotations += std::string(annotations.empty() ? "" : ",") +
                       "{\"id\": " + std::to_string(annotation++) +
                       ", \"image_id\": " + std::to_string(100 + i) +
                       ", \"category_id\": " + std::to_string(box.category) + ", \"bbox\": [" +
                       std::to_string(box.x) + ", " + std::to_string(box.y) + ", " +
                       std::to_string(box.w) + ", " + std::to_string(box.h) +
                       "], \"iscrowd\": 0, \"area\": 1}";
      }
    }
    write_json(images, annotations);
  }

  void write_json(const std::string& images, const std::string& annotations) const {
    std::ofstream(dir_ / "instances.json")
        << "{\"images\": [" << images << "], \"annotations\": [" << annotations
        << "], \"categories\": [{\"id\": 1, \"name\": \"person\"}, {\"id\": 3, \"name\": "
           "\"car\"}, {\"id\": 7, \"name\": \"train\"}]}";
  }

  LoaderOptions options(const std::string& transform = "resize(32,32)") const {
    LoaderOptions o;
    o.source = (dir_ / "images").string();
    o.annotations = (dir_ / "instances.json").string();
    o.detection = parse_detection_transform(transform);
    o.batch_size = 4;
    o.num_workers = 2;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }

  testing::TempDir dir_;
};

// Every target of an epoch, by image id: boxes, labels, flags and sizes, as delivered.
struct Delivered {
  std::vector<float> boxes;
  std::vector<std::int64_t> labels;
  int orig_width = 0, orig_height = 0;
};

std::map<std::int64_t, Delivered> epoch_targets(Loader& loader) {
  std::map<std::int64_t, Delivered> seen;
  while (std::optional<Batch> batch = loader.next()) {
    EXPECT_TRUE(batch->has_targets());
    for (std::size_t i = 0; i < batch->size(); ++i) {
      const ImageTargets t = batch->targets(i);
      EXPECT_EQ(seen.count(t.image_id), 0u) << "image " << t.image_id << " delivered twice";
      seen[t.image_id] = {{t.boxes.begin(), t.boxes.end()},
                          {t.labels.begin(), t.labels.end()},
                          t.orig_width,
                          t.orig_height};
    }
  }
  return seen;
}

TEST_F(DetectionLoaderTest, EachImageOnceWithItsBoxesMovedByTheResize) {
  Loader loader(options());
  EXPECT_EQ(loader.dataset().format(), DatasetFormat::kDetection);
  EXPECT_EQ(loader.dataset().classes(), (std::vector<std::string>{"person", "car", "train"}));
  const std::map<std::int64_t, Delivered> seen = epoch_targets(loader);
  ASSERT_EQ(seen.size(), std::size_t{kImages});
  for (int i = 0; i < kImages; ++i) {
    const Delivered& d = seen.at(100 + i);
    EXPECT_EQ(d.orig_width, width_of(i));
    EXPECT_EQ(d.orig_height, height_of(i));
    const std::vector<Box> boxes = boxes_of(i);
    ASSERT_EQ(d.labels.size(), boxes.size()) << "image " << i;
    const float sx = 32.0f / static_cast<float>(width_of(i));
    const float sy = 32.0f / static_cast<float>(height_of(i));
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      EXPECT_EQ(d.labels[b], boxes[b].category);
      EXPECT_NEAR(d.boxes[4 * b], boxes[b].x * sx, 1e-4);
      EXPECT_NEAR(d.boxes[4 * b + 1], boxes[b].y * sy, 1e-4);
      EXPECT_NEAR(d.boxes[4 * b + 2], (boxes[b].x + boxes[b].w) * sx, 1e-4);
      EXPECT_NEAR(d.boxes[4 * b + 3], (boxes[b].y + boxes[b].h) * sy, 1e-4);
    }
  }
}

TEST_F(DetectionLoaderTest, LabelModesRenumberTheCategories) {
  LoaderOptions o = options();
  o.labels = LabelMode::kContiguous;
  Loader contiguous(o);
  for (const auto& [id, d] : epoch_targets(contiguous)) {
    for (const std::int64_t label : d.labels) EXPECT_TRUE(label >= 1 && label <= 3) << label;
  }
  o.labels = LabelMode::kZeroBased;
  Loader zero_based(o);
  const std::map<std::int64_t, Delivered> seen = epoch_targets(zero_based);
  EXPECT_EQ(seen.at(102).labels, (std::vector<std::int64_t>{0, 1, 2}));
}

// Pixels and boxes of an epoch under a random recipe, in delivery order.
struct Epoch {
  std::vector<std::uint8_t> pixels;
  std::vector<float> boxes;
  std::vector<std::int64_t> ids;
};

Epoch run_epoch(Loader& loader, std::size_t skip_batches = 0) {
  Epoch epoch;
  std::size_t number = 0;
  while (std::optional<Batch> batch = loader.next()) {
    if (number++ < skip_batches) continue;
    const std::span<const std::uint8_t> pixels = batch->images_u8();
    epoch.pixels.insert(epoch.pixels.end(), pixels.begin(), pixels.end());
    for (std::size_t i = 0; i < batch->size(); ++i) {
      const ImageTargets t = batch->targets(i);
      epoch.boxes.insert(epoch.boxes.end(), t.boxes.begin(), t.boxes.end());
      epoch.ids.push_back(t.image_id);
    }
  }
  return epoch;
}

// One epoch of `o` with 1 worker, then with 0 and 2: the same images, boxes and pixels.
void expect_the_same_epoch_whatever_the_workers(LoaderOptions o) {
  o.num_workers = 1;
  Loader one(o);
  const Epoch reference = run_epoch(one);
  ASSERT_EQ(reference.ids.size(), std::size_t{kImages});
  for (const int workers : {0, 2}) {
    o.num_workers = workers;
    Loader other(o);
    const Epoch epoch = run_epoch(other);
    EXPECT_EQ(epoch.ids, reference.ids) << workers << " workers";
    EXPECT_EQ(epoch.boxes, reference.boxes) << workers << " workers";
    EXPECT_EQ(epoch.pixels, reference.pixels) << workers << " workers";
  }
}

TEST_F(DetectionLoaderTest, TheSameSeedGivesTheSameBatchesWhateverTheWorkersAndAfterAResume) {
  LoaderOptions o = options("ssd(48)");
  expect_the_same_epoch_whatever_the_workers(o);
  o.num_workers = 2;
  Loader first(o);
  ASSERT_TRUE(first.next().has_value());
  const LoaderState state = first.state();
  Loader resumed(o);
  resumed.load_state(state);
  const Epoch rest = run_epoch(resumed);
  const Epoch whole = [&] {
    Loader again(o);
    return run_epoch(again, 1);
  }();
  EXPECT_EQ(rest.ids, whole.ids);
  EXPECT_EQ(rest.boxes, whole.boxes);
  EXPECT_EQ(rest.pixels, whole.pixels);
}

TEST_F(DetectionLoaderTest, MosaicsTakeTheirPartnersFromTheBatchTheSameWayWhateverTheWorkers) {
  LoaderOptions o = options("yolo(64)");
  expect_the_same_epoch_whatever_the_workers(o);
  // A mosaic gathers boxes of four images: labels of the dataset's categories, boxes inside the
  // output.
  Loader loader(o);
  std::size_t boxes = 0;
  while (std::optional<Batch> batch = loader.next()) {
    for (std::size_t i = 0; i < batch->size(); ++i) {
      const ImageTargets t = batch->targets(i);
      for (const std::int64_t label : t.labels) {
        EXPECT_TRUE(label == 1 || label == 3 || label == 7) << label;
      }
      for (const float v : t.boxes) EXPECT_TRUE(v >= 0 && v <= 64) << v;
      boxes += t.labels.size();
    }
  }
  EXPECT_GT(boxes, 0u);
}

TEST_F(DetectionLoaderTest, RanksShareTheImagesOut) {
  std::map<std::int64_t, int> seen;
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions o = options("ssd(32)");
    o.rank = rank;
    o.world_size = 2;
    o.pad_shards = false;
    Loader loader(o);
    for (const auto& [id, targets] : epoch_targets(loader)) ++seen[id];
  }
  ASSERT_EQ(seen.size(), std::size_t{kImages});
  for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "image " << id;
}

TEST_F(DetectionLoaderTest, AMissingImageIsNamedOrSkippedAndCounted) {
  std::filesystem::remove(dir_ / "images" / "img_3.jpg");
  EXPECT_NE(
      testing::error_of([&] { Loader loader(options()); }).find("image 103 (img_3.jpg): its file"),
      std::string::npos);
  LoaderOptions o = options();
  o.on_bad = BadInputPolicy::kSkip;
  Loader loader(o);
  EXPECT_EQ(loader.dataset().skipped(), 1u);
  EXPECT_NE(loader.dataset().skipped_examples().front().where.find("image 103"), std::string::npos);
  EXPECT_EQ(epoch_targets(loader).size(), std::size_t{kImages - 1});
}

TEST_F(DetectionLoaderTest, ABoxOutsideItsImageIsNamed) {
  write_json(
      "{\"id\": 1, \"file_name\": \"img_0.jpg\", \"width\": 40, \"height\": 36}",
      "{\"id\": 9, \"image_id\": 1, \"category_id\": 1, \"bbox\": [50, 2, 5, 5], \"iscrowd\": 0}");
  const std::string error = testing::error_of([&] { Loader loader(options()); });
  EXPECT_NE(error.find("image 1 (img_0.jpg)"), std::string::npos) << error;
  EXPECT_NE(error.find("entirely outside its 40x36 image"), std::string::npos) << error;
}

TEST_F(DetectionLoaderTest, FieldsOtherThanTheKeyAreRefused) {
  LoaderOptions o = options();
  o.fields = {"__key__"};
  Loader loader(o);
  std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->field(0, 0).substr(0, 4), "img_");
  o.fields = {"txt"};
  EXPECT_NE(testing::error_of([&] { Loader refused(o); }).find("only __key__"), std::string::npos);
}

// torchvision's Resize(size, max_size) output for a width x height image: {width, height}.
std::pair<int, int> resized(int width, int height, int size, int max_size) {
  const int short_side = std::min(width, height), long_side = std::max(width, height);
  int new_short = size, new_long = size * long_side / short_side;
  if (new_long > max_size) {
    new_short = static_cast<int>(static_cast<double>(max_size) * new_short / new_long);
    new_long = max_size;
  }
  return width <= height ? std::pair{new_short, new_long} : std::pair{new_long, new_short};
}

int round_up_32(int v) {
  return (v + 31) / 32 * 32;
}

TEST_F(DetectionLoaderTest, SizesThatVaryArePaddedToTheBatchsLargestRoundedUpTo32) {
  // Shorter side 40, longer at most 60: the images' own sizes differ (44x40 to 60x...).
  LoaderOptions o = options("hflip,resize(40,max_size=60)");
  std::map<std::int64_t, std::vector<std::uint8_t>> alone;  // each image in a batch of one
  {
    LoaderOptions one = o;
    one.batch_size = 1;
    Loader loader(one);
    while (std::optional<Batch> batch = loader.next()) {
      const ImageTargets t = batch->targets(0);
      const std::span<const std::uint8_t> pixels = batch->images_u8();
      auto& rows = alone[t.image_id];
      for (int y = 0; y < t.height; ++y) {
        const auto row = pixels.subspan(static_cast<std::size_t>(y) * batch->width() * 3,
                                        static_cast<std::size_t>(t.width) * 3);
        rows.insert(rows.end(), row.begin(), row.end());
      }
    }
  }
  ASSERT_EQ(alone.size(), std::size_t{kImages});
  Loader loader(o);
  std::size_t images = 0;
  while (std::optional<Batch> batch = loader.next()) {
    int most_w = 0, most_h = 0;
    const auto w = static_cast<std::size_t>(batch->width());
    const std::span<const std::uint8_t> pixels = batch->images_u8();
    EXPECT_EQ(batch->shape(), (std::vector<std::int64_t>{static_cast<std::int64_t>(batch->size()),
                                                         batch->height(), batch->width(), 3}));
    ASSERT_EQ(pixels.size(), batch->size() * w * static_cast<std::size_t>(batch->height()) * 3);
    for (std::size_t i = 0; i < batch->size(); ++i, ++images) {
      const ImageTargets t = batch->targets(i);
      const int index = static_cast<int>(t.image_id) - 100;
      EXPECT_EQ(std::pair(t.width, t.height), resized(width_of(index), height_of(index), 40, 60));
      most_w = std::max(most_w, t.width);
      most_h = std::max(most_h, t.height);
      for (const float v : t.boxes) EXPECT_LE(v, static_cast<float>(std::max(t.width, t.height)));
      // The image in the top-left corner, as it is in a batch of its own; black around it.
      const std::uint8_t* image = pixels.data() + i * w * batch->height() * 3;
      std::vector<std::uint8_t> rows;
      for (int y = 0; y < batch->height(); ++y) {
        for (std::size_t x = 0; x < w * 3; ++x) {
          const std::uint8_t v = image[y * w * 3 + x];
          if (y < t.height && x < static_cast<std::size_t>(t.width) * 3) {
            rows.push_back(v);
          } else if (v != 0) {
            ADD_FAILURE() << "image " << t.image_id << " pad at " << x / 3 << "," << y << ": "
                          << int{v};
            return;
          }
        }
      }
      EXPECT_EQ(rows, alone.at(t.image_id)) << "image " << t.image_id;
    }
    EXPECT_EQ(batch->width(), round_up_32(most_w));
    EXPECT_EQ(batch->height(), round_up_32(most_h));
  }
  EXPECT_EQ(images, std::size_t{kImages});
  expect_the_same_epoch_whatever_the_workers(o);
}

TEST_F(DetectionLoaderTest, FloatBatchesOfSizesThatVaryArePaddedWithNormalizedBlack) {
  LoaderOptions o = options("resize(40,max_size=60)");
  o.layout = OutputLayout::kFloat32NCHW;
  Loader loader(o);
  std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch.has_value());
  const ImageTargets t = batch->targets(0);
  const auto plane = static_cast<std::size_t>(batch->width()) * batch->height();
  const std::span<const float> pixels = batch->images_f32();
  const Normalization normalization;
  for (std::size_t c = 0; c < 3; ++c) {
    const float black = -normalization.mean[c] / normalization.std[c];
    EXPECT_NEAR(pixels[c * plane + plane - 1], black, 1e-5) << "channel " << c;
    EXPECT_NEAR(pixels[c * plane + static_cast<std::size_t>(t.width)], black, 1e-5);
  }
}

TEST_F(DetectionLoaderTest, AFlipAloneKeepsEachImagesSizeBoundedByTheAnnotations) {
  // torchvision's reference default (a flip; the model resizes): the batch buffers are sized by
  // the largest image the json states, each batch padded to its own largest.
  Loader loader(options("hflip"));
  std::size_t images = 0;
  while (std::optional<Batch> batch = loader.next()) {
    int most_w = 0, most_h = 0;
    for (std::size_t i = 0; i < batch->size(); ++i, ++images) {
      const ImageTargets t = batch->targets(i);
      EXPECT_EQ(t.width, t.orig_width);
      EXPECT_EQ(t.height, t.orig_height);
      most_w = std::max(most_w, t.width);
      most_h = std::max(most_h, t.height);
    }
    EXPECT_EQ(batch->width(), round_up_32(most_w));
    EXPECT_EQ(batch->height(), round_up_32(most_h));
  }
  EXPECT_EQ(images, std::size_t{kImages});
}

TEST_F(DetectionLoaderTest, SizesThatVaryWithoutABoundAreRefused) {
  // The json states no sizes: nothing bounds a flip's output.
  write_json(
      "{\"id\": 1, \"file_name\": \"img_0.jpg\"}",
      "{\"id\": 9, \"image_id\": 1, \"category_id\": 1, \"bbox\": [2, 2, 5, 5], \"iscrowd\": 0}");
  const std::string error = testing::error_of([&] { Loader loader(options("hflip")); });
  EXPECT_NE(error.find("varies without a bound (the annotations do not state"), std::string::npos)
      << error;
  EXPECT_NE(error.find("resize(S,max_size=M)"), std::string::npos) << error;
}

TEST_F(DetectionLoaderTest, AnImageLargerThanItsAnnotationStatesIsABadSample) {
  // img_9 is 112 x 48; the json says 40 x 36, and the buffers are sized by the json.
  write_json(
      "{\"id\": 1, \"file_name\": \"img_0.jpg\", \"width\": 40, \"height\": 36},"
      "{\"id\": 2, \"file_name\": \"img_9.jpg\", \"width\": 40, \"height\": 36}",
      "{\"id\": 9, \"image_id\": 1, \"category_id\": 1, \"bbox\": [2, 2, 5, 5], \"iscrowd\": 0}");
  LoaderOptions o = options("hflip");
  o.on_bad = BadInputPolicy::kSkip;
  Loader loader(o);
  std::size_t delivered = 0;
  std::string skipped;
  while (std::optional<Batch> batch = loader.next()) {
    delivered += batch->size();
    for (const SkippedSample& s : batch->skipped()) skipped += s.where + ": " + s.reason;
  }
  EXPECT_EQ(delivered, 1u);
  EXPECT_NE(skipped.find("img_9.jpg"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("larger than its annotation states"), std::string::npos) << skipped;
}

}  // namespace
}  // namespace feedrate
