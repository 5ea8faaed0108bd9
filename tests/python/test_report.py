"""loader.report(): the verdict, capacities, stage figures and run costs as a dict (a plan
input for `feedrate plan`); the optional progress line."""

import json
import os
import re
import subprocess

import pytest
from conftest import CLASSES, PER_CLASS, epoch, feedrate, small

COUNT = len(CLASSES) * PER_CLASS


def test_report_has_the_verdict_and_stages(image_folder):
    loader = feedrate.Loader(image_folder, **small())
    epoch(loader)
    report = loader.report()
    assert report["images"] == COUNT and report["batches"] == len(loader)
    assert report["verdict"]["bottleneck"] in {"io", "cpu", "ram", "h2d", "consumer"}
    assert set(report["verdict"]["stalls"]) == {"io", "cpu", "ram", "h2d"}
    assert isinstance(report["verdict"]["advice"], list)
    for advice in report["verdict"]["advice"]:
        assert set(advice) == {"kind", "cause", "remedy", "settings", "projected_images_per_s",
                               "cost", "text"}
        assert advice["text"]
    capacities = report["capacities"]
    assert set(capacities) == {"delivered", "io", "cpu", "ram", "h2d", "consumer"}
    assert capacities["cpu"]["measured"] and capacities["cpu"]["images_per_s"] > 0
    assert not capacities["h2d"]["measured"]  # no GPU: batches stay on the host
    assert sum(c["binds"] for k, c in capacities.items() if k != "delivered") == 1
    assert capacities[report["verdict"]["bottleneck"]]["binds"]
    assert report["costs"]["dataset_samples"] == COUNT and report["costs"]["cpu_ms_per_image"] > 0
    assert report["stages"]["decode"]["items"] == COUNT
    assert report["stages"]["read"]["bytes"] > 0
    assert report["stages"]["in_flight"]["capacity"] > 0
    # The batches in flight after the budget, under the one name the option has.
    assert report["costs"]["prefetch_batches"] == report["stages"]["in_flight"]["capacity"]
    assert "prefetch" not in report["costs"]
    assert report["images_per_s"] > 0 and report["device"] == "host"
    assert report["io"]["backend"]
    assert report["verdict"]["summary"].startswith(report["verdict"]["bottleneck"] + ": ")


def test_progress_line_on_stderr(image_folder, capfd):
    epoch(feedrate.Loader(image_folder, **small(progress=True)))
    err = capfd.readouterr().err
    assert f"feedrate epoch 0: {len(range(0, COUNT, 8))}/{len(range(0, COUNT, 8))} batches" in err
    assert "bottleneck" in err and err.endswith("\n")
    epoch(feedrate.Loader(image_folder, **small()))
    assert capfd.readouterr().err == ""


def test_report_names_its_rank(image_folder):
    loader = feedrate.Loader(image_folder, **small(rank=1, world_size=2))
    epoch(loader)
    report = loader.report()
    assert (report["rank"], report["world_size"]) == (1, 2)


class FakeDistributed:
    """torch.distributed's calls that gather_verdicts makes, with a second rank made up."""

    def __init__(self, initialized, other_images_per_s=0.0):
        self.initialized = initialized
        self.other = other_images_per_s

    def is_initialized(self):
        return self.initialized

    def get_world_size(self):
        return 2

    def all_gather_object(self, out, obj):
        other = dict(obj, rank=1 - obj["rank"], images_per_s=self.other, bottleneck="io",
                     summary="io", advice=[{"text": "reads delivered 15 MB/s"}])
        out[obj["rank"]], out[other["rank"]] = obj, other


def test_gather_verdicts_alone_when_not_initialised(image_folder):
    loader = feedrate.Loader(image_folder, **small(rank=0, world_size=2))
    epoch(loader)
    for dist in (None, FakeDistributed(initialized=False)):
        gathered = feedrate.gather_verdicts(loader, dist)
        assert len(gathered["ranks"]) == 1
        assert gathered["slowest"]["rank"] == 0
        # The report's clock runs on after the epoch, so its verdict may move: check its shape.
        assert gathered["slowest"]["bottleneck"] in {"io", "cpu", "ram", "h2d", "consumer"}
        assert gathered["slowest"]["images_per_s"] > 0 and gathered["slowest"]["advice"]
        assert gathered["summary"].startswith("rank 0 of 2 is the slowest")


def test_gather_verdicts_names_the_slowest_rank(image_folder):
    loader = feedrate.Loader(image_folder, **small(rank=0, world_size=2))
    epoch(loader)
    gathered = feedrate.gather_verdicts(loader, FakeDistributed(True, other_images_per_s=1.0))
    assert [r["rank"] for r in gathered["ranks"]] == [0, 1]
    assert gathered["slowest"]["rank"] == 1 and gathered["slowest"]["bottleneck"] == "io"
    assert gathered["summary"] == (
        "rank 1 of 2 is the slowest: 1 images/s, bottleneck io: reads delivered 15 MB/s")


def test_report_before_any_batch_measured_nothing(image_folder):
    verdict = feedrate.Loader(image_folder, **small()).report()["verdict"]
    assert verdict["bottleneck"] == "none" and verdict["summary"] == "nothing measured yet"


def test_a_saved_report_is_a_plan_input(image_folder, tmp_path):
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    loader = feedrate.Loader(image_folder, **small())
    epoch(loader)
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(loader.report()))
    plan = subprocess.run([cli, "plan", str(saved), "--gpu", "A100 80GB SXM", "--json"],
                          capture_output=True, text=True, check=True)
    projected = json.loads(plan.stdout)
    assert projected["binds_first"] in {"cpu", "io", "ram", "consumer"}  # the verdict's words
    assert projected["measured"]["dataset_samples"] == COUNT


def test_report_probes_packing_when_asked(image_folder):
    loader = feedrate.Loader(image_folder, **small(transform="train"))
    epoch(loader)
    assert loader.report()["costs"]["packed"]["state"] == ""  # not measured unless asked
    report = loader.report(probe_packing=True)
    packed = report["costs"]["packed"]
    assert packed["state"] in {"measured", "skipped", "packed"}, packed
    kinds = [a["kind"] for a in report["verdict"]["advice"]]
    lifts = packed["state"] == "measured" and packed["decode_ratio"] < 1
    assert ("cpu.pack" in kinds) == (lifts and report["verdict"]["bottleneck"] == "cpu")


# What only the command line knows, on top of the document it shares with Python.
CLI_ONLY = {"dataset", "classes", "ignored_files", "ignored_examples", "transform", "size",
            "layout", "shuffle", "epochs"}


def test_the_command_line_and_python_share_one_document(image_folder):
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    run = subprocess.run([cli, "bench", str(image_folder), "--workers", "2", "--batch", "8",
                          "--size", "32", "--epochs", "1", "--no-pack-probe", "--json"],
                         capture_output=True, text=True, check=True)
    bench = json.loads(run.stdout)
    loader = feedrate.Loader(image_folder, **small())
    epoch(loader)
    report = loader.report()
    assert CLI_ONLY <= set(bench)
    assert set(bench) - CLI_ONLY == set(report)
    assert set(bench["io"]) - {"cold"} == set(report["io"])
    for key in ("verdict", "capacities", "stages", "costs", "cache"):
        assert set(bench[key]) == set(report[key]), key
    for advice in bench["verdict"]["advice"] + report["verdict"]["advice"]:
        assert set(advice) == set(report["verdict"]["advice"][0])
    # The same values under the same names: the run as both saw it.
    for key in ("images", "batches", "num_workers", "batch_size", "dataset_samples", "format"):
        assert bench[key] == report[key], key
    # One summary sentence, built in one place: "<binding>: <what delivers> N images/s; ...".
    for verdict in (bench["verdict"], report["verdict"]):
        assert verdict["summary"].startswith(verdict["bottleneck"] + ": "), verdict["summary"]
        assert " images/s" in verdict["summary"]


def _blocks_advice(verdict):
    found = [a for a in verdict["advice"] if a["kind"] == "io.blocks"]
    assert found, [a["kind"] for a in verdict["advice"]]
    return found[0]


def test_advice_names_options_in_each_front_ends_words(image_folder):
    """An IOPS-bound disk (30 reads/s) gets io.blocks: the command line says --shuffle blocks,
    Python shuffle="blocks", and otherwise the same words."""
    cli = os.environ.get("FEEDRATE_CLI")
    if not cli:
        pytest.skip("FEEDRATE_CLI is not set (run through ctest)")
    run = subprocess.run([cli, "bench", str(image_folder), "--workers", "2", "--batch", "8",
                          "--size", "32", "--batches", "3", "--throttle", "200,30",
                          "--no-pack-probe", "--json"],
                         capture_output=True, text=True, check=True)
    bench = _blocks_advice(json.loads(run.stdout)["verdict"])
    loader = feedrate.Loader(image_folder, **small(throttle="200,30"))
    iterator = iter(loader)
    for _ in range(3):
        next(iterator)
    report = loader.report()
    for advice in report["verdict"]["advice"]:
        assert "--" not in advice["text"] and "--" not in advice["remedy"], advice["text"]
    python = _blocks_advice(report["verdict"])
    assert python["settings"] == bench["settings"] == [
        {"option": "shuffle", "value": "blocks"}, {"option": "shuffle", "value": "none"}]
    assert 'shuffle="blocks"' in python["remedy"] and 'shuffle="none"' in python["remedy"]
    assert "--shuffle blocks" in bench["remedy"] and "--shuffle none" in bench["remedy"]

    def template(remedy, spellings):
        for spelled in spellings:
            remedy = remedy.replace(spelled, "{}")
        return re.sub(r"[\d.,]+", "#", remedy)
    assert template(python["remedy"], ['shuffle="blocks"', 'shuffle="none"']) == \
        template(bench["remedy"], ["--shuffle blocks", "--shuffle none"])
