#!/usr/bin/env python3
"""feedrate's detection Loader against torchvision's SSD recipe and Ultralytics' YOLO loader, side
by side on one generated detection set, in one alternating run (issue 52's benchmark).

What it measures
  The sides of detection_sides.py on detection_dataset.py's set (made here when --data does not
  exist: --images photograph-like JPEGs of 320 to 800 px with 1 to 8 COCO boxes each, in COCO's
  and Ultralytics' layouts, the same files), batch 32, the same number of workers each:
    ssd   torchvision's reference SSD train preset (v2, PIL backend) plus Resize((300, 300)):
          CocoDetection + wrap_dataset_for_transforms_v2 + DataLoader with
          collate_fn=tuple(zip(*batch)), against feedrate.Loader(annotations=the COCO json)
          with the same Compose (--ssd-transform name: transform="ssd");
    yolo  Ultralytics' YOLODataset (its default training cfg: 640, mosaic, HSV, perspective,
          flip) + its build_dataloader, against feedrate.Loader(annotations=data.yaml,
          transform="yolo").
  The feedrate sides run when the built module takes annotations= (a probe builds each one
  first); otherwise the run says why and measures the peers alone.

  Every measurement is a fresh child process (this script with --child) that imports torch
  first, as a training script has it, then builds its side and iterates --epochs whole epochs
  (default 2; an epoch is every image once, the last batch short). Its images/s is the last
  epoch's: images over the time from the first batch asked to the last one received, so
  worker start-up stays out of it where a loader keeps its workers (feedrate, Ultralytics);
  torchvision's DataLoader, as the reference builds it (no persistent_workers), starts its
  workers again each epoch, and that is in its figure, as in training.

  Memory: the peak, over the whole child run, of the process tree's summed PSS (tree_memory.py),
  and that peak less what the torch-import side holds settled at its end (median over rounds):
  what the side holds beyond the interpreter with torch imported (compare_image_text.py's
  method and summary).

  The sides alternate within each round, in an order that rotates (and reverses every other
  round); medians over rounds and the spread (lowest to highest) are quoted. The dataset is
  read once first: warm page cache.

Run it under the benchmark lock, with the peers' interpreter (torchvision, pycocotools,
ultralytics) and the built feedrate module on --module-path:
  flock /tmp/feedrate-bench.lock /work/peers-venv/bin/python bench/micro/compare_detection.py \\
      --data /work/data/detection-2000 --images 2000 --module-path build/python --rounds 3
--only ssd (or yolo, or side names, comma-separated) runs part of it; --venv DIR makes and fills
a peers' environment (peer_venv.py's DETECTION list) and runs under it.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from compare_image_text import summarise
from compare_peers import (add_rates, add_run_options, child_stdout, environment, names,
                           round_order, run, timed_epochs, warm_page_cache)
from compare_torch import positive_int
from detection_dataset import layout, make_detection_dataset
from detection_sides import RECIPES, SIDES
from peer_venv import DETECTION
from tree_memory import ChildFailed, rss_pss_kib, run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent.parent
BASELINE = "torch-import"
PEER = {ours: theirs for ours, theirs in RECIPES.values()}


def describe(images, targets):
    """The first batch, for the table: the images' layout and the boxes the targets hold."""
    if hasattr(images, "shape"):
        layout_text = f"{list(images.shape)} {images.dtype}"
    else:
        layout_text = f"{len(images)} x {list(images[0].shape)} {images[0].dtype}"
    if isinstance(targets, dict):
        boxes = len(targets.get("bboxes", targets.get("boxes", ())))
    else:
        boxes = sum(len(target["boxes"]) for target in targets)
    return layout_text, boxes


def child(args):
    """Build one side (--probe: only build it), iterate its epochs, print one JSON object."""
    json_out = child_stdout()
    import torch  # every side pays for torch, as a training script does
    if args.module_path:
        sys.path.insert(0, args.module_path)
    torch.set_num_threads(1)  # the workers do the work; no side gets an intra-op pool
    versions, epochs = SIDES[args.child](layout(args.data), args.batch, args.workers, args.seed,
                                         args)
    first = {}

    def first_batch(batch):
        first["batch"], first["boxes"] = describe(*batch)

    runs = [] if args.probe else timed_epochs(epochs, args.epochs, lambda b: len(b[0]),
                                              first_batch)
    # What the process holds now, settled: the baseline (a peak may catch a passing allocation).
    settled_pss_mb = rss_pss_kib(os.getpid())[1] * 1024 / 1e6
    sys.stdout.flush()
    json.dump({"versions": versions, "epochs": runs, "batch": first.get("batch"),
               "boxes": first.get("boxes"), "settled_pss_mb": settled_pss_mb}, json_out)
    json_out.close()


def child_command(args, side):
    return [sys.executable, str(Path(__file__).resolve()), "--child", side, "--data", args.data,
            "--workers", str(args.workers), "--batch", str(args.batch), "--epochs",
            str(args.epochs), "--seed", str(args.seed), "--module-path", args.module_path,
            "--ssd-transform", args.ssd_transform]


def unavailable(args, side):
    """None when the feedrate side builds (the module takes its keywords), else why not."""
    probe = subprocess.run(child_command(args, side) + ["--probe"], capture_output=True,
                           text=True)
    if probe.returncode == 0:
        return None
    lines = probe.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {probe.returncode}"


def measure(args, side):
    result = run_sampled(child_command(args, side))
    return result if side == BASELINE else add_rates(result)


def print_table(rows, log):
    log(f"{'side':17} {'images/s (median)':>18} {'spread':>15} {'feedrate/peer':>13} "
        f"{'1st epoch':>9} {'peak PSS MB':>11} {'spread':>13} {'over torch':>10} procs")
    for side, row in rows.items():
        plow, phigh = row["peak_pss_mb_spread"]
        over = f"{row['pss_over_torch_mb']:.1f}" if "pss_over_torch_mb" in row else "-"
        memory = f"{row['peak_pss_mb']:11.1f} {plow:6.1f}-{phigh:<6.1f} {over:>10}"
        if side == BASELINE:
            log(f"{side:17} {'-':>18} {'-':>15} {'-':>13} {'-':>9} {memory} "
                f"{row['peak_processes']}")
            continue
        low, high = row["images_per_s_spread"]
        peer = rows.get(PEER.get(side))
        versus = f"{row['images_per_s'] / peer['images_per_s']:.2f}x" if peer else "-"
        log(f"{side:17} {row['images_per_s']:18.1f} {low:7.1f}-{high:<7.1f} {versus:>13} "
            f"{row['first_epoch_images_per_s']:9.1f} {memory} {row['peak_processes']}")
    log("feedrate/peer = the feedrate side's median images/s over its recipe's peer's; images/s "
        "of the last epoch; peak PSS of the whole process tree, torch imported on every side; "
        f"over torch = that less the {BASELINE} side's settled PSS (median)")
    for ours, theirs in PEER.items():
        if ours in rows and theirs in rows and "pss_over_torch_mb" in rows[theirs]:
            log(f"  {ours} memory over torch / {theirs}'s: "
                f"{rows[ours]['pss_over_torch_mb'] / rows[theirs]['pss_over_torch_mb']:.2f}")


def planned_sides(args, log):
    """The sides of --only in RECIPES' order plus the baseline, less the feedrate sides that
    do not build (said in the log)."""
    sides = []
    for side in SIDES:
        recipe = side.split("-")[0]
        if side != BASELINE and (side in args.only or recipe in args.only):
            sides.append(side)
    for side in [side for side in sides if side in PEER]:
        reason = unavailable(args, side)
        if reason:
            log(f"{side}: the feedrate side is unavailable ({reason}); measuring the peers only")
            sides.remove(side)
    return sides + [BASELINE]


def compare(args, log):
    files, size = warm_page_cache(args.data)
    env = environment(SimpleNamespace(dataset=args.data), files, size)
    log(f"cpu {env['cpu']}, {env['cpus_available']} cores available; {env['uptime_before']}")
    log(f"python {env['python']}; data {args.data}: {files} files, {size / 1e6:.1f} MB (both "
        "layouts, the JPEGs hard-linked; read once: warm page cache)")
    sides = planned_sides(args, log)
    log(f"batch {args.batch}, {args.workers} worker(s) each, {args.epochs} epoch(s) per run, "
        f"{args.rounds} round(s), sides {', '.join(sides)}")
    runs = {side: [] for side in sides}
    failed = {}
    for round_index in range(args.rounds):
        for side in round_order(sides, round_index):
            if side in failed:
                continue
            try:
                result = measure(args, side)
            except ChildFailed as error:
                failed[side] = str(error)
                log(f"round {round_index + 1}: {side} FAILED:\n{error}")
                continue
            runs[side].append(result)
            rate = (f"{result['images_per_s']:7.1f} images/s (first epoch "
                    f"{result['first_epoch_images_per_s']:.1f}, its first batch after "
                    f"{result['first_batch_s']:.2f} s), " if side != BASELINE else "")
            log(f"round {round_index + 1}: {side:16} {rate}peak PSS "
                f"{result['tree_peak_pss_mb']:.1f} MB, {result['tree_peak_processes']} "
                "process(es)")
    rows = summarise(runs, carried=("batch", "boxes"))
    log("")
    print_table(rows, log)
    for row in rows.values():
        log(f"  {row['side']}: {row['versions']}, first batch {row.get('batch')} with "
            f"{row.get('boxes')} boxes, {row.get('images_per_epoch', 0)} images per epoch, "
            f"settled PSS {row['settled_pss_mb']:.1f} MB (median)")
    env["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    log(env["uptime_after"])
    return {"environment": env, "config": vars(args), "failed": failed,
            "results": list(rows.values()), "runs": runs}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="detection_dataset.py's folder; made here "
                        "when it does not exist")
    parser.add_argument("--images", type=positive_int, default=2000,
                        help="images of a set made here (default: 2000, about 250 MB)")
    parser.add_argument("--feedrate-cli", default=str(REPO / "build" / "bench" / "feedrate"),
                        help="the feedrate program whose make-dataset makes the source JPEGs")
    parser.add_argument("--only", type=names([*RECIPES, *SIDES]), default=list(RECIPES),
                        help="comma-separated recipes (ssd, yolo) or sides (default: ssd,yolo)")
    parser.add_argument("--ssd-transform", choices=("compose", "name"), default="compose",
                        help="the SSD feedrate side's transform: the torchvision Compose, or "
                        'transform="ssd" (default: compose)')
    add_run_options(parser, list(SIDES), batch=32)
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def make_missing_data(args):
    if not Path(args.data).exists():
        make_detection_dataset(args.data, args.images, args.feedrate_cli, args.seed)


def main():
    run(parse_args(), child, compare, DETECTION, make_missing_data)


if __name__ == "__main__":
    main()
