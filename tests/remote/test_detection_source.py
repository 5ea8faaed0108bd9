"""Detection datasets from remote sources: the folder layout the remote fixture serves
(remote-data/folder, its images under class_*/), with the COCO json remote-data/detection.json
that this file writes before the servers start (`python3 test_detection_source.py DATA`, ctest's
remote.detection_data), read from the S3 server (a prefix, one listing) and from nginx over HTTPS
(a HEAD an image), deliver the local folder's batches with the same seed: pixels, boxes, labels
and image ids, under the SSD recipe. The json itself may be local or at a URL.

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt, test remote.detection);
FEEDRATE_REMOTE_ENDPOINTS names the servers' endpoints.json. Skipped when it is not set.
"""

import json
import os
import sys
from pathlib import Path

import pytest

JSON = "detection.json"  # beside the served folder


def write_coco(folder, path):
    """A COCO json for every image under `folder`: one or two boxes each, made up."""
    names = sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*.jpg"))
    images, annotations = [], []
    for k, name in enumerate(names):
        images.append({"id": 10 + k, "file_name": name})
        for b in range(1 + k % 2):
            annotations.append({"id": len(annotations) + 1, "image_id": 10 + k,
                                "category_id": 1 + b, "bbox": [2 + b, 3, 12, 9], "iscrowd": 0})
    Path(path).write_text(json.dumps({
        "images": images, "annotations": annotations,
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}))
    return len(names)


def epochs(source, annotations, count=2):
    feedrate = pytest.importorskip("feedrate")
    loader = feedrate.Loader(source, annotations=annotations, transform="ssd(32)", batch_size=8,
                             num_workers=2, seed=3, arrays="numpy")
    batches = []
    for epoch in range(count):
        loader.set_epoch(epoch)
        for images, targets in loader:
            batches.append((images.tobytes(), [(t["image_id"], t["boxes"].tobytes(),
                                                t["labels"].tolist()) for t in targets]))
    return batches


SOURCES = {
    "s3 prefix": lambda e: f"s3://{e['bucket']}/{e['prefix']}folder/",
    "https": lambda e: e["https"] + "/folder/",
}
ANNOTATIONS = {
    "s3 prefix": lambda e: f"s3://{e['bucket']}/{e['prefix']}{JSON}",
    "https": lambda e: e["https"] + "/" + JSON,
}


def test_remote_images_deliver_the_local_batches(endpoints):
    feedrate = pytest.importorskip("feedrate")
    folder = os.path.join(endpoints["data"], "folder")
    local_json = os.path.join(endpoints["data"], JSON)
    local = epochs(folder, local_json)
    images = len(list(Path(folder).rglob("*.jpg")))
    assert sum(len(targets) for _, targets in local) == 2 * images
    for name, source in SOURCES.items():
        assert epochs(source(endpoints), local_json) == local, name
        # The json at a URL too: fetched once when the loader starts.
        assert epochs(source(endpoints), ANNOTATIONS[name](endpoints)) == local, name
    with pytest.raises(feedrate.Error, match="remote annotations go with remote images"):
        feedrate.Loader(folder, annotations=ANNOTATIONS["https"](endpoints))


if __name__ == "__main__":
    data = Path(sys.argv[1])
    write_coco(data / "folder", data / JSON)
