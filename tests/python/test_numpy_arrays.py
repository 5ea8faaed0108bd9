"""numpy arrays, whatever numpy and pybind11 the module meets: the numpy path gives the bytes of
the torch (DLPack) path, with the shape, dtype and strides of a C-contiguous array. Under numpy 2
a module built with pybind11 before 2.12 once gave strides of 0 (every element read the first
byte, with no error) when an array was made without explicit strides. CI runs this file under
Debian's numpy 1.24 and under numpy 2 from PyPI (`make test-numpy2`), for the CMake-built module
and for the pip-installed one."""

import numpy as np
import pytest

from conftest import feedrate, small

torch = pytest.importorskip("torch")


def c_contiguous_strides(array):
    strides, step = [], array.itemsize
    for side in reversed(array.shape):
        strides.insert(0, step)
        step *= side
    return tuple(strides)


def values(array):
    """The elements as Python numbers: no numpy interop that torch might lack under numpy 2."""
    return array.reshape(-1).tolist()


@pytest.mark.parametrize("dtype,numpy_dtype", [("uint8", np.uint8), ("float32", np.float32)])
def test_numpy_path_equals_torch_path(image_folder, dtype, numpy_dtype):
    options = small(seed=5, transform="train", dtype=dtype, return_indices=True)
    as_numpy = feedrate.Loader(image_folder, **dict(options, arrays="numpy"))
    as_torch = feedrate.Loader(image_folder, **dict(options, arrays="torch"))
    spread, seen = [], []
    for (images, labels, indices), (t_images, t_labels, t_indices) in zip(as_numpy, as_torch):
        assert isinstance(images, np.ndarray) and images.dtype == numpy_dtype
        assert images.shape == tuple(t_images.shape)
        assert images.strides == c_contiguous_strides(images)
        assert images.flags.c_contiguous
        assert values(images) == values(t_images)
        assert labels.dtype == np.int64 and labels.strides == (8,)
        assert values(labels) == values(t_labels)
        assert indices.dtype == np.int64 and indices.strides == (8,)
        assert values(indices) == values(t_indices)
        assert t_indices.dtype == torch.int64
        spread.append(float(images.astype(np.float64).std()))
        seen.extend(indices.tolist())
    assert sorted(seen) == list(range(28))
    # Not constant: strides of 0 would give every element the first byte's value.
    assert min(spread) > (10 if dtype == "uint8" else 0.1)


def test_storage_order_batch_has_strides_and_labels(image_folder):
    loader = feedrate.Loader(image_folder, **small(shuffle=False, transform="eval"))
    images, labels = next(iter(loader))
    assert images.strides == c_contiguous_strides(images) == (32 * 32 * 3, 32 * 3, 3, 1)
    assert len(set(values(images[0]))) > 50
    assert labels.tolist() == [0] * 7 + [1]
