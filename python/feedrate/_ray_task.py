"""What runs in a feedrate.ray read task (internal to feedrate.ray): the datasource whose read
tasks are the epoch's parts, and a part's Loader (and, for the last part, the epoch's tail)
handed to Ray as blocks of whole batches, with its clocks reported to the run's collector
(feedrate/_ray_collector.py). Ray is imported only inside the functions."""

from __future__ import annotations

import functools
import os
import time
import uuid
from typing import (Any, Callable, Dict, Generator, Iterator, List, Optional, Sequence,
                    Tuple)

import feedrate
from feedrate import _ray_collector

# A block holds whole batches, about _BLOCK_BYTES (at least one batch, at most
# _MAX_BLOCK_BATCHES). Ray Data pays per block, in the driver's executor and in Ray's object
# store and raylet (several milliseconds of CPU): with one block a batch of 224 x 224 images the
# driver alone spent 0.7 s of CPU in a 3 s epoch on 2 cores (0.4 s with three a block). A bigger block delays a task's first one by its
# batches' decoding.
_BLOCK_BYTES = 32 << 20
_MAX_BLOCK_BATCHES = 8


class Part:
    """What one read task needs: picklable plain data (no Loader, no Ray objects)."""

    def __init__(self, source: str, options: Dict[str, Any], epoch: int, part: int, parts: int,
                 tail: bool, collector: str, block_batches: int) -> None:
        self.source = source
        self.options = options
        self.epoch = epoch
        self.part = part
        self.parts = parts
        self.tail = tail  # also deal the samples the pad_shards=False deal drops
        self.collector = collector  # the run's name (_ray_collector: it names the actor too)
        self.block_batches = block_batches  # the Loader batches of one block


def row_bytes(options: Dict[str, Any]) -> Optional[int]:
    """Bytes of one row's image, when the transform's output side is known (train, eval)."""
    if options.get("transform") not in ("train", "eval") or not isinstance(options.get("size"),
                                                                           int):
        return None
    width = {"uint8": 1, "float32": 4, "float16": 2}.get(str(options.get("dtype", "uint8")), 1)
    side: int = options["size"]
    return side * side * 3 * width + 16


def block_batches(options: Dict[str, Any]) -> int:
    """The Loader batches of one block: about _BLOCK_BYTES, from one to _MAX_BLOCK_BATCHES;
    one when the transform's output size is not known."""
    row = row_bytes(options)
    if row is None:
        return 1
    fit = _BLOCK_BYTES // (int(options["batch_size"]) * row)
    return min(max(fit, 1), _MAX_BLOCK_BATCHES)


@functools.lru_cache(maxsize=None)
def datasource_class() -> Any:
    from ray.data import Datasource, ReadTask
    from ray.data.block import BlockMetadata

    class FeedrateDatasource(Datasource):  # type: ignore[misc]  # Ray has no stubs
        def __init__(self, source: Any, options: Dict[str, Any], epoch: int, parts: int,
                     samples: int, collector: str, row_bytes: Optional[int],
                     block_batches: int, handle: Any) -> None:
            super().__init__()
            self._source = source
            self._options = options
            self._epoch = epoch
            self._parts = parts
            self._samples = samples
            self._collector = collector
            self._row_bytes = row_bytes
            self._block_batches = block_batches
            self._handle = handle  # keeps the collecting actor alive

        def get_name(self) -> str:
            return "Feedrate"

        def _rows(self, part: int) -> int:
            each = self._samples // self._parts
            return each + (self._samples % self._parts if part == self._parts - 1 else 0)

        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None if self._row_bytes is None else self._row_bytes * self._samples

        # One task per part, whatever parallelism Ray asks for: the parts are the partition.
        def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None,
                           data_context: Any = None) -> List[Any]:
            tasks = []
            for part in range(self._parts):
                rows = self._rows(part)
                tail = part == self._parts - 1 and self._samples % self._parts != 0
                spec = Part(str(self._source), self._options, self._epoch, part, self._parts,
                             tail, self._collector, self._block_batches)
                size = None if self._row_bytes is None else rows * self._row_bytes
                tasks.append(ReadTask(functools.partial(read_part, spec),
                                      BlockMetadata(num_rows=rows, size_bytes=size,
                                                    exec_stats=None, input_files=None)))
            return tasks

    return FeedrateDatasource


def read_part(spec: Part) -> Iterator[Any]:
    """One read task: this part's Loader (and, for the last part, the epoch's tail) as blocks."""
    import ray
    from ray.data.block import BlockAccessor

    collector = _ray_collector.of_run(spec.collector)
    attempt = f"{spec.part}:{uuid.uuid4().hex[:8]}"
    context = ray.get_runtime_context()
    ray.get(collector.started.remote(spec.collector, attempt, {
        "part": spec.part, "pid": os.getpid(), "node": context.get_node_id(),
        "cpus": context.get_assigned_resources().get("CPU", 0.0), "start": time.time()}))
    clocks: Dict[str, float] = {"setup_s": 0.0, "wait_s": 0.0, "emit_s": 0.0, "emit_cpu_s": 0.0,
                                "shipped_bytes": 0, "rows": 0, "batches": 0}
    reports = []

    # Yields the loader's batches as blocks of spec.block_batches batches; returns its state
    # after the last batch when asked (the tail's Loader starts from it).
    def blocks(loader: feedrate.Loader,
               keep_state: bool = False) -> Generator[Any, None, Optional[Dict[str, Any]]]:
        iterator = iter(loader)
        state: Optional[Dict[str, Any]] = None

        def keep() -> None:  # after each batch: the state past the end of the epoch is another one
            nonlocal state
            state = loader.state_dict()

        while True:
            columns, batches = gather(iterator, spec.block_batches,
                                       int(spec.options["batch_size"]), clocks,
                                       keep if keep_state else None,
                                       spec.options.get("fields", ("cls",)))
            if columns is None:
                return state
            t1 = time.perf_counter()
            c1 = time.thread_time()
            block = BlockAccessor.batch_to_block(columns)
            del columns
            accessor = BlockAccessor.for_block(block)
            clocks["shipped_bytes"] += accessor.size_bytes()
            clocks["rows"] += accessor.num_rows()
            yield block
            clocks["emit_s"] += time.perf_counter() - t1
            clocks["emit_cpu_s"] += time.thread_time() - c1
            collector.progress.remote(spec.collector, attempt, clocks["batches"])
            if batches < spec.block_batches:
                return state  # the Loader ended within this block

    try:
        t0 = time.perf_counter()
        loader = feedrate.Loader(spec.source, rank=spec.part, world_size=spec.parts,
                                 **spec.options)
        loader.set_epoch(spec.epoch)
        clocks["setup_s"] += time.perf_counter() - t0
        last_state = yield from blocks(loader, keep_state=spec.tail)
        reports.append(loader.report())
        figures = loader._figures()  # what the driver judges the part by (_ray_diagnosis.py)
        if spec.tail:
            batches: int = last_state["loader"]["batches_received"] if last_state else 0
            if last_state is None or batches != len(loader):
                raise RuntimeError(
                    f"feedrate.ray: part {spec.part} of {spec.parts} (epoch {spec.epoch}) "
                    f"received {batches} of its {len(loader)} batches, so the epoch's last "
                    f"samples cannot be dealt after them")
            t0 = time.perf_counter()
            rest = feedrate.Loader(spec.source, rank=0, world_size=1, **spec.options)
            rest.load_state_dict(last_state)  # deals the samples no rank of the deal got
            clocks["setup_s"] += time.perf_counter() - t0
            yield from blocks(rest)
            if rest.report()["images"] or rest.report()["skipped"]:
                reports.append(rest.report())
    except Exception as error:
        # Name the part: Ray's traceback names only the read operator. The Loader's errors
        # (feedrate.Error, OSError, ValueError) take one message.
        where = (f"feedrate.ray: part {spec.part} of {spec.parts} (rank {spec.part} of "
                 f"world_size {spec.parts}, epoch {spec.epoch}): {error}")
        try:
            named = type(error)(where)
        except Exception:
            named = RuntimeError(where)
        raise named from error
    ray.get(collector.finished.remote(spec.collector, attempt,
                                      dict(clocks, end=time.time(), reports=reports,
                                           figures=figures)))


# The columns every block has besides the fields'.
_FIXED_COLUMNS = ("image", "label", "index")


def field_columns(fields: Sequence[str]) -> List[str]:
    """The block columns of a Loader's fields, in order: "label" for cls, else the field's
    (first) extension. Raises ValueError naming a field whose column would collide."""
    columns = []
    for field in fields:
        name = "label" if field == "cls" else field.split(";")[0]
        if field != "cls" and name in _FIXED_COLUMNS:
            raise ValueError(f"feedrate.ray.read: field {field!r} would be the column {name!r}, "
                             f"which feedrate.ray gives its own meaning ({', '.join(_FIXED_COLUMNS)})")
        columns.append(name)
    return columns


def gather(iterator: Iterator[Tuple[Any, ...]], count: int, batch_size: int,
           clocks: Dict[str, float], after_batch: Optional[Callable[[], None]] = None,
           fields: Sequence[str] = ("cls",)) -> Tuple[Optional[Dict[str, Any]], int]:
    """Up to `count` batches (of at most batch_size rows: fewer where on_bad="skip" left a
    sample out) of a Loader's iterator copied into one block's columns: returns
    (columns, batches gathered), columns None when the iterator had none left. The copy is the
    one the batches need anyway: their arrays view a slot the Loader refills once they are
    gone. The batches hold (images, *fields, indices): numbers go into int64 columns, other
    values (str, dict, bytes, arrays) into object columns. Calls after_batch() after each batch. Adds the time waited on the Loader to
    clocks["wait_s"], the copying's to clocks["emit_s"] and clocks["emit_cpu_s"], and the
    batches to clocks["batches"]."""
    import numpy as np

    columns = None
    rows = batches = 0
    for _ in range(count):
        t0 = time.perf_counter()
        try:
            images, *values, indices = next(iterator)
        except StopIteration:
            clocks["wait_s"] += time.perf_counter() - t0
            break
        t1 = time.perf_counter()
        clocks["wait_s"] += t1 - t0
        c1 = time.thread_time()
        named = list(zip(field_columns(fields), values)) + [("index", indices)]
        if columns is None:
            capacity = count * batch_size
            columns = {"image": np.empty((capacity,) + images.shape[1:], images.dtype)}
            for name, value in named:
                numeric = isinstance(value, np.ndarray)
                columns[name] = np.empty(capacity, np.int64 if numeric else object)
        end = rows + len(indices)
        columns["image"][rows:end] = images
        for name, value in named:
            column = columns[name]
            if column.dtype == object:
                for k, item in enumerate(value):
                    column[rows + k] = item
            else:
                column[rows:end] = value
        del images, values, indices, named
        rows = end
        batches += 1
        if after_batch is not None:
            after_batch()
        clocks["emit_cpu_s"] += time.thread_time() - c1
        clocks["emit_s"] += time.perf_counter() - t1
    clocks["batches"] += batches
    if columns is None:
        return None, 0
    return {name: values[:rows] for name, values in columns.items()}, batches
