#!/usr/bin/python3
"""PNG and WebP on one thread: feedrate against PIL, side by side in one run.

Each format gets a folder of photo-like 500x375 images written by PIL (PNG: RGB, default
compression; WebP: lossy quality 90 and lossless). Then, alternating in every repeat and
flipping the order from one repeat to the next:

  * PIL decode: Image.open(f).convert("RGB") and load(), nothing else (what PIL must do before
    any transform; the lower bound of a torchvision pipeline);
  * PIL eval: the same, then torchvision's Resize(256) + CenterCrop(224);
  * feedrate eval: feedrate.Loader(folder, transform="eval", size=224, num_workers=0,
    shuffle=False): decode (by content), Resize(256) + CenterCrop(224), on the caller's thread.

All on one thread (torch.set_num_threads(1); num_workers=0 decodes on the consumer's thread),
warm page cache. Quoted: the median images/s over repeats and feedrate's ratio to each PIL
side. The issue's target: feedrate at least as fast as PIL on one thread.

  /usr/bin/python3 bench/micro/compare_formats.py [--images 200] [--repeats 3]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BUILD_PYTHON = Path(__file__).resolve().parent.parent.parent / "build" / "python"


def write_images(root, kind, count):
    from PIL import Image
    folder = root / kind / "class_0"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:375, 0:500]
    for i in range(count):
        base = np.stack([x * 255 // 500, y * 255 // 375, (x + y + 40 * i) % 256], -1)
        noise = rng.integers(0, 24, size=(375, 500, 3))
        image = Image.fromarray(((base + noise) % 256).astype(np.uint8))
        if kind == "png":
            image.save(folder / f"{i}.png")
        elif kind == "webp-lossy":
            image.save(folder / f"{i}.webp", quality=90)
        else:
            image.save(folder / f"{i}.webp", lossless=True)
    return root / kind


def pil_rate(folder, transform):
    from PIL import Image
    files = sorted(folder.glob("*/*"))
    start = time.perf_counter()
    for f in files:
        with Image.open(f) as image:
            rgb = image.convert("RGB")
            rgb.load()
            if transform is not None:
                transform(rgb)
    return len(files) / (time.perf_counter() - start)


def feedrate_rate(feedrate, folder):
    loader = feedrate.Loader(str(folder), transform="eval", size=224, num_workers=0,
                             shuffle=False, batch_size=32, arrays="numpy")
    start = time.perf_counter()
    count = sum(len(labels) for _, labels in loader)
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    try:
        import feedrate
    except ImportError:
        sys.path.insert(0, str(BUILD_PYTHON))
        import feedrate
    import torch
    import torchvision.transforms as T
    torch.set_num_threads(1)
    eval_transform = T.Compose([T.Resize(256), T.CenterCrop(224)])
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{args.images} images of 500x375 per format, one thread, medians of "
              f"{args.repeats} alternating repeats (images/s)")
        print(f"{'format':<12} {'PIL decode':>11} {'PIL eval':>9} {'feedrate eval':>14} "
              f"{'vs decode':>10} {'vs eval':>8}")
        for kind in ("png", "webp-lossy", "webp-lossless"):
            folder = write_images(Path(tmp), kind, args.images)
            pil_rate(folder, None)  # warm the page cache
            sides = {"decode": [], "eval": [], "feedrate": []}
            for repeat in range(args.repeats):
                order = ["decode", "eval", "feedrate"]
                for side in order if repeat % 2 == 0 else reversed(order):
                    if side == "feedrate":
                        sides[side].append(feedrate_rate(feedrate, folder))
                    else:
                        sides[side].append(
                            pil_rate(folder, eval_transform if side == "eval" else None))
            m = {k: statistics.median(v) for k, v in sides.items()}
            print(f"{kind:<12} {m['decode']:>11.1f} {m['eval']:>9.1f} {m['feedrate']:>14.1f} "
                  f"{m['feedrate'] / m['decode']:>9.2f}x {m['feedrate'] / m['eval']:>7.2f}x")


if __name__ == "__main__":
    main()
