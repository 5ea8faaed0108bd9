"""The Python module on a CUDA GPU, run by bench/device/gpu_check.sh: CUDA torch tensors through
DLPack, equal to the host path's; the training stream sees a batch without the host blocking;
a few ResNet-18 training steps on the batches; the device memory over 1,000 batches; and the h2d
verdict when the training stream falls behind the copies. Writes one JSON object (--out).

  python3 torch_check.py DATASET --out RESULT.json [--device cuda|cpu] [--workers N]

--device cpu runs the parts that need no GPU (the module, DLPack tensors, the model and its
training steps), for a dry run on a machine without one. Exit status: 0 when every check
passed, 1 when one failed, 3 when torch or a CUDA GPU is missing (the JSON says which).
"""

import argparse
import contextlib
import ctypes
import json
import os
import statistics
import sys
import time

feedrate = None  # imported by import_feedrate(), after torch


def import_feedrate():
    """The module, imported after torch so that in torch's process its CUDA code uses the CUDA
    runtime torch loaded (the same major version, maybe newer than the bundle's). Where none is
    loaded (no torch, or a torch without CUDA 13) the bundle's copy, $FEEDRATE_CUDART, is."""
    global feedrate
    try:
        import feedrate as module
    except ImportError as e:
        cudart = os.environ.get("FEEDRATE_CUDART")
        if not cudart or "libcudart" not in str(e):
            raise
        ctypes.CDLL(cudart, mode=ctypes.RTLD_GLOBAL)
        import feedrate as module
    feedrate = module


def loaded_cuda_runtimes():
    """The libcudart files mapped into this process."""
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "libcudart" in line})


def fail(result, name, message):
    result["failures"].append(f"{name}: {message}")
    print(f"FAILED {name}: {message}", flush=True)


def resnet18(classes):
    """torchvision's ResNet-18 when torchvision is installed, else the same architecture
    (BasicBlock, [2, 2, 2, 2]) defined here: the GPU machine may not have torchvision."""
    try:
        import torchvision

        return torchvision.models.resnet18(num_classes=classes), "torchvision"
    except ImportError:
        pass
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
                nn.BatchNorm2d(cout))
            self.skip = nn.Identity() if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return (self.body(x) + self.skip(x)).relu()

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers), "defined in torch_check.py (torchvision not installed)"


def check_equal_to_host(torch, args, device, result):
    """A few batches of each dtype on `device` against the host path, bit for bit (float16:
    the host's float32 rounded to nearest even, as the device converts)."""
    figures = {}
    # float16 exists only on a CUDA device (converted there).
    for dtype in ["uint8", "float32"] + (["float16"] if device == "cuda" else []):
        common = dict(batch_size=16, size=64, num_workers=args.workers, seed=5, arrays="torch")
        host = feedrate.Loader(args.dataset, dtype="float32" if dtype == "float16" else dtype,
                               **common)
        moved = feedrate.Loader(args.dataset, dtype=dtype, device=device, **common)
        compared, equal = 0, True
        for (hi, hl), (di, dl) in zip(host, moved):
            if di.device.type != torch.device(device).type or di.dtype != getattr(torch, dtype):
                fail(result, "dlpack", f"{dtype}: got {di.dtype} on {di.device}")
                equal = False
                break
            expected = hi.half() if dtype == "float16" else hi
            if not (torch.equal(di.cpu(), expected) and torch.equal(dl.cpu(), hl)):
                diff = (di.cpu().float() - expected.float()).abs().max().item()
                fail(result, "equal_to_host", f"{dtype} batch {compared}: max difference {diff}")
                equal = False
                break
            compared += 1
            if compared == 4:
                break
        figures[dtype] = {"batches_compared": compared, "equal": equal}
    result["equal_to_host"] = figures


def cycles_for(torch, milliseconds):
    """torch.cuda._sleep cycles that keep the current stream busy for about `milliseconds`."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # The first launch also loads the kernel (CUDA's lazy module loading): measured with it, the
    # cycles came out a third of what 300 ms needs on an H200.
    torch.cuda._sleep(1_000)
    torch.cuda.synchronize()
    start.record()
    torch.cuda._sleep(10_000_000)
    end.record()
    end.synchronize()
    return int(10_000_000 * milliseconds / start.elapsed_time(end))


def check_no_host_block(torch, args, result):
    """With the training stream busy for 300 ms, next() must return at once (the stream waits
    for the copy, not the host), and work queued behind it must see the batch's data."""
    loader = feedrate.Loader(args.dataset, batch_size=32, size=128, num_workers=args.workers,
                             seed=3, shuffle=False, dtype="float16", device="cuda",
                             arrays="torch")
    host = feedrate.Loader(args.dataset, batch_size=32, size=128, num_workers=args.workers,
                           seed=3, shuffle=False, dtype="float32", arrays="torch")
    expected = [hi.half().float().sum().item() for (hi, _), _ in zip(host, range(3))]
    stream = torch.cuda.Stream()
    busy = cycles_for(torch, 300)
    sums, next_s = [], []
    with torch.cuda.stream(stream):
        batches = iter(loader)
        time.sleep(0.5)  # let the loader prefetch: next() then waits for nothing on the host
        for _ in range(3):
            torch.cuda._sleep(busy)  # the training stream is busy with earlier work
            start = time.perf_counter()
            images, _ = next(batches)
            next_s.append(time.perf_counter() - start)
            sums.append(images.float().sum())  # queued behind the sleep and the copy
        queued = time.perf_counter()
    stream.synchronize()
    gpu_done_s = time.perf_counter() - queued
    got = [s.item() for s in sums]
    figures = {"next_ms": [round(1e3 * s, 3) for s in next_s],
               "stream_busy_ms_queued": 900, "host_waited_for_stream_ms": round(1e3 * gpu_done_s, 1),
               "sums_equal_host": all(abs(a - b) <= 1e-3 * max(1.0, abs(b))
                                      for a, b in zip(got, expected))}
    result["no_host_block"] = figures
    if max(next_s) > 0.1:
        fail(result, "no_host_block", f"next() took {1e3 * max(next_s):.1f} ms behind a busy stream")
    if gpu_done_s < 0.3:
        fail(result, "no_host_block",
             f"the stream finished {1e3 * gpu_done_s:.0f} ms after the host queued 900 ms of work: "
             "did next() synchronise?")
    if not figures["sums_equal_host"]:
        fail(result, "no_host_block", f"sums on the stream {got} != host path {expected}")


def train(torch, args, device, result):
    """ResNet-18 steps on the loader's float16 batches (autocast on CUDA)."""
    loader = feedrate.Loader(args.dataset, batch_size=args.batch, size=224,
                             num_workers=args.workers, dtype="float16" if device == "cuda"
                             else "float32", device=device, arrays="torch")
    model, source = resnet18(len(loader.classes))
    model = model.to(device).to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda") if device == "cuda" else None
    losses, next_s = [], []
    steps = 0
    start = time.perf_counter()
    batches = iter(loader)
    while steps < args.steps:
        t = time.perf_counter()
        try:
            images, labels = next(batches)
        except StopIteration:
            batches = iter(loader)
            continue
        next_s.append(time.perf_counter() - t)
        precision = (torch.autocast("cuda", dtype=torch.float16) if device == "cuda"
                     else contextlib.nullcontext())
        with precision:
            loss = torch.nn.functional.cross_entropy(
                model(images.contiguous(memory_format=torch.channels_last)), labels)
        optimizer.zero_grad(set_to_none=True)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        losses.append(loss.detach())
        steps += 1
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    values = [v.item() for v in losses]
    result["train"] = {"model": f"resnet18 ({source})", "steps": steps, "batch": args.batch,
                       "images_per_s": round(steps * args.batch / seconds, 1),
                       "next_ms_median": round(1e3 * statistics.median(next_s), 3),
                       "loss_first": values[0], "loss_last": values[-1],
                       "verdict": loader.report()["verdict"]}
    if not all(v == v and abs(v) != float("inf") for v in values):
        fail(result, "train", f"loss is not finite: {values}")


def device_memory(torch, args, result):
    """Device memory in use (cudaMemGetInfo, the whole device) after 50 and after 1,000
    batches of 64 float16 224 x 224 images."""
    loader = feedrate.Loader(args.dataset, batch_size=64, size=224, num_workers=args.workers,
                             dtype="float16", device="cuda", arrays="torch")
    used = {}
    batches = 0
    total = torch.zeros((), device="cuda")
    while batches < 1000:
        for images, _ in loader:
            total += images[:, 0, 0, 0].float().sum()  # the stream reads every batch
            batches += 1
            if batches in (50, 1000):
                torch.cuda.synchronize()
                free, capacity = torch.cuda.mem_get_info()
                used[batches] = capacity - free
            if batches == 1000:
                break
    growth = used[1000] - used[50]
    result["device_memory"] = {"bytes_after_50": used[50], "bytes_after_1000": used[1000],
                               "growth_bytes": growth, "flat": growth <= 2 << 20}
    if growth > 2 << 20:
        fail(result, "device_memory", f"grew by {growth} bytes from batch 50 to batch 1000")


def h2d_scenario(torch, args, result):
    """The training stream 30 ms behind per batch: every slot's next copy waits for the stream
    to release it, so the consumer's waits are charged to h2d."""
    loader = feedrate.Loader(args.dataset, batch_size=64, size=224, num_workers=args.workers,
                             dtype="uint8", device="cuda", arrays="torch")
    busy = cycles_for(torch, 30)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for n, (images, _) in enumerate(loader):
            torch.cuda._sleep(busy)
            if n == 60:
                break
    stream.synchronize()
    verdict = loader.report()["verdict"]
    result["h2d_scenario"] = {"verdict": verdict}
    if verdict["bottleneck"] != "h2d":
        fail(result, "h2d_scenario", f"bottleneck {verdict['bottleneck']}, not h2d")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    result = {"python": sys.version.split()[0], "device": args.device, "failures": []}

    def write(status):
        result["status"] = status
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
        print(json.dumps(result, indent=2))

    try:
        import torch
    except ImportError as e:
        torch = None
        result["reason"] = f"no torch for this interpreter ({e})"
    import_feedrate()
    result["feedrate"] = feedrate.__version__
    if torch is None:
        write("no-torch")
        return 3
    result["torch"] = torch.__version__
    if args.device == "cuda" and not torch.cuda.is_available():
        result["reason"] = "torch sees no CUDA GPU"
        write("no-gpu")
        return 3
    if args.device == "cuda":
        result["gpu"] = torch.cuda.get_device_name(0)
    checks = [("equal_to_host", lambda: check_equal_to_host(torch, args, args.device, result)),
              ("train", lambda: train(torch, args, args.device, result))]
    if args.device == "cuda":
        checks += [("no_host_block", lambda: check_no_host_block(torch, args, result)),
                   ("device_memory", lambda: device_memory(torch, args, result)),
                   ("h2d_scenario", lambda: h2d_scenario(torch, args, result))]
    for name, check in checks:
        start = time.perf_counter()
        try:
            check()
        except Exception as e:  # one check's error is recorded; the others still run
            fail(result, name, f"{type(e).__name__}: {e}")
        result.setdefault("seconds", {})[name] = round(time.perf_counter() - start, 1)
    result["cuda_runtimes_loaded"] = loaded_cuda_runtimes()
    write("ok" if not result["failures"] else "failed")
    return 0 if not result["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
