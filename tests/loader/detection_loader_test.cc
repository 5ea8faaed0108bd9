// Detection datasets through the Loader's C++ API: a COCO json written here, its images decoded
// whole and moved by the detection transform with their boxes, each image delivered once an
// epoch with its targets (Batch::targets), the same batches whatever the workers and after a
// resume, and the bad entries named.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
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

}  // namespace
}  // namespace feedrate
