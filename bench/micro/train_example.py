#!/usr/bin/python3
"""A short, real training loop fed by feedrate: torchvision's ResNet-18 on the CPU.

It generates a small ImageNet-like dataset with `feedrate make-dataset` (or uses --dataset),
trains ResNet-18 for a few dozen SGD steps on feedrate.Loader batches (float32 NCHW,
normalised, as torch tensors without a copy), and prints the loss as it goes and, at the end,
the loader's verdict: what holds this training back. On a CPU the model is the slow part, so
the verdict should say `consumer` (the loader keeps up).

  /usr/bin/python3 bench/micro/train_example.py [--steps 30] [--size 48] [--batch 16] [--workers 2]

Checkpoints and resuming: --checkpoint PATH saves the model, the optimizer and the loader's
state_dict() every --checkpoint-every steps; --resume continues from PATH exactly where the
loader stopped (the rest of the epoch, same batches). --stop-after N ends the run abruptly
after N steps, as a preempted instance would:

  /usr/bin/python3 bench/micro/train_example.py --checkpoint /tmp/ckpt.pt --checkpoint-every 5 \
      --stop-after 12
  /usr/bin/python3 bench/micro/train_example.py --checkpoint /tmp/ckpt.pt --resume

It imports feedrate from ../../build/python (the repository's build) when PYTHONPATH does not
provide it.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
BUILD = SCRIPT_DIR.parent.parent / "build"


def import_feedrate():
    try:
        import feedrate
    except ImportError:
        sys.path.insert(0, str(BUILD / "python"))
        try:
            import feedrate
        except ImportError as error:
            sys.exit(f"train_example.py: cannot import feedrate ({error}); build it "
                     "(cmake --build build) or set PYTHONPATH to the build's python folder")
    return feedrate


def dataset_path(args):
    """--dataset, or a generated one (made once) in the feedrate cache directory."""
    if args.dataset:
        return Path(args.dataset)
    cache = Path(os.environ.get("FEEDRATE_CACHE") or
                 Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "feedrate")
    path = cache / f"train-example-{args.images}x{args.classes}"
    if not path.is_dir():
        binary = Path(args.feedrate) if args.feedrate else BUILD / "bench" / "feedrate"
        partial = path.with_name(path.name + f".partial-{os.getpid()}")
        print(f"generating {args.images} images in {args.classes} classes at {path}", flush=True)
        subprocess.run([str(binary), "make-dataset", str(partial), "--count", str(args.images),
                        "--classes", str(args.classes), "--format", "folder"], check=True)
        partial.rename(path)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", help="ImageFolder dataset (default: generated)")
    parser.add_argument("--feedrate", help="the feedrate binary, to generate the dataset")
    parser.add_argument("--images", type=int, default=320)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--size", type=int, default=48)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--progress", action="store_true", help="feedrate's progress line")
    parser.add_argument("--checkpoint", help="file for model, optimizer and loader state")
    parser.add_argument("--checkpoint-every", type=int, default=10, help="steps between saves")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    parser.add_argument("--stop-after", type=int, help="exit abruptly after this many steps")
    args = parser.parse_args()
    if (args.resume or args.stop_after) and not args.checkpoint:
        parser.error("--resume and --stop-after need --checkpoint")

    import torch
    import torchvision
    feedrate = import_feedrate()
    loader = feedrate.Loader(dataset_path(args), batch_size=args.batch, num_workers=args.workers,
                             transform="train", size=args.size, dtype="float32", device="cpu",
                             shuffle=True, seed=0, drop_last=True, progress=args.progress)
    model = torchvision.models.resnet18(num_classes=len(loader.classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    print(f"ResNet-18 on the CPU ({torch.get_num_threads()} threads), {loader.num_samples} "
          f"images in {len(loader.classes)} classes, batch {args.batch}, {args.size}x{args.size}, "
          f"{args.workers} decode workers", flush=True)

    step, epoch = 0, 0
    if args.resume:
        checkpoint = torch.load(args.checkpoint)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        loader.load_state_dict(checkpoint["loader"])  # the next iter() continues the epoch
        step, epoch = checkpoint["step"], checkpoint["epoch"]
        print(f"resumed at step {step}, epoch {epoch}, batch "
              f"{checkpoint['loader']['loader']['batches_received']} of the epoch", flush=True)

    def save(step, epoch):
        partial = f"{args.checkpoint}.partial"
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "loader": loader.state_dict(), "step": step, "epoch": epoch}, partial)
        os.replace(partial, args.checkpoint)  # a kill mid-save leaves the last checkpoint whole

    model.train()
    first_step, start = step, time.perf_counter()
    while step < args.steps:
        loader.set_epoch(epoch)
        for images, labels in loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            step += 1
            if step % 10 == 0 or step == args.steps:
                print(f"step {step:3d}  epoch {epoch}  loss {loss.item():.3f}  "
                      f"{(step - first_step) * args.batch / (time.perf_counter() - start):.1f} "
                      "images/s", flush=True)
            if args.checkpoint and step % args.checkpoint_every == 0:
                save(step, epoch)
            if args.stop_after and step == args.stop_after:
                print(f"stopping abruptly after step {step} (last checkpoint: step "
                      f"{step - step % args.checkpoint_every})", flush=True)
                os._exit(0)
            if step == args.steps:
                break
        epoch += 1

    report = loader.report()
    verdict = report["verdict"]
    print(f"\nfeedrate verdict: {verdict['bottleneck']} (the training loop waited for data "
          f"{verdict['stall_fraction']:.1%} of the time; loader {report['images_per_s']:.0f} "
          f"images/s, decode {report['decode_cpu_ms_per_image']:.2f} ms CPU per image, "
          f"training step {report['consumer_ms_per_batch']:.0f} ms per batch)")
    for advice in verdict["advice"]:
        print(f"  {advice}")


if __name__ == "__main__":
    main()
