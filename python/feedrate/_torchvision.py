"""Reads a torchvision transform (a Compose of transforms v1 or v2, or one transform) of
supported operations into the text of a feedrate transform spec (decode/transform_text.h),
which the native pipeline runs in its decode workers; anything else is a TypeError naming the
operation. feedrate.Loader calls it for transform= objects; it imports nothing from torch and
reads the objects by their class names and attributes.

open_clip's image_transform Compose is read as it is: its conversion to RGB (the function
open_clip.transform._convert_to_rgb up to open_clip 3.2, MaybeConvertMode() from 3.3 on) is a
no-op here, since feedrate decodes every image to RGB, and its MaybeToTensor (3.3) is ToTensor
for the PIL images it gets. Any other plain function in a Compose is opaque, so it is a
TypeError naming it."""

from __future__ import annotations

import functools
import types
from typing import Any, List, NamedTuple, Optional


class TorchvisionSpec(NamedTuple):
    """What a torchvision transform reads into: the spec text, the output dtype word, whether
    uint8 batches are delivered as torchvision's N x 3 x H x W, and the mean and std (None: the
    spec's normalize sets them)."""

    spec: str
    dtype: str
    channels_first: bool
    mean: Optional[List[float]]
    std: Optional[List[float]]


_SUPPORTED = (
    "RandomResizedCrop, Resize + CenterCrop, RandomHorizontalFlip, RandomVerticalFlip, "
    "RandomGrayscale, ColorJitter, TrivialAugmentWide, RandAugment, AutoAugment (ImageNet "
    "policy), Normalize, RandomErasing, ToTensor, PILToTensor, ToImage, ToDtype, "
    "ConvertImageDtype, open_clip's conversion to RGB and MaybeToTensor"
)


def _unsupported(name: str, why: Optional[str] = None, owner: str = "torchvision's ") -> TypeError:
    detail = f" ({why})" if why else ""
    return TypeError(
        f"feedrate cannot run {owner}{name}{detail} in its decode workers. "
        f"Supported: {_SUPPORTED}. Run {name} on the GPU after loading instead (on the batch, "
        f"as MixUp and CutMix usually run), or keep a torch DataLoader for this recipe."
    )


_OPEN_CLIP_MODULE = "open_clip.transform"
_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


def _function_name(t: Any) -> str:
    target = t.func if isinstance(t, functools.partial) else t
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None) or repr(target)
    return f"{module}.{qualname}"


def _open_clip_step(t: Any) -> Optional[str]:
    """What an open_clip.transform step of image_transform is to feedrate: "rgb" (a conversion
    to RGB: a no-op), "to_tensor", or None when t is not one of them. A function counts by its
    module and name, as open_clip defines it; a class by its module and class name."""
    if isinstance(t, types.FunctionType):
        if t.__module__ == _OPEN_CLIP_MODULE and t.__qualname__ == "_convert_to_rgb":
            return "rgb"
        return None
    kind = type(t)
    if kind.__module__ != _OPEN_CLIP_MODULE:
        return None
    if kind.__name__ == "MaybeConvertMode":
        if getattr(t, "mode", None) != "RGB":
            raise _unsupported(f"{_OPEN_CLIP_MODULE}.MaybeConvertMode",
                               f"mode {getattr(t, 'mode', None)!r}; feedrate decodes to RGB", "")
        return "rgb"
    if kind.__name__ == "MaybeToTensor":
        return "to_tensor"
    return None


def _unsupported_step(t: Any, why: Optional[str] = None) -> TypeError:
    """The error for step t, naming it: a function by its module and name, a torchvision class
    by its name, any other class by its module and name."""
    if isinstance(t, _FUNCTIONS):
        return _unsupported(f"the function {_function_name(t)}", why, "")
    kind = type(t)
    if kind.__module__.split(".")[0] == "torchvision":
        return _unsupported(kind.__name__, why)
    return _unsupported(f"{kind.__module__}.{kind.__qualname__}", why, "")


def _num(x: float) -> str:
    return repr(float(x))


def _square(name: str, size: Any) -> int:
    if isinstance(size, int):
        return size
    size = list(size)
    if len(size) == 1 or (len(size) == 2 and size[0] == size[1]):
        return int(size[0])
    raise _unsupported(name, f"size {tuple(size)} is not square; batches are size x size")


def _interp(name: str, t: Any) -> str:
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


def _nearest(name: str, t: Any) -> None:
    mode = getattr(t, "interpolation", None)
    value = getattr(mode, "value", mode)
    if value not in (None, "nearest", 0):
        raise _unsupported(name, f"interpolation {value}; only nearest, its default")


def _fill(name: str, t: Any) -> str:
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


def _range(value: Any, identity: float) -> str:
    if value is None:
        return f"{_num(identity)}/{_num(identity)}"
    low, high = value
    return f"{_num(low)}/{_num(high)}"


def _steps(transform: Any) -> List[Any]:
    name = type(transform).__name__
    if name == "Compose":
        return list(transform.transforms)
    return [transform]


def _is_float_dtype(dtype: Any) -> bool:
    if isinstance(dtype, dict):  # v2 ToDtype({tv_tensors.Image: torch.float32, ...})
        dtype = next((v for k, v in dtype.items() if "Image" in getattr(k, "__name__", "")), None)
    return dtype is not None and getattr(dtype, "is_floating_point", False)


def spec_from_torchvision(transform: Any) -> TorchvisionSpec:
    """The spec of a torchvision transform; raises TypeError for an operation feedrate does not
    run natively."""
    steps = _steps(transform)
    parts: List[str] = []
    floats = False
    normalized = False
    i = 0
    while i < len(steps):
        t = steps[i]
        name = type(t).__name__
        open_clip = _open_clip_step(t)
        if open_clip == "rgb":
            pass
        elif open_clip == "to_tensor" or name == "ToTensor":
            floats = True
        elif isinstance(t, _FUNCTIONS):
            raise _unsupported_step(t, "a plain function, whose work feedrate cannot read; "
                                    "the one accepted is open_clip's _convert_to_rgb")
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
            side: Any = t.size if isinstance(t.size, int) else list(t.size)
            if not isinstance(side, int):
                if len(side) != 1:
                    raise _unsupported(name, "Resize((h, w)) stretches; give the shorter side")
                side = side[0]
            if getattr(t, "max_size", None) is not None:
                raise _unsupported(name, "max_size")
            parts.append(f"resize({side},interp={_interp(name, t)})")
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
            raise _unsupported_step(t)
        i += 1
    if not parts or not parts[0].startswith(("rrc(", "resize(")):
        raise _unsupported(
            "a transform without RandomResizedCrop or Resize + CenterCrop",
            "batches need one output size",
        )
    if floats:
        if normalized:
            return TorchvisionSpec(",".join(parts), "float32", False, None, None)
        return TorchvisionSpec(",".join(parts), "float32", False, [0.0] * 3, [1.0] * 3)
    return TorchvisionSpec(",".join(parts), "uint8", True, None, None)
