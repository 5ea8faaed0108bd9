"""The loaders compare_peers.py measures, one function per side, each yielding an epoch's
(images, labels) batches of uint8 224 x 224 RGB images, not normalised, from an ImageFolder
of JPEGs. Every side is built the way its own documentation builds it for this job:

  feedrate  feedrate.Loader(transform="train"|"eval", size=224), uint8 NHWC torch tensors;
            num_workers decode threads in one process.
  torch     torchvision.datasets.ImageFolder whose loader is torchvision.io.decode_jpeg of the
            file's bytes, transforms v2 (train: RandomResizedCrop(224, antialias=True) +
            RandomHorizontalFlip; eval: Resize(256, antialias=True) + CenterCrop(224)),
            torch.utils.data.DataLoader(num_workers=N, persistent_workers=True): uint8 NCHW.
  dali      NVIDIA DALI's CPU pipeline (device_id=None): fn.readers.file, train:
            fn.decoders.image_random_crop (DALI's fused ROI decode) + fn.resize to 224 x 224 +
            fn.flip on a coin flip; eval: fn.decoders.image + fn.resize(resize_shorter=256) +
            fn.crop(224); num_threads=N; uint8 NHWC through DALIGenericIterator.
  spdl      SPDL's pipeline: a source of paths, spdl.io.load_image on N threads with an FFmpeg
            filter that does the crop (train: RandomResizedCrop's parameters from torchvision,
            then scale to 224 x 224 and hflip on a coin flip; eval: scale the short side to 256
            and crop the centre 224 x 224), then batches of frames converted into one buffer
            (spdl.io.convert_frames); uint8 NHWC.
  datago    datago's file source, eval only: its crop_and_resize fits each image into a
            224 x 224 pixel budget by aspect-ratio buckets (not Resize + CenterCrop), so the
            images of a batch may differ in shape (a batch is a list of uint8 HWC arrays); its
            file source sizes its own thread pool (no worker count to set).

Each function takes (root, transform, batch, workers, seed) and returns (versions, epochs):
versions names each package measured, epochs(epoch) iterates that epoch's batches.
"""

import math
import os
import random
from pathlib import Path

CROP = 224
RESIZE = 256
SCALE = (0.08, 1.0)
RATIO = (3 / 4, 4 / 3)


def image_folder(root):
    """[(path, label)] of an ImageFolder tree in torchvision's order (sorted classes, files)."""
    classes = sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
    samples = []
    for label, name in enumerate(classes):
        for path in sorted(Path(root, name).rglob("*")):
            if path.is_file():
                samples.append((str(path), label))
    return samples


def feedrate_side(root, transform, batch, workers, seed):
    import feedrate
    loader = feedrate.Loader(root, batch_size=batch, num_workers=workers, transform=transform,
                             size=CROP, seed=seed, shuffle=transform == "train")

    def epochs(epoch):
        loader.set_epoch(epoch)
        return iter(loader)

    return {"feedrate": feedrate.__version__}, epochs


def torch_side(root, transform, batch, workers, seed):
    import torch
    import torchvision
    from torchvision.datasets import ImageFolder
    from torchvision.io import ImageReadMode, decode_jpeg, read_file
    from torchvision.transforms import v2
    torch.manual_seed(seed)
    if transform == "train":
        steps = [v2.RandomResizedCrop(CROP, scale=SCALE, ratio=RATIO, antialias=True),
                 v2.RandomHorizontalFlip()]
    else:
        steps = [v2.Resize(RESIZE, antialias=True), v2.CenterCrop(CROP)]
    dataset = ImageFolder(root, loader=lambda path: decode_jpeg(read_file(path),
                                                                mode=ImageReadMode.RGB),
                          transform=v2.Compose(steps))
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch,
                                         shuffle=transform == "train", num_workers=workers,
                                         persistent_workers=workers > 0)
    return ({"torch": torch.__version__, "torchvision": torchvision.__version__},
            lambda epoch: iter(loader))


def dali_side(root, transform, batch, workers, seed):
    import nvidia.dali
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=batch, num_threads=workers, device_id=None, seed=seed)
    def pipeline():
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=transform == "train",
                                        name="reader")
        if transform == "train":
            images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB,
                                                   random_area=list(SCALE),
                                                   random_aspect_ratio=list(RATIO))
            images = fn.resize(images, resize_x=CROP, resize_y=CROP)
            images = fn.flip(images, horizontal=fn.random.coin_flip())
        else:
            images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
            images = fn.resize(images, resize_shorter=RESIZE)
            images = fn.crop(images, crop=(CROP, CROP))
        return images, labels

    epochs = dali_epochs(pipeline(), ("images", "labels"))
    return {"nvidia-dali": nvidia.dali.__version__}, epochs


def dali_epochs(pipe, outputs):
    """epochs(epoch) of a DALI pipeline whose reader is named "reader": each batch the tuple of
    its outputs named in `outputs` (in the pipeline's order), torch tensors, the last one
    partial. The iterator is made here, and prefetches its first batches when it is made."""
    from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    pipe.build()
    iterator = DALIGenericIterator(pipe, list(outputs), reader_name="reader",
                                   last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)

    def epochs(epoch):
        for (batch,) in iterator:
            yield tuple(batch[name] for name in outputs)

    return epochs


def random_resized_crop(width, height, rng):
    """torchvision's RandomResizedCrop.get_params: (x, y, w, h) of the crop."""
    area = width * height
    for _ in range(10):
        target = area * rng.uniform(*SCALE)
        aspect = math.exp(rng.uniform(math.log(RATIO[0]), math.log(RATIO[1])))
        w = int(round(math.sqrt(target * aspect)))
        h = int(round(math.sqrt(target / aspect)))
        if 0 < w <= width and 0 < h <= height:
            return rng.randint(0, width - w), rng.randint(0, height - h), w, h
    ratio = width / height
    if ratio < RATIO[0]:
        w, h = width, int(round(width / RATIO[0]))
    elif ratio > RATIO[1]:
        h, w = height, int(round(height * RATIO[1]))
    else:
        w, h = width, height
    return (width - w) // 2, (height - h) // 2, w, h


def spdl_filter(width, height, transform, rng):
    """The FFmpeg filter graph of one image's transform, ending in packed RGB."""
    if transform == "train":
        x, y, w, h = random_resized_crop(width, height, rng)
        steps = [f"crop={w}:{h}:{x}:{y}", f"scale={CROP}:{CROP}:flags=bilinear"]
        if rng.random() < 0.5:
            steps.append("hflip")
    else:
        short = min(width, height)
        w, h = round(width * RESIZE / short), round(height * RESIZE / short)
        steps = [f"scale={w}:{h}:flags=bilinear", f"crop={CROP}:{CROP}"]
    return ",".join(steps + ["format=rgb24"])


def spdl_side(root, transform, batch, workers, seed):
    import spdl.io
    import torch
    from spdl.pipeline import PipelineBuilder
    samples = image_folder(root)
    version = getattr(spdl, "__version__", None)
    if version is None:
        from importlib.metadata import version as installed
        version = installed("spdl")

    def epochs(epoch):
        order = list(range(len(samples)))
        if transform == "train":
            random.Random(seed * 1000003 + epoch).shuffle(order)

        def decode(index):
            path, label = samples[index]
            rng = random.Random((seed * 1000003 + epoch) * 10000019 + index)
            packets = spdl.io.demux_image(path)
            codec = packets.codec
            frames = spdl.io.decode_packets(
                packets, filter_desc=spdl_filter(codec.width, codec.height, transform, rng))
            return frames, label

        def collate(items):
            buffer = spdl.io.convert_frames([frames for frames, _ in items])
            return spdl.io.to_torch(buffer), torch.tensor([label for _, label in items])

        pipeline = (PipelineBuilder().add_source(order)
                    .pipe(decode, concurrency=workers)
                    .aggregate(batch)
                    .pipe(collate)
                    .add_sink(3)
                    .build(num_threads=workers))
        with pipeline.auto_stop():
            yield from pipeline

    return {"spdl": version}, epochs


def datago_side(root, transform, batch, workers, seed):
    import json
    from importlib.metadata import version
    from datago import DatagoClient
    if transform != "eval":
        raise ValueError("datago: eval only (its crop_and_resize has no random crop)")
    classes = {name: label for label, name in
               enumerate(sorted(e.name for e in os.scandir(root) if e.is_dir()))}
    count = len(image_folder(root))
    # Its file source has no thread count to set: datago sizes its own pool.
    config = {"source_type": "file",
              "source_config": {"root_path": str(root), "random_sampling": False, "rank": 0,
                                "world_size": 1},
              "image_config": {"crop_and_resize": True, "default_image_size": CROP,
                               "downsampling_ratio": 16, "min_aspect_ratio": 0.5,
                               "max_aspect_ratio": 2.0},
              "limit": count, "samples_buffer_size": 2 * batch}

    def epochs(epoch):
        client = DatagoClient(json.dumps(config))
        images, labels = [], []
        while True:
            sample = client.get_sample()
            if sample is None or not sample.id:
                break
            images.append(sample.image.to_numpy_array())
            labels.append(classes[Path(sample.id.strip('"')).parent.name])
            if len(images) == batch:
                yield images, labels
                images, labels = [], []
        if images:
            yield images, labels
        client.stop()

    return {"datago": version("datago")}, epochs


SIDES = {"feedrate": feedrate_side, "torch": torch_side, "dali": dali_side, "spdl": spdl_side,
         "datago": datago_side}
