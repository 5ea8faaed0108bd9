#!/usr/bin/env python3
"""What rounding COCO's polygon coordinates to float32 would cost against pycocotools, the figures
docs/detection.md gives for keeping them as doubles (loader/dataset/annotations/annotation_table.h).

Needs numpy and pycocotools (PyPI), e.g. in a virtual environment:

    python -m venv /tmp/coco-venv && /tmp/coco-venv/bin/pip install numpy pycocotools
    /tmp/coco-venv/bin/python bench/micro/coco_float32_points.py

Prints (1) how many two-decimal coordinates in [0, 640) pycocotools' rleFrPoly puts on another
point of its 1/5-pixel grid (int(5 x + .5)) once rounded to float32, and (2) over 2,000 random
COCO-like polygons (4 to 37 vertices, two decimals, on 640 x 480), how many masks and pixels
differ between pycocotools on the doubles and on the float32-rounded values.
"""
import numpy as np
import pycocotools.mask as coco_mask


def main():
    x = np.round(np.arange(0, 64000) / 100.0, 2)
    on_grid = (5 * x + 0.5).astype(np.int64)
    rounded = (5 * x.astype(np.float32).astype(np.float64) + 0.5).astype(np.int64)
    print(f"coordinates on another grid point: {(on_grid != rounded).sum()} of {len(x)}")

    rng = np.random.default_rng(0)
    masks, pixels, total, count = 0, 0, 0, 2000
    for _ in range(count):
        k = rng.integers(4, 38)
        cx, cy = rng.uniform(50, 590), rng.uniform(50, 430)
        angles = np.sort(rng.uniform(0, 2 * np.pi, k))
        radii = rng.uniform(5, 50, k)
        points = np.round(np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)],
                                   1).flatten(), 2)
        exact = coco_mask.decode(coco_mask.frPyObjects([points.tolist()], 480, 640))
        as_float = points.astype(np.float32).astype(np.float64)
        moved = coco_mask.decode(coco_mask.frPyObjects([as_float.tolist()], 480, 640))
        different = int((exact != moved).sum())
        masks += different > 0
        pixels += different
        total += int(exact.sum())
    print(f"masks that differ: {masks} of {count}; pixels: {pixels} of {total}")


if __name__ == "__main__":
    main()
