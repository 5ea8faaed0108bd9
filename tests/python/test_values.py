"""Shapes, dtypes, layouts and values: the Python path equals the C++ path for the same options
and seed, and the float layout is torchvision's ToTensor + Normalize of the uint8 pixels."""

import numpy as np
import pytest

from conftest import epoch, feedrate, small

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("transform,layout", [("train", "uint8"), ("eval", "float32")])
def test_python_equals_cpp_loader(image_folder, dump_batches, tmp_path, transform, layout):
    cpp_images, cpp_labels, cpp_indices = dump_batches(
        image_folder, tmp_path / "cpp", "--batch", 8, "--workers", 2, "--seed", 11, "--epoch", 1,
        "--transform", transform, "--size", 32, "--resize", 36, "--layout", layout)
    loader = feedrate.Loader(image_folder, **small(seed=11, transform=transform, dtype=layout,
                                                   arrays="torch", return_indices=True))
    loader.set_epoch(1)
    images = []
    for batch_images, labels, indices in loader:
        assert batch_images.device.type == "cpu" and batch_images.is_contiguous()
        if layout == "uint8":
            assert batch_images.dtype == torch.uint8
            assert batch_images.shape[1:] == (32, 32, 3)  # NHWC
        else:
            assert batch_images.dtype == torch.float32
            assert batch_images.shape[1:] == (3, 32, 32)  # NCHW
        assert labels.dtype == torch.int64 and labels.shape == (batch_images.shape[0],)
        images.append(batch_images.numpy().tobytes())
    assert b"".join(images) == cpp_images
    py_labels, py_indices = epoch_labels(image_folder, transform, layout)
    np.testing.assert_array_equal(py_labels, cpp_labels)
    np.testing.assert_array_equal(py_indices, cpp_indices)


def epoch_labels(root, transform, layout):
    loader = feedrate.Loader(root, **small(seed=11, transform=transform, dtype=layout,
                                           return_indices=True))
    loader.set_epoch(1)
    _, labels, indices = epoch(loader)
    return np.concatenate(labels), np.concatenate(indices)


def test_float32_is_normalized_uint8(image_folder):
    mean, std = (0.5, 0.4, 0.3), (0.2, 0.25, 0.3)
    as_bytes = feedrate.Loader(image_folder, **small(seed=2, arrays="torch"))
    as_floats = feedrate.Loader(image_folder, **small(seed=2, arrays="torch", dtype=torch.float32,
                                                      mean=mean, std=std))
    transforms = pytest.importorskip("torchvision.transforms")
    normalize = transforms.Normalize(mean, std)
    for (u8, _), (f32, _) in zip(as_bytes, as_floats):
        expected = normalize(u8.permute(0, 3, 1, 2).float() / 255)
        torch.testing.assert_close(f32, expected, rtol=0, atol=1e-5)


def test_numpy_arrays_equal_torch_tensors(image_folder):
    as_numpy = feedrate.Loader(image_folder, **small(seed=4, arrays="numpy"))
    as_torch = feedrate.Loader(image_folder, **small(seed=4, arrays="torch"))
    assert (as_numpy.arrays, as_torch.arrays) == ("numpy", "torch")
    for (ni, nl), (ti, tl) in zip(as_numpy, as_torch):
        assert isinstance(ni, np.ndarray) and ni.dtype == np.uint8 and nl.dtype == np.int64
        np.testing.assert_array_equal(ni, ti.numpy())
        np.testing.assert_array_equal(nl, tl.numpy())


def test_eval_transform_is_close_to_torchvision(image_folder):
    """feedrate's Resize + CenterCrop against torchvision's on PIL images (the resampler is
    PIL's antialiased bilinear, up to rounding and DCT-domain downscaling)."""
    datasets = pytest.importorskip("torchvision.datasets")
    transforms = pytest.importorskip("torchvision.transforms")
    reference = datasets.ImageFolder(str(image_folder), transform=transforms.Compose(
        [transforms.Resize(36), transforms.CenterCrop(32), transforms.PILToTensor()]))
    loader = feedrate.Loader(image_folder, **small(transform="eval", shuffle=False,
                                                   arrays="torch", return_indices=True))
    for images, _, indices in loader:
        for image, index in zip(images, indices):
            expected = reference[int(index)][0].permute(1, 2, 0)
            difference = (image.int() - expected.int()).abs().float()
            assert difference.mean() < 1.0, f"sample {int(index)}"  # measured: <= 0.23


def test_numpy_arrays_when_torch_does_not_import(image_folder):
    """arrays="auto" falls back to numpy in an interpreter where `import torch` fails;
    arrays="torch" there raises ImportError when the Loader is made."""
    import subprocess
    import sys
    script = (
        "import sys; sys.modules['torch'] = None\n"  # makes `import torch` raise ImportError
        "import numpy, feedrate\n"
        f"loader = feedrate.Loader({str(image_folder)!r}, batch_size=8, size=32)\n"
        "images, labels = next(iter(loader))\n"
        "assert loader.arrays == 'numpy', loader.arrays\n"
        "assert isinstance(images, numpy.ndarray) and images.shape == (8, 32, 32, 3)\n"
        "assert labels.dtype == numpy.int64\n"
        "try:\n"
        f"    feedrate.Loader({str(image_folder)!r}, arrays='torch')\n"
        "    raise AssertionError('arrays=torch without torch did not raise')\n"
        "except ImportError:\n"
        "    pass\n")
    subprocess.run([sys.executable, "-c", script], check=True)
