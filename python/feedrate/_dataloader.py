"""feedrate.DataLoader: torch.utils.data.DataLoader's signature over a torchvision ImageFolder,
yielding the same (images, labels) batches from a feedrate.Loader; what feedrate cannot honour
is refused with a TypeError, what is moot is accepted with a warning saying why.
Thread-safety: as feedrate.Loader's, one thread iterates a DataLoader at a time."""

from __future__ import annotations

import warnings
import os
from typing import Any, Callable, Dict, Iterator, Literal, Optional, Sequence, Tuple, Union

from feedrate._loader import OPTION_NAMES, Batch, EachBatch, Loader, given_options

_REFUSED = {
    "batch_sampler": "give batch_size and a sampler instead",
    "collate_fn": "feedrate assembles the batches itself; collate on the GPU after loading",
    "worker_init_fn": "feedrate's workers are threads in this process",
    "multiprocessing_context": "feedrate's workers are threads in this process",
    "generator": "give seed= instead (feedrate draws from (seed, epoch, sample index))",
    "timeout": "feedrate waits for its workers; it has no timeout",
}


# The Loader options DataLoader takes as keywords of their own, with torch's meaning and defaults.
_OWN = ("batch_size", "num_workers", "shuffle", "drop_last")
_LOADER_OPTIONS = tuple(name for name in OPTION_NAMES if name not in _OWN)


def _moot(message: str) -> None:
    warnings.warn(f"feedrate.DataLoader: {message}", UserWarning, stacklevel=3)


class DataLoader:
    """torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    num_workers=0, pin_memory=False, drop_last=False, persistent_workers=False, ...) over a
    torchvision.datasets.ImageFolder: the same (images, labels) batches, decoded and augmented
    by feedrate from the dataset's root and transform. A DistributedSampler gives the rank,
    world size, shuffle, seed and drop_last, and its set_epoch() the epoch. Other keywords are
    feedrate.Loader options (device=, prefetch_batches=, ...). Keywords feedrate cannot honour
    (collate_fn, batch_sampler, worker_init_fn, generator, timeout, ...) raise TypeError.

    persistent_workers: feedrate's workers are threads that live as long as the loader and
    serve every epoch, so True is what always happens and an explicit False is moot (a
    warning says so). pin_memory=True copies each CPU batch into page-locked memory on the
    consumer's thread (Tensor.pin_memory(), where CUDA is available; docs/python.md gives the
    cost; device="cuda" delivers to the GPU from feedrate's own pinned slots instead); without
    CUDA, with numpy arrays or with batches already on the GPU it is moot (a warning says so).
    pin_memory_device: "" or a CUDA device (page-locked memory serves every CUDA device); any
    other is a TypeError; without pin_memory=True it is moot (a warning says so)."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int = 1,
        shuffle: Optional[bool] = None,
        sampler: Any = None,
        num_workers: int = 0,
        pin_memory: bool = False,
        drop_last: bool = False,
        persistent_workers: Optional[bool] = None,
        prefetch_factor: Optional[int] = None,
        pin_memory_device: str = "",
        *,
        # torch's keywords that feedrate cannot honour (_REFUSED): their defaults alone pass.
        batch_sampler: None = None,
        collate_fn: None = None,
        worker_init_fn: None = None,
        multiprocessing_context: None = None,
        generator: None = None,
        timeout: float = 0,
        # feedrate.Loader's options; None: the Loader's default, or what the dataset's
        # transform or the sampler says.
        shuffle_window_mb: Optional[int] = None,
        seed: Optional[int] = None,
        rank: Optional[int] = None,
        world_size: Optional[int] = None,
        pad_shards: Optional[bool] = None,
        transform: Optional[Union[str, Callable[..., Any]]] = None,
        size: Optional[int] = None,
        resize: Optional[int] = None,
        scale: Optional[Tuple[float, float]] = None,
        ratio: Optional[Tuple[float, float]] = None,
        flip_probability: Optional[float] = None,
        dtype: Optional[Union[Literal['uint8', 'float32', 'float16'], Any]] = None,
        mean: Optional[Sequence[float]] = None,
        std: Optional[Sequence[float]] = None,
        device: Optional[Union[str, Any]] = None,
        on_bad: Optional[Literal['error', 'skip']] = None,
        on_missing: Optional[Literal['error', 'skip']] = None,
        fields: Optional[Sequence[str]] = None,
        image: Optional[str] = None,
        annotations: Optional[Union[str, os.PathLike[str]]] = None,
        masks: Optional[Union[bool, str, os.PathLike[str]]] = None,
        labels: Optional[Literal['category_id', 'contiguous', 'zero_based']] = None,
        targets: Optional[Literal['dicts', 'flat', 'yolo']] = None,
        prefetch_batches: Optional[int] = None,
        memory_budget_mb: Optional[int] = None,
        io_queue_depth: Optional[int] = None,
        force_pread: Optional[bool] = None,
        direct_io: Optional[bool] = None,
        throttle: Optional[str] = None,
        tar_chunk_bytes: Optional[int] = None,
        max_pixels: Optional[int] = None,
        training_images_per_s: Optional[float] = None,
        allow_paths_outside_root: Optional[bool] = None,
        allow_empty_classes: Optional[bool] = None,
        arrays: Optional[Literal['auto', 'torch', 'numpy']] = None,
        progress: Optional[bool] = None,
        return_indices: Optional[bool] = None,
        cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
        cache_gb: Optional[float] = None,
    ) -> None:
        given = locals()
        for key in ("fields", "image", "on_missing", "annotations", "masks", "labels",
                    "targets"):
            if given[key] is not None:
                raise TypeError(f"feedrate.DataLoader keeps torch's (images, labels) batches over "
                                f"a torchvision dataset and takes no {key}=; use "
                                f"feedrate.Loader(source, {key}=...) for samples with fields "
                                f"or detection targets")
        for key, why in _REFUSED.items():
            value = given[key]
            if value is not None and not (key == "timeout" and value == 0):
                raise TypeError(f"feedrate.DataLoader cannot honour {key}=: {why}")
        kwargs = {name: value for name, value in given_options(given, _LOADER_OPTIONS).items()
                  if value is not None}
        if pin_memory_device and not str(pin_memory_device).startswith("cuda"):
            raise TypeError(f"feedrate.DataLoader cannot honour pin_memory_device="
                            f"{pin_memory_device!r}: feedrate pins memory for CUDA devices only")
        if pin_memory_device and not pin_memory:
            _moot(f"pin_memory_device={pin_memory_device!r} is ignored: pin_memory is False")
        if persistent_workers is False:
            _moot("persistent_workers=False is moot: feedrate's workers are threads that live "
                  "as long as the loader and serve every epoch (the batches are the same)")
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
        options: Dict[str, Any] = dict(batch_size=batch_size, num_workers=num_workers,
                                       drop_last=drop_last)
        if sampler is not None:
            if shuffle:
                raise ValueError("sampler option is mutually exclusive with shuffle")
            options.update(_sampler_options(sampler))
        else:
            options.update(shuffle=bool(shuffle))
        if dataset.transform is not None:
            options["transform"] = dataset.transform
        options.update(kwargs)
        self.dataset = dataset
        self.batch_size = batch_size
        self.sampler = sampler
        self.drop_last = drop_last
        self._loader = Loader(root, **options)
        if self._loader.class_to_idx != dict(dataset.class_to_idx):
            raise ValueError("feedrate.DataLoader: the dataset's classes differ from what "
                             f"feedrate finds under {root}")
        self._pin = False
        if pin_memory:
            moot = self._why_pinning_is_moot(str(options.get("device") or "cpu"))
            if moot:
                _moot(f"pin_memory=True is moot: {moot}")
            self._pin = moot is None

    def _why_pinning_is_moot(self, device: str) -> Optional[str]:
        """Why pin_memory=True would have no batch to pin, or None when it has."""
        if device.startswith("cuda"):
            return f"device={device!r} delivers batches on the GPU"
        if self._loader.arrays != "torch":
            return "the batches are numpy arrays (arrays='numpy')"
        if not _cuda_available():
            return "torch finds no CUDA device to pin memory for"
        return None

    def __len__(self) -> int:
        return len(self._loader)

    def __iter__(self) -> Iterator[Batch]:
        if self.sampler is not None and hasattr(self.sampler, "epoch"):
            self._loader.set_epoch(int(self.sampler.epoch))
        if not self._pin:
            return iter(self._loader)
        return EachBatch(iter(self._loader), _pinned)

    def report(self) -> Dict[str, Any]:
        return self._loader.report()

    def state_dict(self) -> Dict[str, Any]:
        return self._loader.state_dict()

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self._loader.load_state_dict(state)


def _sampler_options(sampler: Any) -> Dict[str, Any]:
    """The feedrate.Loader options that give a torch sampler's order and share."""
    kind = type(sampler).__name__
    if kind == "DistributedSampler":
        return dict(rank=sampler.rank, world_size=sampler.num_replicas,
                    shuffle=bool(sampler.shuffle), seed=int(sampler.seed),
                    pad_shards=not sampler.drop_last)
    if kind == "RandomSampler":
        return dict(shuffle=True)
    if kind == "SequentialSampler":
        return dict(shuffle=False)
    raise TypeError(f"feedrate.DataLoader: sampler {kind} is not supported "
                    "(DistributedSampler, RandomSampler, SequentialSampler are)")


def _pinned(batch: Batch) -> Batch:
    """The batch copied into page-locked memory (torch's pinned pool), on the consumer's thread;
    its slot is free again once the copy is made."""
    return tuple(item.pin_memory() for item in batch)


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
