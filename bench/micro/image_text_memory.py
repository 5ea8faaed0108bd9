#!/usr/bin/env python3
"""What feedrate's image-text loader holds, apart from what the script around it imports.

One process per --prefetch value (a fresh interpreter each): it imports torch and reads its PSS,
then torchvision, then builds open_clip's training Compose (image_text_sides.py's: with
open_clip, or with --compose torchvision the same steps from torchvision alone), then imports
feedrate, reading its PSS after each, then runs --epochs whole epochs of
feedrate.Loader(--shards, fields=("txt",), that Compose, batch --batch, 2 workers,
prefetch_batches=P, --device), reading its PSS after every batch. It prints, in MB: the PSS
after `import torch`, what the imports add, and the peak over `import torch` and over the
imports, which is the loader's own (its slots: batch x 3 x 224 x 224 float32 each on the host,
uint8 with --device cuda, and the rest). A memory figure only: the images/s it prints are not a
measurement (no alternation, no peer).

    /work/peers-venv/bin/python bench/micro/image_text_memory.py --shards DIR \\
        --module-path build/python --prefetch 3 2
"""

import argparse
import subprocess
import sys
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent


def pss_mb():
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no Pss in /proc/self/smaps_rollup")


def child(args):
    import time

    import torch  # noqa: F401  (the baseline, as a training script has it)
    base = pss_mb()
    sys.path.insert(0, str(SCRIPT_DIR))
    import torchvision  # noqa: F401  (what each Compose needs, the peer's too)
    with_torchvision = pss_mb()
    import image_text_sides
    transform = (image_text_sides.open_clip_train_transform() if args.compose == "open_clip"
                 else image_text_sides.torchvision_train_transform())
    with_compose = pss_mb()
    import feedrate
    imported = pss_mb()
    loader = feedrate.Loader(args.shards, batch_size=args.batch, num_workers=2,
                             transform=transform, fields=("txt",), seed=1,
                             prefetch_batches=args.child, device=args.device)
    peak, images, start = 0.0, 0, time.monotonic()
    for epoch in range(args.epochs):
        loader.set_epoch(epoch)
        for batch, _captions in loader:
            images += len(batch)
            peak = max(peak, pss_mb())
    seconds = time.monotonic() - start
    print(f"prefetch_batches {args.child} on {args.device}, the Compose from {args.compose}: "
          "import torch "
          f"{base:.0f} MB; the imports add {imported - base:.0f} MB (torchvision "
          f"{with_torchvision - base:.0f}, the Compose's {with_compose - with_torchvision:.0f}, "
          f"feedrate {imported - with_compose:.0f}); peak over import torch {peak - base:.0f} MB, "
          "over the "
          f"imports {peak - imported:.0f} MB ({images} images, {images / seconds:.0f} images/s, "
          "not a measurement)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shards", required=True, help="img2dataset-style shards")
    parser.add_argument("--module-path", default=str(SCRIPT_DIR.parent.parent / "build" / "python"))
    parser.add_argument("--prefetch", type=int, nargs="+", default=[3, 2])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--compose", choices=("open_clip", "torchvision"), default="open_clip",
                        help="build the training Compose with open_clip.image_transform, or the "
                             "same steps from torchvision alone (no open_clip import)")
    parser.add_argument("--device", default="cpu",
                        help="where the batches are delivered: cpu, or cuda (uint8 host slots, "
                             "normalised on the GPU)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        sys.path.insert(0, args.module_path)
        child(args)
        return
    for prefetch in args.prefetch:
        subprocess.run([sys.executable, __file__, "--shards", args.shards, "--module-path",
                        args.module_path, "--batch", str(args.batch), "--epochs",
                        str(args.epochs), "--compose", args.compose, "--device", args.device,
                        "--child", str(prefetch)],
                       check=True)


if __name__ == "__main__":
    main()
