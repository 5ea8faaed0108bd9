#!/usr/bin/env python3
"""feedrate inside Ray Data against Ray Data's own image path and the plain Loader.

    PYTHONPATH=build/python FEEDRATE_RAY_TIMEOUT=3600 tests/ray/in_namespace.sh \
        build/ray-venv/bin/python bench/micro/compare_ray.py DATASET \
        [--rounds 3] [--epochs 3] [--cpus 2] [--batch-size 64] [--size 224]

(tests/ray/in_namespace.sh runs it in a network namespace of its own, as `make test-ray` runs
its tests: Ray binds the address it detects, which outside would be the machine's own.)

--epochs epochs (default 3) of DATASET (an ImageFolder, e.g. `feedrate make-dataset --count
5000`) with the train transform (RandomResizedCrop + RandomHorizontalFlip) to uint8 batches,
four ways, each in a fresh process limited to --cpus CPUs (Ray started with num_cpus=--cpus):

  ray-feedrate       feedrate.ray.read(..., num_tasks=--cpus, num_workers=1) -> iter_torch_batches
  ray-feedrate-wide  feedrate.ray.read(..., num_tasks=1, num_workers=--cpus): one task, all CPUs
  ray-data           ray.data.read_images (PIL) + map_batches(torchvision RandomResizedCrop and
                     RandomHorizontalFlip) -> iter_torch_batches, the same dataset each epoch
  loader             feedrate.Loader(num_workers=--cpus) in one process, set_epoch(e)

The variants alternate round by round; it prints each run and the medians. An epoch's images/s
is its images over the time from building its dataset (feedrate.ray.read; for the loader,
set_epoch) to its last batch; a run's images/s is the median over its epochs but the first,
which also starts Ray Data's own actors in the driver (its first batch came about 2 s late
here), and is printed apart. Ray's start-up and its workers' first imports come before
(warm_up).
Peak memory is the largest sum of PSS (/proc/PID/smaps_rollup) over the run's whole process
tree (the driver, Ray's GCS, raylet, workers, the object store's shared memory), sampled every
0.2 s in a round of its own after the timed ones (its images/s are printed, not counted):
reading a Ray tree's smaps_rollup that often takes about a fifth of a core, from the Ray
variants, so the timed rounds sample nothing. feedrate.ray's report is printed after its runs (decode CPU and shipped bytes per
image). Run nothing else heavy at the same time.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("ray-feedrate", "ray-feedrate-wide", "ray-data", "loader")


def import_feedrate_ray():
    import feedrate.ray
    return feedrate.ray


def run_one(variant, dataset, cpus, batch_size, size, epochs):
    """`epochs` epochs in this process; prints one JSON line with each epoch's images/s."""
    rates = []
    extra = {}

    def epoch_of(batches, start):
        images = 0
        for batch in batches:
            images += len(batch["label"] if isinstance(batch, dict) else batch[1])
        rates.append(images / (time.perf_counter() - start))  # to the last batch
        return images

    if variant == "loader":
        import feedrate

        start = time.perf_counter()
        loader = feedrate.Loader(dataset, batch_size=batch_size, num_workers=cpus, size=size,
                                 transform="train", seed=0)
        for epoch in range(epochs):
            if epoch:
                start = time.perf_counter()
            loader.set_epoch(epoch)
            images = epoch_of(loader, start)
        extra["verdict"] = loader.report()["verdict"]["bottleneck"]
    else:
        ray_module = import_feedrate_ray() if variant.startswith("ray-feedrate") else None
        import ray

        # A Ray instance of its own (address="local"), never a cluster already running here.
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        from ray.data import DataContext
        DataContext.get_current().enable_progress_bars = False
        warm_up(cpus, variant)
        # ray-feedrate: one task a CPU of one decode thread each; -wide: one task of all of them.
        threads = cpus if variant == "ray-feedrate-wide" else 1
        dataset_of_ray_data = None
        for epoch in range(epochs):
            start = time.perf_counter()
            if ray_module is not None:
                ds = ray_module.read(dataset, transform="train", size=size,
                                     batch_size=batch_size, seed=0, epoch=epoch,
                                     num_tasks=cpus // threads, num_workers=threads)
            else:
                # One dataset, iterated once an epoch (read_images lists the files once).
                if dataset_of_ray_data is None:
                    dataset_of_ray_data = ray_data_pipeline(dataset, size)
                ds = dataset_of_ray_data
            images = epoch_of(ds.iter_torch_batches(batch_size=batch_size), start)
        if ray_module is not None:
            r = ray_module.report(ds)
            extra = {k: r[k] for k in ("decode_cpu_ms", "task_cpu_ms", "shipped_bytes",
                                       "read_bytes", "bottleneck")}
        ray.shutdown()
    steady = rates[1:] or rates
    print(json.dumps(dict(variant=variant, images=images, first_epoch_images_per_s=rates[0],
                          images_per_s=statistics.median(steady),
                          epochs_images_per_s=[round(x, 1) for x in rates], **extra)),
          flush=True)


def warm_up(cpus, variant):
    """Starts Ray's worker processes and imports the variant's modules in them, as every epoch
    after the first finds them: the timed epoch is the steady state, not Ray's start-up."""
    import ray

    @ray.remote(num_cpus=1)
    def load():
        if variant == "ray-feedrate":
            import_feedrate_ray()
        else:
            import torchvision  # noqa: F401
            import PIL.Image  # noqa: F401
        import pyarrow  # noqa: F401
        return os.getpid()

    ray.get([load.remote() for _ in range(cpus)])


def ray_data_pipeline(dataset, size):
    """Ray Data's own path: PIL decodes in read_images, torchvision augments in map_batches."""
    import numpy as np
    import ray
    import torch
    from torchvision import transforms

    classes = sorted(e.name for e in os.scandir(dataset) if e.is_dir())
    index = {name: i for i, name in enumerate(classes)}
    augment = transforms.Compose([transforms.RandomResizedCrop(size),
                                  transforms.RandomHorizontalFlip()])

    def transform(batch):
        out = np.empty((len(batch["image"]), size, size, 3), np.uint8)
        for i, image in enumerate(batch["image"]):
            chw = torch.from_numpy(np.ascontiguousarray(image)).permute(2, 0, 1)
            out[i] = augment(chw).permute(1, 2, 0).numpy()
        labels = np.array([index[os.path.basename(os.path.dirname(p))] for p in batch["path"]],
                          np.int64)
        return {"image": out, "label": labels}

    return ray.data.read_images(dataset, mode="RGB", include_paths=True).map_batches(
        transform, batch_format="numpy")


def tree_pss_kb(root):
    """PSS in kB summed over root and all its descendants."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


def measure(variant, args, memory):
    """One run of `variant` in a fresh process; with `memory`, its tree's peak PSS too."""
    command = [sys.executable, os.path.abspath(__file__), args.dataset, "--one", variant,
               "--cpus", str(args.cpus), "--batch-size", str(args.batch_size),
               "--size", str(args.size), "--epochs", str(args.epochs)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    peak = 0
    while memory and child.poll() is None:
        peak = max(peak, tree_pss_kb(child.pid))
        time.sleep(0.2)
    child.wait()
    out = child.stdout.read().strip().splitlines()
    if child.returncode != 0 or not out:
        raise SystemExit(f"{variant} failed (exit {child.returncode})")
    result = json.loads(out[-1])
    if memory:
        result["peak_pss_mb"] = peak / 1024
    return result


def print_run(label, variant, r):
    pss = f"  peak PSS {r['peak_pss_mb']:7.0f} MB" if "peak_pss_mb" in r else ""
    print(f"{label} {variant:17s} {r['images']} images {r['images_per_s']:7.1f} images/s{pss}  " +
          json.dumps({k: v for k, v in r.items() if k not in (
              "variant", "images", "seconds", "images_per_s", "peak_pss_mb")}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--epochs", type=int, default=3,
                        help="epochs per process; images/s is the median of all but the first")
    parser.add_argument("--one", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        if args.epochs < 1:
            parser.error("--epochs must be at least 1")
        run_one(args.one, args.dataset, args.cpus, args.batch_size, args.size, args.epochs)
        return
    import ray
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"# compare_ray: {platform.node()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}, Python {platform.python_version()}, ray {ray.__version__},"
          f" commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {args.dataset}, train transform, size {args.size}, batch {args.batch_size}, "
          f"{args.cpus} CPUs, {args.rounds} rounds of {args.epochs} epochs a process")
    results = {v: [] for v in VARIANTS}
    for round_ in range(args.rounds):
        for variant in VARIANTS:
            results[variant].append(measure(variant, args, memory=False))
            print_run(f"round {round_ + 1}", variant, results[variant][-1])
    peaks = {}
    for variant in VARIANTS:
        r = measure(variant, args, memory=True)
        peaks[variant] = r["peak_pss_mb"]
        print_run("memory ", variant, r)
    print("# medians of the timed rounds; peak PSS of the memory round")
    rate = {v: statistics.median(r["images_per_s"] for r in results[v]) for v in VARIANTS}
    for variant in VARIANTS:
        pss = peaks[variant]
        first = statistics.median(r["first_epoch_images_per_s"] for r in results[variant])
        print(f"{variant:17s} {rate[variant]:7.1f} images/s (first epoch {first:7.1f})  "
              f"peak PSS {pss:7.0f} MB")
    for variant in ("ray-feedrate", "ray-feedrate-wide"):
        print(f"{variant} / ray-data: {rate[variant] / rate['ray-data']:.2f}x; "
              f"{variant} / loader: {rate[variant] / rate['loader']:.2f}x")


if __name__ == "__main__":
    main()
