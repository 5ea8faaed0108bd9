"""Labels are torchvision ImageFolder's: the same class_to_idx and the same label per sample."""

import numpy as np
import pytest

from conftest import epoch, feedrate, small

datasets = pytest.importorskip("torchvision.datasets")


def test_class_to_idx_and_labels_match_imagefolder(image_folder):
    reference = datasets.ImageFolder(str(image_folder))
    loader = feedrate.Loader(image_folder, **small(return_indices=True))
    assert loader.class_to_idx == reference.class_to_idx
    assert loader.classes == reference.classes
    assert loader.num_samples == len(reference)
    _, labels, indices = epoch(loader)
    for label, index in zip(np.concatenate(labels), np.concatenate(indices)):
        assert label == reference.targets[index]
