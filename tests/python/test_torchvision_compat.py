"""torchvision's objects accepted as they are: a Compose (v1; v2 where installed) read into the
native pipeline, unsupported operations refused before the first batch, and feedrate.DataLoader
over an ImageFolder, including pytorch/examples imagenet/main.py's data block with only the
import and the class name changed."""

import os
import types

import numpy as np
import pytest

import feedrate
from feedrate import _testing

torch = pytest.importorskip("torch")
transforms = pytest.importorskip("torchvision.transforms")
datasets = pytest.importorskip("torchvision.datasets")

NORMALIZE = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])


def reference_recipe(crop=64):
    """torchvision's ClassificationPresetTrain with auto_augment="ta_wide", random_erase=0.1."""
    return transforms.Compose([
        transforms.RandomResizedCrop(crop, interpolation=transforms.InterpolationMode.BILINEAR),
        transforms.RandomHorizontalFlip(0.5),
        transforms.TrivialAugmentWide(interpolation=transforms.InterpolationMode.NEAREST),
        transforms.PILToTensor(),
        transforms.ConvertImageDtype(torch.float),
        NORMALIZE,
        transforms.RandomErasing(p=0.1),
    ])


def test_reference_recipe_reads_into_one_spec():
    spec, dtype, channels_first, mean, std = _testing._spec_from_torchvision(reference_recipe(176))
    assert spec.startswith("rrc(176,") and ",hflip(0.5),ta_wide(bins=31," in spec
    assert "normalize(mean=0.485/0.456/0.406" in spec and ",erase(0.1," in spec
    assert (dtype, channels_first, mean, std) == ("float32", False, None, None)


def test_compose_runs_natively(image_folder):
    loader = feedrate.Loader(image_folder, transform=reference_recipe(), batch_size=8, seed=3)
    images, labels = next(iter(loader))
    assert tuple(images.shape) == (8, 3, 64, 64) and images.dtype == torch.float32
    assert labels.dtype == torch.int64
    # Normalised: the values spread around 0, not inside [0, 1].
    assert float(images.min()) < -0.5 and float(images.max()) > 1.0


def test_uint8_compose_gives_channels_first(image_folder):
    compose = transforms.Compose([transforms.Resize(72), transforms.CenterCrop(64),
                                  transforms.PILToTensor()])
    images, _ = next(iter(feedrate.Loader(image_folder, transform=compose, batch_size=4)))
    assert tuple(images.shape) == (4, 3, 64, 64) and images.dtype == torch.uint8


def test_to_tensor_without_normalize_gives_unit_floats(image_folder):
    compose = transforms.Compose([transforms.RandomResizedCrop(32), transforms.ToTensor()])
    images, _ = next(iter(feedrate.Loader(image_folder, transform=compose, batch_size=4)))
    assert images.dtype == torch.float32
    assert 0.0 <= float(images.min()) and float(images.max()) <= 1.0


def test_same_spec_as_text_gives_the_same_batches(image_folder):
    compose = transforms.Compose([
        transforms.RandomResizedCrop(48, interpolation=transforms.InterpolationMode.BICUBIC),
        transforms.ColorJitter(0.4, 0.4, 0.4, 0.1), transforms.RandAugment(),
        transforms.RandomGrayscale(0.2), transforms.PILToTensor()])
    text = "rrc(48,interp=bicubic),jitter(0.4,0.4,0.4,0.1),ra,grayscale(0.2)"
    a = [x.numpy().copy() for x, _ in feedrate.Loader(image_folder, transform=compose,
                                                        batch_size=7, seed=5)]
    b = [x.numpy().copy() for x, _ in feedrate.Loader(image_folder, transform=text,
                                                        batch_size=7, seed=5)]
    assert all(np.array_equal(x, y.transpose(0, 3, 1, 2)) for x, y in zip(a, b))


def test_mixed_compose_is_refused_before_the_first_batch(image_folder):
    compose = transforms.Compose([transforms.RandomResizedCrop(64), transforms.GaussianBlur(3),
                                  transforms.ToTensor()])
    with pytest.raises(TypeError) as error:
        feedrate.Loader(image_folder, transform=compose)
    message = str(error.value)
    assert "GaussianBlur" in message and "TrivialAugmentWide" in message
    assert "GPU after loading" in message


@pytest.mark.parametrize("compose,what", [
    (lambda: transforms.Compose([transforms.RandomResizedCrop((64, 48))]), "not square"),
    (lambda: transforms.Compose([transforms.Resize(64)]), "CenterCrop"),
    (lambda: transforms.Compose([transforms.RandomResizedCrop(64),
                                 transforms.AutoAugment(transforms.AutoAugmentPolicy.CIFAR10)]),
     "ImageNet"),
    (lambda: transforms.Compose([transforms.ToTensor()]), "RandomResizedCrop"),
])
def test_unsupported_parameters_are_named(image_folder, compose, what):
    with pytest.raises(TypeError, match=what):
        feedrate.Loader(image_folder, transform=compose())


def test_v2_compose_when_installed(image_folder):
    v2 = pytest.importorskip("torchvision.transforms.v2")
    compose = v2.Compose([v2.ToImage(), v2.RandomResizedCrop(64, antialias=True),
                          v2.RandomHorizontalFlip(), v2.TrivialAugmentWide(),
                          v2.ToDtype(torch.float32, scale=True), v2.Normalize(
                              [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
                          v2.RandomErasing(0.1)])
    images, _ = next(iter(feedrate.Loader(image_folder, transform=compose, batch_size=4)))
    assert tuple(images.shape) == (4, 3, 64, 64) and images.dtype == torch.float32


def test_dataloader_yields_what_torch_yields(image_folder):
    compose = transforms.Compose([transforms.RandomResizedCrop(32), transforms.ToTensor(), NORMALIZE])
    dataset = datasets.ImageFolder(str(image_folder), compose)
    ours = feedrate.DataLoader(dataset, batch_size=8, shuffle=True, num_workers=2, drop_last=True)
    theirs = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True, num_workers=0,
                                         drop_last=True)
    assert len(ours) == len(theirs)
    ours_labels = []
    for (a, la), (b, lb) in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype and la.dtype == lb.dtype
        ours_labels.append(la.clone())
    labels = torch.cat(ours_labels)
    assert labels.tolist() != sorted(labels.tolist())  # shuffled
    counts = np.bincount(labels.numpy(), minlength=len(dataset.classes))
    assert (counts <= np.bincount(dataset.targets)).all()


@pytest.mark.parametrize("kwargs,what", [
    (dict(collate_fn=lambda b: b), "collate_fn"),
    (dict(batch_sampler=[[0, 1]]), "batch_sampler"),
    (dict(worker_init_fn=print), "worker_init_fn"),
    (dict(timeout=5), "timeout"),
])
def test_dataloader_refuses_what_it_cannot_honour(image_folder, kwargs, what):
    dataset = datasets.ImageFolder(str(image_folder), reference_recipe())
    with pytest.raises(TypeError, match=what):
        feedrate.DataLoader(dataset, batch_size=4, **kwargs)


def test_distributed_sampler_sets_rank_and_epoch(image_folder):
    dataset = datasets.ImageFolder(str(image_folder), reference_recipe())
    epochs = []
    for rank in range(2):
        sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=2,
                                                                  rank=rank, seed=4)
        loader = feedrate.DataLoader(dataset, batch_size=4, sampler=sampler)
        sampler.set_epoch(3)
        for _ in loader:  # batches are views of feedrate's slots: not held here
            pass
        epochs.append(loader._loader.epoch)
        assert loader._loader.rank == rank and loader._loader.world_size == 2
        assert loader._loader.num_samples == len(sampler)
    assert epochs == [3, 3]


def test_imagenet_example_data_block(image_folder, tmp_path):
    """pytorch/examples imagenet/main.py's data loading, verbatim but for the DataLoader
    class (feedrate.DataLoader) and args (a namespace here)."""
    os.symlink(image_folder, tmp_path / "train")
    os.symlink(image_folder, tmp_path / "val")
    args = types.SimpleNamespace(data=str(tmp_path), batch_size=8, workers=2, distributed=False)

    # --- copied from pytorch/examples imagenet/main.py (main_worker), unchanged ---
    traindir = os.path.join(args.data, 'train')
    valdir = os.path.join(args.data, 'val')
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                     std=[0.229, 0.224, 0.225])

    train_dataset = datasets.ImageFolder(
        traindir,
        transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            normalize,
        ]))

    val_dataset = datasets.ImageFolder(
        valdir,
        transforms.Compose([
            transforms.Resize(256),
            transforms.CenterCrop(224),
            transforms.ToTensor(),
            normalize,
        ]))

    if args.distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
        val_sampler = torch.utils.data.distributed.DistributedSampler(val_dataset, shuffle=False, drop_last=True)
    else:
        train_sampler = None
        val_sampler = None

    train_loader = feedrate.DataLoader(
        train_dataset, batch_size=args.batch_size, shuffle=(train_sampler is None),
        num_workers=args.workers, pin_memory=True, sampler=train_sampler)

    val_loader = feedrate.DataLoader(
        val_dataset, batch_size=args.batch_size, shuffle=False,
        num_workers=args.workers, pin_memory=True, sampler=val_sampler)
    # --- end of the copy ---

    for loader in (train_loader, val_loader):
        count = 0
        for images, target in loader:
            assert tuple(images.shape[1:]) == (3, 224, 224) and images.dtype == torch.float32
            assert target.dtype == torch.int64
            count += images.shape[0]
        assert count == len(train_dataset)
