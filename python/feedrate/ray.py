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

The read tasks' side (the datasource, a part's Loader as blocks) is feedrate/_ray_task.py.
Reports travel through a small actor (no CPU; one per driver, shared by its runs:
feedrate/_ray_collector.py) that every attempt reports to: its start, its progress, and at its
end both Loaders' report() plus the task's own clocks. report(ds) reads
them and says what held the epoch back. Ray is imported only inside the functions, so
`import feedrate` never needs it.
"""

from __future__ import annotations

import os
import time
import uuid
import warnings
import weakref
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Literal, Optional,
                    Sequence, Tuple, TypeVar, Union)

import feedrate
from feedrate import _ray_collector, _ray_task
from feedrate._loader import OPTION_NAMES, given_options
from feedrate._ray_diagnosis import diagnose

if TYPE_CHECKING:
    from ray.data import Dataset
else:
    Dataset = Any  # Ray is imported only inside the functions

T = TypeVar("T")

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

# The Loader options every task's Loader takes as given to read(): all but _OWNED and read()'s
# own keywords.
_TASK_OPTIONS = tuple(name for name in OPTION_NAMES if name not in _OWNED and name not in (
    "transform", "size", "batch_size", "seed", "num_workers", "on_bad"))

_DEFAULT_NODE_CORES = 32


def read(
        source: Union[str, os.PathLike[str]],
        *,
        transform: Union[str, Callable[..., Any]] = "train",
        size: int = 224,
        batch_size: int = 64,
        seed: int = 0,
        epoch: int = 0,
        num_tasks: Optional[int] = None,
        num_workers: Optional[int] = None,
        on_bad: Literal["error", "skip"] = "error",
        max_retries: int = 3,
        # The options read() decides for every task (_OWNED): None alone passes.
        rank: None = None,
        world_size: None = None,
        pad_shards: None = None,
        drop_last: None = None,
        return_indices: None = None,
        arrays: None = None,
        progress: None = None,
        # The other Loader options, handed to every task's Loader.
        on_missing: Literal['error', 'skip'] = 'skip',
        fields: Sequence[str] = ('cls',),
        image: str = '',
        annotations: Optional[Union[str, os.PathLike[str]]] = None,
        masks: Optional[Union[bool, str, os.PathLike[str]]] = None,
        labels: Literal['category_id', 'contiguous', 'zero_based'] = 'category_id',
        targets: Literal['dicts', 'flat', 'yolo'] = 'dicts',
        shuffle: Union[bool, Literal['full', 'blocks', 'none']] = True,
        shuffle_window_mb: int = 128,
        resize: Optional[int] = None,
        scale: Optional[Tuple[float, float]] = None,
        ratio: Optional[Tuple[float, float]] = None,
        flip_probability: Optional[float] = None,
        dtype: Optional[Union[Literal['uint8', 'float32', 'float16'], Any]] = None,
        mean: Optional[Sequence[float]] = None,
        std: Optional[Sequence[float]] = None,
        device: Union[str, Any] = 'cpu',
        prefetch_batches: int = 3,
        memory_budget_mb: int = 0,
        io_queue_depth: int = 64,
        force_pread: bool = False,
        direct_io: bool = False,
        throttle: str = '',
        tar_chunk_bytes: int = 4194304,
        max_pixels: int = 100000000,
        training_images_per_s: float = 0.0,
        allow_paths_outside_root: bool = False,
        allow_empty_classes: bool = False,
        cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
        cache_gb: float = 0.0,
    ) -> Dataset:
    """A ray.data.Dataset of one epoch of decoded batches, read by num_tasks feedrate Loaders.

    Columns: "image" (N, H, W, 3) uint8 (NCHW float with dtype="float32"), "label" int64,
    "index" int64 (the sample's dataset index). With fields= (docs/image-text.md) the fields
    are the columns between image and index, each named by its extension ("label" for cls;
    "txt" for "txt;caption"): int64 for cls2 and index, objects (str, dict, bytes, arrays) for
    the others. A field whose column would be "image" or "index" is a ValueError naming it. source and every option are the Loader's
    (docs/python.md); num_workers is each task's decode threads and its num_cpus, by default
    the CPUs of the smallest alive node that has CPUs (so a task fits on every CPU node).
    num_tasks defaults to the cluster's CPUs // max(num_workers, 1) (one task per node on a
    cluster of equal nodes), and is at most the dataset's size.
    max_retries: how often Ray re-runs a task whose worker died. The options are checked here,
    by a Loader on the driver that is never iterated, before anything is scheduled: a bad one
    raises the Loader's own exception and message (an unknown keyword, Python's TypeError
    naming it).
    """
    import ray
    from ray.data import read_datasource

    given = locals()
    for name, why in _OWNED.items():
        if given[name] is not None:
            raise TypeError(f"feedrate.ray.read: {name} is not an option here ({why})")
    loader_options = given_options(given, _TASK_OPTIONS)
    if annotations is not None or masks is not None:
        raise TypeError("feedrate.ray.read: annotations= and masks= (detection, segmentation) are not read into Ray Data "
                        "columns yet; use feedrate.Loader(source, annotations=...)")
    _ray_task.field_columns(fields)
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
    row_bytes = _ray_task.row_bytes(options)
    block_batches = _ray_task.block_batches(options)
    # The datasource (held by the dataset's plan) holds the actor's handle too; the run's state
    # there goes when the dataset does.
    datasource = _ray_task.datasource_class()(source, options, epoch, num_tasks, samples, name,
                                              row_bytes, block_batches, collector)
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
    dataset.context.target_max_block_size = (
        max(int(0.75 * block_batches * batch_size * row_bytes), 1) if row_bytes else 2**20)
    _RUNS[id(dataset)] = (weakref.ref(dataset), name)
    weakref.finalize(dataset, _release, id(dataset), name)
    return dataset


def run_name(dataset: Union[Dataset, str]) -> str:
    """The name of the run a dataset of read() reports to: pass it to timed() or report() in
    processes that do not hold that dataset object (Ray Train workers)."""
    if isinstance(dataset, str):
        return dataset
    entry = _RUNS.get(id(dataset))
    if entry is None or entry[0]() is not dataset:
        raise ValueError("feedrate.ray: this dataset did not come from feedrate.ray.read() in "
                         "this process; pass feedrate.ray.run_name(ds) of the one that did")
    return entry[1]


def timed(batches: Iterable[T], run: Union[Dataset, str]) -> Iterator[T]:
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


def report(dataset: Union[Dataset, str], node_cores: Optional[int] = None) -> Dict[str, Any]:
    """What held the epoch of a read() dataset back, from its tasks' reports (after iterating).

    Returns a dict: "bottleneck" ("io", "cpu", "ram", "transfer", "trainers", "downstream" or
    "none": the slowest part's verdict, judged by the library from its Loader's figures, or
    the tasks' and trainers' clocks where the Loaders kept up; feedrate/_ray_diagnosis.py),
    "slowest_part",
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
_RUNS: Dict[int, Tuple["weakref.ReferenceType[Dataset]", str]] = {}


def _task_threads(nodes: List[Dict[str, Any]]) -> int:
    """The default decode threads of a task: the CPUs of the smallest alive node of
    `nodes` (ray.nodes()) that has CPUs, so that a task fits on every CPU node; 1 without one."""
    cpus = [int(n.get("Resources", {}).get("CPU", 0)) for n in nodes if n.get("Alive")]
    return min((c for c in cpus if c > 0), default=1)


def _rows_of(batch: Any) -> int:
    if isinstance(batch, dict):
        for value in batch.values():
            return len(value)
    return len(batch[0]) if isinstance(batch, (tuple, list)) else len(batch)


def _release(key: int, name: str) -> None:
    """A read() dataset is gone: forget it here and drop its run's state in the collector."""
    _RUNS.pop(key, None)
    _ray_collector.close_run(name)
