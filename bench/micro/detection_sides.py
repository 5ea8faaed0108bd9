"""The loaders compare_detection.py measures, one function per side, on the two layouts of
detection_dataset.py (`paths`: its layout(out)). Each yields an epoch's batches as
(images, targets):

  ssd-torchvision   torchvision's detection reference (references/detection: train.py
                    --data-augmentation ssd --use-v2, its default PIL backend):
                    CocoDetection(transforms=ssd_compose()) wrapped by
                    wrap_dataset_for_transforms_v2(target_keys=boxes, labels, image_id), a
                    DataLoader(shuffle, num_workers=N, collate_fn=tuple(zip(*batch)), a seeded
                    generator); images a tuple of float32 3 x 300 x 300 tensors, targets a tuple
                    of dicts (boxes XYXY float32, labels int64 COCO ids, image_id).
  ssd-feedrate      feedrate.Loader(COCO images, annotations=instances_train.json,
                    transform=ssd_compose(), or transform="ssd" with --ssd-transform name,
                    then with dtype float32, mean 0 and std 1: the Compose's output).
  frcnn-torchvision the same reference loader with its "multiscale" preset (Faster R-CNN's):
                    frcnn_compose(), images of several sizes (each keeps its aspect).
  frcnn-feedrate    feedrate.Loader(COCO images, annotations=..., transform=frcnn_compose()):
                    each batch padded to its largest image, rounded up to 32.
  yolo-ultralytics  Ultralytics' own training loader, as its DetectionTrainer builds it:
                    build_yolo_dataset(the default cfg: imgsz 640, mosaic 1.0, hsv 0.015/0.7/0.4,
                    translate 0.1, scale 0.5, fliplr 0.5; mode "train", stride 32) and
                    build_dataloader (its InfiniteDataLoader, workers kept between epochs;
                    device "cpu": no pinned memory); images uint8 N x 3 x 640 x 640, targets its
                    batch dict (cls, bboxes normalized cx cy w h, batch_idx, ...).
                    Where albumentations is installed (the peers' venv has it, for img2dataset),
                    Ultralytics adds its default Blur, MedianBlur, ToGray and CLAHE, p=0.01 each.
  yolo-feedrate     feedrate.Loader(YOLO images/train, annotations=data.yaml, transform="yolo").
  torch-import      no loader: a process that imports torch and waits 1 s, the memory baseline.

Each function takes (paths, batch, workers, seed, options) and returns (versions, epochs):
versions names each package measured, epochs(epoch) iterates that epoch's batches. The feedrate
sides' keywords are FEEDRATE_SSD and FEEDRATE_YOLO (the target API of issue 52).
"""

from importlib.metadata import version

from image_text_sides import torch_import_side

SSD_SIZE = 300
SSD_MEAN = (123.0, 117.0, 104.0)  # the reference's RandomZoomOut fill
YOLO_SIZE = 640

# The feedrate Loader's keywords besides source, transform, batch_size, num_workers and seed.
FEEDRATE_SSD = {"annotations": "coco_json"}  # values naming a path of layout() are resolved
# transform="ssd" delivers uint8 NHWC; these make it deliver what the Compose's
# ToDtype(float, scale=True) does: float32 N x 3 x 300 x 300 in [0, 1].
SSD_BY_NAME_OUTPUT = {"dtype": "float32", "mean": (0.0, 0.0, 0.0), "std": (1.0, 1.0, 1.0)}
FEEDRATE_YOLO = {"annotations": "yolo_yaml", "size": YOLO_SIZE, "targets": "yolo"}


def ssd_compose():
    """torchvision's reference "ssd" train preset with use_v2 and the PIL backend
    (references/detection/presets.py, DetectionPresetTrain), plus Resize((300, 300)) after the
    flip: the reference leaves the resize to SSD's model (GeneralizedRCNNTransform), which a
    loader delivering 300 x 300 batches does here instead."""
    from collections import defaultdict

    import torch
    from torchvision import tv_tensors
    from torchvision.transforms import v2 as T
    return T.Compose([
        T.RandomPhotometricDistort(),
        T.RandomZoomOut(fill=defaultdict(lambda: SSD_MEAN, {tv_tensors.Mask: 0})),
        T.RandomIoUCrop(),
        T.RandomHorizontalFlip(p=0.5),
        T.Resize((SSD_SIZE, SSD_SIZE)),
        T.ToImage(),
        T.ToDtype(torch.float, scale=True),
        T.ConvertBoundingBoxFormat(tv_tensors.BoundingBoxFormat.XYXY),
        T.SanitizeBoundingBoxes(),
        T.ToPureTensor(),
    ])


def frcnn_compose():
    """torchvision's reference "multiscale" train preset with use_v2 and the PIL backend
    (references/detection/presets.py, the Faster R-CNN recipe of its README):
    RandomShortestSize(480..800 by 32, max_size=1333) and RandomHorizontalFlip."""
    import torch
    from torchvision import tv_tensors
    from torchvision.transforms import v2 as T
    return T.Compose([
        T.RandomShortestSize(min_size=tuple(range(480, 801, 32)), max_size=1333),
        T.RandomHorizontalFlip(p=0.5),
        T.ToImage(),
        T.ToDtype(torch.float, scale=True),
        T.ConvertBoundingBoxFormat(tv_tensors.BoundingBoxFormat.XYXY),
        T.SanitizeBoundingBoxes(),
        T.ToPureTensor(),
    ])


def collate(batch):
    """The reference's utils.collate_fn: the box counts differ, so nothing is stacked."""
    return tuple(zip(*batch))


def _feedrate(images_key, transform_of, keywords):
    def side(paths, batch, workers, seed, options):
        import feedrate
        extra = {key: str(paths[value]) if value in paths else value
                 for key, value in keywords(options).items()}
        loader = feedrate.Loader(str(paths[images_key]), transform=transform_of(options),
                                 batch_size=batch, num_workers=workers, seed=seed, **extra)

        def epochs(epoch):
            loader.set_epoch(epoch)
            for images, targets, *_ in loader:
                yield images, targets

        return {"feedrate": feedrate.__version__, "torchvision": version("torchvision")}, epochs
    return side


def _torchvision(compose):
    def side(paths, batch, workers, seed, options):
        return torchvision_side(compose(), paths, batch, workers, seed)
    return side


def torchvision_side(compose, paths, batch, workers, seed):
    import torch
    from torch.utils.data import DataLoader
    from torchvision.datasets import CocoDetection, wrap_dataset_for_transforms_v2
    dataset = CocoDetection(str(paths["coco_images"]), str(paths["coco_json"]),
                            transforms=compose)
    dataset = wrap_dataset_for_transforms_v2(dataset, target_keys=("boxes", "labels", "image_id"))
    generator = torch.Generator()
    generator.manual_seed(seed)
    loader = DataLoader(dataset, batch_size=batch, shuffle=True, num_workers=workers,
                        collate_fn=collate, generator=generator)

    def epochs(epoch):
        return iter(loader)

    return {"torchvision": version("torchvision"), "torch": version("torch"),
            "pycocotools": version("pycocotools")}, epochs


def yolo_ultralytics_side(paths, batch, workers, seed, options):
    from ultralytics.cfg import get_cfg
    from ultralytics.data import build_dataloader, build_yolo_dataset
    from ultralytics.data.utils import check_det_dataset
    from ultralytics.utils import DEFAULT_CFG
    from ultralytics.utils.torch_utils import init_seeds
    cfg = get_cfg(DEFAULT_CFG, {"data": str(paths["yolo_yaml"]), "imgsz": YOLO_SIZE,
                                "batch": batch, "workers": workers, "seed": seed})
    init_seeds(cfg.seed + 1)  # as BaseTrainer does (RANK -1)
    data = check_det_dataset(cfg.data)
    dataset = build_yolo_dataset(cfg, data["train"], batch, data, mode="train", stride=32)
    loader = build_dataloader(dataset, batch, workers, shuffle=True, rank=-1, device="cpu")

    def epochs(epoch):
        for item in loader:
            yield item["img"], item

    import cv2
    return {"ultralytics": version("ultralytics"), "opencv": cv2.__version__,
            "torch": version("torch")}, epochs


SIDES = {
    "ssd-feedrate": _feedrate("coco_images", lambda options: (
        "ssd" if options.ssd_transform == "name" else ssd_compose()), lambda options: (
        {**FEEDRATE_SSD, **SSD_BY_NAME_OUTPUT} if options.ssd_transform == "name"
        else FEEDRATE_SSD)),
    "ssd-torchvision": _torchvision(ssd_compose),
    "frcnn-feedrate": _feedrate("coco_images", lambda options: frcnn_compose(),
                                lambda options: FEEDRATE_SSD),
    "frcnn-torchvision": _torchvision(frcnn_compose),
    "yolo-feedrate": _feedrate("yolo_images", lambda options: "yolo",
                               lambda options: FEEDRATE_YOLO),
    "yolo-ultralytics": yolo_ultralytics_side,
    "torch-import": lambda paths, batch, workers, seed, options: torch_import_side(
        paths, batch, workers, seed),
}
RECIPES = {"ssd": ("ssd-feedrate", "ssd-torchvision"),
           "frcnn": ("frcnn-feedrate", "frcnn-torchvision"),
           "yolo": ("yolo-feedrate", "yolo-ultralytics")}
