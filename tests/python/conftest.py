"""Shared fixtures: small generated JPEG datasets (PIL) and the C++ dump helper."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import feedrate

from shard_writer import write_jpeg

# Class names chosen so that byte order, not natural or case-folded order, decides the labels,
# as torchvision's ImageFolder sorts them.
CLASSES = ["Zebra", "apple", "class_10", "class_2"]
PER_CLASS = 7  # 28 images: batches of 8 leave a partial last batch


@pytest.fixture(scope="session")
def image_folder(tmp_path_factory):
    """root/<class>/img_<k>.jpg: CLASSES x PER_CLASS images of varied sizes."""
    root = tmp_path_factory.mktemp("folder")
    seed = 0
    for name in CLASSES:
        (root / name).mkdir()
        for k in range(PER_CLASS):
            write_jpeg(root / name / f"img_{k}.jpg", seed, 64 + 8 * (seed % 5), 48 + 6 * (seed % 4))
            seed += 1
    return root


@pytest.fixture
def broken_folder(tmp_path):
    """An ImageFolder with one truncated JPEG among good ones; returns (root, bad_path)."""
    root = tmp_path / "broken"
    for name in ("a", "b"):
        (root / name).mkdir(parents=True)
        for k in range(4):
            write_jpeg(root / name / f"img_{k}.jpg", k)
    bad = root / "b" / "img_2.jpg"
    bad.write_bytes(bad.read_bytes()[:200])
    return root, bad


def small(**options):
    """Options for fast tests: tiny outputs, small batches."""
    defaults = dict(batch_size=8, size=32, num_workers=2, arrays="numpy")
    defaults.update(options)
    return defaults


def epoch(loader):
    """Every batch of one epoch, copied to numpy arrays (the batches' slots go back to the
    loader): (images, labels, indices) lists."""
    images, labels, indices = [], [], []
    for batch in loader:
        arrays = [np.array(x.cpu() if hasattr(x, "cpu") else x, copy=True) for x in batch]
        images.append(arrays[0])
        labels.append(arrays[1])
        if len(arrays) > 2:
            indices.append(arrays[2])
    return images, labels, indices


@pytest.fixture(scope="session")
def dump_batches():
    """Runs the C++ Loader for one epoch; returns (images bytes, labels, indices)."""
    binary = os.environ.get("FEEDRATE_DUMP_BATCHES")
    if not binary:
        pytest.skip("FEEDRATE_DUMP_BATCHES is not set (run through ctest)")

    def run(source, prefix, *args):
        subprocess.run([binary, str(source), str(prefix), *map(str, args)], check=True)
        prefix = Path(prefix)
        return (prefix.with_suffix(".images").read_bytes(),
                np.fromfile(prefix.with_suffix(".labels"), dtype=np.int32),
                np.fromfile(prefix.with_suffix(".indices"), dtype=np.uint32))

    return run


@pytest.fixture(autouse=True)
def no_distributed_env(monkeypatch):
    """rank/world_size default from RANK/WORLD_SIZE: keep a launcher's values out of tests."""
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)


__all__ = ["feedrate", "small", "epoch", "CLASSES", "PER_CLASS"]
