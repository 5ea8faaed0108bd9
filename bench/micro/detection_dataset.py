#!/usr/bin/env python3
"""A generated detection set in two layouts, for compare_detection.py: COCO (an image folder plus
instances_train.json) and Ultralytics YOLO (images/, labels/*.txt, data.yaml), the same JPEGs in
both (hard links), deterministic by seed.

The images: photograph-like JPEGs from `feedrate make-dataset` (ImageNet-like content and sizes,
about 100 KB at 500x375), each resized (bicubic, PIL) by a seeded factor that puts both sides in
[320, 800] px keeping the aspect ratio (each side clamped alone when no factor can), re-encoded at
quality 90 (4:2:0, as make-dataset's). About 125 KB per image: 2,000 images are about 250 MB.

The annotations: 1 to 8 boxes per image, each of a category drawn from COCO's 80 (its ids, 1..90
with gaps), with sides of 3% to 90% of the image's, log-uniform (COCO's mix of small, medium and
large objects), two-decimal [x, y, w, h] inside the image, iscrowd 0, and an 8-point polygon
inscribed in the box as its segmentation. The YOLO labels are the same boxes, normalized
`class cx cy w h`, the class the category's index in COCO's sorted ids (Ultralytics' coco.yaml).

  OUT/coco/train/000000000001.jpg ...        OUT/coco/annotations/instances_train.json
  OUT/yolo/images/train/000000000001.jpg ... OUT/yolo/labels/train/000000000001.txt
  OUT/yolo/data.yaml                          (path, train and val: images/train, names)

Run with Pillow installed (e.g. the peers' venv):
  /work/peers-venv/bin/python bench/micro/detection_dataset.py OUT --images 2000 --seed 0 \\
      --feedrate-cli build/bench/feedrate
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
from pathlib import Path

MIN_SIDE, MAX_SIDE = 320, 800
QUALITY = 90
BOXES_PER_IMAGE = (1, 8)
BOX_FRACTION = (0.03, 0.9)  # a box side as a fraction of the image's, drawn log-uniform

# COCO 2017's 80 categories: id -> name (ids 12, 26, 29, 30, 45, 66, 68, 69, 71, 83 are unused).
COCO_CATEGORIES = {
    1: "person", 2: "bicycle", 3: "car", 4: "motorcycle", 5: "airplane", 6: "bus", 7: "train",
    8: "truck", 9: "boat", 10: "traffic light", 11: "fire hydrant", 13: "stop sign",
    14: "parking meter", 15: "bench", 16: "bird", 17: "cat", 18: "dog", 19: "horse", 20: "sheep",
    21: "cow", 22: "elephant", 23: "bear", 24: "zebra", 25: "giraffe", 27: "backpack",
    28: "umbrella", 31: "handbag", 32: "tie", 33: "suitcase", 34: "frisbee", 35: "skis",
    36: "snowboard", 37: "sports ball", 38: "kite", 39: "baseball bat", 40: "baseball glove",
    41: "skateboard", 42: "surfboard", 43: "tennis racket", 44: "bottle", 46: "wine glass",
    47: "cup", 48: "fork", 49: "knife", 50: "spoon", 51: "bowl", 52: "banana", 53: "apple",
    54: "sandwich", 55: "orange", 56: "broccoli", 57: "carrot", 58: "hot dog", 59: "pizza",
    60: "donut", 61: "cake", 62: "chair", 63: "couch", 64: "potted plant", 65: "bed",
    67: "dining table", 70: "toilet", 72: "tv", 73: "laptop", 74: "mouse", 75: "remote",
    76: "keyboard", 77: "cell phone", 78: "microwave", 79: "oven", 80: "toaster", 81: "sink",
    82: "refrigerator", 84: "book", 85: "clock", 86: "vase", 87: "scissors", 88: "teddy bear",
    89: "hair drier", 90: "toothbrush"}
CATEGORY_IDS = sorted(COCO_CATEGORIES)
YOLO_CLASS = {category: index for index, category in enumerate(CATEGORY_IDS)}


def layout(out):
    """The paths of the two layouts under out."""
    out = Path(out)
    return {"coco_images": out / "coco" / "train",
            "coco_json": out / "coco" / "annotations" / "instances_train.json",
            "yolo_images": out / "yolo" / "images" / "train",
            "yolo_labels": out / "yolo" / "labels" / "train",
            "yolo_yaml": out / "yolo" / "data.yaml"}


def target_size(rng, width, height):
    """A size with both sides in [MIN_SIDE, MAX_SIDE]: the source scaled by a seeded factor, or,
    for an aspect ratio no factor fits, each side clamped alone."""
    low = max(MIN_SIDE / width, MIN_SIDE / height)
    high = min(MAX_SIDE / width, MAX_SIDE / height)
    if low <= high:
        scale = rng.uniform(low, high)
        return (min(MAX_SIDE, max(MIN_SIDE, round(width * scale))),
                min(MAX_SIDE, max(MIN_SIDE, round(height * scale))))
    return min(MAX_SIDE, max(MIN_SIDE, width)), min(MAX_SIDE, max(MIN_SIDE, height))


def random_box(rng, width, height):
    """[x, y, w, h] with two decimals, inside the image, sides log-uniform in BOX_FRACTION."""
    low, high = (math.log(f) for f in BOX_FRACTION)
    w = max(2.0, round(width * math.exp(rng.uniform(low, high)), 2))
    h = max(2.0, round(height * math.exp(rng.uniform(low, high)), 2))
    x = round(rng.uniform(0, width - w), 2)
    y = round(rng.uniform(0, height - h), 2)
    return [x, y, min(w, round(width - x, 2)), min(h, round(height - y, 2))]


def inscribed_polygon(box):
    """An octagon inscribed in box, flattened x1, y1, ... as COCO stores polygons."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    return [round(v, 2) for angle in range(8)
            for v in (cx + w / 2 * math.cos(angle * math.pi / 4),
                      cy + h / 2 * math.sin(angle * math.pi / 4))]


def yolo_line(category, box, width, height):
    x, y, w, h = box
    return (f"{YOLO_CLASS[category]} {(x + w / 2) / width:.6f} {(y + h / 2) / height:.6f} "
            f"{w / width:.6f} {h / height:.6f}")


def write_yolo_yaml(path, yolo_root):
    """data.yaml as Ultralytics reads it: path, train/val image folders, names by class index."""
    lines = [f"path: {yolo_root.resolve()}", "train: images/train", "val: images/train",
             "names:"]
    lines += [f"  {index}: {COCO_CATEGORIES[category]}" for category, index in YOLO_CLASS.items()]
    path.write_text("\n".join(lines) + "\n")


def link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def make_detection_dataset(out, count, feedrate_cli, seed=0, log=print):
    """Writes both layouts of `count` images under out (which must not exist); returns
    layout(out)."""
    from PIL import Image
    out, paths = Path(out), layout(out)
    if out.exists():
        raise FileExistsError(f"{out} exists: give a new dataset folder")
    source = out / "source"
    log(f"detection_dataset: {count} JPEGs with {feedrate_cli} make-dataset into {source}")
    subprocess.run([str(feedrate_cli), "make-dataset", str(source), "--count", str(count),
                    "--classes", "1", "--seed", str(seed), "--quality", str(QUALITY)],
                   check=True, stdout=subprocess.DEVNULL)
    files = sorted(source.rglob("*.jpg"))
    if len(files) != count:
        raise RuntimeError(f"make-dataset wrote {len(files)} JPEGs in {source}, not {count}")
    for key in ("coco_images", "yolo_images", "yolo_labels"):
        paths[key].mkdir(parents=True)
    paths["coco_json"].parent.mkdir(parents=True)
    rng = random.Random(seed)
    images, annotations = [], []
    for image_id, file in enumerate(files, start=1):
        name = f"{image_id:012d}.jpg"
        with Image.open(file) as picture:
            width, height = target_size(rng, *picture.size)
            picture.convert("RGB").resize((width, height), Image.BICUBIC).save(
                paths["coco_images"] / name, quality=QUALITY)
        link_or_copy(paths["coco_images"] / name, paths["yolo_images"] / name)
        images.append({"id": image_id, "file_name": name, "width": width, "height": height})
        lines = []
        for _ in range(rng.randint(*BOXES_PER_IMAGE)):
            category, box = rng.choice(CATEGORY_IDS), random_box(rng, width, height)
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": category, "bbox": box,
                                "area": round(box[2] * box[3], 2), "iscrowd": 0,
                                "segmentation": [inscribed_polygon(box)]})
            lines.append(yolo_line(category, box, width, height))
        (paths["yolo_labels"] / f"{image_id:012d}.txt").write_text("\n".join(lines) + "\n")
    categories = [{"id": c, "name": COCO_CATEGORIES[c], "supercategory": "object"}
                  for c in CATEGORY_IDS]
    paths["coco_json"].write_text(json.dumps({
        "info": {"description": f"feedrate detection_dataset.py, {count} images, seed {seed}"},
        "images": images, "annotations": annotations, "categories": categories}))
    write_yolo_yaml(paths["yolo_yaml"], out / "yolo")
    shutil.rmtree(source)
    size = sum(p.stat().st_size for p in paths["coco_images"].iterdir())
    log(f"detection_dataset: {count} images ({size / 1e6:.1f} MB), {len(annotations)} boxes in "
        f"{paths['coco_json']} and {paths['yolo_labels']}")
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="folder to create (must not exist)")
    parser.add_argument("--images", type=int, default=2000, help="images (default: 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default: 0)")
    parser.add_argument("--feedrate-cli", default=str(Path(__file__).resolve().parents[2] /
                                                      "build" / "bench" / "feedrate"),
                        help="the feedrate program whose make-dataset makes the JPEGs")
    args = parser.parse_args()
    make_detection_dataset(args.out, args.images, args.feedrate_cli, args.seed)


if __name__ == "__main__":
    main()
