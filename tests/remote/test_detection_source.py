"""Detection datasets from remote sources: the folder layout the remote fixture serves
(remote-data/folder, its images under class_*/), with the COCO json remote-data/detection.json
that this file writes before the servers start (`python3 test_detection_source.py DATA`, ctest's
remote.detection_data), read from the S3 server (a prefix, one listing) and from nginx over HTTPS
(a HEAD an image), deliver the local folder's batches with the same seed: pixels, boxes, labels
and image ids, under the SSD recipe. The json itself may be local or at a URL. The same for a
YOLO dataset (remote-data/detection/yolo: images/train, labels/train, data.yaml), WebDataset
shards whose KEY.json holds each image's annotations (remote-data/detection/shards), and a Pascal
VOC one (remote-data/detection/voc: JPEGImages, Annotations, SegmentationClass) from the S3
server, whose label, xml and label-map files are fetched into a local mirror when the loader
starts; over HTTPS, which lists nothing, they are refused with what to use.

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


def write_label_map(image, path, k):
    """A grayscale PNG label map of `image`'s size: class 1 + k % 3 in a band, 255 on its edge,
    0 elsewhere."""
    import numpy as np
    from PIL import Image
    with Image.open(image) as im:
        width, height = im.size
    labels = np.zeros((height, width), np.uint8)
    labels[height // 4:height // 2, :] = 1 + k % 3
    labels[height // 4, :] = 255
    Image.fromarray(labels, mode="L").save(path)


def write_json_shards(folder, root):
    """Two WebDataset shards of the first 16 images under `folder`, each KEY.jpg with a KEY.json
    of its COCO-style annotations (a list, or an object with "annotations"), the last key
    without one."""
    import io
    import tarfile
    names = sorted(Path(folder).rglob("*.jpg"))[:16]
    out = Path(root) / "shards"
    out.mkdir(parents=True, exist_ok=True)
    for shard in range(2):
        with tarfile.open(out / f"{shard:05d}.tar", "w") as tar:
            for k in range(8 * shard, 8 * shard + 8):
                anns = [{"bbox": [20 + 40 * b, 30, 120, 100 + 10 * k], "category_id": 1 + b,
                         "iscrowd": 0} for b in range(1 + k % 2)]
                members = [(f"s{k:03d}.jpg", names[k].read_bytes())]
                if k != 15:
                    payload = anns if k % 2 else {"image_id": 500 + k, "annotations": anns}
                    members.append((f"s{k:03d}.json", json.dumps(payload).encode()))
                for name, data in members:
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))


def write_yolo_and_voc(folder, root):
    """A YOLO and a VOC dataset of the first 12 images under `folder` (copies, at least
    300 x 320 pixels), with made-up boxes."""
    import shutil
    names = sorted(Path(folder).rglob("*.jpg"))[:12]
    yolo, voc = Path(root) / "yolo", Path(root) / "voc"
    for sub in ("images/train", "labels/train"):
        (yolo / sub).mkdir(parents=True, exist_ok=True)
    for sub in ("JPEGImages", "Annotations", "SegmentationClass"):
        (voc / sub).mkdir(parents=True, exist_ok=True)
    (yolo / "data.yaml").write_text("path: .\ntrain: images/train\nnames:\n  0: a\n  1: b\n")
    for k, path in enumerate(names):
        stem = f"im_{k:02d}"
        shutil.copyfile(path, yolo / "images/train" / f"{stem}.jpg")
        shutil.copyfile(path, voc / "JPEGImages" / f"{stem}.jpg")
        write_label_map(path, voc / "SegmentationClass" / f"{stem}.png", k)
        if k % 4 != 3:  # every fourth image has no label file: no boxes
            lines = [f"{b % 2} {0.3 + 0.1 * b:.2f} 0.4 0.2 {0.1 + 0.05 * (k % 3):.2f}"
                     for b in range(1 + k % 2)]
            (yolo / "labels/train" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
        objects = "".join(
            f"<object><name>{'ab'[b]}</name><difficult>{b}</difficult><bndbox>"
            f"<xmin>{20 + 100 * b}</xmin><ymin>30</ymin><xmax>{180 + 100 * b}</xmax>"
            f"<ymax>{200 + 10 * k}</ymax></bndbox></object>"
            for b in range(1 + k % 2))
        (voc / "Annotations" / f"{stem}.xml").write_text(
            f"<annotation><filename>{stem}.jpg</filename>{objects}</annotation>")


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


def test_remote_shards_with_json_annotations_deliver_the_local_batches(endpoints):
    """Tar shards whose KEY.json holds each image's annotations (annotations="json"): the
    shards stream once when the loader starts, their KEY.json read from the streamed bytes."""
    feedrate = pytest.importorskip("feedrate")
    local = Path(endpoints["data"]) / "detection/shards"
    expected = epochs(local, "json")
    assert sum(len(targets) for _, targets in expected) == 2 * 15  # s015 has no .json
    for source in (f"s3://{endpoints['bucket']}/{endpoints['prefix']}detection/shards/",
                   endpoints["https"] + "/detection/shards/{00000..00001}.tar"):
        loader = feedrate.Loader(source, annotations="json", batch_size=8, arrays="numpy")
        assert "s015" in str(loader.report()["skipped_samples"]), source
        assert epochs(source, "json") == expected, source


def test_remote_yolo_and_voc_deliver_the_local_batches(endpoints):
    feedrate = pytest.importorskip("feedrate")
    local = Path(endpoints["data"]) / "detection"
    s3 = f"s3://{endpoints['bucket']}/{endpoints['prefix']}detection"
    yolo = epochs(local / "yolo/images/train", local / "yolo/data.yaml")
    assert sum(len(targets) for _, targets in yolo) == 2 * 12
    assert sum(len(t[2]) for _, targets in yolo for t in targets) > 0
    assert epochs(f"{s3}/yolo/images/train", f"{s3}/yolo/data.yaml") == yolo
    assert epochs(f"{s3}/yolo/images/train/", local / "yolo/data.yaml") == yolo
    voc = epochs(local / "voc", local / "voc/Annotations")
    assert sum(len(t[2]) for _, targets in voc for t in targets) > 0
    assert epochs(f"{s3}/voc", f"{s3}/voc/Annotations/") == voc
    # Semantic label maps under the prefix, fetched to a local folder when the loader starts:
    # with the VOC boxes, and alone over the images.
    def maps(source, **options):
        loader = feedrate.Loader(source, transform="hflip,resize(48,48)", batch_size=8,
                                 num_workers=2, seed=3, arrays="numpy", **options)
        return [(images.tobytes(), [t["mask"].tobytes() for t in targets])
                for images, targets in loader]
    with_boxes = maps(local / "voc", annotations=local / "voc/Annotations",
                      masks=str(local / "voc/SegmentationClass"))
    assert len(with_boxes) == 2 and all(len(set(m)) > 1 for _, m in with_boxes)
    assert maps(f"{s3}/voc", annotations=f"{s3}/voc/Annotations",
                masks=f"{s3}/voc/SegmentationClass") == with_boxes
    alone = maps(local / "voc/JPEGImages", masks=str(local / "voc/SegmentationClass"))
    assert maps(f"{s3}/voc/JPEGImages", masks=f"{s3}/voc/SegmentationClass") == alone
    with pytest.raises(feedrate.Error, match="remote annotations go with remote images"):
        feedrate.Loader(local / "voc/JPEGImages", masks=f"{s3}/voc/SegmentationClass")

    https = endpoints["https"] + "/detection"
    with pytest.raises(feedrate.Error, match="read from an s3:// prefix"):
        feedrate.Loader(https + "/yolo/images/train", annotations=https + "/yolo/data.yaml")
    with pytest.raises(feedrate.Error, match="its root's Annotations/"):
        feedrate.Loader(f"{s3}/voc", annotations=f"{s3}/yolo/labels")


if __name__ == "__main__":
    data = Path(sys.argv[1])
    write_coco(data / "folder", data / JSON)
    write_yolo_and_voc(data / "folder", data / "detection")
    write_json_shards(data / "folder", data / "detection")
