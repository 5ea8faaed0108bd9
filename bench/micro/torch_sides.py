"""The two child modes of compare_torch.py, each run in a fresh process per measurement
(compare_torch.py --torch-child, --python-child) that prints one JSON object of its figures:
torch's ImageFolder + DataLoader with the torchvision transform equivalent to feedrate's, and
feedrate's Python module (feedrate.Loader yielding torch tensors). compare_torch.py's docstring
says what each measures and where its clock starts.
"""

import itertools
import json
import sys
import time

CROP_SIZE = 224
RESIZE_SIZE = 256


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


def iterate(loader, args, set_epoch=None):
    """Takes `loader`'s batches for the run's length (--epochs whole epochs, or the first
    --batches batches), calling set_epoch(epoch) before each epoch when given; returns the
    images, the batches, and the last batch's shape and dtype."""
    images = batches = 0
    batch_shape = batch_dtype = None
    epochs = itertools.count() if args.batches else range(args.epochs)
    for epoch in epochs:
        if set_epoch:
            set_epoch(epoch)
        for pixels, _labels in loader:
            images += pixels.shape[0]
            batches += 1
            batch_shape, batch_dtype = list(pixels.shape), str(pixels.dtype)
            if batches == args.batches:
                break
        if batches == args.batches:
            break
    return images, batches, batch_shape, batch_dtype


# ----------------------------------------------------------------------------------------
# Torch side.


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
    start = time.perf_counter()
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers[0],
        persistent_workers=False, pin_memory=False)
    images, batches, batch_shape, batch_dtype = iterate(loader, args)
    seconds = time.perf_counter() - start
    json.dump({"dataset_samples": len(dataset), "images": images, "batches": batches,
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
    start = time.perf_counter()  # after the dataset scan, as `feedrate bench` starts its clock
    images, batches, batch_shape, batch_dtype = iterate(loader, args, loader.set_epoch)
    seconds = time.perf_counter() - start
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
    json.dump({"dataset_samples": loader.num_samples, "images": images, "batches": batches,
               "seconds": seconds, "images_per_s": images / seconds, "peak_rss_mb": peak_rss_mb,
               "baseline_rss_mb": baseline_rss_mb,
               "batch_shape": batch_shape, "batch_dtype": batch_dtype,
               "verdict": loader.report()["verdict"]["bottleneck"]}, sys.stdout)
