"""A training script's use of feedrate's public API, type-checked by mypy --strict against the
package's stubs (ctest python.typecheck) and run by tests/python/test_package.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import feedrate


def train(root: Path, epochs: int) -> Dict[str, Any]:
    """Iterates `epochs` epochs of the ImageFolder at `root`, checkpoints and resumes mid-epoch,
    and returns the figures a training script would log."""
    loader = feedrate.Loader(root, batch_size=8, num_workers=2, size=32, arrays="numpy")
    samples = 0
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        for images, labels in loader:
            samples += len(labels)
    resumed = feedrate.Loader(str(root), batch_size=8, size=32, arrays="numpy", seed=1)
    batches = iter(resumed)
    next(batches)
    state: Dict[str, Any] = resumed.state_dict()
    resumed.load_state_dict(state)
    rest = sum(1 for _ in resumed)
    classes: List[str] = loader.classes
    try:
        feedrate.Loader(root / "missing")
        missing = ""
    except feedrate.Error as error:
        missing = str(error)
    return {
        "version": feedrate.__version__,
        "samples": samples,
        "batches_per_epoch": len(loader),
        "resumed_batches": rest,
        "classes": classes,
        "class_to_idx": loader.class_to_idx,
        "verdict": loader.report()["verdict"],
        "ranks": feedrate.gather_verdicts(loader)["ranks"],
        "missing": missing,
    }


def ray_epoch(root: Path) -> Any:
    """One epoch as a Ray Data dataset: type-checked with the rest, not run (it needs Ray)."""
    import feedrate.ray

    return feedrate.ray.read(root, batch_size=8, size=32, shuffle="blocks", epoch=1)
