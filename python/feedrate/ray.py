"""feedrate as a Ray Data source: decode on a cluster's CPU nodes, train on the GPU nodes.

    import feedrate.ray
    ds = feedrate.ray.read("/data/train", transform="train", size=224, batch_size=64,
                           seed=0, epoch=0)   # one task per CPU node, num_workers its CPUs
    for batch in ds.iter_torch_batches(batch_size=256):   # {"image", "label", "index"}
        ...
    print(feedrate.ray.report(ds)["summary"])             # what held the epoch back

Each read task is one feedrate.Loader: task r of num_tasks is rank r of world_size num_tasks
with pad_shards=False (DistributedSampler(drop_last=True): the first num_tasks *
(N // num_tasks) positions of the epoch's shuffled sequence, disjoint), and the last task also
delivers the N % num_tasks positions that deal drops, with a second Loader at world size 1
restored from its own end-of-epoch state (the Loader deals "the samples no old rank consumed"
to the new ranks). Every sample of the epoch is delivered once; order and pixels are the
Loader's (seed, epoch, sample index), so a sample's pixels equal a plain Loader's.

A task whose worker dies is retried by Ray (max_retries). Ray Data's read tasks are streaming
generators whose outputs are numbered objects: a retry re-executes the generator from the
start and Ray keeps only the outputs past the ones the failed attempt already delivered. That
is exact because a task's blocks are a pure function of its options (same seed, epoch, rank:
same batches); Ray raises StreamingGeneratorReplayInconsistentError if a replay differs.

Reports travel through a small actor (no CPU; one per driver, shared by its runs:
feedrate/_ray_collector.py) that every attempt reports to: its start, its progress, and at its
end both Loaders' report() plus the task's own clocks. report(ds) reads
them and says what held the epoch back. Ray is imported only inside the functions, so
`import feedrate` never needs it.
"""

from __future__ import annotations

import functools
import os
import time
import uuid
import warnings
import weakref
from typing import Any, Dict, Iterable, Iterator, Optional

import feedrate
from feedrate import _ray_collector
from feedrate._ray_diagnosis import diagnose

__all__ = ["read", "report", "run_name", "timed"]

# Options read() decides for every task; a caller's value would break the exact partition or
# the columns.
_OWNED = {
    "rank": "each read task is one rank of num_tasks",
    "world_size": "it is num_tasks",
    "pad_shards": "the tasks partition the epoch exactly, without padding",
    "drop_last": "a task's last batch is no epoch's last batch; drop in iter_torch_batches",
    "return_indices": "the 'index' column is always there",
    "arrays": "blocks are numpy columns",
    "progress": "tasks run without a terminal",
}

_DEFAULT_NODE_CORES = 32
# A block holds whole batches, about _BLOCK_BYTES (at least one batch, at most
# _MAX_BLOCK_BATCHES). Ray Data pays per block, in the driver's executor and in Ray's object
# store and raylet (several milliseconds of CPU): one block a batch of 224 x 224 images spent a
# quarter of a 2-core node's CPU on Ray's side. A bigger block delays a task's first one by its
# batches' decoding.
_BLOCK_BYTES = 32 << 20
_MAX_BLOCK_BATCHES = 8


class _Part:
    """What one read task needs: picklable plain data (no Loader, no Ray objects)."""

    def __init__(self, source, options, epoch, part, parts, tail, collector, block_batches):
        self.source = source
        self.options = options
        self.epoch = epoch
        self.part = part
        self.parts = parts
        self.tail = tail  # also deal the samples the pad_shards=False deal drops
        self.collector = collector  # the run's name (_ray_collector: it names the actor too)
        self.block_batches = block_batches  # the Loader batches of one block


def read(source, *, transform="train", size=224, batch_size=64, seed=0, epoch=0,
         num_tasks: Optional[int] = None, num_workers: Optional[int] = None, on_bad="error",
         max_retries: int = 3, **loader_options):
    """A ray.data.Dataset of one epoch of decoded batches, read by num_tasks feedrate Loaders.

    Columns: "image" (N, H, W, 3) uint8 (NCHW float with dtype="float32"), "label" int64,
    "index" int64 (the sample's dataset index). source and every option are the Loader's
    (docs/python.md); num_workers is each task's decode threads and its num_cpus, by default
    the CPUs of the smallest alive node that has CPUs (so a task fits on every CPU node).
    num_tasks defaults to the cluster's CPUs // max(num_workers, 1) (one task per node on a
    cluster of equal nodes), and is at most the dataset's size.
    max_retries: how often Ray re-runs a task whose worker died. The options are checked here,
    by a Loader on the driver that is never iterated, before anything is scheduled: a bad one
    raises the Loader's own exception and message.
    """
    import ray
    from ray.data import read_datasource

    for name, why in _OWNED.items():
        if name in loader_options:
            raise TypeError(f"feedrate.ray.read: {name} is not an option here ({why})")
    device = loader_options.get("device")
    if device is not None and str(device) != "cpu":
        raise ValueError(f"feedrate.ray.read: device={device!r}: blocks are host memory, "
                         "device must be 'cpu' (iter_torch_batches(device=...) moves them)")
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 0:
        raise ValueError(f"feedrate.ray.read: epoch={epoch!r} must be an integer >= 0")
    if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < -1:
        raise ValueError(f"feedrate.ray.read: max_retries={max_retries!r} must be an integer "
                         ">= -1 (-1: retry without limit)")
    if num_tasks is not None and (not isinstance(num_tasks, int) or isinstance(num_tasks, bool)
                                  or num_tasks < 1):
        raise ValueError(f"feedrate.ray.read: num_tasks={num_tasks!r} must be an integer >= 1")

    options = dict(loader_options, transform=transform, size=size, batch_size=batch_size,
                   seed=seed, on_bad=on_bad, pad_shards=False, return_indices=True,
                   arrays="numpy")
    if num_workers is not None:
        options["num_workers"] = num_workers
    # The Loader's own checks, on the driver: type, range and vocabulary errors, a missing or
    # empty source. It indexes the dataset (the tasks index it again) and is never iterated.
    # Without num_workers it checks the rest with the Loader's default, before Ray is started.
    probe = feedrate.Loader(source, rank=0, world_size=1, **options)
    samples = probe.num_samples
    del probe

    if not ray.is_initialized():
        ray.init()
    if num_workers is None:
        options["num_workers"] = _task_threads(ray.nodes())
    cpus_per_task = max(int(options["num_workers"]), 1)
    if num_tasks is None:
        num_tasks = max(1, int(ray.cluster_resources().get("CPU", 1)) // cpus_per_task)
    num_tasks = max(1, min(num_tasks, samples))

    name, collector = _ray_collector.open_run(num_tasks)
    # The datasource (held by the dataset's plan) holds the actor's handle too; the run's state
    # there goes when the dataset does.
    datasource = _datasource_class()(source, options, epoch, num_tasks, samples, name,
                                     _row_bytes(options), collector)
    with warnings.catch_warnings():
        # read_datasource() names no max_retries parameter yet; ray_remote_args carries it.
        warnings.filterwarnings("ignore", message=".*ray_remote_args.*deprecated")
        dataset = read_datasource(datasource, num_cpus=cpus_per_task,
                                  override_num_blocks=num_tasks,
                                  ray_remote_args={"max_retries": max_retries})
    # Ray Data coalesces a read task's blocks up to target_max_block_size (128 MiB) before it
    # hands any on, which would hold a task's batches back until the end of its part. This
    # dataset's own context asks for the tasks' blocks instead: 3/4 of a block's bytes, so that
    # a full block passes the limit and is not sliced (Ray slices at 1.5 times it); 1 MiB
    # blocks of one batch when the transform's output size is not known here.
    row_bytes = _row_bytes(options)
    dataset.context.target_max_block_size = (
        max(int(0.75 * _block_batches(options) * batch_size * row_bytes), 1)
        if row_bytes else 2**20)
    _RUNS[id(dataset)] = (weakref.ref(dataset), name)
    weakref.finalize(dataset, _release, id(dataset), name)
    return dataset


def run_name(dataset) -> str:
    """The name of the run a dataset of read() reports to: pass it to timed() or report() in
    processes that do not hold that dataset object (Ray Train workers)."""
    if isinstance(dataset, str):
        return dataset
    entry = _RUNS.get(id(dataset))
    if entry is None or entry[0]() is not dataset:
        raise ValueError("feedrate.ray: this dataset did not come from feedrate.ray.read() in "
                         "this process; pass feedrate.ray.run_name(ds) of the one that did")
    return entry[1]


def timed(batches: Iterable, run) -> Iterator:
    """Yields the batches of `batches` (e.g. shard.iter_torch_batches(...)) and tells the run's
    report how long this trainer waited for them and how long it worked between them, so that
    report() can tell slow trainers from a slow transfer. run: a read() dataset or its
    run_name()."""
    import ray

    name = run_name(run)
    collector = _ray_collector.of_run(name)
    key = f"{ray.get_runtime_context().get_node_id()[:8]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    wait_s = step_s = 0.0
    rows = count = 0
    started = time.time()
    iterator = iter(batches)
    try:
        while True:
            t0 = time.perf_counter()
            try:
                batch = next(iterator)
            except StopIteration:
                wait_s += time.perf_counter() - t0
                break
            t1 = time.perf_counter()
            wait_s += t1 - t0
            count += 1
            rows += _rows_of(batch)
            yield batch
            step_s += time.perf_counter() - t1
    finally:
        ray.get(collector.consumer.remote(name, key, {
            "batches": count, "images": rows, "wait_s": wait_s, "step_s": step_s,
            "start": started, "end": time.time()}))


def report(dataset, node_cores: Optional[int] = None) -> Dict[str, Any]:
    """What held the epoch of a read() dataset back, from its tasks' reports (after iterating).

    Returns a dict: "bottleneck" ("decode", "transfer", "trainers", "downstream" or "none"),
    "summary" (words), "images", "images_per_s" (the epoch's span), per image
    "decode_cpu_ms" (the Loaders' decode CPU), "task_cpu_ms" (decode plus the task's block
    making), "shipped_bytes" (the blocks put into the object store) and "read_bytes", the
    tasks' time split "tasks" (waiting on their Loader, making blocks, blocked handing them on),
    "consumers" (from timed()), "projection" (images/s one added CPU node of node_cores cores
    would decode, and the MB/s each 1,000 images/s ship), "parts" (each task's attempts and
    figures, its Loader report included) and "missing" (parts that never finished: an epoch
    that failed names them here). node_cores: the cores of a CPU node to project for (default:
    the cluster's largest node).
    """
    import ray

    name = run_name(dataset)
    state = ray.get(_ray_collector.of_run(name).snapshot.remote(name))
    if state is None:
        raise ValueError(f"feedrate.ray: run {name} holds no figures: its dataset was released")
    if node_cores is None:
        node_cores = max((int(n.get("Resources", {}).get("CPU", 0)) for n in ray.nodes()
                          if n.get("Alive")), default=0) or _DEFAULT_NODE_CORES
    return diagnose(state, node_cores)


# -- internals -------------------------------------------------------------------------------

# id(dataset) -> (weak reference to it, its run's name), for report(dataset) in this process.
_RUNS: Dict[int, tuple] = {}


def _row_bytes(options) -> Optional[int]:
    """Bytes of one row's image, when the transform's output side is known (train, eval)."""
    if options.get("transform") not in ("train", "eval") or not isinstance(options.get("size"),
                                                                           int):
        return None
    width = {"uint8": 1, "float32": 4, "float16": 2}.get(str(options.get("dtype", "uint8")), 1)
    return options["size"] * options["size"] * 3 * width + 16


def _block_batches(options) -> int:
    """The Loader batches of one block: about _BLOCK_BYTES, from one to _MAX_BLOCK_BATCHES;
    one when the transform's output size is not known."""
    row_bytes = _row_bytes(options)
    if row_bytes is None:
        return 1
    fit = _BLOCK_BYTES // (int(options["batch_size"]) * row_bytes)
    return min(max(fit, 1), _MAX_BLOCK_BATCHES)


def _task_threads(nodes) -> int:
    """The default decode threads of a task: the CPUs of the smallest alive node of
    `nodes` (ray.nodes()) that has CPUs, so that a task fits on every CPU node; 1 without one."""
    cpus = [int(n.get("Resources", {}).get("CPU", 0)) for n in nodes if n.get("Alive")]
    return min((c for c in cpus if c > 0), default=1)


def _rows_of(batch) -> int:
    if isinstance(batch, dict):
        for value in batch.values():
            return len(value)
    return len(batch[0]) if isinstance(batch, (tuple, list)) else len(batch)


def _release(key: int, name: str) -> None:
    """A read() dataset is gone: forget it here and drop its run's state in the collector."""
    _RUNS.pop(key, None)
    _ray_collector.close_run(name)


@functools.lru_cache(maxsize=None)
def _datasource_class():
    from ray.data import Datasource, ReadTask
    from ray.data.block import BlockMetadata

    class FeedrateDatasource(Datasource):
        def __init__(self, source, options, epoch, parts, samples, collector, row_bytes,
                     handle):
            super().__init__()
            self._source = source
            self._options = options
            self._epoch = epoch
            self._parts = parts
            self._samples = samples
            self._collector = collector
            self._row_bytes = row_bytes
            self._handle = handle  # keeps the collecting actor alive

        def get_name(self):
            return "Feedrate"

        def _rows(self, part):
            each = self._samples // self._parts
            return each + (self._samples % self._parts if part == self._parts - 1 else 0)

        def estimate_inmemory_data_size(self):
            return None if self._row_bytes is None else self._row_bytes * self._samples

        # One task per part, whatever parallelism Ray asks for: the parts are the partition.
        def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
            tasks = []
            for part in range(self._parts):
                rows = self._rows(part)
                tail = part == self._parts - 1 and self._samples % self._parts != 0
                spec = _Part(str(self._source), self._options, self._epoch, part, self._parts,
                             tail, self._collector, _block_batches(self._options))
                size = None if self._row_bytes is None else rows * self._row_bytes
                tasks.append(ReadTask(functools.partial(_read_part, spec),
                                      BlockMetadata(num_rows=rows, size_bytes=size,
                                                    exec_stats=None, input_files=None)))
            return tasks

    return FeedrateDatasource


def _read_part(spec: _Part) -> Iterator:
    """One read task: this part's Loader (and, for the last part, the epoch's tail) as blocks."""
    import ray
    from ray.data.block import BlockAccessor

    collector = _ray_collector.of_run(spec.collector)
    attempt = f"{spec.part}:{uuid.uuid4().hex[:8]}"
    context = ray.get_runtime_context()
    ray.get(collector.started.remote(spec.collector, attempt, {
        "part": spec.part, "pid": os.getpid(), "node": context.get_node_id(),
        "cpus": context.get_assigned_resources().get("CPU", 0.0), "start": time.time()}))
    clocks = {"setup_s": 0.0, "wait_s": 0.0, "emit_s": 0.0, "emit_cpu_s": 0.0,
              "shipped_bytes": 0, "rows": 0, "batches": 0}
    reports = []

    # Yields the loader's batches as blocks of spec.block_batches batches; returns its state
    # after the last batch when asked (the tail's Loader starts from it).
    def blocks(loader, keep_state=False):
        iterator = iter(loader)
        state = None

        def keep():  # after each batch: the state past the end of the epoch is another one
            nonlocal state
            state = loader.state_dict()

        while True:
            columns, batches = _gather(iterator, spec.block_batches,
                                       int(spec.options["batch_size"]), clocks,
                                       keep if keep_state else None)
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
        if spec.tail:
            batches = last_state["loader"]["batches_received"] if last_state else 0
            if batches != len(loader):
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
                                      dict(clocks, end=time.time(), reports=reports)))


def _gather(iterator, count, batch_size, clocks, after_batch=None):
    """Up to `count` batches (of at most batch_size rows: fewer where on_bad="skip" left a
    sample out) of a Loader's iterator copied into one block's columns: returns
    (columns, batches gathered), columns None when the iterator had none left. The copy is the
    one the batches need anyway: their arrays view a slot the Loader refills once they are
    gone. Calls after_batch() after each batch. Adds the time waited on the Loader to
    clocks["wait_s"], the copying's to clocks["emit_s"] and clocks["emit_cpu_s"], and the
    batches to clocks["batches"]."""
    import numpy as np

    columns = None
    rows = batches = 0
    for _ in range(count):
        t0 = time.perf_counter()
        try:
            images, labels, indices = next(iterator)
        except StopIteration:
            clocks["wait_s"] += time.perf_counter() - t0
            break
        t1 = time.perf_counter()
        clocks["wait_s"] += t1 - t0
        c1 = time.thread_time()
        if columns is None:
            capacity = count * batch_size
            columns = {"image": np.empty((capacity,) + images.shape[1:], images.dtype),
                       "label": np.empty(capacity, np.int64),
                       "index": np.empty(capacity, np.int64)}
        end = rows + len(labels)
        for name, values in (("image", images), ("label", labels), ("index", indices)):
            columns[name][rows:end] = values
        del images, labels, indices
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
