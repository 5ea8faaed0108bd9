"""feedrate.ray.report()'s verdict on fixed figures, without Ray: each part judged by the
library (feedrate._C._diagnose, the verdict of Loader.report()) from its Loader's figures, the
slowest part's verdict the epoch's, and the ray layer's own clocks of the tasks and trainers
where the Loaders kept up with their tasks. One test per outcome."""

import pytest

from feedrate import _C
from feedrate._ray_diagnosis import diagnose

RUN = {"batch_size": 8, "num_workers": 2, "prefetch_batches": 3, "cpus": 2, "queue_depth": 64}


def figures(wall_s=10.0, prefetch_batches=3, **measured):
    """A Loader's figures: 800 images in 100 batches in wall_s; `measured` overrides the
    RunFigures (by default reading and decoding leave the Loader waiting on its consumer)."""
    run = dict(RUN, prefetch_batches=prefetch_batches)
    figures = dict(batches=100, bytes_read=80_000_000, read_operations=800, read_busy_s=0.5,
                   decode_busy_s=2.0, decode_cpu_s=2.0, loader_cpu_s=2.2, consumer_busy_s=0.1)
    figures.update(measured)
    return {"run": run, "wall_s": wall_s, "images": 800, "figures": figures}


# Loaders that the library judges io, cpu, ram and consumer (their own test checks that).
IO = figures(read_busy_s=9.5, stall_io_s=5.0)
CPU = figures(decode_busy_s=19.0, decode_cpu_s=19.0, loader_cpu_s=19.5, stall_cpu_s=5.0)
RAM = figures(prefetch_batches=1, consumer_busy_s=5.0, decode_cpu_s=4.0, decode_busy_s=4.0,
              loader_cpu_s=4.2, stall_ram_s=4.0)
KEPT_UP = figures(consumer_busy_s=9.0)


def attempt(part, loader, wait_s=1.0, emit_s=0.2, emit_cpu_s=0.2):
    """A finished attempt of a part: its Loader's figures and report, and the task's clocks
    (blocked handing blocks on: emit_s - emit_cpu_s)."""
    report = {"images": 800, "skipped": 0, "skipped_samples": [],
              "decode_cpu_ms_per_image": 2.5, "read_bytes_per_image": 100_000.0}
    return {"part": part, "finished": True, "pid": 100 + part, "node": "node", "cpus": 2.0,
            "start": 0.0, "end": loader["wall_s"], "batches": 100, "setup_s": 0.1,
            "wait_s": wait_s, "emit_s": emit_s, "emit_cpu_s": emit_cpu_s,
            "shipped_bytes": 800 * 3088, "rows": 800, "reports": [report], "figures": loader}


def trainer(wait_s, step_s):
    return {"batches": 50, "images": 800, "wait_s": wait_s, "step_s": step_s, "start": 0.0,
            "end": 10.0}


def state(*attempts, consumers=()):
    return {"parts": len(attempts),
            "attempts": {f"{a['part']}:{i}": a for i, a in enumerate(attempts)},
            "consumers": {f"trainer{i}": c for i, c in enumerate(consumers)}}


@pytest.mark.parametrize("loader,bottleneck", [(IO, "io"), (CPU, "cpu"), (RAM, "ram"),
                                               (KEPT_UP, "consumer")])
def test_the_library_judges_each_loader(loader, bottleneck):
    verdict = _C._diagnose(loader)["verdict"]
    assert verdict["bottleneck"] == bottleneck, verdict["summary"]


def test_an_io_bound_part_is_io_and_the_slowest_part_decides():
    # Part 0 decodes slowly but ends in 5 s; part 1 reads for 10 s and holds the epoch.
    report = diagnose(state(attempt(0, dict(CPU, wall_s=5.0)), attempt(1, IO, wait_s=8.0)), 16)
    assert report["bottleneck"] == "io", report["summary"]
    assert report["slowest_part"] == 1
    assert "part 1's Loader" in report["summary"] and "add CPU nodes" not in report["summary"]
    assert report["tasks"]["loader_verdicts"] == ["cpu", "io"]
    assert [p["verdict"]["bottleneck"] for p in report["parts"]] == ["cpu", "io"]


def test_a_cpu_bound_part_asks_for_cpu_nodes():
    report = diagnose(state(attempt(0, CPU, wait_s=8.0)), 16)
    assert report["bottleneck"] == "cpu", report["summary"]
    assert "add CPU nodes; each node of 16 cores decodes about" in report["summary"]


def test_a_ram_bound_part_gives_the_librarys_remedy():
    report = diagnose(state(attempt(0, RAM, wait_s=4.0)), 16)
    assert report["bottleneck"] == "ram", report["summary"]
    assert "prefetch_batches=3" in report["summary"] and "CPU nodes" not in report["summary"]


def test_tasks_blocked_handing_on_without_trainers_clocks_are_downstream():
    report = diagnose(state(attempt(0, KEPT_UP, wait_s=0.5, emit_s=9.0, emit_cpu_s=0.5)), 16)
    assert report["bottleneck"] == "downstream", report["summary"]
    assert "feedrate.ray.timed()" in report["summary"]


def test_tasks_blocked_while_the_trainers_work_are_the_trainers():
    report = diagnose(state(attempt(0, KEPT_UP, wait_s=0.5, emit_s=9.0, emit_cpu_s=0.5),
                            consumers=[trainer(1.0, 9.0), trainer(2.0, 8.0)]), 16)
    assert report["bottleneck"] == "trainers", report["summary"]


def test_tasks_blocked_while_the_trainers_wait_are_the_transfer():
    report = diagnose(state(attempt(0, KEPT_UP, wait_s=0.5, emit_s=9.0, emit_cpu_s=0.5),
                            consumers=[trainer(8.0, 2.0)]), 16)
    assert report["bottleneck"] == "transfer", report["summary"]
    assert "object store and network" in report["summary"]


def test_tasks_busy_making_blocks_ask_for_cpu_nodes():
    report = diagnose(state(attempt(0, KEPT_UP, wait_s=0.5, emit_s=9.0, emit_cpu_s=8.0)), 16)
    assert report["bottleneck"] == "cpu", report["summary"]
    assert "making blocks" in report["summary"] and "add CPU nodes" in report["summary"]


def test_no_finished_part_is_none():
    unfinished = dict(attempt(0, IO), finished=False)
    report = diagnose(state(unfinished), 16)
    assert report["bottleneck"] == "none"
    assert report["missing"] == [0]


def test_figures_of_another_shape_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown figure figures.read_busy"):
        _C._diagnose({"figures": {"read_busy": 1.0}})
    with pytest.raises(ValueError, match="wrong type"):
        _C._diagnose({"images": "many"})
    with pytest.raises(ValueError, match="no JSON"):
        _C._diagnose({"wall_s": float("nan")})


def test_a_loaders_figures_are_judged_as_its_report_judges_them(image_folder):
    # An emulated disk of 1 MB/s: the reads bind, whatever the machine.
    import feedrate

    loader = feedrate.Loader(image_folder, batch_size=4, size=32, arrays="numpy", throttle="1")
    assert sum(len(labels) for _, labels in loader) > 0
    judged = _C._diagnose(loader._figures())["verdict"]
    assert judged["bottleneck"] == loader.report()["verdict"]["bottleneck"] == "io"
