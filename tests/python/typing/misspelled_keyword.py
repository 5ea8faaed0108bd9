"""Calls that mypy --strict must reject, each on a line marked with the words its error must
name (checked by check_rejected.py: ctest python.typecheck_rejects and `make test-pip`)."""

from __future__ import annotations

from typing import Any

import feedrate
import feedrate.ray


def calls(dataset: Any) -> None:
    feedrate.Loader("/data/train", batchsize=3)  # rejects: "batchsize"
    feedrate.Loader("/data/train", shuffle="ful")  # rejects: "shuffle"
    feedrate.Loader("/data/train", num_workers="2")  # rejects: "num_workers"
    feedrate.DataLoader(dataset, batch_size=4, prefetch_batch=2)  # rejects: "prefetch_batch"
    feedrate.DataLoader(dataset, collate_fn=list)  # rejects: "collate_fn"
    feedrate.ray.read("/data/train", batchsize=3)  # rejects: "batchsize"
    feedrate.ray.read("/data/train", rank=1)  # rejects: "rank"
