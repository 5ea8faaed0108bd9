"""Each augmentation operation against torchvision's functional op (tensor backend) on the same
uint8 image with the same parameters: the mean absolute difference must be at most 1 level.

torchvision comes from Debian (python3-torchvision); the test skips without it."""

import math

import numpy as np
import pytest

from feedrate import _testing

torch = pytest.importorskip("torch")
F = pytest.importorskip("torchvision.transforms.functional")
from torchvision.transforms import InterpolationMode  # noqa: E402
from torchvision.transforms.autoaugment import _apply_op  # noqa: E402

MAX_MEAN_DIFF = 1.0


def photo(seed, height=72, width=96):
    """Smooth gradients, an edge and noise: a photograph-like uint8 image, H x W x 3."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([x * 200 / width, y * 180 / height, (x + y) * 120 / (width + height)], -1)
    base[: height // 2, : width // 3] += 50
    return np.clip(base + rng.normal(0, 12, (height, width, 3)) + 20, 0, 255).astype(np.uint8)


def reference(image, fn):
    chw = torch.from_numpy(image).permute(2, 0, 1).contiguous()
    return fn(chw).permute(1, 2, 0).numpy()


def mean_diff(a, b):
    assert a.shape == b.shape
    return float(np.abs(a.astype(np.int32) - b.astype(np.int32)).mean())


# (op, magnitudes): the magnitudes of TrivialAugmentWide's widest bins and RandAugment's
# default bin, both signs where the op is signed.
POLICY_OPS = [
    ("Identity", [0.0]),
    ("ShearX", [0.3, -0.3, 0.99, -0.5]),
    ("ShearY", [0.3, -0.3, 0.99]),
    ("TranslateX", [32.0, -14.0, 7.9]),
    ("TranslateY", [32.0, -14.0, 3.2]),
    ("Rotate", [30.0, -30.0, 135.0, -97.5, 4.5]),
    ("Brightness", [0.9, -0.9, 0.33, -0.99]),
    ("Color", [0.9, -0.9, 0.33, -0.99]),
    ("Contrast", [0.9, -0.9, 0.33, -0.99]),
    ("Sharpness", [0.9, -0.9, 0.33, -0.99]),
    ("Posterize", [8.0, 6.0, 4.0, 2.0]),
    ("Solarize", [255.0, 246.5, 128.0, 8.5, 0.0]),
    ("AutoContrast", [0.0]),
    ("Equalize", [0.0]),
    ("Invert", [0.0]),
]


@pytest.mark.parametrize("op,magnitudes", POLICY_OPS, ids=[op for op, _ in POLICY_OPS])
@pytest.mark.parametrize("fill", [None, (128.0, 64.0, 32.0)], ids=["fill0", "fillrgb"])
def test_policy_op_matches_torchvision(op, magnitudes, fill):
    for seed, magnitude in enumerate(magnitudes):
        image = photo(seed)
        ours = _testing._apply_op(image, op, magnitude, fill or (0.0, 0.0, 0.0))
        fill_list = list(fill) if fill else None
        theirs = reference(
            image, lambda t: _apply_op(t, op, magnitude, InterpolationMode.NEAREST, fill_list))
        assert mean_diff(ours, theirs) <= MAX_MEAN_DIFF, (op, magnitude)


def test_geometric_ops_are_exact_for_integer_translations():
    image = photo(7)
    for op in ("TranslateX", "TranslateY"):
        ours = _testing._apply_op(image, op, 11.0)
        theirs = reference(image, lambda t: _apply_op(t, op, 11.0, InterpolationMode.NEAREST, None))
        assert np.array_equal(ours, theirs), op


@pytest.mark.parametrize("factor", [-0.5, -0.2, 0.05, 0.25, 0.5])
def test_hue_matches_torchvision(factor):
    image = photo(3)
    ours = _testing._apply_op(image, "Hue", factor)
    theirs = reference(image, lambda t: F.adjust_hue(t, factor))
    assert mean_diff(ours, theirs) <= MAX_MEAN_DIFF


def test_flips_and_grayscale_match_torchvision():
    image = photo(4)
    pairs = [("HFlip", F.hflip), ("VFlip", F.vflip),
             ("Grayscale", lambda t: F.rgb_to_grayscale(t, num_output_channels=3))]
    for name, fn in pairs:
        assert np.array_equal(_testing._apply_op(image, name), reference(image, fn)), name


# (top, left, height, width, size): downscales, an upscale and an off-centre box.
BOXES = [(0, 0, 72, 96, 40), (10, 20, 50, 60, 32), (5, 7, 20, 30, 48), (0, 30, 72, 66, 72)]


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic"])
def test_resized_crop_matches_torchvision(interpolation):
    mode = InterpolationMode(interpolation)
    for seed, (top, left, height, width, size) in enumerate(BOXES):
        image = photo(seed, 72, 96)
        ours = _testing._resized_crop(image, top, left, height, width, size, interpolation)
        theirs = reference(image, lambda t: F.resized_crop(
            t, top, left, height, width, [size, size], mode, antialias=True))
        assert mean_diff(ours, theirs) <= MAX_MEAN_DIFF, (interpolation, top, left, size)


def test_mean_difference_is_far_below_the_bound_on_colour_ops():
    """The colour ops compute what torchvision computes in float32: differences are rare."""
    image = photo(11)
    for op in ("Brightness", "Color", "Contrast", "Solarize", "Posterize", "Equalize",
               "AutoContrast"):
        magnitude = {"Solarize": 128.0, "Posterize": 4.0}.get(op, 0.4)
        ours = _testing._apply_op(image, op, magnitude)
        theirs = reference(image, lambda t: _apply_op(t, op, magnitude, InterpolationMode.NEAREST, None))
        assert mean_diff(ours, theirs) <= 0.02, op
