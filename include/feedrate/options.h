// Options of a Loader, validated in one place. A wrong value makes resolve() throw
// feedrate::Error naming the option and its allowed range. The options that take a word (layout,
// on_bad, shuffle) have one table each here, read by their parse_*() and *_names() for
// the command line and the Python module alike. Thread-safety: a plain value; the tables are const.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feedrate/decode_spec.h"
#include "feedrate/export.h"

namespace feedrate {

enum class BadInputPolicy {
  kError,  // the epoch stops with the sample's error
  kSkip,   // the sample is skipped, counted and listed in the batch and the run summary
};

enum class OutputLayout {
  kUint8NHWC,    // batch x size x size x 3 bytes
  kFloat32NCHW,  // batch x 3 x size x size floats, ((x / 255) - mean) / std
  kFloat16NCHW,  // the same in half precision; CUDA devices only (converted on the GPU)
};

// LoaderOptions::annotations for tar shards whose KEY.json holds each image's annotations.
inline constexpr std::string_view kAnnotationsInShards = "json";
// LoaderOptions::masks for COCO's instance masks (anything else names a folder of label maps).
inline constexpr std::string_view kInstanceMasks = "instances";

// How a detection source's category ids become labels (LoaderOptions::labels). kCategoryId: the
// source's own ids (COCO's 1..90, YOLO's class ids, a VOC class's index in the class list);
// kContiguous: 1..C in ascending id order, 0 left for the background, as torchvision's detection
// models expect; kZeroBased: 0..C-1 in that order, as YOLO heads take.
enum class LabelMode { kCategoryId, kContiguous, kZeroBased };

// The order of an epoch's samples (loader/pipeline/sampler.h).
enum class ShuffleMode {
  kFull,    // a seeded permutation of every sample
  kBlocks,  // storage blocks of about tar_chunk_bytes in a seeded order, shuffled in windows
  kNone,    // storage order (the dataset index's order)
};

struct LoaderOptions {
  // Dataset: an ImageFolder root, a file list (text file of "relative/path label" lines), a tar
  // shard, a directory of tar shards, a glob of tar shards ("shards/train-*.tar") or a brace
  // pattern of them ("shards/{00000..00099}.tar", each must exist), or a manifest
  // (.jsonl or .csv rows naming an image and its columns, docs/image-text.md); or a URL,
  // s3://bucket/prefix/ (S3 or an S3-compatible store) or https://host/path, naming a prefix, a
  // brace pattern of shards ("https://host/train-{000000..000127}.tar"), a file list or a pack's
  // index.json (docs/remote.md).
  std::string source;
  bool allow_paths_outside_root = false;  // file lists, manifests: accept absolute, "../" paths
  bool allow_empty_classes = false;       // ImageFolder: a class folder without images is no error

  // What each sample delivers after its image, in this order (feedrate/fields.h,
  // docs/image-text.md): tar members by extension ("txt", "json", "txt;caption" for the first
  // of several), "cls" for the class label, "__key__" for the sample's key. Folders and file
  // lists give "cls" and "__key__"; a manifest's fields name its columns ("cls": the column cls
  // or label). Empty: the image alone.
  std::vector<std::string> fields = {"cls"};
  // Tar shards: the image member's extensions in order of preference ("jpg;png"); empty: any
  // image extension, the first in the archive. A manifest: one name that is no image extension
  // names the image column ("url"); empty: the first of image, path, file, filepath, url.
  std::string image;
  // A sample without a requested field, or a key without an image (a manifest's row without
  // a column or an image file): kSkip leaves it out of the index (counted and listed in the
  // report, and the batches keep their size); kError stops at start, naming the shard and the
  // key (the manifest and the line).
  BadInputPolicy on_missing = BadInputPolicy::kSkip;

  // Detection and segmentation (docs/detection.md): the annotations of the images under
  // `source`, read once at start: a COCO instances .json (source: its image folder), a YOLO
  // data.yaml or labels/ folder (source: its images folder), or a Pascal VOC Annotations/ folder
  // (source: the VOC root or its JPEGImages/), or "json": tar shards whose KEY.json holds each
  // image's COCO-style annotations (local shards). Empty: a classification dataset. With
  // annotations, `detection` is the transform and batches carry each image's boxes
  // (Batch::targets()).
  std::string annotations;
  LabelMode labels = LabelMode::kCategoryId;
  // Masks moved with the pixels (nearest sampling): "instances" rasterizes COCO's segmentations,
  // one plane per box (pycocotools' annToMask); a folder holds semantic label maps (one-channel
  // or palette PNGs, read as indices) matched to the images by file stem, with or without
  // annotations (then the images of `source` carry a label map and no boxes). Empty: none.
  std::string masks;
  DetectionSpec detection;

  std::size_t batch_size = 64;
  int num_workers = 1;  // decode threads; 0 decodes on the consumer's thread
  ShuffleMode shuffle = ShuffleMode::kFull;
  // kBlocks: the samples of as many storage blocks as fit in this many MB (1 MB = 10^6 bytes)
  // are shuffled together. On tar shards the reader holds blocks whole: up to this window plus
  // the next one, taken out of memory_budget_mb. 128: the smallest window measured to keep
  // batches above 90% of a full shuffle's distinct labels on class-sorted shards (README).
  std::size_t shuffle_window_mb = 128;
  std::uint64_t seed = 0;
  bool drop_last = false;  // drop the last incomplete batch of each epoch

  // Distributed sharding with torch DistributedSampler semantics. -1 reads RANK / WORLD_SIZE
  // from the environment (set by torchrun and friends), defaulting to 0 and 1.
  int rank = -1;
  int world_size = -1;
  bool pad_shards = true;  // pad so every rank gets as many samples; false drops the tail

  // What each sample becomes; float layouts are normalised with transform.normalization.
  TransformSpec transform;
  OutputLayout layout = OutputLayout::kUint8NHWC;
  // kSkip: a batch takes the next samples of the epoch in place of the skipped ones (at the
  // epoch's end, with pad_shards, the epoch's first samples), so batches keep batch_size;
  // batches whose size varies (DetectionSpec::varies) are shortened instead.
  BadInputPolicy on_bad = BadInputPolicy::kError;
  std::uint64_t max_pixels = 100'000'000;
  // A JPEG on which libjpeg warns (corrupt but decodable): kAccept decodes what it recovers,
  // as PIL does; kReject makes it a bad sample (then on_bad decides).
  WarningPolicy on_warning = WarningPolicy::kAccept;

  // Where batches are delivered: "cpu" (host memory) or "cuda" / "cuda:N" (pinned staging,
  // asynchronous copies, uint8 over PCIe and the float conversion on the GPU).
  std::string device = "cpu";

  // The training rate the verdict measures the loader against, when known (images/s); 0 infers
  // it from the time the consumer spends between next() calls.
  double training_images_per_s = 0;
  // Record a timeline of every stage (Loader::trace()); costs a lock per recorded span.
  bool trace = false;

  std::size_t prefetch_batches = 3;  // batch slots: one held by the consumer, two in flight
  // Caps the memory of the batches in flight (their images and encoded bytes): the number of
  // slots becomes min(prefetch_batches, what fits). 0: a quarter of the memory this process may
  // use (the container's limit, cgroup memory.max, where one is set; else the RAM). A budget too
  // small for one batch is an error at start.
  std::size_t memory_budget_mb = 0;
  unsigned io_queue_depth = 64;  // reads in flight; a remote source's GETs, at most 1024
  bool force_pread = false;      // skip io_uring
  bool direct_io = false;        // O_DIRECT reads (buffered where the file system refuses)
  // Emulate a slower disk: "hdd", "sata-ssd", "nvme" or "MBPS[,IOPS[,LATENCY_US]]"; empty: none.
  std::string throttle;
  // Tar shards: members close together in a shard are read as one sequential chunk of up to
  // this many bytes (0: one read per member). Folders and file lists read one file per sample.
  std::uint64_t tar_chunk_bytes = std::uint64_t{4} << 20;

  // The local cache of the source, read by later epochs instead of the source: the same batches.
  // A local source gets the pack cache (docs/pack-cache.md): the JPEGs read are also transcoded
  // losslessly with restart markers (as `feedrate pack` does) into a folder under cache_dir,
  // with CPU that delivery does not need, so that they decode faster; other formats, and JPEGs
  // the packer declines, are stored unchanged. That folder is keyed by the source's paths,
  // sizes, modification times and index (a changed source gets a new one). A remote source
  // (s3://, https://) gets no transcoding: every sample is stored as it arrives, unchanged, in
  // cache_dir/remote-<key>/, keyed by the source, its index and every object's size and ETag
  // (docs/remote.md). Either folder may be shared by the loaders of one machine. cache_gb caps
  // its size (GB, 10^9 bytes; 0: no cap, but 5% of the disk stays free; the pack cache keeps
  // at least 1 GiB free).
  std::string cache_dir;
  double cache_gb = 0;
};

// Fills rank / world_size from the environment where they are -1, then checks every field.
// Throws feedrate::Error on the first invalid one.
FEEDRATE_API LoaderOptions resolve(LoaderOptions options);

// A word of an option's vocabulary and the value it stands for.
template <typename T>
struct Word {
  const char* text;
  T value;
};

template <typename T, std::size_t N>
std::vector<std::string> texts_of(const std::array<Word<T>, N>& words) {
  std::vector<std::string> texts;
  for (const Word<T>& word : words) texts.emplace_back(word.text);
  return texts;
}

// Throws feedrate::Error "option OPTION: 'TEXT' is not one of A, B, C".
[[noreturn]] FEEDRATE_API void throw_not_one_of(std::string_view option, std::string_view text,
                                                const std::vector<std::string>& allowed);

// The value of `text` in `words`, the vocabulary of option `option`; throws as above otherwise.
template <typename T, std::size_t N>
T parse_word(std::string_view option, std::string_view text, const std::array<Word<T>, N>& words) {
  for (const Word<T>& word : words) {
    if (text == word.text) return word.value;
  }
  throw_not_one_of(option, text, texts_of(words));
}

// The text of `value` in `words`, or "unknown".
template <typename T, std::size_t N>
const char* name_of(T value, const std::array<Word<T>, N>& words) {
  for (const Word<T>& word : words) {
    if (word.value == value) return word.text;
  }
  return "unknown";
}

// Option layout: "uint8" (NHWC), "float32" or "float16" (NCHW), named by the element type as
// the command line's --layout and Python's dtype take it. `option` names the option in the
// error (Python calls it dtype).
FEEDRATE_API std::vector<std::string> layout_names();
FEEDRATE_API OutputLayout parse_layout(std::string_view text, std::string_view option = "layout");
// The layout in full for reports and messages: "uint8-nhwc", "float32-nchw", "float16-nchw".
FEEDRATE_API const char* layout_name(OutputLayout layout);

// Options on_bad and on_missing: "error" or "skip".
FEEDRATE_API std::vector<std::string> policy_names();
FEEDRATE_API BadInputPolicy parse_policy(std::string_view text, std::string_view option = "on_bad");
FEEDRATE_API const char* policy_name(BadInputPolicy policy);

// Option shuffle: "full", "blocks" or "none".
FEEDRATE_API std::vector<std::string> shuffle_names();
FEEDRATE_API ShuffleMode parse_shuffle(std::string_view text);
FEEDRATE_API const char* shuffle_name(ShuffleMode mode);

// Option labels: "category_id", "contiguous" or "zero_based".
FEEDRATE_API std::vector<std::string> label_mode_names();
FEEDRATE_API LabelMode parse_label_mode(std::string_view text);
FEEDRATE_API const char* label_mode_name(LabelMode mode);

// A detection transform as text (docs/detection.md: "ssd", "ssd(320)", "yolo(640)", or steps
// such as "photometric,zoom_out,iou_crop,hflip,resize(300,300),sanitize,normalize"). Throws
// feedrate::Error naming the step and argument at fault, or a spec that does not end at one
// square size.
FEEDRATE_API DetectionSpec parse_detection_transform(std::string_view text);

// Option transform as a spec text (docs/augmentations.md: "train", "eval", or steps such as
// "rrc(176),hflip,ta_wide,normalize,erase(0.1)"); `size` is train's and eval's output size.
// Throws feedrate::Error naming the step and argument at fault. resolve() then checks the
// spec against the layout: normalize needs a float layout, erase(value=random) too, and erase is
// refused on float batches converted on a CUDA device.
FEEDRATE_API TransformSpec parse_transform(std::string_view text, int size);
// What is wrong with the spec text `text`, or an empty string (a command-line validator).
FEEDRATE_API std::string transform_problem(const std::string& text);

}  // namespace feedrate
