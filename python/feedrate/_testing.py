"""Hooks for feedrate's own tests (tests/python), not part of the public API: one augmentation
operation or resize of the native pipeline on a given uint8 image, and the spec a torchvision
transform reads into."""

from feedrate._C import _apply_op, _resized_crop
from feedrate._torchvision import spec_from_torchvision as _spec_from_torchvision

__all__ = ["_apply_op", "_resized_crop", "_spec_from_torchvision"]
