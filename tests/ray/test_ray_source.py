"""feedrate.ray.read on a three-node local Ray cluster: the epoch a plain Loader delivers, each
sample once, also split between two trainers and after a read task's worker is killed; bad
options refused on the driver with the Loader's own errors; on_bad as in the Loader; fields as
columns beside the image."""

import gc
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import feedrate
import feedrate.ray

SMALL = dict(size=32, batch_size=8, num_workers=1)


def loader_epoch(source, epoch, **options):
    """{dataset index: (label, sha1 of the image)} of a plain Loader's epoch."""
    loader = feedrate.Loader(source, arrays="numpy", return_indices=True, **options)
    loader.set_epoch(epoch)
    out = {}
    for images, labels, indices in loader:
        for i, index in enumerate(indices):
            assert int(index) not in out
            out[int(index)] = (int(labels[i]), hashlib.sha1(images[i].tobytes()).hexdigest())
    return out, loader.report()


def rows_of(batch):
    """[(index, label, sha1)] of a numpy or torch batch dict."""
    images, labels, indices = (np.asarray(batch[k]) for k in ("image", "label", "index"))
    return [(int(indices[i]), int(labels[i]), hashlib.sha1(images[i].tobytes()).hexdigest())
            for i in range(len(indices))]


def delivered(dataset):
    """Every row of one pass over the dataset, in arrival order."""
    rows = []
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        rows += rows_of(batch)
    return rows


def expected_bottleneck(report):
    """The bottleneck report() must give for its own figures: the slowest part's Loader verdict
    (the library's) where it names a resource; where that Loader kept up with its task, the
    task's clocks (making blocks: cpu; else blocked handing on) and the trainers' (timed())."""
    verdict = report["parts"][report["slowest_part"]]["verdict"]["bottleneck"]
    if verdict != "consumer":
        return verdict
    tasks = report["tasks"]
    if tasks["making_blocks_s"] >= tasks["blocked_handing_on_s"]:
        return "cpu"
    consumers = report["consumers"]
    if not consumers:
        return "downstream"
    wait = sum(c["wait_s"] for c in consumers)
    share = wait / (wait + sum(c["step_s"] for c in consumers))
    return "trainers" if share < 0.5 else "transfer"


def assert_exact(rows, expected):
    counts = Counter(index for index, _, _ in rows)
    twice = sorted(i for i, n in counts.items() if n > 1)
    assert not twice, f"samples delivered more than once: {twice[:10]}"
    assert set(counts) == set(expected), (
        f"missing {sorted(set(expected) - set(counts))[:10]}, "
        f"extra {sorted(set(counts) - set(expected))[:10]}")
    assert {index: (label, digest) for index, label, digest in rows} == expected


@pytest.mark.parametrize("num_tasks,shuffle", [(3, True), (4, "blocks")])
def test_epoch_is_the_loaders_each_sample_once(cluster, photos, num_tasks, shuffle):
    expected, _ = loader_epoch(photos, 1, seed=5, shuffle=shuffle, **SMALL)
    assert len(expected) == 203
    dataset = feedrate.ray.read(photos, seed=5, epoch=1, shuffle=shuffle, num_tasks=num_tasks,
                                **SMALL)
    rows = delivered(dataset)
    assert_exact(rows, expected)

    report = feedrate.ray.report(dataset)
    assert report["missing"] == []
    assert report["images"] == 203
    assert [p["attempts"] for p in report["parts"]] == [1] * num_tasks
    # Parts of 203 // num_tasks samples, the last one with the rest of the deal too.
    assert [p["rows"] for p in report["parts"]] == (
        [203 // num_tasks] * (num_tasks - 1) + [203 // num_tasks + 203 % num_tasks])
    assert len({p["node"] for p in report["parts"]}) >= 2, "the tasks ran in one raylet only"
    assert report["shipped_bytes"] >= 32 * 32 * 3 + 16
    assert report["decode_cpu_ms"] > 0 and report["read_bytes"] > 1000
    assert report["bottleneck"] == expected_bottleneck(report), report["summary"]
    assert report["projection"]["images_per_s_per_added_node"] > 0


def test_a_block_holds_several_batches_in_their_order(cluster, photos):
    # 203 samples in batches of 8: 25 full ones and one of 3. A 32 x 32 batch is far below
    # the block's bytes, so a block holds the most batches a block may (8), the last the rest.
    expected = []
    loader = feedrate.Loader(photos, arrays="numpy", return_indices=True, seed=3, **SMALL)
    loader.set_epoch(0)
    for _, _, indices in loader:
        expected += [int(i) for i in indices]
    dataset = feedrate.ray.read(photos, seed=3, epoch=0, num_tasks=1, **SMALL)
    blocks = [[int(i) for i in block["index"]]
              for block in dataset.iter_batches(batch_size=None, batch_format="numpy")]
    assert [len(b) for b in blocks] == [64, 64, 64, 11]
    assert sum(blocks, []) == expected


def test_default_layout_is_one_task_per_node_as_wide_as_the_node(cluster, photos):
    import ray

    cpus = [int(n["Resources"]["CPU"]) for n in ray.nodes() if n["Alive"]]
    width = cpus[0]
    assert width > 1 and set(cpus) == {width}, cpus  # the fixture: equal nodes of N > 1 CPUs
    expected, _ = loader_epoch(photos, 3, seed=4, size=32, batch_size=8)
    dataset = feedrate.ray.read(photos, seed=4, epoch=3, size=32, batch_size=8)
    assert_exact(delivered(dataset), expected)
    parts = feedrate.ray.report(dataset)["parts"]
    assert len(parts) == len(cpus)
    assert [p["rows"] for p in parts] == [67, 67, 69]
    for part in parts:
        assert part["cpus"] == width  # the task's num_cpus
        assert [r["num_workers"] for r in part["reports"]] == [width] * len(part["reports"])


def test_default_width_is_the_smallest_alive_cpu_node():
    node = lambda alive, **resources: {"Alive": alive, "Resources": resources}
    nodes = [node(True, CPU=8.0), node(True, CPU=4.0, GPU=1.0), node(False, CPU=2.0),
             node(True, GPU=8.0), node(True, CPU=0.0)]
    assert feedrate.ray._task_threads(nodes) == 4
    assert feedrate.ray._task_threads([node(True, GPU=8.0), node(False, CPU=16.0)]) == 1
    assert feedrate.ray._task_threads([]) == 1


def test_streaming_split_gives_two_trainers_the_epoch(cluster, photos):
    import torch

    expected, _ = loader_epoch(photos, 0, seed=9, **SMALL)
    dataset = feedrate.ray.read(photos, seed=9, epoch=0, num_tasks=3, **SMALL)
    shards = dataset.streaming_split(2, equal=False)
    got = [[], []]
    types = set()
    errors = []

    def train(rank):  # what each Ray Train worker does with get_dataset_shard()
        try:
            batches = shards[rank].iter_torch_batches(batch_size=16)
            for batch in feedrate.ray.timed(batches, dataset):
                types.add((type(batch["image"]), batch["image"].dtype, batch["label"].dtype))
                got[rank] += rows_of({k: v.numpy() for k, v in batch.items()})
        except Exception as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=train, args=(rank,)) for rank in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not errors, errors
    assert types == {(torch.Tensor, torch.uint8, torch.int64)}
    first, second = ({i for i, _, _ in rows} for rows in got)
    assert first and second and not first & second
    assert_exact(got[0] + got[1], expected)
    report = feedrate.ray.report(dataset)
    assert len(report["consumers"]) == 2
    assert sum(c["images"] for c in report["consumers"]) == 203
    assert report["bottleneck"] == expected_bottleneck(report), report["summary"]


def test_ray_train_workers_get_disjoint_equal_shares_of_the_epoch(cluster, photos, tmp_path):
    # Ray Train's own path: TorchTrainer hands the dataset to two workers, each iterating its
    # get_dataset_shard() with iter_torch_batches. Ray Train splits with
    # streaming_split(equal=True), the same number of rows for each worker, so of the epoch's
    # 203 samples it drops at most world_size - 1.
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    expected, _ = loader_epoch(photos, 0, seed=6, **SMALL)
    dataset = feedrate.ray.read(photos, seed=6, epoch=0, num_tasks=2, **SMALL)
    out = tmp_path / "rows"
    out.mkdir()

    def loop(config):  # pickled by value: only what it imports itself
        import hashlib
        import json
        import pathlib

        import ray.train
        import torch

        import feedrate.ray

        rows = []
        batches = ray.train.get_dataset_shard("train").iter_torch_batches(batch_size=16)
        for batch in feedrate.ray.timed(batches, config["run"]):
            assert batch["image"].dtype == torch.uint8 and batch["label"].dtype == torch.int64
            assert tuple(batch["image"].shape[1:]) == (32, 32, 3)
            rows += [[int(index), int(label), hashlib.sha1(image.numpy().tobytes()).hexdigest()]
                     for image, label, index in zip(batch["image"], batch["label"],
                                                    batch["index"])]
        rank = ray.train.get_context().get_world_rank()
        (pathlib.Path(config["out"]) / f"{rank}.json").write_text(json.dumps(rows))

    TorchTrainer(loop, train_loop_config={"out": str(out), "run": feedrate.ray.run_name(dataset)},
                 scaling_config=ScalingConfig(num_workers=2),
                 datasets={"train": dataset},
                 run_config=RunConfig(name="feedrate", storage_path=str(tmp_path / "runs"))).fit()
    shards = [[tuple(row) for row in json.loads((out / f"{rank}.json").read_text())]
              for rank in range(2)]
    first, second = ({index for index, _, _ in rows} for rows in shards)
    assert len(shards[0]) == len(shards[1]) == len(first) == len(second)
    assert not first & second
    assert 203 - 1 <= len(first | second) <= 203
    assert all(expected[index] == (label, digest) for index, label, digest in shards[0] + shards[1])
    report = feedrate.ray.report(dataset)
    assert len(report["consumers"]) == 2
    assert sum(c["images"] for c in report["consumers"]) == len(first | second)


def test_killed_task_worker_is_retried_and_the_epoch_stays_exact(cluster, photos):
    # A throttled disk (1 MB/s, about 10 images/s) keeps each task running for seconds; it
    # changes no pixel, so the expected epoch is read unthrottled.
    options = dict(SMALL, batch_size=4)
    expected, _ = loader_epoch(photos, 2, seed=1, **options)
    dataset = feedrate.ray.read(photos, seed=1, epoch=2, num_tasks=3, throttle="1", **options)
    rows, killed = [], None
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        rows += rows_of(batch)
        if killed is None:
            # A part that has handed over a batch and is still running: kill its worker.
            deadline = time.monotonic() + 60
            while killed is None and time.monotonic() < deadline:
                for part in feedrate.ray.report(dataset)["parts"]:
                    running = [a for a in part["attempt_log"]
                               if not a["finished"] and a["batches"] >= 1]
                    if running:
                        killed = (part["part"], running[0]["pid"])
                        os.kill(running[0]["pid"], signal.SIGKILL)
                        break
                else:
                    time.sleep(0.05)
            assert killed is not None, "no part was running with a batch delivered"
    assert_exact(rows, expected)
    parts = feedrate.ray.report(dataset)["parts"]
    assert parts[killed[0]]["attempts"] >= 2
    assert parts[killed[0]]["finished"]
    assert killed[1] not in [a["pid"] for a in parts[killed[0]]["attempt_log"][1:]]
    # The emulated disk binds every part's Loader: the epoch is io-bound, and says why.
    report = feedrate.ray.report(dataset)
    assert report["bottleneck"] == "io", report["summary"]
    assert "emulated disk" in report["summary"], report["summary"]


BAD_OPTIONS = [
    dict(batch_size=0),
    dict(num_workers="two"),
    dict(transform="random"),
    dict(batch_size=-1),
    dict(on_bad="ignore"),
    dict(size=32, max_pixels=0),
]


def test_bad_options_are_the_loaders_errors_raised_before_ray_starts(photos, tmp_path):
    # In a fresh process without Ray: read() must refuse before it starts or schedules
    # anything, with the exception type and message of the Loader.
    script = f"""
import json, sys
import feedrate, feedrate.ray, ray
out = []
for options in {BAD_OPTIONS!r} + [dict(source={str(tmp_path / "missing")!r})]:
    source = options.pop("source", {str(photos)!r})
    try:
        feedrate.Loader(source, **options)
        expected = None
    except Exception as error:
        expected = [type(error).__name__, str(error)]
    try:
        feedrate.ray.read(source, **options)
        got = None
    except Exception as error:
        got = [type(error).__name__, str(error)]
    out.append([options, expected, got])
for name in ("rank", "world_size", "drop_last", "pad_shards", "no_such_option"):
    try:
        feedrate.ray.read({str(photos)!r}, **{{name: 1}})
        out.append([name, None])
    except TypeError as error:
        out.append([name, str(error)])
print(json.dumps({{"cases": out, "ray_started": ray.is_initialized()}}))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    import json

    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["ray_started"] is False
    cases = answer["cases"]
    for options, expected, got in cases[:len(BAD_OPTIONS) + 1]:
        assert expected is not None, f"the Loader accepts {options}"
        assert got == expected, options
    for name, message in cases[len(BAD_OPTIONS) + 1:]:
        assert message is not None and name in message, name


def test_on_bad_skip_and_error_follow_the_loader(cluster, broken):
    root, bad = broken
    # The tasks partition the epoch without padding: each good sample once, as a Loader without
    # pad_shards delivers them (with it, skipped places would repeat the epoch's start).
    expected, loader_report = loader_epoch(root, 0, seed=2, on_bad="skip", pad_shards=False,
                                           **SMALL)
    assert loader_report["skipped"] == len(bad)
    dataset = feedrate.ray.read(root, seed=2, epoch=0, num_tasks=3, on_bad="skip", **SMALL)
    assert_exact(delivered(dataset), expected)
    report = feedrate.ray.report(dataset)
    assert report["skipped"] == len(bad)
    assert sorted(s["where"] for s in report["skipped_samples"]) == sorted(map(str, bad))

    failing = feedrate.ray.read(root, seed=2, epoch=0, num_tasks=3, on_bad="error", **SMALL)
    with pytest.raises(Exception) as raised:
        delivered(failing)
    message = str(raised.value)
    assert any(str(path) in message for path in bad), message
    assert "feedrate.ray: part " in message and "epoch 0" in message, message


def test_runs_share_the_drivers_collector_and_release_their_state(cluster, photos):
    first = feedrate.ray.read(photos, seed=1, epoch=0, num_tasks=2, **SMALL)
    second = feedrate.ray.read(photos, seed=1, epoch=1, num_tasks=3, **SMALL)
    names = feedrate.ray.run_name(first), feedrate.ray.run_name(second)
    # One collecting actor for both runs (a run's name is the actor's, then the run's own).
    assert names[0] != names[1]
    assert names[0].split("/")[0] == names[1].split("/")[0]
    expected = {e: loader_epoch(photos, e, seed=1, **SMALL)[0] for e in (0, 1)}
    assert_exact(delivered(second), expected[1])
    assert_exact(delivered(first), expected[0])
    # Each run reports its own parts only.
    assert [p["rows"] for p in feedrate.ray.report(first)["parts"]] == [101, 102]
    assert [p["rows"] for p in feedrate.ray.report(second)["parts"]] == [67, 67, 69]

    del first
    gc.collect()
    with pytest.raises(ValueError, match="its dataset was released"):
        feedrate.ray.report(names[0])
    assert feedrate.ray.report(names[1])["images"] == 203


def test_fields_become_columns_beside_the_image(cluster, tmp_path):
    """img2dataset-style shards (captions and metadata, no .cls) read by two tasks: each row
    carries its caption and its parsed json in columns named by their extension, as a plain
    Loader delivers them, each sample once."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from shard_writer import KEYS, write_image_text_shards

    shards = write_image_text_shards(tmp_path / "shards")
    options = dict(size=32, batch_size=8, num_workers=1, seed=5, fields=("txt", "json"))
    loader = feedrate.Loader(shards, arrays="numpy", return_indices=True, **options)
    expected = {}
    for images, captions, metas, indices in loader:
        for i, index in enumerate(indices):
            expected[int(index)] = (captions[i], metas[i],
                                    hashlib.sha1(images[i].tobytes()).hexdigest())
    assert len(expected) == KEYS
    dataset = feedrate.ray.read(shards, epoch=0, num_tasks=2, **options)
    seen = {}
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        assert "label" not in batch  # no cls field: no label column
        for i, index in enumerate(batch["index"]):
            assert int(index) not in seen
            seen[int(index)] = (str(batch["txt"][i]), dict(batch["json"][i]),
                                hashlib.sha1(np.asarray(batch["image"][i]).tobytes()).hexdigest())
    assert seen == expected
