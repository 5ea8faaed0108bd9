#!/usr/bin/env python3
"""feedrate's image-text Loader against open_clip's webdataset loader and DALI, side by side on
img2dataset shards, in one alternating run.

What it measures
  The sides of image_text_sides.py on one folder of img2dataset webdataset shards (made by the
  real img2dataset when --shards does not exist: image_text_shards.py, LAION-400M's options):
  feedrate.Loader(fields=("txt",)) with open_clip's training Compose, open_clip's own
  get_wds_dataset (webdataset + DataLoader), DALI's CPU webdataset pipeline; batch 256, the same
  number of workers each, float32 224 x 224 batches normalised with CLIP's mean and std, plus the
  captions as str. feedrate-none (fields=()) and feedrate-json (fields=("txt", "json")) run in
  the same rounds: what the captions and the JSON cost.

  Every measurement is a fresh child process (this script with --child) that imports torch
  first, as a training script has it, then builds its side and iterates --epochs whole epochs
  (default 2; an epoch is what each side calls one: open_clip's rounds the samples up to whole
  batches per worker). Its images/s is the last epoch's: images over the time from the first
  batch asked to the last one received, so worker start-up (first epoch) stays out of it.

  Memory is the peak, over the whole child run, of the process tree's summed PSS (tree_memory.py:
  the child and every worker process it starts), and that peak less what the torch-import side
  (a child of this script that imports torch and waits) holds at its end, settled (the median
  over rounds; its peak now and then catches a passing allocation of about 100 MB): what the
  side holds beyond the interpreter with torch imported.

  The sides alternate within each round, in an order that rotates (and reverses every other
  round); the table quotes the median over rounds and the spread (lowest to highest). The shards
  are read once first: warm page cache.

Run it under the benchmark lock with the built feedrate module on --module-path; --venv DIR
makes the peers' virtual environment outside the repository (peer_venv.py's IMAGE_TEXT list)
and runs under it:
  flock /tmp/feedrate-bench.lock python3 bench/micro/compare_image_text.py --venv /work/peers-venv \\
      --shards /work/data/img2dataset-5120 --workers 2 --rounds 3
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from compare_peers import (add_rates, add_run_options, check_module_path, child_stdout,
                           environment, names, round_order, run, spread, timed_epochs,
                           warm_page_cache)
from compare_torch import positive_int
from peer_venv import IMAGE_TEXT
from tree_memory import ChildFailed, rss_pss_kib, run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent.parent
ALL_SIDES = ("feedrate", "webdataset", "dali", "feedrate-none", "feedrate-json", "torch-import")
BASELINE = "torch-import"


def run_child(args, build, first_fields, probe=False):
    """A measured child's run: imports torch first (every side pays for it, as a training
    script does), puts --module-path on sys.path, build() -> (versions, epochs), iterates
    --epochs epochs (none when probe: the side is only built), and prints one JSON object: the
    versions, the epochs' figures, first_fields(the first batch) (a dict), the PSS settled at
    the end."""
    json_out = child_stdout()
    import torch
    if args.module_path:
        sys.path.insert(0, args.module_path)
    torch.set_num_threads(1)  # the workers do the work; no side gets an intra-op pool
    versions, epochs = build()
    first = {}
    runs = [] if probe else timed_epochs(epochs, args.epochs, lambda batch: len(batch[0]),
                                         lambda batch: first.update(first_fields(batch)))
    # What the process holds now, settled: the baseline (a peak may catch a passing allocation).
    settled_pss_mb = rss_pss_kib(os.getpid())[1] * 1024 / 1e6
    sys.stdout.flush()
    json.dump({"versions": versions, "epochs": runs, **first, "settled_pss_mb": settled_pss_mb},
              json_out)
    json_out.close()


def child(args):
    """Build one side, iterate its epochs, print one JSON object with the figures."""
    def build():
        from image_text_sides import SIDES
        return SIDES[args.child](args.shards, args.batch, args.workers, args.seed)

    def first_fields(batch):
        pixels, captions = batch
        return {"batch": [list(pixels.shape), str(pixels.dtype)],
                "caption": captions[0] if captions else None}

    run_child(args, build, first_fields)


def measure(args, side):
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side, "--shards",
               args.shards, "--workers", str(args.workers), "--batch", str(args.batch),
               "--epochs", str(args.epochs), "--seed", str(args.seed), "--module-path",
               args.module_path]
    result = run_sampled(command)
    return result if side == BASELINE else add_rates(result)


def summarise(runs, carried=("batch", "caption")):
    """{side: medians and spreads} over the rounds; the peak PSS also less the torch-import
    side's settled PSS (median over rounds); the keys `carried` of each side's last result
    (what its first batch held) kept as they are."""
    baselines = [r["settled_pss_mb"] for r in runs.get(BASELINE, [])]
    baseline = statistics.median(baselines) if baselines else None
    rows = {}
    for side, results in runs.items():
        if not results:
            continue
        pss = [r["tree_peak_pss_mb"] for r in results]
        row = {"side": side, "rounds": len(results), "peak_pss_mb": statistics.median(pss),
               "peak_pss_mb_spread": spread(pss), "versions": results[-1]["versions"],
               "settled_pss_mb": statistics.median(r["settled_pss_mb"] for r in results),
               "peak_processes": max(r["tree_peak_processes"] for r in results)}
        if baseline is not None:
            row["pss_over_torch_mb"] = row["peak_pss_mb"] - baseline
        if side != BASELINE:
            speeds = [r["images_per_s"] for r in results]
            row.update({"images_per_s": statistics.median(speeds),
                        "images_per_s_spread": spread(speeds),
                        "first_epoch_images_per_s": statistics.median(
                            r["first_epoch_images_per_s"] for r in results),
                        "first_batch_s": statistics.median(r["first_batch_s"] for r in results),
                        "images_per_epoch": results[-1]["epochs"][-1]["images"],
                        **{key: results[-1].get(key) for key in carried}})
        rows[side] = row
    return rows


def ratios(runs, side):
    """feedrate's images/s over side's, round by round."""
    return [ours["images_per_s"] / theirs["images_per_s"]
            for ours, theirs in zip(runs.get("feedrate", []), runs.get(side, []))]


def print_rows(rows, log, ratio_name, ratio, width=14):
    """summarise()'s rows as a table, the torch-import side without rates; ratio(side, row) is
    the text of the column ratio_name. print_legend(log, ...) explains it."""
    log(f"{'side':{width}} {'images/s (median)':>18} {'spread':>15} {ratio_name:>13} "
        f"{'1st epoch':>9} {'peak PSS MB':>11} {'spread':>13} {'over torch':>10} procs")
    for side, row in rows.items():
        plow, phigh = row["peak_pss_mb_spread"]
        over = f"{row['pss_over_torch_mb']:.1f}" if "pss_over_torch_mb" in row else "-"
        memory = f"{row['peak_pss_mb']:11.1f} {plow:6.1f}-{phigh:<6.1f} {over:>10}"
        if side == BASELINE:
            log(f"{side:{width}} {'-':>18} {'-':>15} {'-':>13} {'-':>9} {memory} "
                f"{row['peak_processes']}")
            continue
        low, high = row["images_per_s_spread"]
        log(f"{side:{width}} {row['images_per_s']:18.1f} {low:7.1f}-{high:<7.1f} "
            f"{ratio(side, row):>13} {row['first_epoch_images_per_s']:9.1f} {memory} "
            f"{row['peak_processes']}")


def print_legend(log, ratio_legend, rows, first_batch):
    """What print_rows' columns mean (ratio_legend: its ratio's), then per row its versions,
    first_batch(row) and its epoch's images (not for the torch-import side) and its settled
    PSS."""
    log(f"{ratio_legend}; images/s of the last epoch; peak PSS of the whole process tree, torch "
        f"imported on every side; over torch = that less the {BASELINE} side's settled PSS "
        "(median)")
    for side, row in rows.items():
        batches = ("" if side == BASELINE else f"{first_batch(row)}, "
                   f"{row['images_per_epoch']} images per epoch, ")
        log(f"  {side}: {row['versions']}, {batches}settled PSS {row['settled_pss_mb']:.1f} MB "
            "(median)")


def print_table(rows, runs, log):
    ours = rows.get("feedrate")
    print_rows(rows, log, "feedrate/side", lambda side, row: (
        f"{ours['images_per_s'] / row['images_per_s']:.2f}x" if ours else "-"))
    for side in rows:
        if side not in ("feedrate", BASELINE) and ratios(runs, side):
            log(f"  feedrate/{side} by round: "
                f"{', '.join(f'{r:.2f}' for r in ratios(runs, side))}")
    print_legend(log, "feedrate/side = feedrate's median images/s over the side's", rows,
                 lambda row: f"batch {row.get('batch')}, first caption {row.get('caption')!r}")


def warm_environment(folder, log):
    """Reads folder once (warm page cache) and logs the machine; returns (environment(),
    files, bytes)."""
    files, size = warm_page_cache(folder)
    env = environment(SimpleNamespace(dataset=folder), files, size)
    log(f"cpu {env['cpu']}, {env['cpus_available']} cores available; {env['uptime_before']}")
    return env, files, size


def summary(env, args, runs, failed, print_rows, log, carried=("batch", "caption")):
    """summarise(runs, carried) printed by print_rows(rows), then the load after the run;
    returns the run's JSON summary."""
    rows = summarise(runs, carried)
    log("")
    print_rows(rows)
    env["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    log(env["uptime_after"])
    return {"environment": env, "config": vars(args), "failed": failed,
            "results": list(rows.values()), "runs": runs}


def alternate(sides, rounds, measure, log):
    """measure(side) for every side, `rounds` times, in round_order's alternation, each result
    logged; returns ({side: [results]}, {side: why it failed}). A side that fails once is left
    out of the later rounds."""
    runs = {side: [] for side in sides}
    failed = {}
    width = max(len(side) for side in sides)
    for round_index in range(rounds):
        for side in round_order(sides, round_index):
            if side in failed:
                continue
            try:
                result = measure(side)
            except ChildFailed as error:
                failed[side] = str(error)
                log(f"round {round_index + 1}: {side} FAILED:\n{error}")
                continue
            runs[side].append(result)
            rate = (f"{result['images_per_s']:8.1f} images/s (first epoch "
                    f"{result['first_epoch_images_per_s']:.1f}, its first batch after "
                    f"{result['first_batch_s']:.2f} s), " if side != BASELINE else "")
            log(f"round {round_index + 1}: {side:{width}} {rate}peak PSS "
                f"{result['tree_peak_pss_mb']:.1f} MB (settled at the end "
                f"{result['settled_pss_mb']:.1f} MB in the child), "
                f"{result['tree_peak_processes']} process(es)")
    return runs, failed


def compare(args, log):
    env, files, size = warm_environment(args.shards, log)
    log(f"python {env['python']}; shards {args.shards}: {files} files, {size / 1e6:.1f} MB "
        f"(read once: warm page cache)")
    log(f"batch {args.batch}, {args.workers} worker(s) each, {args.epochs} epoch(s) per run, "
        f"{args.rounds} round(s), sides {', '.join(args.sides)}")
    runs, failed = alternate(args.sides, args.rounds, lambda side: measure(args, side), log)
    return summary(env, args, runs, failed, lambda rows: print_table(rows, runs, log), log)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shards", required=True, help="folder of img2dataset webdataset shards; "
                        "made with img2dataset (image_text_shards.py) when it does not exist")
    parser.add_argument("--count", type=positive_int, default=5120,
                        help="images of shards made here (default: 5120, 20 batches of 256)")
    parser.add_argument("--per-shard", type=positive_int, default=512,
                        help="samples per shard made here (default: 512)")
    parser.add_argument("--feedrate-cli", default=str(REPO / "build" / "bench" / "feedrate"),
                        help="the feedrate program whose make-dataset makes the source JPEGs")
    parser.add_argument("--sides", type=names(ALL_SIDES), default=list(ALL_SIDES),
                        help=f"comma-separated sides (default: {','.join(ALL_SIDES)})")
    add_run_options(parser, ALL_SIDES, batch=256)
    args = parser.parse_args()
    check_module_path(parser, args)
    return args


def make_missing_shards(args):
    if not Path(args.shards).exists():
        from image_text_shards import make_shards
        make_shards(args.shards, args.count, args.feedrate_cli, args.per_shard, args.seed)


def main():
    run(parse_args(), child, compare, IMAGE_TEXT, make_missing_shards)


if __name__ == "__main__":
    main()
