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
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from torch_sides import import_torch, python_child, torch_child
from torch_summary import (MEMORY_TARGET, SPEED_TARGET, print_environment, print_python,
                           print_table, print_targets, summarise, summarise_python)
from tree_memory import SAMPLE_INTERVAL_S, SAMPLER_CPU_SHARE, ChildFailed, run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
GENERATED_COUNT = 1000
GENERATED_CLASSES = 10


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
# Measurements (the report is torch_summary.py's).


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
                               f"({result['images']} images)")
            log(f"repeat {repeat + 1}/{args.repeats}, workers {workers}: " + "; ".join(figures))
            if runs["torch", workers][-1]["images"] != runs["feedrate", workers][-1]["images"]:
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
