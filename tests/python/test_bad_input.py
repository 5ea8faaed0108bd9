"""Bad input: a Python exception that names the file, or a skip listed in the report."""

import numpy as np
import pytest

from conftest import epoch, feedrate, small


def test_truncated_jpeg_raises_with_its_file_name(broken_folder):
    root, bad = broken_folder
    loader = feedrate.Loader(root, **small(batch_size=2, shuffle=False))
    with pytest.raises(feedrate.Error) as raised:
        epoch(loader)
    assert str(bad) in str(raised.value) or f"b/{bad.name}" in str(raised.value)
    assert isinstance(raised.value, RuntimeError)


def test_skip_policy_lists_the_file_in_the_report(broken_folder):
    root, bad = broken_folder
    loader = feedrate.Loader(root, **small(batch_size=2, on_bad="skip", return_indices=True))
    _, _, indices = epoch(loader)
    assert len(np.concatenate(indices)) == 7
    report = loader.report()
    assert report["skipped"] == 1
    assert bad.name in report["skipped_samples"][0]["where"]
    assert report["skipped_samples"][0]["reason"]


def test_missing_source_raises_with_the_path(tmp_path):
    with pytest.raises(feedrate.Error, match="does-not-exist"):
        feedrate.Loader(tmp_path / "does-not-exist")


def test_option_errors_name_the_option(image_folder):
    with pytest.raises(TypeError, match="batchsize"):
        feedrate.Loader(image_folder, batchsize=4)
    with pytest.raises(ValueError, match="transform"):
        feedrate.Loader(image_folder, transform="random")
    with pytest.raises(ValueError, match="mean"):
        feedrate.Loader(image_folder, mean=[0.5, 0.5])
    with pytest.raises(TypeError, match="num_workers"):
        feedrate.Loader(image_folder, num_workers="two")
    with pytest.raises(feedrate.Error, match="batch_size"):
        feedrate.Loader(image_folder, batch_size=0)


def test_negative_or_huge_counts_are_a_value_error_naming_the_option(image_folder):
    with pytest.raises(ValueError, match="batch_size=-1 is out of range: batch_size must not be negative"):
        feedrate.Loader(image_folder, batch_size=-1)
    with pytest.raises(ValueError, match="prefetch_batches=-2 is out of range"):
        feedrate.Loader(image_folder, prefetch_batches=-2)
    with pytest.raises(ValueError, match="memory_budget_mb=.* is too large"):
        feedrate.Loader(image_folder, memory_budget_mb=2**70)
    with pytest.raises(TypeError, match="shuffle=2 has the wrong type"):
        feedrate.Loader(image_folder, shuffle=2)  # not a count: an int there is the wrong type
