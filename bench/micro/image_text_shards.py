"""img2dataset-format shards for compare_image_text.py, made by the real img2dataset.

make_shards(out, ...) generates photograph-like JPEGs with `feedrate make-dataset` (ImageNet-like
sizes: about 70% 500x375, 20% 375x500, the rest with sides in [200, 800]), writes a parquet of
url + caption (the captions are made-up English phrases of 4 to 30 words, deterministic by seed),
serves the JPEGs from Python's http.server on 127.0.0.1 and runs img2dataset over that list,
as LAION-400M was downloaded (dataset_examples/laion400m.md in img2dataset's repository):
--output_format webdataset --image_size 256 with img2dataset's default --resize_mode border
(the image resized to fit 256 x 256 and padded to it) and its default JPEG quality 95. Out come
NNNNN.tar (KEY.jpg, KEY.txt, KEY.json), NNNNN.parquet and NNNNN_stats.json per shard.
Shards hold --per-shard samples (LAION's hold 10,000; fewer here so that every worker of a
2-worker loader gets shards). Every URL must succeed: the stats are checked.
"""

import functools
import http.server
import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

IMAGE_SIZE = 256  # LAION-400M's --image_size
RESIZE_MODE = "border"  # img2dataset's default, which the LAION-400M command kept

_WORDS = {
    "adjective": ["red", "old", "small", "bright", "wooden", "vintage", "modern", "blue", "quiet",
                  "large", "green", "rustic", "shiny", "white", "dark", "colourful"],
    "noun": ["house", "dog", "car", "mountain", "beach", "chair", "city street", "garden",
             "bicycle", "kitchen", "river", "cat", "lamp", "market", "bridge", "forest"],
    "place": ["at sunset", "in the snow", "on a table", "near the sea", "in London",
              "for sale", "in the morning", "on a white background", "at night", "in summer"],
    "extra": ["stock photo", "high resolution", "free shipping", "royalty free image",
              "illustration", "2019 edition", "best price", "photo by a local artist"],
}


def caption(rng):
    """A made-up caption of 4 to 30 words, as varied in length as web alt texts are."""
    words = [rng.choice(_WORDS["adjective"]), rng.choice(_WORDS["noun"]),
             rng.choice(_WORDS["place"])]
    while rng.random() < 0.6 and len(" ".join(words).split()) < 26:
        words.append(rng.choice(_WORDS["extra"] + _WORDS["place"]))
    return " ".join(["A"] + words)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(folder):
    """An http.server on 127.0.0.1 (a free port) serving folder from a thread; returns it."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _write_url_list(path, images, base_url, seed):
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = random.Random(seed)
    urls = [f"{base_url}/{image.as_posix()}" for image in images]
    pq.write_table(pa.table({"url": urls, "caption": [caption(rng) for _ in urls]}), path)


def make_shards(out, count, feedrate_cli, per_shard=500, seed=0, log=print):
    """Makes img2dataset shards of `count` images in `out` (which must not exist); returns the
    shards' paths. The source JPEGs and the url list go to out.parent/<out.name>.source."""
    out, source = Path(out), Path(out).parent / f"{Path(out).name}.source"
    if out.exists() or source.exists():
        raise FileExistsError(f"{out} or {source} exists: give a new --shards folder")
    images = source / "images"
    log(f"image_text_shards: {count} JPEGs with {feedrate_cli} make-dataset into {images}")
    subprocess.run([str(feedrate_cli), "make-dataset", str(images), "--count", str(count),
                    "--classes", "1", "--seed", str(seed)], check=True, stdout=subprocess.DEVNULL)
    files = sorted(path.relative_to(images) for path in images.rglob("*.jpg"))
    server = _serve(images)
    try:
        url_list = source / "urls.parquet"
        _write_url_list(url_list, files, f"http://127.0.0.1:{server.server_address[1]}", seed)
        img2dataset = Path(sys.executable).parent / "img2dataset"
        command = [str(img2dataset), "--url_list", str(url_list), "--input_format", "parquet",
                   "--url_col", "url", "--caption_col", "caption",
                   "--output_format", "webdataset", "--output_folder", str(out),
                   "--image_size", str(IMAGE_SIZE), "--resize_mode", RESIZE_MODE,
                   "--number_sample_per_shard", str(per_shard), "--processes_count", "2",
                   "--thread_count", "16", "--enable_wandb", "False"]
        log("image_text_shards: " + " ".join(command))
        # albumentations (an img2dataset dependency) looks for a newer version online on import.
        subprocess.run(command, check=True, env={**os.environ, "NO_ALBUMENTATIONS_UPDATE": "1"})
    finally:
        server.shutdown()
    stats = [json.loads(path.read_text()) for path in sorted(out.glob("*_stats.json"))]
    successes = sum(s["successes"] for s in stats)
    if successes != len(files):
        raise RuntimeError(f"img2dataset stored {successes} of {len(files)} images in {out}: "
                           f"{[s.get('status_dict') for s in stats]}")
    return sorted(out.glob("*.tar"))
