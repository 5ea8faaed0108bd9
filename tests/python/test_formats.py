"""Every format torchvision's ImageFolder loads: on a mixed tree written by the C++ datagen
(`feedrate make-dataset --mixed-formats`: JPEG RGB and CMYK; PNG RGB, palette, 16-bit, RGBA and
gray interlaced, gray + alpha; WebP lossy and lossless with alpha; BMP 24-bit and 32-bit
top-down; PPM, PGM, TIFF; a PNG named .JPEG; upper-case extensions; a stray .txt), feedrate
gives the samples, labels and order of ImageFolder, and the pixels of PIL's convert("RGB")."""

import os
import subprocess

import numpy as np
import pytest

from conftest import feedrate

datasets = pytest.importorskip("torchvision.datasets")
transforms = pytest.importorskip("torchvision.transforms")

COUNT = 34  # every kind of image twice
CLASSES = 3


@pytest.fixture(scope="module")
def mixed_folder(tmp_path_factory):
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    root = tmp_path_factory.mktemp("mixed") / "tree"
    subprocess.run([cli, "make-dataset", str(root), "--count", str(COUNT), "--classes",
                    str(CLASSES), "--mixed-formats", "--seed", "3"], check=True,
                   capture_output=True)
    return root


def magic(path):
    head = path.read_bytes()[:12]
    if head.startswith(b"\x89PNG"):
        return "png"
    if head.startswith(b"\xff\xd8"):
        return "jpeg"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "webp"
    return head[:2].decode("latin-1")


def test_the_tree_holds_every_kind(mixed_folder):
    files = sorted(p for p in mixed_folder.rglob("*") if p.is_file())
    suffixes = {p.suffix for p in files}
    assert {".jpg", ".jpeg", ".JPEG", ".png", ".PNG", ".webp", ".WebP", ".bmp", ".BMP", ".ppm",
            ".pgm", ".tif", ".txt"} <= suffixes
    named_jpeg = [p for p in files if p.suffix == ".JPEG"]
    assert named_jpeg and all(magic(p) == "png" for p in named_jpeg)


def test_samples_labels_and_order_match_imagefolder(mixed_folder):
    reference = datasets.ImageFolder(str(mixed_folder))
    assert len(reference) == COUNT  # the .txt is left out
    loader = feedrate.Loader(mixed_folder, batch_size=8, size=32, num_workers=2, shuffle=False,
                             transform="eval", arrays="numpy", return_indices=True)
    assert loader.num_samples == len(reference)
    assert loader.classes == reference.classes
    indices, labels = [], []
    for _, batch_labels, batch_indices in loader:
        indices.extend(int(i) for i in batch_indices)
        labels.extend(int(x) for x in batch_labels)
    assert indices == list(range(COUNT))
    assert labels == reference.targets


def test_eval_pixels_are_close_to_torchvision(mixed_folder):
    """Resize + CenterCrop. The whole-image formats are resampled from exact pixels, so only
    PIL's rounding between its two passes separates them from torchvision: the tolerance of
    test_values.py (mean absolute difference under 1). JPEGs take the JPEG path, whose DCT-scaled
    decode (1/2, 1/4, 1/8 when the image is at least 1.5x the output) is within a mean 1.25 of a
    full decode (decode/image_decoder.h, kScaledPixelsPerOutput): these large JPEGs shrunk to
    36 pixels are scaled, so they get that bound plus the rounding."""
    reference = datasets.ImageFolder(str(mixed_folder), transform=transforms.Compose(
        [transforms.Resize(36), transforms.CenterCrop(32), transforms.PILToTensor()]))
    loader = feedrate.Loader(mixed_folder, batch_size=8, size=32, resize=36, num_workers=2,
                             shuffle=False, transform="eval", arrays="torch",
                             return_indices=True)
    worst = {}
    for images, _, indices in loader:
        for image, index in zip(images, indices):
            expected = reference[int(index)][0].permute(1, 2, 0)
            difference = (image.int() - expected.int()).abs().float()
            path = reference.samples[int(index)][0]
            with open(path, "rb") as f:
                is_jpeg = f.read(2) == b"\xff\xd8"
            # Measured (seed 3): other formats mean <= 0.08, max 1; JPEGs mean <= 1.07, max 8.
            assert difference.mean() < (1.5 if is_jpeg else 1.0), path
            kind = "jpeg" if is_jpeg else os.path.splitext(path)[1].lower()
            assert difference.max() <= (32 if is_jpeg else 2), path
            mean, top = worst.get(kind, (0.0, 0))
            worst[kind] = (max(mean, float(difference.mean())), max(top, int(difference.max())))
    print("worst mean and max absolute difference by kind:",
          {kind: (round(mean, 3), top) for kind, (mean, top) in sorted(worst.items())})


def test_full_size_pixels_equal_pil(mixed_folder):
    """At Resize(375) + CenterCrop(375) images with a short side of 375 are not resampled (both
    sides keep their size), so the output is the decoded pixels: they must equal PIL's
    Image.open(f).convert("RGB") exactly, for every format."""
    from PIL import Image
    reference = datasets.ImageFolder(str(mixed_folder))
    loader = feedrate.Loader(mixed_folder, batch_size=4, size=375, resize=375, num_workers=2,
                             shuffle=False, transform="eval", arrays="numpy",
                             return_indices=True)
    checked = set()
    for images, _, indices in loader:
        for image, index in zip(images, indices):
            path = reference.samples[int(index)][0]
            with Image.open(path) as opened:
                pil = np.asarray(opened.convert("RGB"))
            height, width = pil.shape[:2]
            if min(height, width) != 375:
                continue
            top = int(round((height - 375) / 2.0))
            left = int(round((width - 375) / 2.0))
            expected = pil[top:top + 375, left:left + 375]
            np.testing.assert_array_equal(image, expected, err_msg=path)
            checked.add(os.path.splitext(path)[1].lower())
    assert {".png", ".webp", ".bmp", ".ppm", ".pgm", ".tif", ".jpg"} <= checked
