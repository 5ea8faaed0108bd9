"""The JPEGs and the img2dataset-style shards the tests write: test_fields.py's fixtures read
them from a local folder, and the remote fixture's data step (tests/remote/CMakeLists.txt,
remote.fields_data) writes the same shards into the folder its servers serve, so that
tests/remote/test_fields_source.py compares the remote reads with the local ones.

NumPy and PIL only (no feedrate, no pytest): run as a script it writes the shards,

    python3 tests/python/shard_writer.py OUT_DIR
"""

import io
import json
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

KEYS = 40  # image-text samples over the two shards of write_image_text_shards


def write_jpeg(path, seed, width=80, height=60):
    """A small photograph-like JPEG (smooth gradients plus noise), deterministic in seed."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([x * 255 // width, y * 255 // height, (x + y) * 255 // (width + height)], -1)
    noise = rng.integers(0, 40, size=(height, width, 3))
    pixels = ((base + noise + seed * 37) % 256).astype(np.uint8)
    Image.fromarray(pixels).save(path, quality=90)


def jpeg_bytes(scratch, seed):
    """write_jpeg's bytes for an image-text sample, written through the folder scratch."""
    path = Path(scratch) / f"scratch_{seed}.jpg"
    write_jpeg(path, seed, 48 + seed % 7, 40 + seed % 5)
    return path.read_bytes()


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def caption(k):
    return f"a photo number {k}, café"  # non-ASCII: the text is UTF-8, not Latin-1


def meta(k):
    return {"url": f"http://127.0.0.1/{k}.jpg", "caption": caption(k), "width": 48 + k % 7,
            "similarity": 0.25 + k / 1000}


def number_of(key):
    """The sample number k of a key that write_image_text_shards wrote."""
    return int(key.split("_")[0])


def write_image_text_shards(root):
    """Two img2dataset-style shards in root (KEY.jpg, KEY.txt, KEY.json, no .cls), 00000.tar in
    GNU format and 00001.tar in PAX format with long names, plus the parquet and stats files
    img2dataset writes beside them; KEYS samples in all, numbered 0..KEYS-1 in storage order."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    formats = [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT]
    with tempfile.TemporaryDirectory() as scratch:
        for shard in range(2):
            with tarfile.open(root / f"{shard:05d}.tar", "w", format=formats[shard]) as tar:
                for k in range(shard * KEYS // 2, (shard + 1) * KEYS // 2):
                    key = f"{k:09d}" + ("_" + "x" * 110 if shard == 1 else "")
                    add(tar, key + ".jpg", jpeg_bytes(scratch, k))
                    add(tar, key + ".txt", caption(k).encode())
                    add(tar, key + ".json", json.dumps(meta(k)).encode())
            (root / f"{shard:05d}_stats.json").write_text("{}")
            (root / f"{shard:05d}.parquet").write_bytes(b"PAR1")
    return root


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    write_image_text_shards(sys.argv[1])
