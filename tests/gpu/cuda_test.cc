// The CUDA copier and the loader's device path, on a machine with an NVIDIA GPU; every test
// skips without one. Device results are copied back and compared with the host path.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "decode/layout.h"
#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "gpu/device.h"
#include "gpu/transfer.h"
#include "tests/gpu/cuda_support.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::Stream;
using testing::to_host;

gpu::TransferOptions small_options(gpu::ElementType dtype) {
  gpu::TransferOptions options;
  options.device = gpu::parse_device("cuda:0");
  options.slots = 2;
  options.batch_size = 3;
  options.size = 8;
  options.dtype = dtype;
  const Normalization imagenet;  // what NormalizesOnTheDeviceLikeTheHost compares with
  options.mean = imagenet.mean;
  options.std = imagenet.std;
  return options;
}

void fill(gpu::HostBuffer& staging, std::size_t bytes, int salt) {
  auto* p = reinterpret_cast<std::uint8_t*>(staging.data());
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(i * 31 + salt);
}

TEST(CudaTransfer, CopiesUint8AndLabelsThroughPinnedStaging) {
  SKIP_WITHOUT_GPU();
  const gpu::TransferOptions options = small_options(gpu::ElementType::kUint8);
  auto transfer = gpu::make_transfer(options);
  EXPECT_TRUE(gpu::converts_on_device(options.device));
  const std::size_t bytes = 3 * 8 * 8 * 3;
  gpu::HostBuffer staging = transfer->allocate_staging(bytes);
  EXPECT_TRUE(staging.is_pinned());
  Stream consumer;
  for (int round = 0; round < 3; ++round) {  // the slot is reused after each release
    if (round > 0) {
      // The consumer synchronised on the copy: its staging must be free, and stays so.
      EXPECT_TRUE(transfer->staging_idle(0));
    }
    fill(staging, bytes, round);
    const std::int32_t labels[3] = {round, 7, 9};
    transfer->submit(0, staging, labels, 3, 8 * 8);
    transfer->wait(0, consumer.stream);
    ASSERT_EQ(cudaStreamSynchronize(consumer.stream), cudaSuccess);
    const gpu::DeviceBatch out = transfer->output(0, staging, nullptr);
    EXPECT_TRUE(out.device.is_cuda());
    const auto images = to_host<std::uint8_t>(out.images, bytes);
    EXPECT_EQ(std::memcmp(images.data(), staging.data(), bytes), 0) << "round " << round;
    const auto device_labels = to_host<std::int32_t>(out.labels, 3);
    EXPECT_EQ(device_labels, (std::vector<std::int32_t>{round, 7, 9}));
    transfer->release(0);
  }
}

TEST(CudaTransfer, NormalizesOnTheDeviceLikeTheHost) {
  SKIP_WITHOUT_GPU();
  for (gpu::ElementType dtype : {gpu::ElementType::kFloat32, gpu::ElementType::kFloat16}) {
    const gpu::TransferOptions options = small_options(dtype);
    auto transfer = gpu::make_transfer(options);
    const std::size_t pixels = 8 * 8, bytes = 3 * pixels * 3;
    gpu::HostBuffer staging = transfer->allocate_staging(bytes);
    fill(staging, bytes, 5);
    const std::int32_t labels[3] = {0, 1, 2};
    transfer->submit(1, staging, labels, 3, 8 * 8);
    transfer->wait(1, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const gpu::DeviceBatch out = transfer->output(1, staging, nullptr);
    std::vector<float> expected(bytes);
    Normalization normalization;
    for (int n = 0; n < 3; ++n) {
      decode::hwc_to_chw_normalized(
          reinterpret_cast<const std::uint8_t*>(staging.data()) + n * pixels * 3, pixels,
          normalization, expected.data() + n * pixels * 3);
    }
    std::vector<float> actual(bytes);
    if (dtype == gpu::ElementType::kFloat32) {
      actual = to_host<float>(out.images, bytes);
    } else {
      const auto halves = to_host<__half>(out.images, bytes);
      for (std::size_t i = 0; i < bytes; ++i) actual[i] = __half2float(halves[i]);
    }
    const float tolerance = dtype == gpu::ElementType::kFloat32 ? 1e-5f : 4e-3f;
    for (std::size_t i = 0; i < bytes; ++i) {
      ASSERT_NEAR(actual[i], expected[i], tolerance * std::max(1.0f, std::abs(expected[i])))
          << gpu::element_name(dtype) << " at " << i;
    }
  }
}

TEST(CudaLoader, DeliversTheHostPathsBatchesOnTheDevice) {
  SKIP_WITHOUT_GPU();
  testing::TempDir dir;
  testing::make_image_folder(dir.path(), 20, 2);
  LoaderOptions o;
  o.source = dir.path().string();
  o.batch_size = 8;
  o.transform.size = 32;
  o.rank = 0;
  o.world_size = 1;
  Loader host(o);
  o.device = "cuda:0";
  Loader device(o);
  EXPECT_EQ(device.stats().device, "cuda:0");
  Stream consumer;
  while (std::optional<Batch> expected = host.next()) {
    std::optional<Batch> actual = device.next();
    ASSERT_TRUE(actual.has_value());
    EXPECT_EQ(actual->device(), "cuda:0");
    EXPECT_THROW(actual->images_u8(), Error);
    actual->wait(consumer.stream);
    ASSERT_EQ(cudaStreamSynchronize(consumer.stream), cudaSuccess);
    const auto images = to_host<std::uint8_t>(actual->data(), expected->images_u8().size());
    EXPECT_TRUE(std::equal(images.begin(), images.end(), expected->images_u8().begin()));
    const auto labels = to_host<std::int32_t>(actual->label_data(), expected->size());
    EXPECT_TRUE(std::equal(labels.begin(), labels.end(), expected->labels().begin()));
    DLManagedTensor* tensor = actual->images_dlpack();
    EXPECT_EQ(tensor->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(tensor->dl_tensor.data, actual->data());
    tensor->deleter(tensor);
  }
  EXPECT_FALSE(device.next().has_value());
}

TEST(CudaLoader, Float16LayoutOnTheDevice) {
  SKIP_WITHOUT_GPU();
  testing::TempDir dir;
  testing::make_image_folder(dir.path(), 8, 2);
  LoaderOptions o;
  o.source = dir.path().string();
  o.batch_size = 4;
  o.transform.size = 16;
  o.rank = 0;
  o.world_size = 1;
  o.device = "cuda";
  o.layout = OutputLayout::kFloat16NCHW;
  Loader loader(o);
  std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->shape(), (std::vector<std::int64_t>{4, 3, 16, 16}));
  DLManagedTensor* tensor = batch->images_dlpack();
  EXPECT_EQ(tensor->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(tensor->dl_tensor.dtype.bits, 16);
  tensor->deleter(tensor);
}

}  // namespace
}  // namespace feedrate
