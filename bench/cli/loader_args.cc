#include "bench/cli/loader_args.h"

#include <fmt/core.h>

#include <string>
#include <string_view>

#include "feedrate/error.h"
#include "loader/pipeline/option_bounds.h"

namespace feedrate::bench {
namespace {

// The range of LoaderOptions' `name` (loader/pipeline/option_bounds.h) for a flag that takes it
// in units of `unit` (--tar-chunk-kb: 1024 bytes).
CLI::Validator bounds_of(std::string_view name, double unit = 1) {
  const OptionBound& bound = option_bound(name);
  if (bound.integral) {
    return CLI::Range(static_cast<long long>(bound.low / unit),
                      static_cast<long long>(bound.high / unit));
  }
  return CLI::Range(bound.low / unit, bound.high / unit);
}

}  // namespace

LoaderArgOptions add_loader_options(CLI::App* command, LoaderArgs* args) {
  LoaderArgOptions added;
  command->add_option("DATASET", args->dataset,
                      "Image folder, file list, tar shard, folder of shards, a glob of shards, "
                      "or a URL (s3://bucket/prefix/, https://host/shard-{000..009}.tar, a file "
                      "list or a pack's index.json; docs/remote.md) (default: the generated "
                      "default dataset)");
  added.workers = command
                      ->add_option("-w,--workers", args->workers,
                                   "Decode threads (0: on the consumer's thread; default: the "
                                   "cores available, where Python's num_workers defaults to 1)")
                      ->check(bounds_of("num_workers"))
                      ->capture_default_str();
  command->add_option("-b,--batch", args->batch, "Batch size")
      ->check(bounds_of("batch_size"))
      ->capture_default_str();
  command
      ->add_option("-t,--transform", args->transform,
                   "train, eval, or a spec such as \"rrc(176),hflip,ta_wide,normalize,erase(0.1)\" "
                   "(docs/augmentations.md); train and eval take --size. With --annotations: a "
                   "detection recipe, ssd, yolo or steps such as "
                   "\"photometric,zoom_out,iou_crop,hflip,resize(300,300),sanitize\" "
                   "(docs/detection.md); default resize(SIZE,SIZE)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            std::string problem = transform_problem(text);
            if (problem.empty()) return problem;
            try {
              parse_detection_transform(text);
              return std::string();
            } catch (const Error&) {
              return problem;
            }
          },
          "SPEC"))
      ->capture_default_str();
  command->add_option("--size", args->size, "Output side in pixels")
      ->check(bounds_of("size"))
      ->capture_default_str();
  command->add_option("--on-bad", args->on_bad, "Bad sample policy: error or skip")
      ->check(CLI::IsMember(policy_names()))
      ->capture_default_str();
  command
      ->add_option("--fields", args->fields,
                   "What each sample carries after its image, comma-separated: tar members by "
                   "extension (txt,json; txt;caption for the first of several) or a "
                   "manifest's columns, cls, __key__; "
                   "\"\" for the image alone; default cls (docs/image-text.md)")
      ->delimiter(',');
  command->add_option("--image", args->image,
                      "Tar shards: the image member's extensions in order (jpg;png); default: "
                      "any. A manifest: the image column (default: image, path, file, filepath "
                      "or url)");
  command->add_option("--annotations", args->annotations,
                      "Detection: a COCO instances .json, a YOLO data.yaml or a Pascal VOC "
                      "Annotations/ folder for the images of DATASET (docs/detection.md)");
  command
      ->add_option("--labels", args->labels,
                   "Detection: category_id (the source's ids), contiguous (1..C) or zero_based")
      ->check(CLI::IsMember(label_mode_names()))
      ->capture_default_str();
  command
      ->add_option("--on-missing", args->on_missing,
                   "A sample without a requested member: skip (listed) or error")
      ->check(CLI::IsMember(policy_names()))
      ->capture_default_str();
  command
      ->add_option("--layout", args->layout,
                   "uint8 (NHWC), float32 or float16 (normalised NCHW; float16 on CUDA only)")
      ->check(CLI::IsMember(layout_names()))
      ->capture_default_str();
  command->add_option("--device", args->device, "cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--seed", args->seed, "Shuffle and augmentation seed")->capture_default_str();
  added.no_shuffle =
      command->add_flag("--no-shuffle", args->no_shuffle, "Storage order (as --shuffle none)");
  added.shuffle = command
                      ->add_option("--shuffle", args->shuffle,
                                   "full (a permutation), blocks (storage blocks in windows: "
                                   "sequential reads) or none (storage order)")
                      ->check(CLI::IsMember(shuffle_names()))
                      ->excludes(added.no_shuffle)
                      ->capture_default_str();
  added.shuffle_window_mb =
      command
          ->add_option("--shuffle-window-mb", args->shuffle_window_mb,
                       "--shuffle blocks: shuffle together the samples of this many MB of blocks")
          ->check(bounds_of("shuffle_window_mb"))
          ->capture_default_str();
  CLI::Option* prefetch_batches =
      command
          ->add_option("--prefetch-batches", args->prefetch_batches,
                       "Batches in flight at most (the memory budget may allow fewer)")
          ->check(bounds_of("prefetch_batches"))
          ->capture_default_str();
  // Its former name: still read, with a note on stderr; not in --help. Not both: checked here,
  // once the whole line is parsed, because CLI11's excludes() would name the hidden option as ""
  // in its error and list it after an empty "Excludes:" in --help.
  command->add_option("--prefetch", args->prefetch_batches)
      ->check(bounds_of("prefetch_batches"))
      ->each([prefetch_batches](const std::string&) {
        if (prefetch_batches->count() > 0) {
          throw CLI::ExcludesError("--prefetch", "--prefetch-batches");
        }
        fmt::print(stderr, "feedrate: --prefetch is deprecated; use --prefetch-batches\n");
      })
      ->group("");
  command
      ->add_option("--memory-budget-mb", args->memory_budget_mb,
                   "Cap the memory of the batches in flight (0: a quarter of what this process "
                   "may use: the container's memory limit where one is set, else the RAM)")
      ->check(bounds_of("memory_budget_mb"))
      ->capture_default_str();
  command
      ->add_option("--queue-depth", args->queue_depth,
                   "Reads in flight (a remote source: GETs in flight, at most 1024)")
      ->check(bounds_of("io_queue_depth"))
      ->capture_default_str();
  command->add_flag("--pread", args->pread, "Use pread instead of io_uring");
  command->add_flag("--direct", args->direct, "O_DIRECT reads (buffered where refused)");
  command
      ->add_option(
          "--tar-chunk-kb", args->tar_chunk_kb,
          "Tar shards: read nearby members as one chunk of up to this size (0: per member)")
      ->check(bounds_of("tar_chunk_bytes", 1024))
      ->capture_default_str();
  command->add_option("--throttle", args->throttle,
                      "Emulate a disk: hdd, sata-ssd, network, nvme or MBPS[,IOPS[,LATENCY_US]]");
  command->add_option("--cache-dir", args->cache_dir,
                      "Pack cache: transcode the JPEGs read into this folder with spare CPU (as "
                      "feedrate pack does) and read them from there in later epochs; the same "
                      "batches. A remote source's samples are stored as they arrive, unchanged");
  command
      ->add_option("--cache-gb", args->cache_gb,
                   "Cap of the pack cache in GB (0: none, but 5% of the disk stays free)")
      ->check(bounds_of("cache_gb"))
      ->capture_default_str();
  return added;
}

LoaderOptions loader_options(const LoaderArgs& args) {
  LoaderOptions options;
  options.source = args.dataset;
  options.num_workers = args.workers;
  options.batch_size = args.batch;
  options.shuffle = args.no_shuffle ? ShuffleMode::kNone : parse_shuffle(args.shuffle);
  options.shuffle_window_mb = args.shuffle_window_mb;
  options.seed = args.seed;
  options.annotations = args.annotations;
  options.labels = parse_label_mode(args.labels);
  if (args.annotations.empty()) {
    options.transform = parse_transform(args.transform, args.size);
  } else {
    const std::string size = std::to_string(args.size);
    options.detection = parse_detection_transform(args.transform == LoaderArgs{}.transform
                                                      ? "resize(" + size + "," + size + ")"
                                                      : args.transform);
  }
  options.on_bad = parse_policy(args.on_bad);
  options.on_missing = parse_policy(args.on_missing, "on_missing");
  options.fields.clear();
  for (const std::string& field : args.fields) {
    if (!field.empty()) options.fields.push_back(field);
  }
  options.image = args.image;
  options.layout = parse_layout(args.layout);
  options.device = args.device;
  options.prefetch_batches = args.prefetch_batches;
  options.memory_budget_mb = args.memory_budget_mb;
  options.io_queue_depth = args.queue_depth;
  options.force_pread = args.pread;
  options.direct_io = args.direct;
  options.throttle = args.throttle;
  options.tar_chunk_bytes = args.tar_chunk_kb << 10;
  options.cache_dir = args.cache_dir;
  options.cache_gb = args.cache_gb;
  return options;
}

void check_loader_options(const LoaderOptions& options) {
  LoaderOptions checked = options;
  // The dataset is checked when it is opened; a missing one is the default dataset, made later.
  if (checked.source.empty()) checked.source = "the default dataset";
  resolve(checked);
}

}  // namespace feedrate::bench
