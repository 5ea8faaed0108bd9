#include "loader/pipeline/run_setting.h"

namespace feedrate {

RunSetting describe_run(const RunParts& parts) {
  const LoaderOptions& options = parts.options;
  const Dataset& dataset = parts.dataset;
  RunSetting run;
  run.batch_size = options.batch_size;
  run.num_workers = options.num_workers;
  run.prefetch_batches = options.prefetch_batches;
  run.queue_depth = options.io_queue_depth;
  run.throttle = options.throttle;
  run.shuffle = shuffle_name(options.shuffle);
  run.shuffle_window_mb = options.shuffle_window_mb;
  run.chunk_bytes = options.tar_chunk_bytes;
  run.training_images_per_s = options.training_images_per_s;
  run.image_size = options.transform.size;
  run.slot_bytes = options.batch_size * parts.sample_bytes;
  run.rank = options.rank;
  run.world_size = options.world_size;

  run.dataset_bytes = dataset.total_bytes();
  run.dataset_samples = dataset.size();
  run.format = format_name(dataset.format());

  run.cpus = parts.cpu.available;
  run.host_cpus = parts.cpu.online;
  run.cpu_quota_cores = parts.cpu.quota_cores;
  run.memory_bytes = parts.memory.limit_bytes;
  run.container_limit = parts.memory.cgroup_limit_bytes > 0;

  run.io_backend = parts.reader.backend_name();
  run.io_fallback_reason = parts.reader.fallback_reason();
  run.device = parts.device;
  return run;
}

}  // namespace feedrate
