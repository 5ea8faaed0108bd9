// gpu/ without a GPU: device names and errors, the host backend of the copier, DLPack export,
// and the loader's device option and DLPack leases. Runs on every machine.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "gpu/device.h"
#include "gpu/dlpack_export.h"
#include "gpu/transfer.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(Device, ParsesNamesAndRejectsOthers) {
  EXPECT_FALSE(gpu::parse_device("cpu").is_cuda());
  EXPECT_FALSE(gpu::parse_device("host").is_cuda());
  EXPECT_EQ(gpu::parse_device("cuda").name(), "cuda:0");
  EXPECT_EQ(gpu::parse_device("cuda:3").index, 3);
  EXPECT_EQ(gpu::parse_device("host").name(), "host");
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", ""}) {
    EXPECT_NE(message_of([&] { gpu::parse_device(bad); }).find("is not one of"), std::string::npos)
        << bad;
  }
}

TEST(Device, RequireExplainsAMissingDevice) {
  EXPECT_NO_THROW(gpu::require(gpu::Device{}));
  const std::string message = message_of([] { gpu::require(gpu::parse_device("cuda:99")); });
  EXPECT_NE(message.find("device cuda:99 requested"), std::string::npos) << message;
  if (!gpu::cuda_built()) {
    EXPECT_NE(message.find("built without CUDA"), std::string::npos) << message;
    EXPECT_TRUE(gpu::cuda_devices().empty());
  }
}

TEST(ElementType, SizesAndNames) {
  EXPECT_EQ(gpu::element_size(gpu::ElementType::kUint8), 1u);
  EXPECT_EQ(gpu::element_size(gpu::ElementType::kFloat16), 2u);
  EXPECT_EQ(gpu::element_size(gpu::ElementType::kInt32), 4u);
  EXPECT_EQ(gpu::element_size(gpu::ElementType::kFloat32), 4u);
  EXPECT_STREQ(gpu::element_name(gpu::ElementType::kFloat16), "float16");
  EXPECT_STREQ(gpu::element_name(gpu::ElementType::kInt32), "int32");
}

TEST(HostTransfer, StagingIsTheOutput) {
  gpu::TransferOptions options;
  options.dtype = gpu::ElementType::kFloat32;
  auto transfer = gpu::make_transfer(options);
  EXPECT_FALSE(gpu::converts_on_device(options.device));
  gpu::HostBuffer staging = transfer->allocate_staging(1000);
  EXPECT_FALSE(staging.is_pinned());
  std::int32_t labels[2] = {4, 5};
  transfer->submit(0, staging, labels, 2, 4);
  const gpu::DeviceBatch out = transfer->output(0, staging, labels);
  EXPECT_EQ(out.images, staging.data());
  EXPECT_EQ(out.labels, labels);
  EXPECT_EQ(out.dtype, gpu::ElementType::kFloat32);
  EXPECT_FALSE(out.device.is_cuda());
}

TEST(DlpackExport, DescribesTheTensorAndCallsBackOnce) {
  int deleted = 0;
  float data[6] = {};
  const std::int64_t shape[2] = {2, 3};
  DLManagedTensor* tensor = gpu::make_dlpack_tensor(
      data, gpu::parse_device("cuda:1"), gpu::ElementType::kFloat16, shape, [&] { ++deleted; });
  EXPECT_EQ(tensor->dl_tensor.data, data);
  EXPECT_EQ(tensor->dl_tensor.ndim, 2);
  EXPECT_EQ(tensor->dl_tensor.shape[0], 2);
  EXPECT_EQ(tensor->dl_tensor.shape[1], 3);
  EXPECT_EQ(tensor->dl_tensor.strides, nullptr);
  EXPECT_EQ(tensor->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(tensor->dl_tensor.device.device_id, 1);
  EXPECT_EQ(tensor->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(tensor->dl_tensor.dtype.bits, 16);
  EXPECT_EQ(deleted, 0);
  tensor->deleter(tensor);
  EXPECT_EQ(deleted, 1);
}

class LoaderDevice : public ::testing::Test {
 protected:
  void SetUp() override { testing::make_image_folder(dir_.path(), 12, 2); }
  LoaderOptions options() const {
    LoaderOptions o;
    o.source = dir_.path().string();
    o.batch_size = 4;
    o.transform.size = 16;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  testing::TempDir dir_;
};

TEST_F(LoaderDevice, BadDeviceOptionsAreNamed) {
  LoaderOptions o = options();
  o.device = "tpu";
  EXPECT_NE(message_of([&] { Loader loader(o); }).find("option device 'tpu'"), std::string::npos);
  o.device = "cuda:99";
  EXPECT_NE(message_of([&] { Loader loader(o); }).find("device cuda:99 requested"),
            std::string::npos);
  o.device = "cpu";
  o.layout = OutputLayout::kFloat16NCHW;
  EXPECT_NE(message_of([&] { Loader loader(o); }).find("float16-nchw needs a CUDA device"),
            std::string::npos);
}

TEST_F(LoaderDevice, HostBatchesExportAsDlpackWithoutCopy) {
  Loader loader(options());
  std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->device(), "host");
  EXPECT_EQ(loader.stats().device, "host");
  batch->wait(nullptr);  // a no-op on the host
  DLManagedTensor* images = batch->images_dlpack();
  DLManagedTensor* labels = batch->labels_dlpack();
  EXPECT_EQ(images->dl_tensor.data, batch->images_u8().data());
  EXPECT_EQ(images->dl_tensor.data, batch->data());
  EXPECT_EQ(images->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(images->dl_tensor.ndim, 4);
  const std::int64_t expected[4] = {4, 16, 16, 3};
  for (int d = 0; d < 4; ++d) EXPECT_EQ(images->dl_tensor.shape[d], expected[d]);
  EXPECT_EQ(images->dl_tensor.dtype.code, kDLUInt);
  EXPECT_EQ(labels->dl_tensor.data, batch->labels().data());
  EXPECT_EQ(labels->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(labels->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(labels->dl_tensor.shape[0], 4);
  images->deleter(images);
  labels->deleter(labels);
}

TEST_F(LoaderDevice, ExportedTensorsKeepTheSlotLeased) {
  LoaderOptions o = options();
  o.prefetch_batches = 2;
  Loader loader(o);
  DLManagedTensor* first = nullptr;
  {
    std::optional<Batch> batch = loader.next();
    ASSERT_TRUE(batch.has_value());
    first = batch->images_dlpack();
    const std::vector<std::uint8_t> copy(batch->images_u8().begin(), batch->images_u8().end());
    batch.reset();  // the tensor still holds the slot: its bytes must not change
    std::optional<Batch> second = loader.next();
    ASSERT_TRUE(second.has_value());
    EXPECT_THROW(loader.next(), Error);  // both slots are held
    EXPECT_EQ(std::memcmp(first->dl_tensor.data, copy.data(), copy.size()), 0);
  }
  first->deleter(first);
  EXPECT_TRUE(loader.next().has_value());
}

TEST_F(LoaderDevice, FloatLayoutExportsFloat32NCHW) {
  LoaderOptions o = options();
  o.layout = OutputLayout::kFloat32NCHW;
  Loader loader(o);
  std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch.has_value());
  DLManagedTensor* images = batch->images_dlpack();
  EXPECT_EQ(images->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(images->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(images->dl_tensor.shape[1], 3);
  EXPECT_EQ(images->dl_tensor.data, batch->images_f32().data());
  images->deleter(images);
}

}  // namespace
}  // namespace feedrate
