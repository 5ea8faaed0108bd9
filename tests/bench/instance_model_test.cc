// The planner's projection: requirements from per-image costs, instance parsing, and which
// resource binds on a given shape.
#include "bench/instance_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "bench/gpu_catalogue.h"

namespace feedrate::bench {
namespace {

RunCosts costs() {
  RunCosts c;
  c.images_per_s = 500;
  c.num_workers = 1;
  c.cpus = 2;
  c.cpu_ms_per_image = 2;       // 500 images/s per core
  c.bytes_per_image = 110'000;  // an ImageNet JPEG
  c.reads_per_image = 1;
  c.h2d_bytes_per_image = 150'528;
  c.dataset_bytes = 20'000'000'000;  // 20 GB
  c.peak_rss_mb = 500;
  c.queue_depth = 64;
  return c;
}

TEST(InstanceModel, RequirementsForTwoGpus) {
  const Demand demand{2000, 2, 24};
  const Requirements r = requirements(costs(), demand);
  EXPECT_DOUBLE_EQ(r.images_per_s, 1800);
  EXPECT_EQ(r.cores, 4);  // 1800 x 2 ms = 3.6 cores
  EXPECT_DOUBLE_EQ(r.loader_ram_gb, 1.0);
  EXPECT_DOUBLE_EQ(r.ram_gb, 24);         // one GPU's memory dominates
  EXPECT_DOUBLE_EQ(r.ram_cached_gb, 24);  // 1 + 20 GB is still below 24
  EXPECT_NEAR(r.disk_mb_per_s, 198, 1e-9);
  EXPECT_NEAR(r.disk_iops, 1800, 1e-9);
  EXPECT_EQ(r.disk_class, "sata-ssd");  // an HDD gives 150 reads/s
  EXPECT_NEAR(r.h2d_mb_per_s_per_gpu, 150.528, 1e-9);
}

TEST(InstanceModel, ParsesInstances) {
  const Instance i = parse_instance("8,64,500,20000");
  EXPECT_EQ(i.cores, 8);
  EXPECT_DOUBLE_EQ(i.ram_gb, 64);
  EXPECT_EQ(i.disk, "500,20000");
  EXPECT_DOUBLE_EQ(i.disk_spec.mb_per_s, 500);
  EXPECT_DOUBLE_EQ(i.disk_spec.iops, 20000);
  EXPECT_DOUBLE_EQ(parse_instance("4,16,nvme").disk_spec.mb_per_s, 2400);
  EXPECT_DOUBLE_EQ(parse_instance("4,16,network").disk_spec.mb_per_s, 1200);
  EXPECT_THROW(parse_instance("8,64"), std::invalid_argument);
  EXPECT_THROW(parse_instance("x,64,nvme"), std::invalid_argument);
  EXPECT_THROW(parse_instance("0,64,nvme"), std::invalid_argument);
  EXPECT_THROW(parse_instance("8,64,floppy"), std::invalid_argument);
}

TEST(InstanceModel, BindingResourceOfEachShape) {
  const Demand demand{2000, 1, 24};
  // 2 cores decode 1,000 images/s: the CPU binds.
  const Projection cpu = project(costs(), demand, parse_instance("2,64,nvme"));
  EXPECT_EQ(cpu.binding, "cpu");
  EXPECT_DOUBLE_EQ(cpu.later_epochs_images_per_s, 1000);
  EXPECT_DOUBLE_EQ(cpu.gpu_busy, 0.5);
  EXPECT_TRUE(cpu.dataset_cached);
  // 8 cores, an HDD and too little RAM to cache 20 GB: the disk binds every epoch.
  const Projection disk = project(costs(), demand, parse_instance("8,16,hdd"));
  EXPECT_EQ(disk.binding, "disk");
  EXPECT_FALSE(disk.dataset_cached);
  EXPECT_DOUBLE_EQ(disk.later_epochs_images_per_s, 150);
  EXPECT_TRUE(disk.ram_below_gpu);
  // The same with 64 GB: the HDD binds the first epoch only, then the GPU is the limit.
  const Projection cached = project(costs(), demand, parse_instance("8,64,hdd"));
  EXPECT_EQ(cached.first_epoch_binding, "disk");
  EXPECT_EQ(cached.binding, "gpu");
  EXPECT_DOUBLE_EQ(cached.gpu_busy, 1.0);
  // Less RAM than the loader's peak: killed.
  const Projection killed = project(costs(), demand, parse_instance("8,0.25,nvme"));
  EXPECT_EQ(killed.binding, "ram");
  EXPECT_DOUBLE_EQ(killed.later_epochs_images_per_s, 0);
}

TEST(InstanceModel, DiskRateFromBandwidthIopsAndLatency) {
  EXPECT_NEAR(disk_images_per_s(costs(), {110, 0, 0}), 1000, 1e-9);
  EXPECT_NEAR(disk_images_per_s(costs(), {0, 300, 0}), 300, 1e-9);
  EXPECT_NEAR(disk_images_per_s(costs(), {0, 0, 1000}), 64'000, 1e-6);  // 64 in flight / 1 ms
  EXPECT_TRUE(std::isinf(disk_images_per_s(costs(), {})));
}

TEST(GpuCatalogue, FindsByLooseNameAndEstimatesFromFp32) {
  EXPECT_EQ(find_gpu("rtx3090").name, "GeForce RTX 3090");
  EXPECT_EQ(find_gpu("Tesla T4").memory_gb, 16);
  EXPECT_NEAR(find_gpu("v100s").estimated_images_per_s(), kImagesPerFp32Tflop * 16.4, 1e-9);
  EXPECT_THROW(find_gpu("v100"), std::invalid_argument);  // V100S PCIe or V100 NVLink
  EXPECT_THROW(find_gpu("voodoo 2"), std::invalid_argument);
  EXPECT_EQ(find_gpu("RTX 4090").fp32_tflops, 0);  // named by DOMAIN.md without figures
}

}  // namespace
}  // namespace feedrate::bench
