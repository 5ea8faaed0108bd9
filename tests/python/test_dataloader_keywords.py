"""feedrate.DataLoader's keywords that have no feedrate option of their own: persistent_workers,
pin_memory and pin_memory_device are each honoured, refused with a TypeError, or accepted with
one warning saying why they are moot."""

import warnings

import pytest

import feedrate

torch = pytest.importorskip("torch")
transforms = pytest.importorskip("torchvision.transforms")
datasets = pytest.importorskip("torchvision.datasets")

CUDA = torch.cuda.is_available()


@pytest.fixture
def dataset(image_folder):
    return datasets.ImageFolder(str(image_folder), transforms.Compose(
        [transforms.RandomResizedCrop(32), transforms.ToTensor()]))


def quietly(dataset, **kwargs):
    """A DataLoader made with warnings as errors: the keywords must be taken without a word."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return feedrate.DataLoader(dataset, batch_size=4, **kwargs)


def test_persistent_workers_true_is_what_feedrate_does(dataset):
    loader = quietly(dataset, num_workers=2, persistent_workers=True)
    assert sum(len(labels) for _, labels in loader) == 28
    assert sum(len(labels) for _, labels in loader) == 28  # the same workers, a second epoch


def test_persistent_workers_false_is_moot_and_says_so(dataset):
    with pytest.warns(UserWarning, match="persistent_workers=False is moot: feedrate's workers"):
        loader = feedrate.DataLoader(dataset, batch_size=4, persistent_workers=False)
    assert len(loader) == 7


def test_pin_memory_device_other_than_cuda_is_refused(dataset):
    with pytest.raises(TypeError, match="pin_memory_device='xpu'.*CUDA devices only"):
        feedrate.DataLoader(dataset, batch_size=4, pin_memory=True, pin_memory_device="xpu")


def test_pin_memory_device_without_pin_memory_is_moot(dataset):
    with pytest.warns(UserWarning, match="pin_memory_device='cuda' is ignored: pin_memory is False"):
        feedrate.DataLoader(dataset, batch_size=4, pin_memory_device="cuda")


def test_pin_memory_of_numpy_arrays_is_moot(dataset):
    with pytest.warns(UserWarning, match="pin_memory=True is moot: the batches are numpy arrays"):
        loader = feedrate.DataLoader(dataset, batch_size=4, pin_memory=True, arrays="numpy")
    images, _ = next(iter(loader))
    assert type(images).__module__ == "numpy"


@pytest.mark.skipif(CUDA, reason="torch finds a CUDA device: pin_memory pins")
def test_pin_memory_without_cuda_is_moot(dataset):
    with pytest.warns(UserWarning, match="pin_memory=True is moot: torch finds no CUDA device"):
        loader = feedrate.DataLoader(dataset, batch_size=4, pin_memory=True)
    images, labels = next(iter(loader))
    assert images.dtype == torch.float32 and labels.dtype == torch.int64


@pytest.mark.skipif(not CUDA, reason="pinning needs a CUDA device")
def test_pin_memory_with_cuda_pins_every_batch(dataset):
    loader = quietly(dataset, pin_memory=True, pin_memory_device="cuda:0")
    batches = 0
    for images, labels in loader:
        assert images.is_pinned() and labels.is_pinned()
        batches += 1
    assert batches == len(loader)
