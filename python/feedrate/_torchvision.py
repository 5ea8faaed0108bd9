# torchvision's objects, accepted as they are: the Python side of the feedrate module, compiled
# into it (python/CMakeLists.txt embeds this file; it runs in the module's namespace).
#
#   _spec_from_torchvision(T): reads a Compose (transforms v1 or v2) of supported operations
#       into the text of a feedrate transform spec (decode/transform_text.h), which the native
#       pipeline runs in its decode workers; anything else is a TypeError naming the operation.
#   DataLoader(dataset, ...): torch.utils.data.DataLoader's signature over a torchvision
#       ImageFolder, yielding the same (images, labels); what feedrate cannot honour is refused.


_SUPPORTED = (
    "RandomResizedCrop, Resize + CenterCrop, RandomHorizontalFlip, RandomVerticalFlip, "
    "RandomGrayscale, ColorJitter, TrivialAugmentWide, RandAugment, AutoAugment (ImageNet "
    "policy), Normalize, RandomErasing, ToTensor, PILToTensor, ToImage, ToDtype, "
    "ConvertImageDtype"
)


def _unsupported(name, why=None):
    detail = f" ({why})" if why else ""
    return TypeError(
        f"feedrate cannot run torchvision's {name}{detail} in its decode workers. "
        f"Supported: {_SUPPORTED}. Run {name} on the GPU after loading instead (on the batch, "
        f"as MixUp and CutMix usually run), or keep a torch DataLoader for this recipe."
    )


def _num(x):
    return repr(float(x))


def _square(name, size):
    if isinstance(size, int):
        return size
    size = list(size)
    if len(size) == 1 or (len(size) == 2 and size[0] == size[1]):
        return int(size[0])
    raise _unsupported(name, f"size {tuple(size)} is not square; batches are size x size")


def _interp(name, t):
    mode = getattr(t, "interpolation", None)
    value = getattr(mode, "value", mode)
    if value in (None, "bilinear", 2):
        interp = "bilinear"
    elif value in ("bicubic", 3):
        interp = "bicubic"
    else:
        raise _unsupported(name, f"interpolation {value}; bilinear and bicubic are supported")
    if getattr(t, "antialias", None) is False:
        raise _unsupported(name, "antialias=False; feedrate always antialiases, as PIL does")
    return interp


def _nearest(name, t):
    mode = getattr(t, "interpolation", None)
    value = getattr(mode, "value", mode)
    if value not in (None, "nearest", 0):
        raise _unsupported(name, f"interpolation {value}; only nearest, its default")


def _fill(name, t):
    fill = getattr(t, "fill", None)
    if isinstance(fill, dict):  # v2: {type: value}; one value for images
        values = [v for v in fill.values() if v is not None]
        fill = values[0] if values else None
    if fill is None:
        return "0"
    if isinstance(fill, (int, float)):
        return _num(fill)
    fill = [float(f) for f in fill]
    if len(fill) == 1:
        return _num(fill[0])
    if len(fill) != 3:
        raise _unsupported(name, f"fill {fill} has neither 1 nor 3 values")
    return "/".join(_num(f) for f in fill)


def _range(value, identity):
    if value is None:
        return f"{_num(identity)}/{_num(identity)}"
    low, high = value
    return f"{_num(low)}/{_num(high)}"


def _steps(transform):
    name = type(transform).__name__
    if name == "Compose":
        return list(transform.transforms)
    return [transform]


def _is_float_dtype(dtype):
    if isinstance(dtype, dict):  # v2 ToDtype({tv_tensors.Image: torch.float32, ...})
        dtype = next((v for k, v in dtype.items() if "Image" in getattr(k, "__name__", "")), None)
    return dtype is not None and getattr(dtype, "is_floating_point", False)


def _spec_from_torchvision(transform):
    """(spec text, dtype word, channels_first, mean or None, std or None) of a torchvision
    transform; raises TypeError for an operation feedrate does not run natively."""
    steps = _steps(transform)
    parts = []
    floats = False
    normalized = False
    i = 0
    while i < len(steps):
        t = steps[i]
        name = type(t).__name__
        if name in ("ToTensor",):
            floats = True
        elif name in ("PILToTensor", "ToImage", "ToImageTensor", "ToPureTensor"):
            pass
        elif name == "ToDtype":
            if _is_float_dtype(t.dtype):
                if not getattr(t, "scale", False):
                    raise _unsupported(name, "a float dtype without scale=True keeps 0..255")
                floats = True
        elif name == "ConvertImageDtype":
            floats = _is_float_dtype(t.dtype)
        elif name == "RandomResizedCrop":
            if parts:
                raise _unsupported(name, "the crop must come first")
            size = _square(name, t.size)
            parts.append(
                f"rrc({size},scale={_num(t.scale[0])}/{_num(t.scale[1])},"
                f"ratio={_num(t.ratio[0])}/{_num(t.ratio[1])},interp={_interp(name, t)})"
            )
        elif name == "Resize":
            if parts:
                raise _unsupported(name, "the resize must come first")
            nxt = steps[i + 1] if i + 1 < len(steps) else None
            if type(nxt).__name__ != "CenterCrop":
                raise _unsupported(name, "only Resize followed by CenterCrop (square output)")
            size = t.size if isinstance(t.size, int) else list(t.size)
            if not isinstance(size, int):
                if len(size) != 1:
                    raise _unsupported(name, "Resize((h, w)) stretches; give the shorter side")
                size = size[0]
            if getattr(t, "max_size", None) is not None:
                raise _unsupported(name, "max_size")
            parts.append(f"resize({size},interp={_interp(name, t)})")
            parts.append(f"center_crop({_square('CenterCrop', nxt.size)})")
            i += 1
        elif name in ("RandomHorizontalFlip", "RandomVerticalFlip", "RandomGrayscale"):
            word = {"RandomHorizontalFlip": "hflip", "RandomVerticalFlip": "vflip",
                    "RandomGrayscale": "grayscale"}[name]
            parts.append(f"{word}({_num(t.p)})")
        elif name == "ColorJitter":
            parts.append(
                f"jitter(brightness={_range(t.brightness, 1)},contrast={_range(t.contrast, 1)},"
                f"saturation={_range(t.saturation, 1)},hue={_range(t.hue, 0)})"
            )
        elif name == "TrivialAugmentWide":
            _nearest(name, t)
            parts.append(f"ta_wide(bins={int(t.num_magnitude_bins)},fill={_fill(name, t)})")
        elif name == "RandAugment":
            _nearest(name, t)
            parts.append(
                f"ra(num_ops={int(t.num_ops)},magnitude={int(t.magnitude)},"
                f"bins={int(t.num_magnitude_bins)},fill={_fill(name, t)})"
            )
        elif name == "AutoAugment":
            _nearest(name, t)
            policy = getattr(t.policy, "value", t.policy)
            if policy != "imagenet":
                raise _unsupported(f"AutoAugment({policy})", "only the ImageNet policy")
            parts.append(f"aa(policy=imagenet,fill={_fill(name, t)})")
        elif name == "Normalize":
            if not floats:
                raise _unsupported(name, "Normalize needs floats: ToTensor or ToDtype first")
            mean = [float(m) for m in t.mean]
            std = [float(s) for s in t.std]
            if len(mean) == 1:
                mean = mean * 3
            if len(std) == 1:
                std = std * 3
            parts.append(f"normalize(mean={'/'.join(map(_num, mean))},std={'/'.join(map(_num, std))})")
            normalized = True
        elif name == "RandomErasing":
            value = t.value
            if isinstance(value, str):
                if value != "random":
                    raise _unsupported(name, f"value {value!r}")
                word = "random"
            elif isinstance(value, (int, float)):
                word = _num(value)
            else:
                value = [float(v) for v in value]
                word = "/".join(map(_num, value * (3 if len(value) == 1 else 1)))
            parts.append(
                f"erase({_num(t.p)},scale={_num(t.scale[0])}/{_num(t.scale[1])},"
                f"ratio={_num(t.ratio[0])}/{_num(t.ratio[1])},value={word})"
            )
        else:
            raise _unsupported(name)
        i += 1
    if not parts or not parts[0].startswith(("rrc(", "resize(")):
        raise _unsupported(
            "a transform without RandomResizedCrop or Resize + CenterCrop",
            "batches need one output size",
        )
    if floats:
        mean, std = (None, None) if normalized else ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
        return ",".join(parts), "float32", False, mean, std
    return ",".join(parts), "uint8", True, None, None


_REFUSED = {
    "batch_sampler": "give batch_size and a sampler instead",
    "collate_fn": "feedrate assembles the batches itself; collate on the GPU after loading",
    "worker_init_fn": "feedrate's workers are threads in this process",
    "multiprocessing_context": "feedrate's workers are threads in this process",
    "generator": "give seed= instead (feedrate draws from (seed, epoch, sample index))",
    "timeout": "feedrate waits for its workers; it has no timeout",
}


class DataLoader:
    """torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    num_workers=0, pin_memory=False, drop_last=False, persistent_workers=False, ...) over a
    torchvision.datasets.ImageFolder: the same (images, labels) batches, decoded and augmented
    by feedrate from the dataset's root and transform. A DistributedSampler gives the rank,
    world size, shuffle, seed and drop_last, and its set_epoch() the epoch. Other keywords are
    feedrate.Loader options (device=, prefetch_batches=, ...). Keywords feedrate cannot honour
    (collate_fn, batch_sampler, worker_init_fn, generator, timeout, ...) raise TypeError."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, num_workers=0,
                 pin_memory=False, drop_last=False, persistent_workers=False,
                 prefetch_factor=None, pin_memory_device="", **kwargs):
        for key in list(kwargs):
            if key in _REFUSED:
                value = kwargs[key]
                if value is None or (key == "timeout" and value == 0):
                    del kwargs[key]
                    continue
                raise TypeError(f"feedrate.DataLoader cannot honour {key}=: {_REFUSED[key]}")
        root = getattr(dataset, "root", None)
        if root is None or not hasattr(dataset, "class_to_idx"):
            raise TypeError(
                "feedrate.DataLoader takes a torchvision.datasets.ImageFolder (or DatasetFolder "
                f"with the default loader), got {type(dataset).__name__}")
        if getattr(dataset, "target_transform", None) is not None:
            raise TypeError("feedrate.DataLoader: the dataset's target_transform is not supported")
        loader = getattr(dataset, "loader", None)
        if loader is not None and getattr(loader, "__name__", "") != "default_loader":
            raise TypeError("feedrate.DataLoader: a custom ImageFolder loader is not supported")
        if prefetch_factor is not None:
            kwargs.setdefault("prefetch_batches", max(2, int(prefetch_factor)))
        options = dict(batch_size=batch_size, num_workers=num_workers, drop_last=drop_last)
        if sampler is not None:
            if shuffle:
                raise ValueError("sampler option is mutually exclusive with shuffle")
            kind = type(sampler).__name__
            if kind == "DistributedSampler":
                options.update(rank=sampler.rank, world_size=sampler.num_replicas,
                               shuffle=bool(sampler.shuffle), seed=int(sampler.seed),
                               pad_shards=not sampler.drop_last)
            elif kind == "RandomSampler":
                options.update(shuffle=True)
            elif kind == "SequentialSampler":
                options.update(shuffle=False)
            else:
                raise TypeError(f"feedrate.DataLoader: sampler {kind} is not supported "
                                "(DistributedSampler, RandomSampler, SequentialSampler are)")
        else:
            options.update(shuffle=bool(shuffle))
        if dataset.transform is not None:
            options["transform"] = dataset.transform
        options.update(kwargs)
        self.dataset = dataset
        self.batch_size = batch_size
        self.sampler = sampler
        self.drop_last = drop_last
        self._pin = bool(pin_memory)
        self._loader = Loader(root, **options)
        if self._loader.class_to_idx != dict(dataset.class_to_idx):
            raise ValueError("feedrate.DataLoader: the dataset's classes differ from what "
                             f"feedrate finds under {root}")

    def __len__(self):
        return len(self._loader)

    def __iter__(self):
        if self.sampler is not None and hasattr(self.sampler, "epoch"):
            self._loader.set_epoch(int(self.sampler.epoch))
        pin = self._pin and _cuda_available()
        for images, labels in self._loader:
            if pin:
                images, labels = images.pin_memory(), labels.pin_memory()
            yield images, labels

    def report(self):
        return self._loader.report()

    def state_dict(self):
        return self._loader.state_dict()

    def load_state_dict(self, state):
        self._loader.load_state_dict(state)


def _cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()
