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
    frcnn torchvision's reference "multiscale" preset (Faster R-CNN's: RandomShortestSize(480..800,
          max_size=1333), flip), the same loader against feedrate with the same Compose, whose
          batches are padded to their largest image (rounded up to 32);
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
import subprocess
import sys
from pathlib import Path

from compare_image_text import (alternate, print_legend, print_rows, run_child, summary,
                                warm_environment)
from compare_peers import add_rates, add_run_options, names, run
from compare_torch import positive_int
from detection_dataset import layout, make_detection_dataset
from detection_sides import RECIPES, SIDES
from peer_venv import DETECTION
from tree_memory import run_sampled

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent.parent
BASELINE = "torch-import"
PEER = {ours: theirs for ours, theirs in RECIPES.values()}


def describe(images, targets):
    """The first batch, for the table: the images' layout and the boxes the targets hold (None
    when the targets are neither a dict of boxes, Ultralytics' batch, nor a sequence of them)."""
    if hasattr(images, "shape"):
        layout_text = f"{list(images.shape)} {images.dtype}"
    else:
        layout_text = f"{len(images)} x {list(images[0].shape)} {images[0].dtype}"
    if isinstance(targets, dict):
        boxes = len(targets.get("bboxes", targets.get("boxes", ())))
    elif all(isinstance(target, dict) and "boxes" in target for target in targets):
        boxes = sum(len(target["boxes"]) for target in targets)
    else:
        boxes = None
    return layout_text, boxes


def child(args):
    """Build one side (--probe: only build it), iterate its epochs, print one JSON object."""
    def build():
        return SIDES[args.child](layout(args.data), args.batch, args.workers, args.seed, args)

    def first_fields(batch):
        layout_text, boxes = describe(*batch)
        return {"batch": layout_text, "boxes": boxes}

    run_child(args, build, first_fields, probe=args.probe)


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
    def versus(side, row):
        peer = rows.get(PEER.get(side))
        return f"{row['images_per_s'] / peer['images_per_s']:.2f}x" if peer else "-"

    print_rows(rows, log, "feedrate/peer", versus, width=17)
    for ours, theirs in PEER.items():
        if ours in rows and theirs in rows and "pss_over_torch_mb" in rows[theirs]:
            log(f"  {ours} memory over torch / {theirs}'s: "
                f"{rows[ours]['pss_over_torch_mb'] / rows[theirs]['pss_over_torch_mb']:.2f}")
    print_legend(log, "feedrate/peer = the feedrate side's median images/s over its recipe's "
                 "peer's", rows,
                 lambda row: f"first batch {row.get('batch')} with {row.get('boxes')} boxes")


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
    env, files, size = warm_environment(args.data, log)
    log(f"python {env['python']}; data {args.data}: {files} files, {size / 1e6:.1f} MB (both "
        "layouts, the JPEGs hard-linked; read once: warm page cache)")
    sides = planned_sides(args, log)
    log(f"batch {args.batch}, {args.workers} worker(s) each, {args.epochs} epoch(s) per run, "
        f"{args.rounds} round(s), sides {', '.join(sides)}")
    runs, failed = alternate(sides, args.rounds, lambda side: measure(args, side), log)
    return summary(env, args, runs, failed, lambda rows: print_table(rows, log), log,
                   carried=("batch", "boxes"))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="detection_dataset.py's folder; made here "
                        "when it does not exist")
    parser.add_argument("--images", type=positive_int, default=2000,
                        help="images of a set made here (default: 2000, about 250 MB)")
    parser.add_argument("--feedrate-cli", default=str(REPO / "build" / "bench" / "feedrate"),
                        help="the feedrate program whose make-dataset makes the source JPEGs")
    parser.add_argument("--only", type=names([*RECIPES, *SIDES]), default=list(RECIPES),
                        help="comma-separated recipes (ssd, frcnn, yolo) or sides (default: all)")
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
