"""open_clip's image_transform Compose accepted as it is: its conversion to RGB (the function
open_clip.transform._convert_to_rgb up to open_clip 3.2, MaybeConvertMode() from 3.3 on) is a
no-op for feedrate, its MaybeToTensor is ToTensor; any other plain function in a Compose is an
error naming it. The first tests build open_clip's steps as open_clip defines them (module and
name), without open_clip; the last ones use the real open_clip where it imports (checked with
open_clip_torch 3.2.0 and 3.3.0)."""

import functools

import pytest

import feedrate
from feedrate import _testing

torch = pytest.importorskip("torch")
transforms = pytest.importorskip("torchvision.transforms")

OPEN_CLIP_MODULE = "open_clip.transform"
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def _convert_to_rgb(image):
    """open_clip.transform._convert_to_rgb, as open_clip 3.2 and earlier define it."""
    return image.convert("RGB")


_convert_to_rgb.__module__ = OPEN_CLIP_MODULE


class MaybeConvertMode:
    """open_clip 3.3's step: convert("RGB") for a PIL image."""

    __module__ = OPEN_CLIP_MODULE

    def __init__(self, mode="RGB"):
        self.mode = mode


class MaybeToTensor(transforms.ToTensor):
    """open_clip 3.3's ToTensor that passes tensors through."""

    __module__ = OPEN_CLIP_MODULE


def to_rgb(image):
    return image.convert("RGB")


def train_compose(size, *middle):
    """The shape of open_clip.image_transform(size, is_train=True): RandomResizedCrop, `middle`
    (its RGB conversion and ToTensor), Normalize with CLIP's mean and std."""
    return transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.9, 1.0),
                                     interpolation=transforms.InterpolationMode.BICUBIC),
        *middle, transforms.Normalize(mean=CLIP_MEAN, std=CLIP_STD)])


def plain_spec(size):
    """The spec of the same Compose without the RGB conversion."""
    return _testing._spec_from_torchvision(train_compose(size, transforms.ToTensor()))


@pytest.mark.parametrize("rgb,to_tensor", [
    (_convert_to_rgb, transforms.ToTensor()),  # open_clip 3.2 and earlier
    (MaybeConvertMode(), MaybeToTensor()),  # open_clip 3.3
])
def test_open_clip_steps_read_as_the_plain_compose(rgb, to_tensor):
    spec = _testing._spec_from_torchvision(train_compose(224, rgb, to_tensor))
    assert spec == plain_spec(224)
    assert spec.spec.startswith("rrc(224,scale=0.9/1.0,") and "interp=bicubic" in spec.spec
    assert "normalize(mean=0.48145466/" in spec.spec and spec.dtype == "float32"


def test_open_clip_compose_runs_natively(image_folder):
    compose = train_compose(32, _convert_to_rgb, transforms.ToTensor())
    images, labels = next(iter(feedrate.Loader(image_folder, transform=compose, batch_size=8)))
    assert tuple(images.shape) == (8, 3, 32, 32) and images.dtype == torch.float32
    assert float(images.min()) < -0.5 and float(images.max()) > 1.0


def elsewhere_convert_to_rgb(image):
    return image


elsewhere_convert_to_rgb.__qualname__ = "_convert_to_rgb"


@pytest.mark.parametrize("step,named", [
    (to_rgb, "the function test_open_clip_transform.to_rgb"),
    (lambda image: image, "the function test_open_clip_transform.<lambda>"),
    (functools.partial(to_rgb), "the function test_open_clip_transform.to_rgb"),
    # The name alone is not enough: open_clip's module is part of what is accepted.
    (elsewhere_convert_to_rgb, "the function test_open_clip_transform._convert_to_rgb"),
])
def test_other_plain_functions_are_refused_by_name(image_folder, step, named):
    compose = train_compose(32, step, transforms.ToTensor())
    with pytest.raises(TypeError) as error:
        feedrate.Loader(image_folder, transform=compose)
    message = str(error.value)
    assert f"cannot run {named} (a plain function" in message
    assert "the one accepted is open_clip's _convert_to_rgb" in message


def test_a_conversion_to_another_mode_is_refused(image_folder):
    compose = train_compose(32, MaybeConvertMode("L"), MaybeToTensor())
    with pytest.raises(TypeError, match="open_clip.transform.MaybeConvertMode \\(mode 'L'"):
        feedrate.Loader(image_folder, transform=compose)


class ResizeKeepRatio:
    """open_clip's eval resize for resize_mode="longest" or a non-square size."""

    __module__ = OPEN_CLIP_MODULE


def test_another_library_class_is_named_with_its_module(image_folder):
    compose = transforms.Compose([ResizeKeepRatio(), transforms.ToTensor()])
    with pytest.raises(TypeError, match="cannot run open_clip.transform.ResizeKeepRatio in"):
        feedrate.Loader(image_folder, transform=compose)


# --- The real open_clip -----------------------------------------------------------------------

def real_open_clip():
    return pytest.importorskip("open_clip")


def rgb_steps(compose):
    """open_clip's RGB conversion steps in compose, whichever form its version has."""
    return [t for t in compose.transforms
            if getattr(t, "__qualname__", None) == "_convert_to_rgb"
            or type(t).__name__ == "MaybeConvertMode"]


def test_real_train_transform(image_folder):
    open_clip = real_open_clip()
    compose = open_clip.image_transform(32, is_train=True)
    assert len(rgb_steps(compose)) == 1  # what this accepts is really there
    spec = _testing._spec_from_torchvision(compose)
    assert spec == plain_spec(32)
    images, _ = next(iter(feedrate.Loader(image_folder, transform=compose, batch_size=8)))
    assert tuple(images.shape) == (8, 3, 32, 32) and images.dtype == torch.float32


def test_real_eval_transform_is_close_to_open_clip(image_folder):
    """open_clip's eval Compose (Resize bicubic + CenterCrop + RGB + ToTensor + Normalize) in
    feedrate against the same Compose on PIL images, in 0..255 units before Normalize."""
    open_clip = real_open_clip()
    datasets = pytest.importorskip("torchvision.datasets")
    compose = open_clip.image_transform(32, is_train=False)
    assert len(rgb_steps(compose)) == 1
    spec = _testing._spec_from_torchvision(compose)
    assert spec.spec.startswith("resize(32,interp=bicubic),center_crop(32),normalize(")
    reference = datasets.ImageFolder(str(image_folder), transform=compose)
    loader = feedrate.Loader(image_folder, transform=compose, batch_size=8, shuffle=False,
                             return_indices=True)
    std = torch.tensor(CLIP_STD).view(3, 1, 1) * 255
    for images, _, indices in loader:
        for image, index in zip(images, indices):
            difference = ((image - reference[int(index)][0]) * std).abs()
            assert difference.mean() < 1.0, f"sample {int(index)}"  # measured: <= 0.22


@pytest.mark.parametrize("resize_mode,named", [("longest", "ResizeKeepRatio"),
                                               ("squash", "CenterCrop")])
def test_real_eval_modes_without_a_native_form_are_refused(image_folder, resize_mode, named):
    open_clip = real_open_clip()
    compose = open_clip.image_transform(32, is_train=False, resize_mode=resize_mode)
    with pytest.raises(TypeError, match=named):
        feedrate.Loader(image_folder, transform=compose)
