// The loader's device path as a whole, on a machine with an NVIDIA GPU (every test skips
// without one): in each layout the device holds exactly the host path's bytes, and the device
// memory the loader holds does not grow with the batches it delivers.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "feedrate/loader.h"
#include "gpu/device.h"
#include "tests/gpu/cuda_support.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::Stream;

std::vector<unsigned char> device_bytes(const void* device, std::size_t bytes,
                                        cudaStream_t stream) {
  std::vector<unsigned char> host(bytes);
  EXPECT_EQ(cudaMemcpyAsync(host.data(), device, bytes, cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return host;
}

// The bytes a host batch stands for in `layout`: itself, or for float16 (which the host path
// does not produce) its float32 values rounded to nearest even, as the device converts them.
std::vector<unsigned char> expected_bytes(const Batch& host, OutputLayout layout) {
  if (layout == OutputLayout::kUint8NHWC) {
    const auto images = host.images_u8();
    return {images.begin(), images.end()};
  }
  const auto floats = host.images_f32();
  if (layout == OutputLayout::kFloat32NCHW) {
    std::vector<unsigned char> bytes(floats.size_bytes());
    std::memcpy(bytes.data(), floats.data(), bytes.size());
    return bytes;
  }
  std::vector<unsigned char> bytes(floats.size() * sizeof(__half));
  for (std::size_t i = 0; i < floats.size(); ++i) {
    const __half h = __float2half_rn(floats[i]);
    std::memcpy(bytes.data() + i * sizeof(__half), &h, sizeof(__half));
  }
  return bytes;
}

std::size_t first_difference(const std::vector<unsigned char>& a,
                             const std::vector<unsigned char>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

TEST(CudaDelivery, EveryLayoutHoldsTheHostPathsBytes) {
  SKIP_WITHOUT_GPU();
  testing::TempDir dir;
  testing::make_image_folder(dir.path(), 24, 3);
  Stream consumer(cudaStreamNonBlocking);  // a training stream of its own
  for (OutputLayout layout :
       {OutputLayout::kUint8NHWC, OutputLayout::kFloat32NCHW, OutputLayout::kFloat16NCHW}) {
    SCOPED_TRACE(layout_name(layout));
    LoaderOptions o;
    o.source = dir.path().string();
    o.batch_size = 5;  // the last batch is partial
    o.transform.size = 24;
    o.rank = 0;
    o.world_size = 1;
    o.layout = layout == OutputLayout::kFloat16NCHW ? OutputLayout::kFloat32NCHW : layout;
    Loader host(o);
    o.layout = layout;
    o.device = "cuda:0";
    Loader device(o);
    std::size_t batches = 0;
    while (std::optional<Batch> expected = host.next()) {
      std::optional<Batch> actual = device.next();
      ASSERT_TRUE(actual.has_value()) << "batch " << batches;
      ASSERT_EQ(actual->shape(), expected->shape()) << "batch " << batches;
      actual->wait(consumer.stream);
      const std::vector<unsigned char> want = expected_bytes(*expected, layout);
      const std::vector<unsigned char> got =
          device_bytes(actual->data(), want.size(), consumer.stream);
      EXPECT_EQ(first_difference(got, want), want.size())
          << "batch " << batches << ": the device's bytes differ from the host path's";
      std::vector<std::int32_t> labels(expected->size());
      ASSERT_EQ(cudaMemcpy(labels.data(), actual->label_data(),
                           labels.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost),
                cudaSuccess);
      EXPECT_TRUE(std::equal(labels.begin(), labels.end(), expected->labels().begin()));
      ++batches;
    }
    EXPECT_EQ(batches, 5u);
    EXPECT_FALSE(device.next().has_value());
  }
}

std::size_t device_bytes_in_use() {
  std::size_t free = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  return total - free;
}

// Over 1,000 batches (many epochs), the device memory in use stays where it was after the
// first epoch: slots are reused, nothing is allocated per batch. cudaMemGetInfo counts the
// whole device in 2 MiB pages, so one page of slack is allowed; a batch is 36 KiB on the
// device here (uint8 and float16), and a leak of even 4 KiB per batch would add 4 MB.
TEST(CudaDelivery, DeviceMemoryStaysFlatOverAThousandBatches) {
  SKIP_WITHOUT_GPU();
  testing::TempDir dir;
  testing::make_image_folder(dir.path(), 40, 4);
  LoaderOptions o;
  o.source = dir.path().string();
  o.batch_size = 4;
  o.transform.size = 32;
  o.rank = 0;
  o.world_size = 1;
  o.device = "cuda:0";
  o.layout = OutputLayout::kFloat16NCHW;
  Loader loader(o);
  Stream consumer(cudaStreamNonBlocking);
  constexpr std::size_t kBatches = 1000;
  std::size_t batches = 0, after_first_epoch = 0;
  for (std::uint64_t epoch = 0; batches < kBatches; ++epoch) {
    loader.start_epoch(epoch);
    while (batches < kBatches) {
      std::optional<Batch> batch = loader.next();
      if (!batch) break;
      batch->wait(consumer.stream);
      ++batches;
    }
    ASSERT_EQ(cudaStreamSynchronize(consumer.stream), cudaSuccess);
    if (epoch == 0) after_first_epoch = device_bytes_in_use();
  }
  const std::size_t at_end = device_bytes_in_use();
  RecordProperty("device_bytes_after_first_epoch", std::to_string(after_first_epoch));
  RecordProperty("device_bytes_after_1000_batches", std::to_string(at_end));
  EXPECT_EQ(batches, kBatches);
  EXPECT_LE(at_end, after_first_epoch + (std::size_t{2} << 20))
      << "device memory grew from " << after_first_epoch << " to " << at_end << " bytes";
}

}  // namespace
}  // namespace feedrate
