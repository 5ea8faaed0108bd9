"""feedrate.Loader: the native loader (feedrate._C.Loader) with transform= also taking a
torchvision transform, read into a spec text here before the native loader sees it, and uint8
batches of such a transform delivered as torchvision lays them out (N x 3 x H x W views).
Thread-safety: as the native loader's, one thread iterates a Loader at a time."""

from __future__ import annotations

import os
from typing import (Any, Callable, Dict, Iterator, Literal, Mapping, Optional, Sequence, Tuple,
                    Union, cast)

from feedrate import _C
from feedrate._rows import Manifest, is_rows
from feedrate._torchvision import spec_from_torchvision
from feedrate._torchvision_detection import detection_spec_from_torchvision

Batch = Tuple[Any, ...]

# Every keyword of the native Loader (python/csrc/options.cc's table), in the table's order.
OPTION_NAMES = tuple(_C._option_table())


def given_options(scope: Dict[str, Any], names: Sequence[str] = OPTION_NAMES) -> Dict[str, Any]:
    """The Loader options among a function's locals(): its keywords named `names`, for a
    signature that lists them (so that type checkers and IDEs know each) and hands them on."""
    return {name: scope[name] for name in names if name in scope}


class Loader(_C.Loader):
    """Loader(source, **options): iterate batches of (images, *fields) from an image dataset.

    loader = feedrate.Loader("/data/train", batch_size=256, num_workers=8, device="cuda")
    for epoch in range(90):
        loader.set_epoch(epoch)
        for images, labels in loader:   # torch tensors, no copy
            ...

    source: an ImageFolder root (root/<class>/<image>.jpg; labels as torchvision's ImageFolder
    gives them), a file list of "relative/path label" lines, a tar shard, a folder, glob or
    brace pattern of shards ("shards/{00000..00099}.tar"), a manifest (.jsonl or .csv: rows
    naming an image relative to the manifest, with columns that fields= names), or rows: a list
    of dicts, a pandas DataFrame or a pyarrow Table, written to a temporary manifest kept with
    the Loader (their relative image paths are taken from the current folder;
    allow_paths_outside_root is then set).

    fields=("cls",): what each batch holds after its images, in order (docs/image-text.md):
    WebDataset members by extension, KEY.txt being "txt" ("txt;caption": the first a sample
    has): "cls" int64 labels; "cls2", "index" int64 tensors; "txt", "text", "caption" lists of
    str; "json" lists of dicts; "__key__" the keys (a folder's relative paths); "npy" lists of
    numpy arrays; any other extension lists of bytes. fields=() yields (images,).
    image="jpg;png": the image member's extensions (default: any image); for a manifest or rows,
    one name is the image column (default: image, path, file, filepath or url). on_missing="skip"
    leaves out a sample without a requested member (report()["skipped"] names it); "error"
    raises, naming the shard and key. A bad member (not UTF-8, not JSON) follows on_bad.

    annotations=PATH: a detection dataset (docs/detection.md): a COCO instances .json for the
    image folder `source`, a YOLO data.yaml for its images folder, or a Pascal VOC Annotations/
    folder. transform= is then a detection recipe ("ssd", "yolo", steps such as
    "photometric,zoom_out,iou_crop,hflip,resize(300,300),sanitize", or a torchvision v2
    Compose of the box-aware transforms; default resize(size,size)) and each batch is
    (images, targets): targets="dicts" a list of dicts (boxes float32 [N, 4] XYXY in pixels,
    labels int64 [N], image_id, orig_size, iscrowd, difficult, scale, pad); "flat" gives
    (images, boxes, labels, batch_idx); "yolo" Ultralytics' batch dict but its img (cls,
    bboxes, batch_idx, ori_shape, resized_shape, ratio_pad: {"img": images, **targets} is
    Ultralytics' batch). labels="category_id" | "contiguous" (1..C) | "zero_based" (0..C-1).
    masks=True adds COCO's instance masks (uint8 [N, H, W] per image, as "masks"); masks=FOLDER
    semantic label maps matched by file stem (uint8 [H, W], as "mask"; 255 where a transform
    filled), also without annotations=.

    Options (defaults as the C++ LoaderOptions): batch_size=64, num_workers=1,
    shuffle=True|False|"full"|"blocks"|"none" (True is "full", False "none"),
    shuffle_window_mb=128 (blocks: the samples of that many MB of storage blocks are shuffled
    together), seed=0, drop_last=False, rank/world_size (None or -1: RANK / WORLD_SIZE, as
    DistributedSampler), pad_shards=True, transform="train"|"eval"|a spec text
    ("rrc(176),hflip,ta_wide,normalize,erase(0.1)", docs/augmentations.md)|a torchvision
    Compose of supported operations, size=224, resize=size*256/224, scale=(0.08, 1),
    ratio=(3/4, 4/3), flip_probability=0.5, dtype="uint8" (NHWC) | "float32" | "float16" (NCHW,
    normalised with mean/std), mean, std, device="cpu"|"cuda"|"cuda:N", on_bad="error"|"skip"
    (skip: a bad sample is listed in report()["skipped_samples"] and the batch takes the next
    samples of the epoch in its place, so batches keep batch_size; at the epoch's end, with
    pad_shards, the epoch's first samples), prefetch_batches=3, memory_budget_mb, io_queue_depth, force_pread, direct_io, throttle,
    tar_chunk_bytes, max_pixels, training_images_per_s, allow_paths_outside_root,
    allow_empty_classes, arrays="auto"|"torch"|"numpy", progress=False, return_indices=False.
    cache_dir=PATH, cache_gb=0: the pack cache (later epochs read restart-marked copies of the
    JPEGs from PATH, written with CPU the loader has to spare; the same batches).

    iter(loader) starts an epoch: the one set with set_epoch(), else the one after the last.
    state_dict() / load_state_dict(d) checkpoint and resume it mid-epoch, exactly (torchdata's
    StatefulDataLoader names), also at another world size.
    Images are zero-copy views of the batch slot; labels are int64. A slot is reused only after
    its arrays are gone: up to prefetch_batches batches may be held; asking for another while
    all are held raises feedrate.Error. An unknown option or a value of the wrong type is a
    TypeError; a value outside an option's range (the command line's) or vocabulary a
    ValueError; a torchvision operation feedrate cannot run, a TypeError naming it. Every
    option: docs/python.md.
    """

    def __init__(
        self,
        # Any: also a pandas DataFrame or a pyarrow Table (neither is imported here).
        source: Union[str, os.PathLike[str], Sequence[Mapping[str, Any]], Any],
        *,
        batch_size: int = 64,
        num_workers: int = 1,
        shuffle: Union[bool, Literal['full', 'blocks', 'none']] = True,
        shuffle_window_mb: int = 128,
        seed: int = 0,
        drop_last: bool = False,
        rank: Optional[int] = None,
        world_size: Optional[int] = None,
        pad_shards: bool = True,
        transform: Union[str, Callable[..., Any]] = 'train',
        size: int = 224,
        resize: Optional[int] = None,
        scale: Optional[Tuple[float, float]] = None,
        ratio: Optional[Tuple[float, float]] = None,
        flip_probability: Optional[float] = None,
        dtype: Optional[Union[Literal['uint8', 'float32', 'float16'], Any]] = None,
        mean: Optional[Sequence[float]] = None,
        std: Optional[Sequence[float]] = None,
        device: Union[str, Any] = 'cpu',
        on_bad: Literal['error', 'skip'] = 'error',
        on_missing: Literal['error', 'skip'] = 'skip',
        fields: Sequence[str] = ('cls',),
        image: str = '',
        annotations: Optional[Union[str, os.PathLike[str]]] = None,
        masks: Optional[Union[bool, str, os.PathLike[str]]] = None,
        labels: Literal['category_id', 'contiguous', 'zero_based'] = 'category_id',
        targets: Literal['dicts', 'flat', 'yolo'] = 'dicts',
        prefetch_batches: int = 3,
        memory_budget_mb: int = 0,
        io_queue_depth: int = 64,
        force_pread: bool = False,
        direct_io: bool = False,
        throttle: str = '',
        tar_chunk_bytes: int = 4194304,
        max_pixels: int = 100000000,
        training_images_per_s: float = 0.0,
        allow_paths_outside_root: bool = False,
        allow_empty_classes: bool = False,
        arrays: Literal['auto', 'torch', 'numpy'] = 'auto',
        progress: bool = False,
        return_indices: bool = False,
        cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
        cache_gb: float = 0.0,
    ) -> None:
        options = given_options(locals())
        self._channels_first = False
        self._manifest: Optional[Manifest] = None  # rows' manifest, removed with the Loader
        # What the native loader reads: the rows' manifest, else the path (is_rows said so).
        path = cast(Union[str, "os.PathLike[str]"], source)
        if is_rows(source):
            self._manifest = Manifest(source, image)
            path = self._manifest.path
            options["allow_paths_outside_root"] = True
        elif isinstance(source, (list, tuple)):
            item = type(source[0]).__name__ if source else "nothing"
            raise TypeError("feedrate.Loader reads one source: for several tar shards pass their "
                            "folder, a glob ('shards/*.tar') or a brace pattern "
                            "('shards/{00000..00099}.tar'); a list is read as rows only when "
                            f"every item is a dict, not {item}")
        if transform is not None and not isinstance(transform, str):
            read = (spec_from_torchvision(transform) if annotations is None and not masks
                    else detection_spec_from_torchvision(transform))
            options["transform"] = read.spec
            if options.get("dtype") is None:
                options["dtype"] = read.dtype
            if read.mean is not None:
                options["mean"] = read.mean
            if read.std is not None:
                options["std"] = read.std
            self._channels_first = read.channels_first
        super().__init__(path, **options)

    def __iter__(self) -> Iterator[Batch]:
        epoch = super().__iter__()  # starts the epoch now, as iter() does for the native loader
        if not self._channels_first:
            return epoch
        return EachBatch(epoch, _channels_first)


class EachBatch:
    """An epoch's batches, each passed through `change` as it is handed out. It keeps no batch
    between calls, so a batch the consumer drops frees its slot at once."""

    def __init__(self, epoch: Iterator[Batch], change: Callable[[Batch], Batch]) -> None:
        self._epoch = epoch
        self._change = change

    def __iter__(self) -> EachBatch:
        return self

    def __next__(self) -> Batch:
        return self._change(next(self._epoch))


def _channels_first(batch: Batch) -> Batch:
    """The batch with its images as N x 3 x H x W views (torchvision's layout of uint8
    tensors): a permute of torch tensors, a transpose of numpy arrays; no copy."""
    images, *rest = batch
    if hasattr(images, "permute"):
        return (images.permute(0, 3, 1, 2), *rest)
    return (images.transpose(0, 3, 1, 2), *rest)
