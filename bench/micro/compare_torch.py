#!/usr/bin/python3
"""Compare feedrate with torchvision ImageFolder + torch.utils.data.DataLoader.

What it measures
  The same JPEG dataset goes through both loaders with the same augmentation, for each
  num_workers value (default 1 and 2), batch 64:

  * torch: torchvision.datasets.ImageFolder with
      train: RandomResizedCrop(224, scale=(0.08, 1), ratio=(3/4, 4/3)) + RandomHorizontalFlip
      eval:  Resize(256) + CenterCrop(224)
    followed by PILToTensor, so batches are uint8 [B, 3, 224, 224]; iterated through a
    DataLoader(shuffle=True, persistent_workers=False, pin_memory=False).
  * feedrate: `feedrate bench --json` with the same transform, uint8 NHWC batches.

  Neither side normalises or converts to float: the comparison is decode + augment +
  collate into uint8 batches, which is exactly what both produce.

  Speed is images per second over the run. For torch the clock starts when the DataLoader is
  created (so worker start-up, which happens every epoch with persistent_workers=False, is
  included) and stops after the last batch; the interpreter start, `import torch` and the
  ImageFolder directory scan are outside it, as feedrate's own dataset scan is outside its
  clock.

  Memory is the peak, over the run, of the whole process tree's PSS (proportional set size,
  from /proc/<pid>/smaps_rollup), sampled from a thread of this script every 50 ms or less
  often: reading smaps_rollup makes the kernel walk the page tables, which costs CPU in
  proportion to the resident memory (about 10 ms per 250 MB on a small VM), so the sampler
  stretches its interval to use at most 10% of one core. That keeps its cost the same
  fraction of the machine for both loaders instead of charging the bigger one more. Under
  PSS a page shared by the forked DataLoader workers and the main process counts once in
  total, so the sum is the tree's real footprint; the peak of the plain RSS sum (which counts
  shared pages once per process) is kept for reference. feedrate is one process; its PSS is
  sampled the same way and its own peak RSS (VmHWM) comes from its JSON.

  Every measurement runs in a fresh child process (torch: this script in a hidden
  --torch-child mode), so each run's memory is its own. The two loaders alternate within
  each repeat, and the order flips from one repeat to the next, so machine noise hits both
  alike; the table quotes the median over repeats. The dataset is read once beforehand so
  both loaders see a warm page cache.

  The targets checked come from the issue: at equal num_workers, feedrate delivers at least
  2.5x the DataLoader's images/s, and feedrate's peak RSS is at most 1/4 of the DataLoader
  tree's peak PSS.

  --python adds a third side: feedrate's Python module (feedrate.Loader yielding torch tensors
  without a copy, same dataset, transform, seed and batch), measured like the others in a
  fresh child process that imports torch, with its clock from the first iter() as feedrate
  bench's starts after the dataset scan. It reports the Python path against both peers; the
  targets checked: >= 95% of `feedrate bench`'s images/s and >= 2.5x the DataLoader's.

Run it with Debian's interpreter, which has python3-torch and python3-torchvision:
  /usr/bin/python3 bench/micro/compare_torch.py [--workers 1,2] [--repeats 3] [--python] [--json]
"""

import argparse
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tree_memory import SAMPLE_INTERVAL_S, SAMPLER_CPU_SHARE, ChildFailed, run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
GENERATED_COUNT = 1000
GENERATED_CLASSES = 10
CROP_SIZE = 224
RESIZE_SIZE = 256
SPEED_TARGET = 2.5  # feedrate images/s >= 2.5x the DataLoader's
MEMORY_TARGET = 4.0  # feedrate peak RSS <= 1/4 of the DataLoader tree's peak PSS
PYTHON_KEEPS_TARGET = 0.95  # feedrate.Loader images/s >= 95% of `feedrate bench`'s


def import_torch():
    """Import torch and torchvision, or exit with a message that says how to get them."""
    try:
        import torch
        import torchvision
    except ImportError as error:
        sys.exit(f"compare_torch.py: cannot import torch/torchvision with {sys.executable} "
                 f"({error}).\nRun it with Debian's interpreter, /usr/bin/python3 "
                 "bench/micro/compare_torch.py, or install python3-torchvision "
                 "(apt-get install python3-torchvision).")
    return torch, torchvision


# ----------------------------------------------------------------------------------------
# Torch side: runs in a fresh child process per measurement.


def torch_transform(kind):
    """The torchvision transform equivalent to feedrate's, ending in uint8 CHW tensors."""
    from torchvision import transforms
    if kind == "train":
        steps = [transforms.RandomResizedCrop(CROP_SIZE, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)),
                 transforms.RandomHorizontalFlip()]
    else:
        steps = [transforms.Resize(RESIZE_SIZE), transforms.CenterCrop(CROP_SIZE)]
    return transforms.Compose(steps + [transforms.PILToTensor()])


def torch_child(args):
    """Iterate a DataLoader over the dataset and print one JSON object with the figures."""
    torch, _ = import_torch()
    from torchvision.datasets import ImageFolder
    torch.manual_seed(args.seed)
    dataset = ImageFolder(args.dataset, transform=torch_transform(args.transform))
    images = batches = 0
    batch_shape = batch_dtype = None
    start = time.perf_counter()
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers[0],
        persistent_workers=False, pin_memory=False)
    epochs = itertools.count() if args.batches else range(args.epochs)
    for _ in epochs:
        for pixels, _labels in loader:
            images += pixels.shape[0]
            batches += 1
            batch_shape, batch_dtype = list(pixels.shape), str(pixels.dtype)
            if batches == args.batches:
                break
        if batches == args.batches:
            break
    seconds = time.perf_counter() - start
    json.dump({"dataset_samples": len(dataset), "samples": images, "batches": batches,
               "seconds": seconds, "images_per_s": images / seconds,
               "batch_shape": batch_shape, "batch_dtype": batch_dtype}, sys.stdout)


def python_child(args):
    """Iterate feedrate.Loader (torch tensors) over the dataset; print one JSON object."""
    import resource
    torch, _ = import_torch()  # a training script has torch loaded; the tensors are torch's
    if args.module_path:
        sys.path.insert(0, args.module_path)
    import feedrate
    with open("/proc/self/status") as status:  # the interpreter with torch, before the Loader
        baseline_rss_mb = next(int(line.split()[1]) for line in status
                               if line.startswith("VmRSS:")) * 1024 / 1e6
    loader = feedrate.Loader(args.dataset, batch_size=args.batch, num_workers=args.workers[0],
                             transform=args.transform, seed=args.seed, shuffle=True,
                             size=CROP_SIZE, arrays="torch")
    images = batches = 0
    batch_shape = batch_dtype = None
    start = time.perf_counter()  # after the dataset scan, as `feedrate bench` starts its clock
    epochs = itertools.count() if args.batches else range(args.epochs)
    for epoch in epochs:
        loader.set_epoch(epoch)
        for pixels, _labels in loader:
            images += pixels.shape[0]
            batches += 1
            batch_shape, batch_dtype = list(pixels.shape), str(pixels.dtype)
            if batches == args.batches:
                break
        if batches == args.batches:
            break
    seconds = time.perf_counter() - start
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
    json.dump({"dataset_samples": loader.num_samples, "samples": images, "batches": batches,
               "seconds": seconds, "images_per_s": images / seconds, "peak_rss_mb": peak_rss_mb,
               "baseline_rss_mb": baseline_rss_mb,
               "batch_shape": batch_shape, "batch_dtype": batch_dtype,
               "verdict": loader.report()["verdict"]["bottleneck"]}, sys.stdout)


# ----------------------------------------------------------------------------------------
# Set-up: binary, dataset, environment.


def find_feedrate(requested):
    """Resolve the feedrate binary and check that it starts; exit with a clear error if not."""
    if requested:
        binary = Path(requested)
        where = f"--feedrate {requested}"
    else:
        built = SCRIPT_DIR.parent.parent / "build" / "bench" / "feedrate"
        on_path = shutil.which("feedrate")
        binary = built if built.exists() or on_path is None else Path(on_path)
        where = f"{built} (not built?) and no `feedrate` on PATH"
    if not binary.is_file() or not os.access(binary, os.X_OK):
        sys.exit(f"compare_torch.py: no feedrate binary: {where}.\n"
                 "Build it (cmake --build build) or pass --feedrate PATH.")
    check = subprocess.run([str(binary), "bench", "--help"], capture_output=True, text=True)
    if check.returncode != 0:
        sys.exit(f"compare_torch.py: {binary} does not run (exit status {check.returncode}):\n"
                 f"{check.stderr.rstrip()}")
    return binary.resolve()


def cache_directory():
    """Where feedrate keeps generated datasets (same rules as feedrate's own default)."""
    for variable, suffix in (("FEEDRATE_CACHE", ""), ("XDG_CACHE_HOME", "feedrate")):
        if os.environ.get(variable):
            return Path(os.environ[variable]) / suffix
    return Path.home() / ".cache" / "feedrate"


def default_dataset(binary, log):
    """A generated ImageFolder dataset in the cache directory, made on first use."""
    path = cache_directory() / f"compare-torch-{GENERATED_COUNT}x{GENERATED_CLASSES}-seed0"
    if path.is_dir():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
    log(f"generating {GENERATED_COUNT} images in {GENERATED_CLASSES} classes at {path} ...")
    command = [str(binary), "make-dataset", str(partial), "--count", str(GENERATED_COUNT),
               "--classes", str(GENERATED_CLASSES), "--format", "folder", "--seed", "0"]
    made = subprocess.run(command, capture_output=True, text=True)
    if made.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise ChildFailed(command, made.returncode, made.stderr)
    partial.rename(path)
    return path


def dataset_summary(path):
    """Count the files, classes and bytes of an ImageFolder dataset, reading every file once
    so that both loaders start with a warm page cache."""
    files = classes = size = 0
    for class_dir in sorted(p for p in path.iterdir() if p.is_dir()):
        classes += 1
        for file in class_dir.rglob("*"):
            if file.is_file():
                files += 1
                size += len(file.read_bytes())
    return {"path": str(path), "files": files, "classes": classes, "mb": size / 1e6}


def cpu_model():
    """The CPU model name from /proc/cpuinfo."""
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def environment(torch, torchvision, binary, dataset):
    """What the run happens on, for the report."""
    import PIL
    return {
        "cpu": cpu_model(),
        "cpus_available": len(os.sched_getaffinity(0)),
        "cpus_online": os.cpu_count(),
        "load_average": os.getloadavg(),
        "kernel": platform.release(),
        "python": f"{sys.executable} {platform.python_version()}",
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "pillow": PIL.__version__,
        "feedrate": str(binary),
        "dataset": dataset,
    }


# ----------------------------------------------------------------------------------------
# Measurements and report.


def run_length_args(args):
    """The --epochs/--batches arguments, shared by both command lines."""
    return ["--batches", str(args.batches)] if args.batches else ["--epochs", str(args.epochs)]


def measure_torch(args, dataset, workers):
    command = [sys.executable, str(Path(__file__).resolve()), "--torch-child",
               "--dataset", str(dataset), "--workers", str(workers), "--batch", str(args.batch),
               "--transform", args.transform, "--seed", str(args.seed)] + run_length_args(args)
    return run_sampled(command)


def measure_feedrate(args, binary, dataset, workers):
    command = [str(binary), "bench", str(dataset), "--workers", str(workers),
               "--batch", str(args.batch), "--transform", args.transform,
               "--seed", str(args.seed), "--json"] + run_length_args(args)
    return run_sampled(command)


def find_module(requested):
    """The folder holding the built feedrate Python module; exit with a clear error if none."""
    folder = Path(requested) if requested else SCRIPT_DIR.parent.parent / "build" / "python"
    if not any((folder / "feedrate").glob("_C*.so")):
        sys.exit(f"compare_torch.py: no feedrate Python module in {folder}.\n"
                 "Build it (cmake --build build; needs python3-pybind11 and python3-dev) or pass "
                 "--module-path FOLDER.")
    return folder.resolve()


def measure_python(args, module, dataset, workers):
    command = [sys.executable, str(Path(__file__).resolve()), "--python-child",
               "--module-path", str(module), "--dataset", str(dataset), "--workers", str(workers),
               "--batch", str(args.batch), "--transform", args.transform,
               "--seed", str(args.seed)] + run_length_args(args)
    return run_sampled(command)


def median_of(runs, key):
    return statistics.median(run[key] for run in runs)


def summarise_python(row, python_runs):
    """Adds the Python module's medians and its ratios to the two peers to a summary row."""
    speed = median_of(python_runs, "images_per_s")
    row.update({
        "python_images_per_s": speed,
        "python_peak_pss_mb": median_of(python_runs, "tree_peak_pss_mb"),
        "python_peak_rss_mb": median_of(python_runs, "peak_rss_mb"),
        "python_baseline_rss_mb": median_of(python_runs, "baseline_rss_mb"),
        "python_to_cpp": speed / row["feedrate_images_per_s"],
        "python_to_torch": speed / row["torch_images_per_s"],
        "python_memory_ratio_pss": row["torch_peak_pss_mb"] / median_of(python_runs,
                                                                         "tree_peak_pss_mb"),
        "python_keeps_target_met": speed >= PYTHON_KEEPS_TARGET * row["feedrate_images_per_s"],
        "python_speed_target_met": speed >= SPEED_TARGET * row["torch_images_per_s"],
        "python_runs": python_runs,
    })
    return row


def summarise(workers, torch_runs, feedrate_runs):
    """Medians over repeats, ratios of the medians and the target verdicts for one workers."""
    torch_speed = median_of(torch_runs, "images_per_s")
    torch_pss = median_of(torch_runs, "tree_peak_pss_mb")
    feedrate_speed = median_of(feedrate_runs, "images_per_s")
    feedrate_pss = median_of(feedrate_runs, "tree_peak_pss_mb")
    feedrate_rss = median_of(feedrate_runs, "peak_rss_mb")
    return {
        "workers": workers,
        "torch_images_per_s": torch_speed,
        "torch_peak_pss_mb": torch_pss,
        "torch_peak_rss_sum_mb": median_of(torch_runs, "tree_peak_rss_sum_mb"),
        "torch_memory_sample_interval_s": median_of(torch_runs, "memory_sample_interval_s"),
        "feedrate_images_per_s": feedrate_speed,
        "feedrate_peak_pss_mb": feedrate_pss,
        "feedrate_peak_rss_mb": feedrate_rss,
        "feedrate_memory_sample_interval_s": median_of(feedrate_runs,
                                                       "memory_sample_interval_s"),
        "speed_ratio": feedrate_speed / torch_speed,
        "memory_ratio_pss": torch_pss / feedrate_pss,
        "memory_ratio_target": torch_pss / feedrate_rss,
        "speed_target_met": feedrate_speed >= SPEED_TARGET * torch_speed,
        "memory_target_met": feedrate_rss * MEMORY_TARGET <= torch_pss,
        "torch_runs": torch_runs,
        "feedrate_runs": feedrate_runs,
    }


def print_environment(env, args, log):
    ds = env["dataset"]
    log("environment")
    log(f"  cpu          {env['cpu']}, {env['cpus_available']} cores available "
        f"({env['cpus_online']} online), load average "
        + " ".join(f"{x:.2f}" for x in env["load_average"]))
    log(f"  kernel       {env['kernel']}")
    log(f"  python       {env['python']}")
    log(f"  torch        {env['torch']}, torchvision {env['torchvision']}, "
        f"Pillow {env['pillow']}")
    log(f"  feedrate     {env['feedrate']}")
    log(f"  dataset      {ds['path']}: {ds['files']} files, {ds['classes']} classes, "
        f"{ds['mb']:.1f} MB (read once to warm the page cache)")
    length = f"{args.batches} batches" if args.batches else f"{args.epochs} epoch(s)"
    log(f"  run          transform {args.transform}, batch {args.batch}, {length}, "
        f"seed {args.seed}, workers {','.join(map(str, args.workers))}, "
        f"{args.repeats} repeat(s), median quoted")
    if args.transform == "train":
        transform = (f"RandomResizedCrop({CROP_SIZE}, scale=(0.08, 1), ratio=(3/4, 4/3)) + "
                     "RandomHorizontalFlip")
    else:
        transform = f"Resize({RESIZE_SIZE}) + CenterCrop({CROP_SIZE})"
    log(f"  torch        ImageFolder + {transform} + PILToTensor -> uint8 NCHW; DataLoader("
        "shuffle=True, persistent_workers=False, pin_memory=False); num_workers=N is N "
        "worker processes (torch.set_num_threads(1) in each, the default) plus the main "
        "process")
    log(f"  feedrate     bench --transform {args.transform} -> uint8 NHWC; --workers N is N "
        "decode threads in one process")
    log("  neither side normalises or converts to float")
    log("")


def print_table(rows, log):
    columns = [("workers", "{workers}", 7),
               ("torch img/s", "{torch_images_per_s:.1f}", 11),
               ("feedrate img/s", "{feedrate_images_per_s:.1f}", 14),
               ("speed ratio", "{speed_ratio:.2f}x", 11),
               ("torch peak PSS MB", "{torch_peak_pss_mb:.1f}", 17),
               ("feedrate peak PSS MB", "{feedrate_peak_pss_mb:.1f}", 20),
               ("memory ratio", "{memory_ratio_pss:.2f}x", 12)]
    log(" | ".join(title.rjust(width) for title, _, width in columns))
    log("-+-".join("-" * width for _, _, width in columns))
    for row in rows:
        log(" | ".join(fmt.format(**row).rjust(width) for _, fmt, width in columns))
    log("speed ratio = feedrate / torch images/s; memory ratio = torch tree peak PSS / "
        "feedrate peak PSS; medians over repeats, ratios of the medians")
    log("")
    log("for reference (medians):")
    for row in rows:
        log(f"  workers {row['workers']}: torch tree peak RSS sum "
            f"{row['torch_peak_rss_sum_mb']:.1f} MB (shared pages counted once per process); "
            "feedrate peak RSS (VmHWM) "
            f"{row['feedrate_peak_rss_mb']:.1f} MB")
        log(f"  workers {row['workers']}: memory sampled every "
            f"{row['torch_memory_sample_interval_s'] * 1e3:.0f} ms (torch) and "
            f"{row['feedrate_memory_sample_interval_s'] * 1e3:.0f} ms (feedrate) on average "
            f"(>= {SAMPLE_INTERVAL_S * 1e3:.0f} ms, sampler capped at "
            f"{SAMPLER_CPU_SHARE:.0%} of one core)")
    log("")


def print_python(rows, log):
    columns = [("workers", "{workers}", 7),
               ("torch img/s", "{torch_images_per_s:.1f}", 11),
               ("bench (C++) img/s", "{feedrate_images_per_s:.1f}", 17),
               ("Loader (Python) img/s", "{python_images_per_s:.1f}", 21),
               ("Python/C++", "{python_to_cpp:.1%}", 10),
               ("Python/torch", "{python_to_torch:.2f}x", 12),
               ("Python peak PSS MB", "{python_peak_pss_mb:.1f}", 18),
               ("torch/Python PSS", "{python_memory_ratio_pss:.2f}x", 16)]
    log("feedrate's Python module (feedrate.Loader, torch tensors, torch imported)")
    log(" | ".join(title.rjust(width) for title, _, width in columns))
    log("-+-".join("-" * width for _, _, width in columns))
    for row in rows:
        log(" | ".join(fmt.format(**row).rjust(width) for _, fmt, width in columns))
    for row in rows:
        log(f"  workers {row['workers']}: the Python process's RSS is "
            f"{row['python_baseline_rss_mb']:.1f} MB with torch imported, before the Loader; "
            f"peak {row['python_peak_rss_mb']:.1f} MB (medians)")
    log("")


def print_targets(rows, log):
    verdict = {True: "met", False: "NOT met"}
    log("targets (from the issue)")
    for row in rows:
        log(f"  workers {row['workers']}: feedrate >= {SPEED_TARGET}x the DataLoader's images/s:"
            f" {row['speed_ratio']:.2f}x -> {verdict[row['speed_target_met']]}")
        log(f"  workers {row['workers']}: feedrate peak RSS <= 1/{MEMORY_TARGET:g} of the "
            f"DataLoader tree's peak PSS: {row['feedrate_peak_rss_mb']:.1f} MB vs "
            f"{row['torch_peak_pss_mb']:.1f} MB ({row['memory_ratio_target']:.2f}x) -> "
            f"{verdict[row['memory_target_met']]}")
        if "python_images_per_s" in row:
            log(f"  workers {row['workers']}: feedrate.Loader (Python) >= "
                f"{PYTHON_KEEPS_TARGET:.0%} of feedrate bench's images/s: "
                f"{row['python_to_cpp']:.1%} -> {verdict[row['python_keeps_target_met']]}")
            log(f"  workers {row['workers']}: feedrate.Loader (Python) >= {SPEED_TARGET}x the "
                f"DataLoader's images/s: {row['python_to_torch']:.2f}x -> "
                f"{verdict[row['python_speed_target_met']]}")


def compare(args, log):
    """Run every measurement, alternating the loaders, and print the report."""
    torch, torchvision = import_torch()
    binary = find_feedrate(args.feedrate)
    dataset = Path(args.dataset) if args.dataset else default_dataset(binary, log)
    if not dataset.is_dir():
        sys.exit(f"compare_torch.py: dataset {dataset} is not a folder (ImageFolder layout "
                 "expected: one sub-folder of JPEGs per class)")
    env = environment(torch, torchvision, binary, dataset_summary(dataset))
    print_environment(env, args, log)

    sides = ("torch", "feedrate", "python") if args.python else ("torch", "feedrate")
    runs = {(side, w): [] for side in sides for w in args.workers}
    measure = {"torch": lambda w: measure_torch(args, dataset, w),
               "feedrate": lambda w: measure_feedrate(args, binary, dataset, w)}
    if args.python:
        module = find_module(args.module_path)
        log(f"  python module {module}")
        measure["python"] = lambda w: measure_python(args, module, dataset, w)
    for repeat in range(args.repeats):
        # Rotate (and reverse every other repeat) so that no side always runs first.
        order = sides[repeat % len(sides):] + sides[:repeat % len(sides)]
        order = order if repeat % 2 == 0 else order[::-1]
        for workers in args.workers:
            figures = []
            for side in order:
                result = measure[side](workers)
                runs[side, workers].append(result)
                figures.append(f"{side} {result['images_per_s']:.1f} img/s, "
                               f"PSS {result['tree_peak_pss_mb']:.1f} MB "
                               f"({result['samples']} images)")
            log(f"repeat {repeat + 1}/{args.repeats}, workers {workers}: " + "; ".join(figures))
            if runs["torch", workers][-1]["samples"] != runs["feedrate", workers][-1]["samples"]:
                log("  note: the two loaders delivered different numbers of images")
    log("")

    rows = [summarise(w, runs["torch", w], runs["feedrate", w]) for w in args.workers]
    if args.python:
        rows = [summarise_python(row, runs["python", row["workers"]]) for row in rows]
    print_table(rows, log)
    if args.python:
        print_python(rows, log)
    print_targets(rows, log)
    return {"environment": env,
            "config": {"transform": args.transform, "batch": args.batch,
                       "epochs": None if args.batches else args.epochs,
                       "batches": args.batches, "seed": args.seed, "repeats": args.repeats,
                       "workers": args.workers,
                       "memory_sample_min_interval_s": SAMPLE_INTERVAL_S,
                       "memory_sampler_max_cpu_share": SAMPLER_CPU_SHARE,
                       "output": "uint8, not normalised, both sides"},
            "targets": {"speed_ratio_min": SPEED_TARGET,
                        "feedrate_rss_max_fraction_of_torch_pss": 1 / MEMORY_TARGET},
            "results": rows}


def worker_list(text):
    try:
        workers = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not workers or min(workers) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative worker counts, got {text!r}")
    return workers


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def parse_args():
    parser = argparse.ArgumentParser(
        description="Compare feedrate with torchvision ImageFolder + DataLoader "
                    "(images/s and peak memory), side by side.")
    parser.add_argument("--dataset", help="ImageFolder dataset (default: generate "
                        f"{GENERATED_COUNT} images / {GENERATED_CLASSES} classes with "
                        "`feedrate make-dataset` in the feedrate cache directory, reused)")
    parser.add_argument("--feedrate", help="feedrate binary (default: ../../build/bench/feedrate "
                        "from this script, else `feedrate` on PATH)")
    parser.add_argument("--workers", type=worker_list, default=[1, 2],
                        help="comma-separated num_workers values (default: 1,2)")
    parser.add_argument("--batch", type=positive_int, default=64, help="batch size (default: 64)")
    parser.add_argument("--transform", choices=("train", "eval"), default="train")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--epochs", type=positive_int, default=1,
                        help="epochs per measurement (default: 1)")
    length.add_argument("--batches", type=positive_int,
                        help="batches per measurement instead of whole epochs")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="measurements per loader and num_workers; the median is quoted "
                             "(default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="shuffle/augmentation seed")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON summary on stdout (the report then goes to stderr)")
    parser.add_argument("--python", action="store_true",
                        help="also measure feedrate's Python module (feedrate.Loader)")
    parser.add_argument("--module-path", help="folder of the built feedrate Python module "
                        "(default: ../../build/python from this script)")
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--python-child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def main():
    args = parse_args()
    if args.torch_child:
        torch_child(args)
        return
    if args.python_child:
        python_child(args)
        return
    stream = sys.stderr if args.json else sys.stdout

    def log(text):
        print(text, file=stream, flush=True)

    try:
        summary = compare(args, log)
    except ChildFailed as error:
        sys.exit(f"compare_torch.py: {error}")
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        print()


if __name__ == "__main__":
    main()
