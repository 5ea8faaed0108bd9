"""Reads a torchvision.transforms.v2 Compose for detection (boxes as tv_tensors.BoundingBoxes)
into the text of a feedrate detection transform (decode/detection_text.h), which the decode
workers run with the boxes moved as the pixels are; anything else is a TypeError naming the
operation. feedrate.Loader calls it for transform= objects when annotations= is given. Like
_torchvision.py it imports nothing from torch and reads the objects by their class names and
attributes.

The conversions to tensors and dtypes (ToImage, ToDtype, ToPureTensor, ConvertBoundingBoxFormat
to XYXY) say only what the batch holds: uint8 images unless a float ToDtype comes, then
Normalize's mean and std."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, List

from feedrate._torchvision import (TorchvisionSpec, _fill, _interp, _is_float_dtype, _num,
                                   _steps, _unsupported)

_SUPPORTED = (
    "RandomPhotometricDistort, RandomZoomOut, RandomIoUCrop, RandomHorizontalFlip, "
    "RandomVerticalFlip, Resize (max_size too), RandomShortestSize, RandomResizedCrop, "
    "CenterCrop, Pad, ClampBoundingBoxes, "
    "SanitizeBoundingBoxes, ToImage, ToDtype, ToPureTensor, ConvertBoundingBoxFormat('XYXY'), "
    "Normalize"
)


def _refused(name: str, why: str = "") -> TypeError:
    detail = f" ({why})" if why else ""
    return TypeError(
        f"feedrate cannot run torchvision's {name}{detail} on detection samples in its decode "
        f"workers. Supported: {_SUPPORTED}; or transform='ssd' / 'yolo' (docs/detection.md).")


def _pair(value: Any) -> str:
    low, high = value
    return f"{_num(low)}/{_num(high)}"


def _size(name: str, size: Any) -> str:
    """H,W of a size: an int is Resize's shorter side (or a square for the crops)."""
    if isinstance(size, int):
        return str(size)
    size = [int(s) for s in size]
    if len(size) == 1:
        return str(size[0])
    if len(size) != 2:
        raise _refused(name, f"size {size}")
    return f"{size[0]},{size[1]}"


def _image_fill(name: str, t: Any) -> str:
    """The fill v2 gives an image: a dict's value for tv_tensors.Image, else a defaultdict's
    default (torchvision's SSD reference: defaultdict(lambda: (123, 117, 104), {Mask: 0})), else
    0; a plain value applies to every kind."""
    fill = getattr(t, "fill", None)
    if isinstance(fill, dict):
        image = [v for k, v in fill.items() if getattr(k, "__name__", "") == "Image"]
        factory = getattr(fill, "default_factory", None)
        fill = image[0] if image else (factory() if factory is not None else None)
    return _fill(name, SimpleNamespace(fill=fill))


def _step(t: Any) -> str:
    name = type(t).__name__
    if name == "RandomPhotometricDistort":
        return (f"photometric(brightness={_pair(t.brightness)},contrast={_pair(t.contrast)},"
                f"saturation={_pair(t.saturation)},hue={_pair(t.hue)},p={_num(t.p)})")
    if name == "RandomZoomOut":
        return (f"zoom_out(fill={_image_fill(name, t)},side_range={_pair(t.side_range)},"
                f"p={_num(t.p)})")
    if name == "RandomIoUCrop":
        options = "/".join(_num(o) for o in t.options)
        return (f"iou_crop(min_scale={_num(t.min_scale)},max_scale={_num(t.max_scale)},"
                f"min_aspect_ratio={_num(t.min_aspect_ratio)},"
                f"max_aspect_ratio={_num(t.max_aspect_ratio)},options={options},"
                f"trials={int(t.trials)})")
    if name in ("RandomHorizontalFlip", "RandomVerticalFlip"):
        return f"{'hflip' if name == 'RandomHorizontalFlip' else 'vflip'}(p={_num(t.p)})"
    if name == "Resize":
        max_size = getattr(t, "max_size", None)
        if max_size is None:
            return f"resize({_size(name, t.size)},interp={_interp(name, t)})"
        if t.size is None:
            raise _refused(name, "size=None with max_size; give the shorter side too")
        return (f"resize({_size(name, t.size)},max_size={int(max_size)},"
                f"interp={_interp(name, t)})")
    if name == "RandomShortestSize":
        sizes = "/".join(str(int(s)) for s in t.min_size)
        max_size = 0 if t.max_size is None else int(t.max_size)
        return f"shortest({sizes},max_size={max_size},interp={_interp(name, t)})"
    if name == "RandomResizedCrop":
        return (f"rrc({_size(name, t.size)},scale={_pair(t.scale)},ratio={_pair(t.ratio)},"
                f"interp={_interp(name, t)})")
    if name == "CenterCrop":
        return f"center_crop({_size(name, t.size)})"
    if name == "Pad":
        if getattr(t, "padding_mode", "constant") != "constant":
            raise _refused(name, f"padding_mode {t.padding_mode!r}; constant only")
        padding = t.padding if isinstance(t.padding, (list, tuple)) else [t.padding]
        padding = [int(p) for p in padding]
        if len(padding) == 2:
            padding = [padding[0], padding[1], padding[0], padding[1]]
        elif len(padding) == 1:
            padding = padding * 4
        return f"pad({','.join(map(str, padding))},fill={_image_fill(name, t)})"
    if name == "ClampBoundingBoxes":
        return "clamp"
    if name == "SanitizeBoundingBoxes":
        return (f"sanitize(min_size={_num(t.min_size)},"
                f"min_area={_num(getattr(t, 'min_area', 1))})")
    raise _refused(name)


def detection_spec_from_torchvision(transform: Any) -> TorchvisionSpec:
    """The detection spec of a torchvision v2 transform; raises TypeError for an operation
    feedrate does not run natively."""
    parts: List[str] = []
    floats = False
    normalized = False
    for t in _steps(transform):
        name = type(t).__name__
        if name in ("ToImage", "ToImageTensor", "ToPureTensor", "PILToTensor"):
            continue
        if name == "ConvertBoundingBoxFormat":
            if str(getattr(t.format, "name", t.format)).upper() != "XYXY":
                raise _refused(name, "boxes are delivered as XYXY")
            continue
        if name == "ToDtype":
            if _is_float_dtype(t.dtype):
                if not getattr(t, "scale", False):
                    raise _unsupported(name, "a float dtype without scale=True keeps 0..255")
                floats = True
            continue
        if name == "Normalize":
            if not floats:
                raise _unsupported(name, "Normalize needs floats: ToDtype(float32, scale=True)")
            mean = [float(m) for m in t.mean] * (3 if len(t.mean) == 1 else 1)
            std = [float(s) for s in t.std] * (3 if len(t.std) == 1 else 1)
            parts.append(f"normalize(mean={'/'.join(map(_num, mean))},"
                         f"std={'/'.join(map(_num, std))})")
            normalized = True
            continue
        if normalized:
            raise _refused(name, "after Normalize: Normalize must be the last step")
        parts.append(_step(t))
    if floats:
        if normalized:
            return TorchvisionSpec(",".join(parts), "float32", False, None, None)
        return TorchvisionSpec(",".join(parts), "float32", False, [0.0] * 3, [1.0] * 3)
    return TorchvisionSpec(",".join(parts), "uint8", True, None, None)
