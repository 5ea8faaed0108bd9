"""`feedrate pack` output read by others and by feedrate: each packed member is one JPEG that PIL
decodes to exactly the source's pixels (the restart index rides in an APP15 segment PIL skips);
the Python loader reads the packed shards with no new option and delivers the same batches, in
the same order, as from the source; the `webdataset` package reads the shards when installed."""

import io
import os
import subprocess
import tarfile

import numpy as np
import pytest

from conftest import feedrate, small


@pytest.fixture(scope="module")
def packed(image_folder, tmp_path_factory):
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    out = tmp_path_factory.mktemp("packed") / "shards"
    subprocess.run([cli, "pack", str(image_folder), str(out), "--shard-mb", "1"], check=True,
                   capture_output=True)
    return out


def members(out):
    for shard in sorted(out.glob("*.tar")):
        with tarfile.open(shard) as tar:
            for member in tar.getmembers():
                yield member.name, tar.extractfile(member).read()


def test_pil_decodes_packed_members_to_the_source_pixels(image_folder, packed):
    from PIL import Image
    sources = sorted(p for p in image_folder.rglob("*.jpg"))
    images = [(name, data) for name, data in members(packed) if name.endswith(".jpg")]
    labels = [data for name, data in members(packed) if name.endswith(".cls")]
    assert len(images) == len(sources) == len(labels)
    for (name, data), source in zip(images, sources):
        assert b"feedrate-rst\x00" in data[:4096], name
        with Image.open(io.BytesIO(data)) as got, Image.open(source) as want:
            np.testing.assert_array_equal(np.asarray(got.convert("RGB")),
                                          np.asarray(want.convert("RGB")), err_msg=name)


@pytest.mark.parametrize("transform", ["train", "eval"])
def test_loader_gives_the_same_batches(image_folder, packed, transform):
    def epoch(root):
        loader = feedrate.Loader(root, **small(seed=5, transform=transform, shuffle=True,
                                               return_indices=True))
        return [(images.copy(), labels.copy(), indices.copy())
                for images, labels, indices in loader]
    for (a, la, ia), (b, lb, ib) in zip(epoch(image_folder), epoch(packed), strict=True):
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_array_equal(la, lb)
        np.testing.assert_array_equal(a, b)


def test_webdataset_reads_the_shards(packed):
    wds = pytest.importorskip("webdataset")
    shards = [str(p) for p in sorted(packed.glob("*.tar"))]
    samples = list(wds.WebDataset(shards, shardshuffle=False).decode("rgb8").to_tuple("jpg", "cls"))
    assert len(samples) == 28
    assert samples[0][0].shape[2] == 3
