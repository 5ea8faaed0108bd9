"""cache_dir= and cache_gb=: the pack cache changes where bytes come from, never the batches."""

import numpy as np
import pytest

from conftest import epoch, feedrate, small


def test_cached_epochs_deliver_the_uncached_batches(image_folder, tmp_path):
    plain = feedrate.Loader(image_folder, **small(seed=5))
    cached = feedrate.Loader(image_folder, **small(seed=5, cache_dir=tmp_path / "cache",
                                                   cache_gb=1))
    for _ in range(3):
        want_images, want_labels, _ = epoch(plain)
        got_images, got_labels, _ = epoch(cached)
        for want, got in zip(want_images + want_labels, got_images + got_labels):
            np.testing.assert_array_equal(want, got)
    cache = cached.report()["cache"]
    assert cache["enabled"]
    assert cache["dataset_samples"] == 28
    assert 0 <= cache["samples"] <= 28
    assert cache["hits"] + cache["misses"] == 3 * 28
    assert cache["warnings"] == []
    assert plain.report()["cache"] == {"enabled": False}


def test_a_negative_budget_is_refused(image_folder, tmp_path):
    with pytest.raises(ValueError, match="cache_gb=-1 is out of range"):
        feedrate.Loader(image_folder, **small(cache_dir=tmp_path, cache_gb=-1))
