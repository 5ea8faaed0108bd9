"""Detection datasets from remote sources: the folder layout the remote fixture serves
(remote-data/folder, its images under class_*/), with a COCO json written here, read from the S3
server (a prefix, one listing) and from nginx over HTTPS (a HEAD an image), deliver the local
folder's batches with the same seed: pixels, boxes, labels and image ids, under the SSD recipe.
The json itself may be local or at a URL.

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt, test remote.detection);
FEEDRATE_REMOTE_ENDPOINTS names the servers' endpoints.json. Skipped when it is not set.
"""

import json
import os
from pathlib import Path

import pytest

feedrate = pytest.importorskip("feedrate")


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


@pytest.mark.parametrize("name", SOURCES)
def test_remote_images_deliver_the_local_batches(endpoints, tmp_path, name):
    folder = os.path.join(endpoints["data"], "folder")
    images = write_coco(folder, tmp_path / "instances.json")
    local = epochs(folder, tmp_path / "instances.json")
    assert sum(len(targets) for _, targets in local) == 2 * images
    assert epochs(SOURCES[name](endpoints), tmp_path / "instances.json") == local


def test_annotations_at_a_url(endpoints, tmp_path):
    folder = os.path.join(endpoints["data"], "folder")
    write_coco(folder, os.path.join(endpoints["data"], "detection.json"))
    local = epochs(folder, os.path.join(endpoints["data"], "detection.json"))
    remote = epochs(endpoints["https"] + "/folder/", endpoints["https"] + "/detection.json")
    assert remote == local
    with pytest.raises(feedrate.Error, match="remote annotations go with remote images"):
        feedrate.Loader(folder, annotations=endpoints["https"] + "/detection.json")
