"""Samples with fields from remote sources: the img2dataset-style shards of test_fields.py
(tests/python/shard_writer.py), served by the S3 server (a prefix and a brace pattern) and by
nginx (HTTPS and HTTP), deliver the local shards' batches with the same seed: images, keys,
captions and dicts, over several epochs (so through the read-ahead, which from a loader's second
epoch on reads into the next), under both shuffles, and through `cache_dir`'s remote mirror.

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt, test remote.fields), which
serves the tree remote.data and remote.fields_data made; FEEDRATE_REMOTE_ENDPOINTS names the
servers' endpoints.json (conftest.py's `endpoints` fixture). Skipped when it is not set.
"""

import os
import sys
from pathlib import Path

import pytest

feedrate = pytest.importorskip("feedrate")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from shard_writer import KEYS, caption, meta, number_of  # noqa: E402

FIELDS = ("__key__", "txt", "json")


def local(e):
    return os.path.join(e["data"], "fields")


SOURCES = {
    "s3 prefix": lambda e: f"s3://{e['bucket']}/{e['prefix']}fields/",
    "s3 brace pattern": lambda e: f"s3://{e['bucket']}/{e['prefix']}fields/{{00000..00001}}.tar",
    "https": lambda e: e["https"] + "/fields/{00000..00001}.tar",
    "http": lambda e: e["http"] + "/fields/{00000..00001}.tar",
}


def epochs(source, count=3, fields=FIELDS, **options):
    """Every batch of epochs 0..count-1 of one loader, as (images bytes, *fields' values) (for
    FIELDS: keys, captions, dicts), and the loader (for its report)."""
    loader = feedrate.Loader(source, batch_size=8, num_workers=2, seed=3, size=32,
                             fields=fields, **options)
    batches = []
    for epoch in range(count):
        loader.set_epoch(epoch)
        batches.extend((images.numpy().tobytes(), *values) for images, *values in loader)
    return batches, loader


def check_values(batches, count):
    """Every key once an epoch, each with its own caption and dict."""
    keys = [key for _, batch_keys, _, _ in batches for key in batch_keys]
    assert sorted(number_of(key) for key in keys) == sorted(list(range(KEYS)) * count)
    for _, batch_keys, texts, metas in batches:
        assert texts == [caption(number_of(key)) for key in batch_keys]
        assert metas == [meta(number_of(key)) for key in batch_keys]


def test_indexed_shards_are_read_from_their_index_without_their_headers(endpoints):
    """remote-data/fields-indexed (tests/remote/indexed_shards.py): `feedrate index`'s listing
    beside shards whose tar headers are damaged. The loader takes every member from index.json,
    so it reads no header and delivers the intact shards' batches; the shards themselves, read
    locally, are refused for their headers."""
    expected, _ = epochs(local(endpoints), count=2)
    indexed = f"s3://{endpoints['bucket']}/{endpoints['prefix']}fields-indexed/"
    remote, loader = epochs(indexed, count=2)
    assert remote == expected
    assert loader.report()["skipped"] == 0
    with pytest.raises(feedrate.Error, match="checksum"):
        feedrate.Loader(os.path.join(endpoints["data"], "fields-indexed"), fields=FIELDS)


@pytest.mark.parametrize("shuffle", ["full", "blocks"])
@pytest.mark.parametrize("name", SOURCES)
def test_remote_shards_give_the_local_shards_batches(endpoints, name, shuffle):
    expected, _ = epochs(local(endpoints), shuffle=shuffle)
    check_values(expected, 3)
    remote, loader = epochs(SOURCES[name](endpoints), shuffle=shuffle)
    assert remote == expected
    report = loader.report()
    assert report["skipped"] == 0
    store = report["stages"]["store"]
    assert store["requests"] > 0 and store["failed"] == 0


# A sample's range runs from its image to its last requested member: the key alone is the image
# alone; .json alone spans the .txt between them, which no field reads.
@pytest.mark.parametrize("fields", [("__key__",), ("json",)])
def test_the_range_of_fewer_fields_gives_the_local_shards_batches(endpoints, fields):
    expected, _ = epochs(local(endpoints), fields=fields)
    assert len(expected) == 3 * KEYS // 8
    for name in ("s3 prefix", "https"):
        remote, _ = epochs(SOURCES[name](endpoints), fields=fields)
        assert remote == expected, name


@pytest.mark.parametrize("name", ["s3 prefix", "https"])
def test_cache_dir_mirrors_the_samples_so_the_next_epochs_read_the_local_disk(
        endpoints, name, tmp_path):
    expected, _ = epochs(local(endpoints), count=2)
    source = SOURCES[name](endpoints)
    first, loader = epochs(source, count=2, cache_dir=str(tmp_path))
    assert first == expected
    cache = loader.report()["cache"]
    assert cache["enabled"] and cache["samples"] == KEYS and cache["unchanged"] == KEYS
    assert cache["hits"] == KEYS  # epoch 1 read the cache
    # A second loader fetches nothing.
    second, loader = epochs(source, count=2, cache_dir=str(tmp_path))
    assert second == expected
    report = loader.report()
    assert report["stages"]["store"]["requests"] == 0
    assert report["cache"]["misses"] == 0 and report["cache"]["hits"] == 2 * KEYS


@pytest.mark.parametrize("scheme", ["s3", "https"])
def test_a_manifest_of_urls_gives_the_local_manifests_batches(endpoints, tmp_path, scheme):
    """A local JSON Lines manifest whose rows name the served folder's images by URL (s3://: one
    listing of each folder; https://: a HEAD each) and carry a caption: the batches of the same
    manifest naming the local files. A missing object follows on_missing."""
    import json
    folder = Path(endpoints["data"]) / "folder"
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.jpg"))[:24]
    base = (f"s3://{endpoints['bucket']}/{endpoints['prefix']}folder/" if scheme == "s3"
            else endpoints["https"] + "/folder/")

    def manifest(path, image_of):
        path.write_text("".join(json.dumps({"image": image_of(name), "caption": f"c {k}"}) + "\n"
                                for k, name in enumerate(names)))
        return path

    local_rows = manifest(tmp_path / "local.jsonl", lambda name: str(folder / name))
    options = dict(count=2, fields=("caption", "__key__"))
    expected, _ = epochs(local_rows, allow_paths_outside_root=True, **options)
    url_rows = manifest(tmp_path / "urls.jsonl", lambda name: base + name)
    remote, loader = epochs(url_rows, **options)
    assert [b[:2] for b in remote] == [b[:2] for b in expected]  # images and captions
    assert all(key.startswith(base) for b in remote for key in b[2])
    assert loader.report()["stages"]["store"]["requests"] > 0
    with url_rows.open("a") as f:
        f.write(json.dumps({"image": base + "missing.jpg", "caption": "none"}) + "\n")
    skipping = feedrate.Loader(url_rows, batch_size=8, size=32, fields=("caption",))
    assert sum(len(images) for images, _ in skipping) == len(names)
    assert "missing.jpg" in str(skipping.report()["skipped_samples"])
