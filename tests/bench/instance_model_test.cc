// The planner's projection: requirements from per-image costs, instance parsing, and which
// resource binds on a given shape.
#include "bench/plan/instance_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/plan/gpu_catalogue.h"

namespace feedrate::bench {
namespace {

RunCosts costs() {
  RunCosts c;
  c.images_per_s = 500;
  c.setting.num_workers = 1;
  c.setting.cpus = 2;
  c.image.cpu_ms_per_image = 2;       // 500 images/s per core
  c.image.bytes_per_image = 110'000;  // an ImageNet JPEG
  c.image.reads_per_image = 1;
  c.h2d_bytes_per_image = 150'528;
  c.setting.dataset_bytes = 20'000'000'000;  // 20 GB
  c.peak_rss_mb = 500;
  c.setting.queue_depth = 64;
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
  EXPECT_EQ(cpu.binding, Resource::kCpu);
  EXPECT_DOUBLE_EQ(cpu.later_epochs_images_per_s, 1000);
  EXPECT_DOUBLE_EQ(cpu.gpu_busy, 0.5);
  EXPECT_TRUE(cpu.dataset_cached);
  // 8 cores, an HDD and too little RAM to cache 20 GB: the disk binds every epoch.
  const Projection disk = project(costs(), demand, parse_instance("8,16,hdd"));
  EXPECT_EQ(disk.binding, Resource::kIo);
  EXPECT_FALSE(disk.dataset_cached);
  EXPECT_DOUBLE_EQ(disk.later_epochs_images_per_s, 150);
  EXPECT_TRUE(disk.ram_below_gpu);
  // The same with 64 GB: the HDD binds the first epoch only, then the GPU is the limit.
  const Projection cached = project(costs(), demand, parse_instance("8,64,hdd"));
  EXPECT_EQ(cached.first_epoch_binding, Resource::kIo);
  EXPECT_EQ(cached.binding, Resource::kConsumer);
  EXPECT_DOUBLE_EQ(cached.gpu_busy, 1.0);
  // Less RAM than the loader's peak: killed.
  const Projection killed = project(costs(), demand, parse_instance("8,0.25,nvme"));
  EXPECT_EQ(killed.binding, Resource::kRam);
  EXPECT_DOUBLE_EQ(killed.later_epochs_images_per_s, 0);
}

TEST(InstanceModel, DiskRateFromBandwidthIopsAndLatency) {
  EXPECT_NEAR(disk_images_per_s(costs(), {110, 0, 0}), 1000, 1e-9);
  EXPECT_NEAR(disk_images_per_s(costs(), {0, 300, 0}), 300, 1e-9);
  EXPECT_NEAR(disk_images_per_s(costs(), {0, 0, 1000}), 64'000, 1e-6);  // 64 in flight / 1 ms
  EXPECT_TRUE(std::isinf(disk_images_per_s(costs(), {})));
}

// The run's own machine takes the run's workers, share of its cores and disk rate from its
// costs; any other instance, with the same shape, gets a decode thread per core of its own.
TEST(InstanceModel, TheRunsMachineRunsAsMeasured) {
  RunCosts run = costs();
  run.setting.num_workers = 1;
  run.image.cpu_share = 0.5;
  run.disk_images_per_s = 300;
  const Demand demand{2000, 1, 0};
  Instance here = parse_instance("2,64,nvme");
  const Projection elsewhere = project(run, demand, here);
  EXPECT_DOUBLE_EQ(elsewhere.cpu_images_per_s, 1000);  // 2 cores of 2 ms an image
  EXPECT_GT(elsewhere.disk_images_per_s, 300);
  here.runs_as_measured = true;
  const Projection measured = project(run, demand, here);
  EXPECT_DOUBLE_EQ(measured.cpu_images_per_s, 250);  // 1 worker at half a core
  EXPECT_DOUBLE_EQ(measured.disk_images_per_s, 300);
  EXPECT_EQ(measured.binding, Resource::kCpu);
}

RunCosts shards(const std::string& shuffle) {
  RunCosts c = costs();
  c.setting.format = "tar-shards";
  c.setting.shuffle = shuffle;
  c.setting.chunk_bytes = 4'000'000;
  c.setting.dataset_samples = 181'818;  // 110 KB each
  return c;
}

TEST(InstanceModel, BothShuffleModesOfAFullRunOnAnHdd) {
  const Demand demand{2000, 2, 0};
  const std::vector<ShuffleProjection> modes =
      shuffle_projections(shards("full"), demand, parse_instance("8,16,hdd"));
  ASSERT_EQ(modes.size(), 2u);
  const ShuffleProjection& full = modes[0];
  EXPECT_EQ(full.mode, "full");
  EXPECT_TRUE(full.measured);
  EXPECT_DOUBLE_EQ(full.costs.image.reads_per_image, 1);
  EXPECT_DOUBLE_EQ(full.bytes_per_read, 110'000);
  EXPECT_EQ(full.projection.first_epoch_binding, Resource::kIo);
  EXPECT_DOUBLE_EQ(full.projection.first_epoch_images_per_s, 150);  // the HDD's seeks
  EXPECT_NEAR(full.needs.disk_iops, 1800, 1e-9);
  EXPECT_EQ(full.needs.disk_class, "sata-ssd");
  const ShuffleProjection& blocks = modes[1];
  EXPECT_EQ(blocks.mode, "blocks");
  EXPECT_FALSE(blocks.measured);
  EXPECT_FALSE(blocks.needs_shards);
  EXPECT_DOUBLE_EQ(blocks.bytes_per_read, 4'000'000);
  // Whole 4 MB blocks: the HDD's 200 MB/s binds, at 1,818 images/s.
  EXPECT_NEAR(blocks.projection.disk_images_per_s, 200e6 / 110'000, 1e-6);
  EXPECT_EQ(blocks.projection.first_epoch_binding, Resource::kIo);
  EXPECT_NEAR(blocks.needs.disk_mb_per_s, 198, 1e-9);  // 1,800 images/s of 110 KB
  EXPECT_NEAR(blocks.needs.disk_iops, 1800 * 110'000 / 4e6, 1e-9);
  EXPECT_EQ(blocks.needs.disk_class, "hdd");
}

TEST(InstanceModel, ShuffleModesOfABlocksRunAndOfAFolder) {
  const Demand demand{2000, 1, 0};
  RunCosts run = shards("blocks");
  run.image.reads_per_image = 0.03;
  const std::vector<ShuffleProjection> modes =
      shuffle_projections(run, demand, parse_instance("8,16,hdd"));
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_FALSE(modes[0].measured);
  EXPECT_DOUBLE_EQ(modes[0].costs.image.reads_per_image, 1);
  EXPECT_TRUE(modes[1].measured);
  EXPECT_DOUBLE_EQ(modes[1].costs.image.reads_per_image, 0.03);
  // A folder reads a file per sample in every order: its blocks need tar shards first.
  RunCosts folder = shards("blocks");
  folder.setting.format = "image-folder";
  const std::vector<ShuffleProjection> folder_modes =
      shuffle_projections(folder, demand, parse_instance("8,16,hdd"));
  ASSERT_EQ(folder_modes.size(), 2u);
  EXPECT_TRUE(folder_modes[0].measured);
  EXPECT_TRUE(folder_modes[1].needs_shards);
  EXPECT_DOUBLE_EQ(folder_modes[1].costs.image.reads_per_image, 110'000 / 4e6);
  // A run that recorded no storage (older JSON) gets the full shuffle's line only.
  RunCosts older = costs();
  older.setting.chunk_bytes = 4'000'000;
  EXPECT_EQ(shuffle_projections(older, demand, parse_instance("8,16,hdd")).size(), 1u);
}

TEST(InstanceModel, PackedCostsFromTheRunsMeasurement) {
  RunCosts run = costs();
  EXPECT_DOUBLE_EQ(packed_run_costs(run).image.cpu_ms_per_image, 2);  // nothing measured
  run.packed.state = "measured";
  run.packed.original_ms = 1.0;
  run.packed.packed_ms = 0.8;
  run.packed.original_bytes = 100'000;
  run.packed.packed_bytes = 99'000;
  const RunCosts packed = packed_run_costs(run);
  EXPECT_DOUBLE_EQ(packed.image.cpu_ms_per_image, 1.6);
  EXPECT_DOUBLE_EQ(packed.image.bytes_per_image, 110'000 * 0.99);
  EXPECT_NEAR(static_cast<double>(packed.setting.dataset_bytes), 19.8e9, 1);
  // 2 cores: 1,000 images/s unpacked, 1,250 packed; 1,800 images/s take 3 cores instead of 4.
  const Demand demand{2000, 1, 0};
  EXPECT_NEAR(project(packed, demand, parse_instance("2,64,nvme")).later_epochs_images_per_s, 1250,
              1e-9);
  EXPECT_EQ(requirements(packed, demand).cores, 3);
  EXPECT_EQ(requirements(run, demand).cores, 4);
}

TEST(GpuCatalogue, FindsByLooseNameAndEstimatesFromFp32) {
  EXPECT_EQ(find_gpu("rtx3090").name, "GeForce RTX 3090");
  EXPECT_EQ(find_gpu("Tesla T4").memory_gb, 16);
  EXPECT_NEAR(find_gpu("v100s").estimated_images_per_s(), kImagesPerFp32Tflop * 16.4, 1e-9);
  EXPECT_THROW(find_gpu("v100"), std::invalid_argument);  // V100S PCIe or V100 NVLink
  EXPECT_THROW(find_gpu("voodoo 2"), std::invalid_argument);
  EXPECT_EQ(find_gpu("RTX 4090").fp32_tflops, 0);  // in the catalogue without figures
}

}  // namespace
}  // namespace feedrate::bench
