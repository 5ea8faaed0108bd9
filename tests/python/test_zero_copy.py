"""Zero copy: a yielded tensor is the batch slot itself; holding it keeps the slot leased and
its memory valid while the loader runs on."""

import pytest

from conftest import feedrate, small

torch = pytest.importorskip("torch")


def test_held_tensors_keep_their_slots(image_folder):
    loader = feedrate.Loader(image_folder, **small(prefetch_batches=2, arrays="torch"))
    iterator = iter(loader)
    first = next(iterator)
    second = next(iterator)
    # Two slots, both held through the tensors alone: a copy would have released them.
    with pytest.raises(feedrate.Error, match="prefetch_batches"):
        next(iterator)
    del first
    third = next(iterator)
    assert third[0].shape[0] == 8 and second[0].shape[0] == 8


def test_held_tensor_stays_valid_and_unchanged(image_folder):
    loader = feedrate.Loader(image_folder, **small(prefetch_batches=3, arrays="torch"))
    iterator = iter(loader)
    held, _ = next(iterator)
    pointer, snapshot = held.data_ptr(), held.clone()
    for images, _ in iterator:  # the other two slots keep cycling
        assert images.data_ptr() != pointer
    assert held.data_ptr() == pointer
    assert torch.equal(held, snapshot)
    del held, images
    views = {images.data_ptr() for images, _ in loader}
    assert len(views) <= 3  # every batch is one of the three slots, not fresh memory


def test_numpy_arrays_keep_their_slots(image_folder):
    loader = feedrate.Loader(image_folder, **small(prefetch_batches=2, arrays="numpy"))
    iterator = iter(loader)
    kept = [next(iterator)[0], next(iterator)[0]]
    with pytest.raises(feedrate.Error, match="prefetch_batches"):
        next(iterator)
    assert not kept[0].flags.owndata and kept[0].base is not None
    kept.clear()
    assert next(iterator)[0].shape == (8, 32, 32, 3)
