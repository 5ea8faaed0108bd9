"""Bad input: a Python exception that names the file, or a skip listed in the report."""

import os
import subprocess

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
    # The skipped sample's place is taken: 4 full batches, one of the 7 good samples twice
    # (pad_shards), and with pad_shards=False each once.
    assert [len(i) for i in indices] == [2, 2, 2, 2]
    assert len(set(np.concatenate(indices).tolist())) == 7
    once = feedrate.Loader(root, **small(batch_size=2, on_bad="skip", return_indices=True,
                                         pad_shards=False))
    _, _, indices = epoch(once)
    assert sorted(np.concatenate(indices).tolist()) == sorted(set(np.concatenate(indices).tolist()))
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
    with pytest.raises(ValueError, match=r"batch_size=0 is out of range: batch_size must be in \[1, 65536\]"):
        feedrate.Loader(image_folder, batch_size=0)
    with pytest.raises(feedrate.Error, match="rank must be in"):  # beyond one option: the Loader's
        feedrate.Loader(image_folder, rank=3, world_size=2)


def test_out_of_range_is_a_value_error_with_the_command_lines_range(image_folder):
    with pytest.raises(ValueError, match=r"batch_size=-1 is out of range: batch_size must be in \[1, 65536\]"):
        feedrate.Loader(image_folder, batch_size=-1)
    with pytest.raises(ValueError, match="prefetch_batches=-2 is out of range"):
        feedrate.Loader(image_folder, prefetch_batches=-2)
    with pytest.raises(ValueError, match=r"memory_budget_mb=.* is out of range: memory_budget_mb must be in"):
        feedrate.Loader(image_folder, memory_budget_mb=2**70)
    with pytest.raises(ValueError, match=r"cache_gb=-1 is out of range: cache_gb must be in \[0, 1000000000\]"):
        feedrate.Loader(image_folder, cache_gb=-1)
    with pytest.raises(ValueError, match="seed=-1 is out of range"):
        feedrate.Loader(image_folder, seed=-1)
    with pytest.raises(TypeError, match="shuffle=2 has the wrong type"):
        feedrate.Loader(image_folder, shuffle=2)  # not a count: an int there is the wrong type


# Each transform keyword: a TypeError naming it for a value of the wrong type, a ValueError
# naming it and its range (the command line's, for --size) outside the range.
@pytest.mark.parametrize("keyword, wrong_type, out_of_range, rule", [
    ("size", "x", 9000, r"size must be in \[1, 8192\]"),
    ("size", 2.5, 0, r"size must be in \[1, 8192\]"),
    ("resize", "256", 20000, r"resize must be in \[1, 16384\]"),
    ("scale", 0.5, (0.0, 1.0), r"scale must be in \(0, 1\]"),
    ("scale", ("a", 1.0), (0.5, 1.5), r"scale must be in \(0, 1\]"),
    ("ratio", "wide", (0.0001, 1.0), r"ratio must be in \[0.001, 1000\]"),
    ("flip_probability", "half", 1.5, r"flip_probability must be in \[0, 1\]"),
    ("flip_probability", True, -0.1, r"flip_probability must be in \[0, 1\]"),
])
def test_transform_keywords_raise_type_and_value_errors_naming_them(image_folder, keyword,
                                                                     wrong_type, out_of_range,
                                                                     rule):
    with pytest.raises(TypeError, match=f"{keyword}=.* has the wrong type: {keyword} takes"):
        feedrate.Loader(image_folder, **{keyword: wrong_type})
    with pytest.raises(ValueError, match=f"{keyword}=.* is out of range: {rule}"):
        feedrate.Loader(image_folder, **{keyword: out_of_range})


def test_the_command_line_takes_the_same_size_range(image_folder):
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    def bench(size):
        return subprocess.run([cli, "bench", str(image_folder), "--size", str(size), "--batches",
                               "1", "--batch", "2", "--workers", "1", "--no-pack-probe"],
                              capture_output=True, text=True)
    for size in (0, 8193):
        refused = bench(size)
        assert refused.returncode != 0 and "--size" in refused.stderr, refused.stderr
    assert bench(4).returncode == 0  # below the command line's old lower bound of 8
    with pytest.raises(ValueError, match=r"size must be in \[1, 8192\]"):
        feedrate.Loader(image_folder, size=8193)
    feedrate.Loader(image_folder, **small(size=8192, batch_size=1))


def test_mean_sets_the_normalization_and_contradicting_the_spec_is_refused(image_folder):
    loader = feedrate.Loader(image_folder, **small(dtype="float32", mean=[0.5, 0.5, 0.5]))
    assert loader  # accepted: the transform's normalization takes it
    with pytest.raises(ValueError, match="mean=.* differs from the transform's normalize"):
        feedrate.Loader(image_folder, transform="rrc(32),normalize(mean=0.4,std=0.2)",
                        mean=[0.5, 0.5, 0.5])
    with pytest.raises(TypeError, match="mean=.* has the wrong type"):
        feedrate.Loader(image_folder, mean=0.5)
