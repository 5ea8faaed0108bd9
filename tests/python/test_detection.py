"""Detection datasets from Python (docs/detection.md): feedrate.Loader(images, annotations=...)
yields (images, targets) with the boxes moved with the pixels, in the three target layouts
(torchvision's list of dicts, flat arrays with a batch index, Ultralytics' batch dict); COCO,
YOLO and Pascal VOC sources; state_dict resumes; and the options that make no sense for a
detection dataset are refused by name."""

import json

import numpy as np
import pytest

import feedrate

from conftest import write_jpeg

IMAGES = 12
CATEGORIES = [{"id": 1, "name": "person"}, {"id": 3, "name": "car"}, {"id": 7, "name": "train"}]


def size_of(k):
    return 40 + 8 * (k % 5), 36 + 4 * (k % 3)


def boxes_of(k):
    """COCO [x, y, w, h] boxes and category ids of image k: 0 to 2 boxes."""
    return [([2.0 + 3 * b, 1.5 + b, 10.0 + k, 8.0 + 2 * b], CATEGORIES[b]["id"])
            for b in range(k % 3)]


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    root = tmp_path_factory.mktemp("coco")
    (root / "images").mkdir()
    images, annotations = [], []
    for k in range(IMAGES):
        width, height = size_of(k)
        write_jpeg(root / "images" / f"img_{k}.jpg", k, width, height)
        images.append({"id": 100 + k, "file_name": f"img_{k}.jpg", "width": width,
                       "height": height})
        for box, category in boxes_of(k):
            annotations.append({"id": len(annotations) + 1, "image_id": 100 + k,
                                "category_id": category, "bbox": box, "iscrowd": 0, "area": 1})
    (root / "instances.json").write_text(json.dumps(
        {"images": images, "annotations": annotations, "categories": CATEGORIES}))
    return root


def loader(coco, **options):
    defaults = dict(annotations=coco / "instances.json", transform="resize(32,32)",
                    batch_size=5, num_workers=2, arrays="numpy", shuffle=False)
    defaults.update(options)
    return feedrate.Loader(coco / "images", **defaults)


def expected_xyxy(k):
    width, height = size_of(k)
    sx, sy = np.float32(32) / np.float32(width), np.float32(32) / np.float32(height)
    return np.array([[x * sx, y * sy, (x + w) * sx, (y + h) * sy] for (x, y, w, h), _ in
                     boxes_of(k)], dtype=np.float32).reshape(-1, 4)


def test_dicts_hold_each_images_boxes_labels_and_sizes(coco):
    seen = {}
    for images, targets in loader(coco):
        assert images.shape[1:] == (32, 32, 3)
        assert len(targets) == len(images)
        for target in targets:
            k = target["image_id"] - 100
            seen[k] = target
            assert target["boxes"].dtype == np.float32 and target["boxes"].shape[1] == 4
            np.testing.assert_allclose(target["boxes"], expected_xyxy(k), atol=1e-4)
            assert target["labels"].dtype == np.int64
            assert target["labels"].tolist() == [c for _, c in boxes_of(k)]
            assert target["orig_size"] == tuple(reversed(size_of(k)))
            assert target["iscrowd"].tolist() == [False] * len(boxes_of(k))
    assert sorted(seen) == list(range(IMAGES))


def test_flat_and_yolo_layouts_hold_the_same_boxes(coco):
    flat = list(loader(coco, targets="flat"))
    dicts = list(loader(coco))
    yolo = list(loader(coco, targets="yolo"))
    for (images, boxes, labels, batch_idx), (_, targets), (yolo_images, batch) in zip(
            flat, dicts, yolo):
        assert boxes.shape == (len(labels), 4) and batch_idx.dtype == np.int64
        np.testing.assert_array_equal(boxes, np.concatenate([t["boxes"] for t in targets]))
        np.testing.assert_array_equal(labels, np.concatenate([t["labels"] for t in targets]))
        assert batch_idx.tolist() == [i for i, t in enumerate(targets) for _ in t["labels"]]
        np.testing.assert_array_equal(yolo_images, images)
        assert batch["cls"].shape == (len(labels), 1)
        np.testing.assert_array_equal(batch["cls"][:, 0], labels.astype(np.float32))
        cxcywh = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2,
                           boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1) / 32
        np.testing.assert_allclose(batch["bboxes"], cxcywh, atol=1e-6)
        np.testing.assert_array_equal(batch["batch_idx"], batch_idx.astype(np.float32))
        assert len(batch["ori_shape"]) == len(images)


def test_labels_contiguous_and_zero_based(coco):
    for labels, want in (("contiguous", [1, 2]), ("zero_based", [0, 1])):
        for _, targets in loader(coco, labels=labels):
            for target in targets:
                if target["image_id"] == 102:
                    assert target["labels"].tolist() == want, labels


def test_ssd_recipe_resumes_exactly(coco):
    def batches(lo, skip=0):
        out = []
        for n, (images, targets) in enumerate(lo):
            if n >= skip:
                out.append((images.copy(), [(t["image_id"], t["boxes"].copy()) for t in targets]))
        return out

    options = dict(transform="ssd(48)", shuffle=True, seed=3)
    whole = batches(loader(coco, **options))
    first = loader(coco, **options)
    epoch = iter(first)
    next(epoch)
    state = first.state_dict()
    resumed = loader(coco, **options)
    resumed.load_state_dict(state)
    rest = batches(resumed)
    assert len(rest) == len(whole) - 1
    for (a_images, a_targets), (b_images, b_targets) in zip(rest, whole[1:]):
        np.testing.assert_array_equal(a_images, b_images)
        assert [i for i, _ in a_targets] == [i for i, _ in b_targets]
        for (_, a), (_, b) in zip(a_targets, b_targets):
            np.testing.assert_array_equal(a, b)


def test_yolo_layout_source(tmp_path):
    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "labels" / "train").mkdir(parents=True)
    for k in range(4):
        write_jpeg(tmp_path / "images" / "train" / f"{k}.jpg", k, 64, 32)
        if k != 3:  # image 3 has no label file: no boxes
            (tmp_path / "labels" / "train" / f"{k}.txt").write_text(f"{k % 2} 0.5 0.5 0.25 0.5\n")
    (tmp_path / "data.yaml").write_text("names:\n  0: cat\n  1: dog\n")
    counts = {}
    for _, targets in feedrate.Loader(tmp_path / "images" / "train",
                                      annotations=tmp_path / "data.yaml", transform="resize(32,32)",
                                      batch_size=4, arrays="numpy", shuffle=False):
        for target in targets:
            counts[target["image_id"]] = len(target["labels"])
            if len(target["labels"]):
                # cx 0.5, w 0.25 of 32 px wide; cy 0.5, h 0.5 of 32 px high
                np.testing.assert_allclose(target["boxes"][0], [12, 8, 20, 24], atol=1e-4)
    assert counts == {0: 1, 1: 1, 2: 1, 3: 0}


def test_voc_source_boxes_are_zero_based(tmp_path):
    (tmp_path / "JPEGImages").mkdir()
    (tmp_path / "Annotations").mkdir()
    write_jpeg(tmp_path / "JPEGImages" / "a.jpg", 1, 50, 40)
    (tmp_path / "Annotations" / "a.xml").write_text(
        "<annotation><filename>a.jpg</filename><size><width>50</width><height>40</height>"
        "<depth>3</depth></size><object><name>dog</name><difficult>1</difficult><bndbox>"
        "<xmin>11</xmin><ymin>6</ymin><xmax>30</xmax><ymax>20</ymax></bndbox></object>"
        "</annotation>")
    (_, targets), = feedrate.Loader(tmp_path, annotations=tmp_path / "Annotations",
                                    transform="resize(50,50)", batch_size=1, arrays="numpy")
    np.testing.assert_allclose(targets[0]["boxes"][0], [10, 5 * 1.25, 30, 20 * 1.25], atol=1e-4)
    assert targets[0]["difficult"].tolist() == [True]
    assert targets[0]["labels"].tolist() == [0]


def test_what_a_detection_dataset_refuses(coco):
    with pytest.raises(feedrate.Error, match="only __key__"):
        loader(coco, fields=("txt",))
    with pytest.raises(ValueError, match="a detection transform"):
        loader(coco, scale=(0.5, 1.0))
    with pytest.raises(ValueError, match="targets"):
        loader(coco, targets="coco")
    with pytest.raises(TypeError, match="feedrate.Loader"):
        feedrate.DataLoader(None, annotations="x.json")


@pytest.fixture(scope="module")
def coco_polygons(tmp_path_factory):
    """Square images whose annotations carry a polygon each: a rectangle inside the box."""
    root = tmp_path_factory.mktemp("coco_masks")
    (root / "images").mkdir()
    images, annotations = [], []
    for k in range(6):
        write_jpeg(root / "images" / f"m_{k}.jpg", k, 64, 64)
        images.append({"id": k, "file_name": f"m_{k}.jpg", "width": 64, "height": 64})
        for b in range(1 + k % 3):
            x, y, w, h = 4 + 18 * b, 6 + 5 * b, 14, 20
            annotations.append({"id": len(annotations) + 1, "image_id": k, "category_id": 1,
                                "bbox": [x, y, w, h], "iscrowd": 0, "area": w * h,
                                "segmentation": [[x, y, x + w, y, x + w, y + h, x, y + h]]})
    (root / "instances.json").write_text(json.dumps(
        {"images": images, "annotations": annotations, "categories": CATEGORIES[:1]}))
    return root


def test_instance_masks_move_with_their_boxes(coco_polygons):
    kept = 0
    # yolo(64): Ultralytics' mosaic of four images, RandomPerspective, HSV and flip.
    for transform in ("resize(64,64)", "hflip(p=1),resize(64,64)", "ssd(48)", "yolo(64)"):
        for _, targets in feedrate.Loader(coco_polygons / "images",
                                          annotations=coco_polygons / "instances.json",
                                          masks=True, transform=transform, batch_size=4,
                                          arrays="numpy", seed=5):
            for target in targets:
                masks, boxes = target["masks"], target["boxes"]
                assert masks.dtype == np.uint8 and masks.shape[0] == len(boxes)
                for mask, box in zip(masks, boxes):
                    ys, xs = np.nonzero(mask)
                    if len(xs) == 0:  # a box sanitize kept may have lost its few pixels
                        continue
                    # The mask's pixels lie inside its box, and fill it to within a pixel.
                    assert xs.min() >= np.floor(box[0]) - 1 and xs.max() <= np.ceil(box[2]), transform
                    assert ys.min() >= np.floor(box[1]) - 1 and ys.max() <= np.ceil(box[3]), transform
                    assert xs.min() <= box[0] + 1.5 and xs.max() >= box[2] - 2.5, transform
                    kept += 1
    assert kept > 20


def test_semantic_label_maps_are_indices_moved_with_the_image(tmp_path):
    from PIL import Image

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    maps = {}
    for k in range(3):
        write_jpeg(tmp_path / "images" / f"s_{k}.jpg", k, 32, 32)
        label = np.zeros((32, 32), np.uint8)
        label[4:20, 2 + k:12 + k] = 7 + k
        label[25:, :] = 1
        indexed = Image.fromarray(label, mode="P")
        indexed.putpalette([0, 0, 0, 128, 0, 0] * 128)
        indexed.save(tmp_path / "labels" / f"s_{k}.png")
        maps[f"s_{k}.jpg"] = label
    for transform, change in (("resize(32,32)", lambda m: m),
                              ("hflip(p=1),resize(32,32)", lambda m: m[:, ::-1])):
        seen = 0
        for _, targets, keys in feedrate.Loader(tmp_path / "images", masks=tmp_path / "labels",
                                                transform=transform, batch_size=2, arrays="numpy",
                                                fields=("__key__",)):
            for target, key in zip(targets, keys):
                np.testing.assert_array_equal(target["mask"], change(maps[key]))
                assert len(target["boxes"]) == 0
                seen += 1
        assert seen == 3
    (tmp_path / "labels" / "s_1.png").unlink()
    loader = feedrate.Loader(tmp_path / "images", masks=tmp_path / "labels",
                             transform="resize(32,32)", batch_size=2, arrays="numpy")
    assert sum(len(images) for images, _ in loader) == 2
    assert "no label map" in str(loader.report()["skipped_samples"])


def test_bad_annotations_are_named_or_skipped_with_their_image(tmp_path):
    (tmp_path / "coco").mkdir()
    for k in range(4):
        write_jpeg(tmp_path / "coco" / f"{k}.jpg", k, 40, 30)
    annotations = [
        {"id": 1, "image_id": 0, "category_id": 1, "bbox": [1, 1, 5, 5]},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [1, 1, -5, 5]},  # negative width
        {"id": 3, "image_id": 2, "category_id": 9, "bbox": [1, 1, 5, 5]},   # unknown category
        {"id": 4, "image_id": 3, "category_id": 1, "bbox": [50, 1, 5, 5]},  # outside 40x30
    ]
    (tmp_path / "coco.json").write_text(json.dumps({
        "images": [{"id": k, "file_name": f"{k}.jpg", "width": 40, "height": 30}
                   for k in range(4)],
        "annotations": annotations, "categories": CATEGORIES[:1]}))
    options = dict(annotations=tmp_path / "coco.json", transform="resize(16,16)",
                   arrays="numpy", batch_size=4)
    with pytest.raises(feedrate.Error, match=r"annotations\[1\] \(id 2\): bbox has a negative"):
        feedrate.Loader(tmp_path / "coco", **options)
    loader = feedrate.Loader(tmp_path / "coco", on_bad="skip", **options)
    ids = [t["image_id"] for _, targets in loader for t in targets]
    assert ids == [0]
    skipped = " ".join(str(s) for s in loader.report()["skipped_samples"])
    for named in ("id 2): bbox has a negative width", "category_id 9, not in categories",
                  "entirely outside its 40x30 image"):
        assert named in skipped, (named, skipped)

    # YOLO: a line of 4 numbers; VOC: XML that does not parse.
    (tmp_path / "yolo" / "images").mkdir(parents=True)
    (tmp_path / "yolo" / "labels").mkdir()
    for k in range(2):
        write_jpeg(tmp_path / "yolo" / "images" / f"{k}.jpg", k, 32, 32)
    (tmp_path / "yolo" / "labels" / "0.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (tmp_path / "yolo" / "labels" / "1.txt").write_text("0 0.5 0.5 0.2\n")
    (tmp_path / "yolo" / "data.yaml").write_text("names: [thing]\n")
    yolo = dict(annotations=tmp_path / "yolo" / "data.yaml", transform="resize(16,16)",
                arrays="numpy")
    with pytest.raises(feedrate.Error, match=r"1\.txt:1"):
        feedrate.Loader(tmp_path / "yolo" / "images", **yolo)
    loader = feedrate.Loader(tmp_path / "yolo" / "images", on_bad="skip", **yolo)
    assert [t["image_id"] for _, targets in loader for t in targets] == [0]
    assert "1.txt:1" in str(loader.report()["skipped_samples"])

    (tmp_path / "voc" / "JPEGImages").mkdir(parents=True)
    (tmp_path / "voc" / "Annotations").mkdir()
    for name in ("a", "b"):
        write_jpeg(tmp_path / "voc" / "JPEGImages" / f"{name}.jpg", 1, 32, 32)
    (tmp_path / "voc" / "Annotations" / "a.xml").write_text(
        "<annotation><filename>a.jpg</filename><object><name>dog</name><bndbox><xmin>2</xmin>"
        "<ymin>2</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object></annotation>")
    (tmp_path / "voc" / "Annotations" / "b.xml").write_text("<annotation><filename>b.jpg")
    voc = dict(annotations=tmp_path / "voc" / "Annotations", transform="resize(16,16)",
               arrays="numpy")
    with pytest.raises(feedrate.Error, match="b.xml"):
        feedrate.Loader(tmp_path / "voc", **voc)
    loader = feedrate.Loader(tmp_path / "voc", on_bad="skip", **voc)
    assert [t["image_id"] for _, targets in loader for t in targets] == [0]
    assert "b.xml" in str(loader.report()["skipped_samples"])


def v2(name, **attributes):
    """An object that reads as torchvision.transforms.v2's `name` (Debian's torchvision has no
    v2): the Compose reader goes by class names and attributes."""
    return type(name, (), attributes)()


def test_a_v2_ssd_compose_runs_as_the_ssd_recipe(coco):
    from collections import defaultdict

    from feedrate._torchvision_detection import detection_spec_from_torchvision

    mask = type("Mask", (), {})
    image = type("Image", (), {})
    compose = v2("Compose", transforms=[
        v2("RandomPhotometricDistort", brightness=(0.875, 1.125), contrast=(0.5, 1.5),
           saturation=(0.5, 1.5), hue=(-0.05, 0.05), p=0.5),
        v2("RandomZoomOut", fill=defaultdict(lambda: (123, 117, 104), {mask: 0}),
           side_range=(1.0, 4.0), p=0.5),
        v2("RandomIoUCrop", min_scale=0.3, max_scale=1.0, min_aspect_ratio=0.5,
           max_aspect_ratio=2.0, options=[0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0], trials=40),
        v2("RandomHorizontalFlip", p=0.5),
        v2("Resize", size=[48, 48], max_size=None, interpolation="bilinear", antialias=True),
        v2("ToImage"), v2("ConvertBoundingBoxFormat", format="XYXY"),
        v2("SanitizeBoundingBoxes", min_size=1.0, min_area=1.0), v2("ToPureTensor"),
    ])
    read = detection_spec_from_torchvision(compose)
    assert read.dtype == "uint8" and read.channels_first
    assert "zoom_out(fill=123.0/117.0/104.0," in read.spec  # the defaultdict's default for images
    # The Compose gives the batches of the recipe it spells out, pixels and boxes.
    for (a_images, a_targets), (b_images, b_targets) in zip(
            loader(coco, transform=compose, seed=9), loader(coco, transform="ssd(48)", seed=9)):
        np.testing.assert_array_equal(a_images.transpose(0, 2, 3, 1), b_images)
        for a, b in zip(a_targets, b_targets):
            np.testing.assert_array_equal(a["boxes"], b["boxes"])
            np.testing.assert_array_equal(a["labels"], b["labels"])
    with_image = v2("RandomZoomOut", fill={image: (1, 2, 3), mask: 0}, side_range=(1.0, 2.0), p=1.0)
    assert detection_spec_from_torchvision(with_image).spec.startswith("zoom_out(fill=1.0/2.0/3.0")
    with pytest.raises(TypeError, match="RandomAffine"):
        detection_spec_from_torchvision(v2("Compose", transforms=[v2("RandomAffine")]))


def test_a_read_compose_runs(coco):
    from feedrate._torchvision_detection import detection_spec_from_torchvision

    compose = v2("Compose", transforms=[
        v2("RandomHorizontalFlip", p=1.0),
        v2("Resize", size=[32, 32], max_size=None, interpolation="bilinear", antialias=True),
        v2("ToImage"), v2("ToDtype", dtype=None, scale=False),
    ])
    spec = detection_spec_from_torchvision(compose).spec
    assert spec == "hflip(p=1.0),resize(32,32,interp=bilinear)"
    flipped = {t["image_id"]: t["boxes"] for _, targets in loader(coco, transform=compose)
               for t in targets}
    for k in range(IMAGES):
        want = expected_xyxy(k)
        np.testing.assert_allclose(flipped[100 + k][:, [2, 1, 0, 3]] * [-1, 1, -1, 1] + [32, 0, 32, 0],
                                   want, atol=1e-4)


def test_tar_shards_with_json_annotations(coco, tmp_path):
    """The COCO images as WebDataset shards, each KEY.json the image's annotations (a list, or
    an object with "annotations"), deliver the folder's boxes."""
    import io
    import tarfile

    with tarfile.open(tmp_path / "00000.tar", "w") as tar:
        for k in range(IMAGES):
            anns = [{"bbox": box, "category_id": category, "iscrowd": 0}
                    for box, category in boxes_of(k)]
            payload = anns if k % 2 else {"image_id": 100 + k, "annotations": anns}
            for name, data in ((f"s{k:03d}.jpg", (coco / "images" / f"img_{k}.jpg").read_bytes()),
                               (f"s{k:03d}.json", json.dumps(payload).encode())):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("s999.jpg")  # a key without its .json
        data = (coco / "images" / "img_0.jpg").read_bytes()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    shards = feedrate.Loader(tmp_path / "00000.tar", annotations="json", transform="resize(32,32)",
                             batch_size=4, arrays="numpy", shuffle=False, fields=("__key__",))
    seen = 0
    for _, targets, keys in shards:
        for target, key in zip(targets, keys):
            k = int(key[1:])
            np.testing.assert_allclose(target["boxes"], expected_xyxy(k), atol=1e-4)
            assert target["labels"].tolist() == [c for _, c in boxes_of(k)]
            if k % 2 == 0:
                assert target["image_id"] == 100 + k
            seen += 1
    assert seen == IMAGES
    assert "s999" in str(shards.report()["skipped_samples"])
    with pytest.raises(feedrate.Error, match="s999: no s999.json"):
        feedrate.Loader(tmp_path / "00000.tar", annotations="json", on_missing="error")


def test_ultralytics_recipe_with_mosaic_gives_its_batch(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    for k in range(8):
        write_jpeg(tmp_path / "images" / f"{k}.jpg", k, 80 + 8 * k, 60)
        (tmp_path / "labels" / f"{k}.txt").write_text(f"{k % 2} 0.5 0.5 0.4 0.5\n")
    (tmp_path / "data.yaml").write_text("names:\n  0: cat\n  1: dog\n")
    boxes = 0
    for images, batch in feedrate.Loader(tmp_path / "images", annotations=tmp_path / "data.yaml",
                                         transform="yolo(64)", targets="yolo", batch_size=4,
                                         arrays="numpy", seed=1):
        assert images.shape == (4, 64, 64, 3)
        m = len(batch["cls"])
        assert batch["bboxes"].shape == (m, 4) and batch["batch_idx"].shape == (m,)
        assert set(batch["cls"][:, 0].tolist()) <= {0.0, 1.0}
        assert ((batch["bboxes"] >= 0) & (batch["bboxes"] <= 1)).all()
        assert set(batch["batch_idx"].tolist()) <= {0.0, 1.0, 2.0, 3.0}
        boxes += m
    assert boxes > 8  # four images' boxes meet in each mosaic


@pytest.mark.parametrize("transform", ["ssd(32)", "yolo(32)"])
def test_a_broken_image_is_skipped_and_never_a_mosaic_partner(coco, tmp_path, transform):
    import shutil

    images = tmp_path / "images"
    shutil.copytree(coco / "images", images)
    broken = images / "img_4.jpg"
    broken.write_bytes(broken.read_bytes()[:300])
    with pytest.raises(feedrate.Error, match="img_4.jpg"):
        for _ in feedrate.Loader(images, annotations=coco / "instances.json", transform=transform,
                                 batch_size=4, arrays="numpy"):
            pass
    loader = feedrate.Loader(images, annotations=coco / "instances.json", transform=transform,
                             batch_size=4, arrays="numpy", on_bad="skip", pad_shards=False)
    ids = [t["image_id"] for _, targets in loader for t in targets]
    assert sorted(ids) == [100 + k for k in range(IMAGES) if k != 4]
    assert "img_4.jpg" in str(loader.report()["skipped_samples"])
    # With pad_shards the skipped place is taken by another image, its targets with it: every
    # batch keeps its size, and an image delivered twice (the epoch's first, again) comes with
    # the same boxes each time where its transform is its own (SSD's; a mosaic's partners are
    # its batch's).
    padded = feedrate.Loader(images, annotations=coco / "instances.json", transform=transform,
                             batch_size=4, arrays="numpy", on_bad="skip")
    seen = {}
    sizes = []
    for images_, targets in padded:
        sizes.append(len(targets))
        assert len(images_) == len(targets)
        for t in targets:
            if t["image_id"] in seen and transform.startswith("ssd"):
                np.testing.assert_array_equal(seen[t["image_id"]]["boxes"], t["boxes"])
                np.testing.assert_array_equal(seen[t["image_id"]]["labels"], t["labels"])
            seen[t["image_id"]] = t
    assert sum(sizes) == IMAGES and sorted(seen) == [100 + k for k in range(IMAGES) if k != 4]


def test_sizes_that_vary_are_padded_to_the_batchs_largest(coco, coco_polygons):
    """Faster R-CNN's multiscale policy (RandomShortestSize + a flip, read from a v2 Compose)
    and its resize: each image keeps its aspect, the batch is padded to its largest rounded up
    to 32, and each target holds its image's size; flat targets end with the sizes."""
    from feedrate._torchvision_detection import detection_spec_from_torchvision

    compose = v2("Compose", transforms=[
        v2("RandomShortestSize", min_size=[40, 48], max_size=64, interpolation="bilinear"),
        v2("RandomHorizontalFlip", p=0.5), v2("ToImage"), v2("ToDtype", dtype=None, scale=False),
    ])
    spec = detection_spec_from_torchvision(compose).spec
    assert spec == "shortest(40/48,max_size=64,interp=bilinear),hflip(p=0.5)"
    seen = set()
    for images, targets in loader(coco, transform=compose, arrays="torch"):
        _, channels, height, width = images.shape  # ToImage: channels first
        assert channels == 3 and height % 32 == 0 and width % 32 == 0
        assert height == -(-max(t["size"][0] for t in targets) // 32) * 32
        assert width == -(-max(t["size"][1] for t in targets) // 32) * 32
        for image, target in zip(images, targets):
            h, w = target["size"]
            oh, ow = target["orig_size"]
            assert min(h, w) in (40, 48) or max(h, w) == 64
            assert abs(w / h - ow / oh) < 0.05  # the aspect kept
            assert int(image[:, h:].sum()) == 0 and int(image[:, :, w:].sum()) == 0
            if len(target["boxes"]):
                assert float(target["boxes"][:, 2].max()) <= w + 1e-3
            seen.add(target["image_id"])
    assert len(seen) == IMAGES
    for images, boxes, labels, batch_idx, sizes in loader(coco, targets="flat",
                                                          transform="resize(40,max_size=56)"):
        assert sizes.shape == (len(images), 2) and sizes.dtype == np.int64
        assert images.shape[1] == -(-int(sizes[:, 0].max()) // 32) * 32
    # Instance masks are padded with their image (0 outside it).
    for images, targets in feedrate.Loader(coco_polygons / "images",
                                           annotations=coco_polygons / "instances.json",
                                           masks=True, transform="resize(40,max_size=80)",
                                           batch_size=4, arrays="numpy"):
        for target in targets:
            h, w = target["size"]
            assert target["masks"].shape[1:] == images.shape[1:3]
            assert target["masks"][:, h:].sum() == 0 and target["masks"][:, :, w:].sum() == 0
            assert target["masks"].sum() > 0
    # A flip alone is bounded by the sizes the json states; a shorter-side resize without
    # max_size by nothing.
    images, targets = next(iter(loader(coco, transform="hflip")))
    assert [t["size"] for t in targets] == [t["orig_size"] for t in targets]
    with pytest.raises(feedrate.Error, match="varies without a bound"):
        loader(coco, transform="hflip,resize(40)")


def test_instance_masks_count_against_the_memory_budget(coco_polygons):
    import re

    def needed(**extra):
        with pytest.raises(feedrate.Error) as error:
            feedrate.Loader(coco_polygons / "images", annotations=coco_polygons / "instances.json",
                            transform="resize(512,512)", batch_size=4, memory_budget_mb=1,
                            **extra)
        return float(re.search(r"which needs about ([0-9.]+) MB", str(error.value)).group(1))

    # 2 annotations an image on average (1 + k % 3 over 6 images), a 512 x 512 plane each.
    assert needed(masks=True) - needed() == pytest.approx(4 * 2 * 512 * 512 / 1e6, abs=0.15)
