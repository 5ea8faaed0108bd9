#!/usr/bin/env python3
"""feedrate against torch's DataLoader on the torchvision reference's train recipe.

What it measures
  The torchvision classification reference's ResNet-50 train recipe (--auto-augment ta_wide
  --random-erase 0.1 --train-crop-size 176, bilinear), as transforms v2 on uint8 tensors:
    RandomResizedCrop(176, antialias=True), RandomHorizontalFlip(), TrivialAugmentWide(),
    ToDtype(float32, scale=True), Normalize(ImageNet), RandomErasing(0.1)
  * torch: torchvision.datasets.ImageFolder whose loader is torchvision.io.decode_jpeg of the
    file's bytes, then that Compose; torch.utils.data.DataLoader(batch_size, shuffle=True,
    num_workers=N); float32 N x 3 x 176 x 176 batches.
  * feedrate: feedrate.Loader(root, transform=<the same Compose without the decode>, batch_size,
    num_workers=N): the same batches, decoded and augmented natively.
  * feedrate plain: the same Loader with RandomResizedCrop + RandomHorizontalFlip alone (the
    classic recipe), for the CPU per image that the policy adds (the loader's report, decode
    CPU per image, which the verdict's cpu model uses).
  Each measurement is one epoch in a fresh child process; the clock starts at the first
  iteration (the dataset scan outside it, as for both). The sides alternate, rotating the order
  every repeat; medians over repeats are quoted, and ratios of the medians.

Run it with an interpreter that has torch and torchvision >= 0.16 (transforms v2) and the built
feedrate module on --module-path, under the benchmark lock:
  flock /tmp/feedrate-bench.lock VENV/bin/python bench/micro/compare_recipe.py --dataset DIR
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

SCRIPT_DIR = Path(__file__).resolve().parent
CROP = 176
SPEED_TARGET = 2.5
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def recipe(v2, torch, plain=False):
    steps = [v2.RandomResizedCrop(CROP, antialias=True), v2.RandomHorizontalFlip()]
    if not plain:
        steps.append(v2.TrivialAugmentWide())
    steps += [v2.ToDtype(torch.float32, scale=True), v2.Normalize(MEAN, STD)]
    if not plain:
        steps.append(v2.RandomErasing(0.1))
    return v2.Compose(steps)


def child(args):
    import torch
    from torchvision.transforms import v2
    torch.manual_seed(args.seed)
    if args.side == "torch":
        from torchvision.datasets import ImageFolder
        from torchvision.io import decode_jpeg, read_file
        dataset = ImageFolder(args.dataset, loader=lambda path: decode_jpeg(read_file(path)),
                              transform=recipe(v2, torch))
        loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=True,
                                             num_workers=args.workers)
    else:
        sys.path.insert(0, args.module_path)
        import feedrate
        loader = feedrate.Loader(args.dataset, transform=recipe(v2, torch, args.side == "plain"),
                                 batch_size=args.batch, num_workers=args.workers, seed=args.seed)
    images = 0
    shape = None
    start = time.perf_counter()
    for pixels, _labels in loader:
        images += pixels.shape[0]
        shape = [list(pixels.shape), str(pixels.dtype)]
    seconds = time.perf_counter() - start
    result = {"images": images, "seconds": seconds, "images_per_s": images / seconds,
              "batch": shape}
    if args.side != "torch":
        report = loader.report()
        result["decode_cpu_ms_per_image"] = report["decode_cpu_ms_per_image"]
        result["verdict"] = report["verdict"]["bottleneck"]
    json.dump(result, sys.stdout)


def measure(args, side):
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side, "--dataset",
               args.dataset, "--workers", str(args.workers), "--batch", str(args.batch),
               "--seed", str(args.seed), "--module-path", args.module_path]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare_recipe.py: {side} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", required=True, help="ImageFolder of JPEGs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--module-path", default=str(SCRIPT_DIR.parent.parent / "build" / "python"))
    parser.add_argument("--child", choices=("torch", "feedrate", "plain"), help=argparse.SUPPRESS)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="JSON summary on stdout")
    args = parser.parse_args()
    if args.child:
        args.side = args.child
        child(args)
        return
    import torch
    import torchvision
    files = sum(len(f) for _, _, f in os.walk(args.dataset))
    log = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else print
    log(f"cpu {platform.processor() or platform.machine()}, {len(os.sched_getaffinity(0))} cores "
        f"available, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    log(f"python {platform.python_version()}, torch {torch.__version__}, torchvision "
        f"{torchvision.__version__}; dataset {args.dataset} ({files} files); batch {args.batch}, "
        f"workers {args.workers}, {args.repeats} repeats of one epoch, medians")
    for path in Path(args.dataset).rglob("*"):  # warm the page cache for every side
        if path.is_file():
            path.read_bytes()
    sides = ["torch", "feedrate", "plain"]
    runs = {side: [] for side in sides}
    for repeat in range(args.repeats):
        order = sides[repeat % 3:] + sides[:repeat % 3]
        for side in order:
            runs[side].append(measure(args, side))
        log(f"repeat {repeat + 1}: " + ", ".join(
            f"{side} {runs[side][-1]['images_per_s']:.1f} img/s" for side in order))
    median = {side: statistics.median(r["images_per_s"] for r in runs[side]) for side in sides}
    cpu = {side: statistics.median(r["decode_cpu_ms_per_image"] for r in runs[side])
           for side in ("feedrate", "plain")}
    ratio = median["feedrate"] / median["torch"]
    log(f"torch DataLoader (v2, decode_jpeg)   {median['torch']:8.1f} img/s")
    log(f"feedrate, same recipe                {median['feedrate']:8.1f} img/s  "
        f"{ratio:.2f}x  (target {SPEED_TARGET}x: {'met' if ratio >= SPEED_TARGET else 'NOT met'})")
    log(f"feedrate, RandomResizedCrop + flip   {median['plain']:8.1f} img/s")
    log(f"decode CPU per image (report): recipe {cpu['feedrate']:.3f} ms, plain "
        f"{cpu['plain']:.3f} ms: the policy adds {cpu['feedrate'] - cpu['plain']:.3f} ms")
    if args.json:
        json.dump({"median_images_per_s": median, "ratio": ratio,
                   "decode_cpu_ms_per_image": cpu, "runs": runs}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
