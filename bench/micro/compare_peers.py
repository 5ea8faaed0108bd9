#!/usr/bin/env python3
"""feedrate's Python Loader against the strongest peers, side by side in one alternating run.

What it measures
  The sides of peer_sides.py (feedrate, torch with decode_jpeg and transforms v2, DALI's CPU
  pipeline, SPDL, datago for eval) on one ImageFolder of JPEGs, train and eval transforms,
  batch 64, the same number of workers each, uint8 224 x 224 batches, not normalised.

  Every measurement is a fresh child process (this script with --child) that imports torch
  first, as a training script has it, then builds its side and iterates --epochs whole epochs
  (default 2). Its images/s is the last epoch's: images over the time from the first batch
  asked to the last one received, so with two or more epochs worker start-up (in the first
  epoch) stays out of it; the first epoch's rate and how long its first batch took are kept
  too. The dataset's directory scan is outside the clocks.

  Memory is the peak, over the whole child run, of the process tree's summed PSS
  (tree_memory.py: the child and every worker process it starts), torch included on every
  side.

  The sides alternate within each round, in an order that rotates (and reverses every other
  round), so the machine's noise hits every side alike; the table quotes the median over
  rounds and the spread (lowest to highest). The dataset is read once first: warm page cache.

Run it under the benchmark lock with the built feedrate module on --module-path; --venv DIR
makes the peers' virtual environment outside the repository and installs the peers into it
(peer_venv.py: the versions last recorded), then runs under it:
  flock /tmp/feedrate-bench.lock python3 bench/micro/compare_peers.py --venv /work/peers-venv \\
      --dataset DIR --workers 2 --rounds 3
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from compare_torch import positive_int
from peer_venv import IMAGE_FOLDER, ensure_peers
from tree_memory import ChildFailed, run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
ALL_SIDES = ("feedrate", "torch", "dali", "spdl", "datago")
TRANSFORMS = ("train", "eval")
EVAL_ONLY = {"datago"}


def child_stdout():
    """A file on the child's stdout for its one JSON object; everything else printed to stdout
    from here on (the peers' own messages) goes to stderr."""
    json_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    return json_out


def timed_epochs(epochs, count, images_of, first_batch=None):
    """Iterates epochs(0) .. epochs(count - 1); returns per epoch {"images", "seconds",
    "first_batch_s"}, the clock from the first batch asked to the last one received.
    images_of(batch) counts a batch's images; first_batch(batch) sees the run's first batch."""
    runs = []
    for epoch in range(count):
        images, first_batch_s = 0, None
        start = time.perf_counter()
        for batch in epochs(epoch):
            if first_batch_s is None:
                first_batch_s = time.perf_counter() - start
                if first_batch and not runs:
                    first_batch(batch)
            images += images_of(batch)
        runs.append({"images": images, "seconds": time.perf_counter() - start,
                     "first_batch_s": first_batch_s})
    return runs


def add_rates(result):
    """The last epoch's images/s (the figure quoted), the first epoch's and its first batch."""
    last, first = result["epochs"][-1], result["epochs"][0]
    result["images_per_s"] = last["images"] / last["seconds"]
    result["first_epoch_images_per_s"] = first["images"] / first["seconds"]
    result["first_batch_s"] = first["first_batch_s"]
    return result


def round_order(plan, round_index):
    """The order of round round_index: plan rotated by the round, reversed every other round."""
    shift = round_index % len(plan)
    order = plan[shift:] + plan[:shift]
    return order if round_index % 2 == 0 else order[::-1]


def child(args):
    """Build one side, iterate its epochs, print one JSON object with the figures."""
    json_out = child_stdout()
    import torch  # every side pays for torch, as a training script does
    if args.module_path:
        sys.path.insert(0, args.module_path)
    from peer_sides import SIDES
    torch.set_num_threads(1)  # the workers do the work; no side gets an intra-op pool
    versions, epochs = SIDES[args.child](args.dataset, args.transform, args.batch, args.workers,
                                         args.seed)
    shape = []

    def first_batch(batch):
        pixels = batch[0]
        shape.extend([list(pixels.shape), str(pixels.dtype)] if hasattr(pixels, "shape")
                     else [[len(pixels)] + list(pixels[0].shape), "list of arrays"])

    runs = timed_epochs(epochs, args.epochs, lambda batch: len(batch[1]), first_batch)
    sys.stdout.flush()
    json.dump({"versions": versions, "epochs": runs, "batch": shape or None}, json_out)
    json_out.close()


def measure(args, side, transform):
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side,
               "--transform", transform, "--dataset", args.dataset, "--workers",
               str(args.workers), "--batch", str(args.batch), "--epochs", str(args.epochs),
               "--seed", str(args.seed), "--module-path", args.module_path]
    return add_rates(run_sampled(command))


def warm_page_cache(root):
    """Read every file once; returns (files, bytes)."""
    files = size = 0
    for path in Path(root).rglob("*"):
        if path.is_file():
            files += 1
            size += len(path.read_bytes())
    return files, size


def environment(args, files, size):
    with open("/proc/cpuinfo") as cpuinfo:
        cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo
                    if line.startswith("model name")), platform.machine())
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cpus_available": len(os.sched_getaffinity(0)),
            "kernel": platform.release(), "python": f"{sys.executable} "
            f"{platform.python_version()}", "uptime_before": uptime,
            "dataset": {"path": args.dataset, "files": files, "mb": size / 1e6}}


def spread(values):
    return [min(values), max(values)]


def summarise(runs):
    """{(side, transform): medians and spreads} over the rounds."""
    rows = {}
    for key, results in runs.items():
        if not results:
            continue
        speeds = [r["images_per_s"] for r in results]
        pss = [r["tree_peak_pss_mb"] for r in results]
        rows[key] = {"side": key[0], "transform": key[1], "rounds": len(results),
                     "images_per_s": statistics.median(speeds), "images_per_s_spread":
                     spread(speeds), "first_epoch_images_per_s": statistics.median(
                         r["first_epoch_images_per_s"] for r in results),
                     "first_batch_s": statistics.median(r["first_batch_s"] for r in results),
                     "peak_pss_mb": statistics.median(pss), "peak_pss_mb_spread": spread(pss),
                     "peak_processes": max(r["tree_peak_processes"] for r in results),
                     "images_per_epoch": results[-1]["epochs"][-1]["images"],
                     "batch": results[-1]["batch"], "versions": results[-1]["versions"]}
    return rows


def print_table(rows, log):
    log(f"{'side':9} {'transform':9} {'images/s (median)':>18} {'spread':>15} "
        f"{'vs feedrate':>11} {'1st epoch':>9} {'peak PSS MB':>11} {'spread':>13} procs")
    for transform in TRANSFORMS:
        ours = rows.get(("feedrate", transform))
        for (side, kind), row in rows.items():
            if kind != transform:
                continue
            low, high = row["images_per_s_spread"]
            plow, phigh = row["peak_pss_mb_spread"]
            versus = f"{ours['images_per_s'] / row['images_per_s']:.2f}x" if ours else "-"
            log(f"{side:9} {transform:9} {row['images_per_s']:18.1f} {low:7.1f}-{high:<7.1f} "
                f"{versus:>11} {row['first_epoch_images_per_s']:9.1f} "
                f"{row['peak_pss_mb']:11.1f} {plow:6.1f}-{phigh:<6.1f} {row['peak_processes']}")
    log("vs feedrate = feedrate's median images/s over this side's (same transform); images/s "
        "of the last epoch; peak PSS of the whole process tree, torch imported on every side")


def compare(args, log):
    files, size = warm_page_cache(args.dataset)
    env = environment(args, files, size)
    log(f"cpu {env['cpu']}, {env['cpus_available']} cores available; {env['uptime_before']}")
    log(f"python {env['python']}; dataset {args.dataset}: {files} files, {size / 1e6:.1f} MB "
        f"(read once: warm page cache)")
    log(f"batch {args.batch}, {args.workers} worker(s) each, {args.epochs} epoch(s) per run, "
        f"{args.rounds} round(s), sides {', '.join(args.sides)}")
    plan = [(side, t) for t in args.transforms for side in args.sides
            if t == "eval" or side not in EVAL_ONLY]
    runs = {key: [] for key in plan}
    failed = {}
    for round_index in range(args.rounds):
        for side, transform in round_order(plan, round_index):
            if (side, transform) in failed:
                continue
            try:
                result = measure(args, side, transform)
            except ChildFailed as error:
                failed[side, transform] = str(error)
                log(f"round {round_index + 1}: {side} {transform} FAILED:\n{error}")
                continue
            runs[side, transform].append(result)
            log(f"round {round_index + 1}: {side:8} {transform:5} "
                f"{result['images_per_s']:8.1f} images/s (first epoch "
                f"{result['first_epoch_images_per_s']:.1f}, its first batch after "
                f"{result['first_batch_s']:.2f} s), peak PSS "
                f"{result['tree_peak_pss_mb']:.1f} MB, {result['tree_peak_processes']} "
                f"process(es)")
    rows = summarise(runs)
    log("")
    print_table(rows, log)
    for row in rows.values():
        log(f"  {row['side']} {row['transform']}: {row['versions']}, batch {row['batch']}, "
            f"first batch after {row['first_batch_s']:.2f} s (median)")
    env["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    log(env["uptime_after"])
    return {"environment": env, "config": vars(args), "failed": failed,
            "results": list(rows.values()),
            "runs": {f"{side} {t}": results for (side, t), results in runs.items()}}


def names(allowed):
    def parse(text):
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [name for name in chosen if name not in allowed]
        if not chosen or unknown:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of "
                                             f"{', '.join(allowed)}; got {text!r}")
        return chosen
    return parse


def add_run_options(parser, sides, batch):
    """The options every alternating comparison takes: workers, batch (default `batch`), epochs,
    rounds, seed, the module's folder, --json, --venv, and the hidden --child SIDE."""
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="workers of every side (default: 2)")
    parser.add_argument("--batch", type=positive_int, default=batch,
                        help=f"batch size (default: {batch})")
    parser.add_argument("--epochs", type=positive_int, default=2,
                        help="whole epochs per run; the last one is timed (default: 2)")
    parser.add_argument("--rounds", type=positive_int, default=3,
                        help="runs of every side, alternating; medians quoted (default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="shuffle/augmentation seed")
    parser.add_argument("--module-path", default=str(SCRIPT_DIR.parent.parent / "build" / "python"),
                        help="folder of the built feedrate module (default: build/python)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    parser.add_argument("--venv", metavar="DIR",
                        help="the peers' virtual environment (outside the repository): made and "
                        "filled from PyPI when missing, then this script runs under it")
    parser.add_argument("--child", choices=sides, help=argparse.SUPPRESS)


def check_module_path(parser, args):
    """Stops with a message when --module-path holds no built feedrate module (not in a child)."""
    if not args.child and not any((Path(args.module_path) / "feedrate").glob("_C*.so")):
        parser.error(f"--module-path {args.module_path}: no feedrate module there (build the "
                     "feedrate_python target, or pass the folder that holds it)")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", required=True, help="ImageFolder of JPEGs "
                        "(e.g. made with `feedrate make-dataset DIR --count 5000`)")
    parser.add_argument("--sides", type=names(ALL_SIDES), default=list(ALL_SIDES),
                        help=f"comma-separated sides (default: {','.join(ALL_SIDES)})")
    parser.add_argument("--transforms", type=names(TRANSFORMS), default=list(TRANSFORMS),
                        help="comma-separated transforms (default: train,eval)")
    add_run_options(parser, ALL_SIDES, batch=64)
    parser.add_argument("--transform", choices=TRANSFORMS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.child and not Path(args.dataset).is_dir():
        parser.error(f"--dataset {args.dataset}: not a folder (an ImageFolder of JPEGs)")
    check_module_path(parser, args)
    return args


def run(args, child, compare, peers=IMAGE_FOLDER, prepare=None):
    """A comparison's main: the child's run under --child; otherwise the peers' venv (--venv),
    prepare(args) when given, the rounds (printed), their JSON to --json."""
    if args.child:
        child(args)
        return
    if args.venv:
        ensure_peers(args.venv, peers)
    if prepare:
        prepare(args)
    summary = compare(args, lambda text: print(text, flush=True))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")


def main():
    run(parse_args(), child, compare)


if __name__ == "__main__":
    main()
