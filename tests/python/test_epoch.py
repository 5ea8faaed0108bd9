"""Iteration: each epoch delivers every sample once, len(), set_epoch and the epoch sequence."""

import numpy as np
import pytest

from conftest import CLASSES, PER_CLASS, epoch, feedrate, small

COUNT = len(CLASSES) * PER_CLASS


@pytest.mark.parametrize("workers", [0, 1, 2])
@pytest.mark.parametrize("shuffle", [False, True])
def test_every_sample_once_per_epoch(image_folder, workers, shuffle):
    loader = feedrate.Loader(image_folder, **small(num_workers=workers, shuffle=shuffle,
                                                   return_indices=True))
    assert len(loader) == (COUNT + 7) // 8
    for _ in range(2):
        images, labels, indices = epoch(loader)
        assert len(images) == len(loader)
        assert [len(x) for x in indices] == [8, 8, 8, 4]
        order = np.concatenate(indices)
        assert sorted(order.tolist()) == list(range(COUNT))
        if not shuffle:
            assert order.tolist() == list(range(COUNT))
        # ImageFolder order: class by class, PER_CLASS images each.
        assert np.concatenate(labels).tolist() == (order // PER_CLASS).tolist()


def test_drop_last(image_folder):
    loader = feedrate.Loader(image_folder, **small(drop_last=True))
    assert len(loader) == COUNT // 8
    images, _, _ = epoch(loader)
    assert [len(x) for x in images] == [8] * (COUNT // 8)


def test_epochs_advance_and_set_epoch_repeats(image_folder):
    loader = feedrate.Loader(image_folder, **small(seed=3, return_indices=True))
    first = np.concatenate(epoch(loader)[2])
    assert loader.epoch == 0
    second = np.concatenate(epoch(loader)[2])
    assert loader.epoch == 1
    assert first.tolist() != second.tolist()  # a new shuffle each epoch
    loader.set_epoch(0)
    again = epoch(loader)
    assert np.concatenate(again[2]).tolist() == first.tolist()
    # Same seed and epoch: the same pixels too, whatever num_workers.
    other = feedrate.Loader(image_folder, **small(seed=3, num_workers=0, return_indices=True))
    for mine, theirs in zip(again[0], epoch(other)[0]):
        np.testing.assert_array_equal(mine, theirs)


def test_a_new_iter_ends_the_previous_one(image_folder):
    loader = feedrate.Loader(image_folder, **small())
    old = iter(loader)
    next(old)
    new = iter(loader)
    with pytest.raises(StopIteration):
        next(old)
    assert sum(1 for _ in new) == len(loader)
