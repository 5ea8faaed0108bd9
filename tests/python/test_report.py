"""loader.report(): the verdict and stage figures as a dict; the optional progress line."""

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
    assert report["stages"]["decode"]["items"] == COUNT
    assert report["stages"]["read"]["bytes"] > 0
    assert report["stages"]["in_flight"]["capacity"] > 0
    assert report["images_per_s"] > 0 and report["device"] == "host"
    assert report["io_backend"]


def test_progress_line_on_stderr(image_folder, capfd):
    epoch(feedrate.Loader(image_folder, **small(progress=True)))
    err = capfd.readouterr().err
    assert f"feedrate epoch 0: {len(range(0, COUNT, 8))}/{len(range(0, COUNT, 8))} batches" in err
    assert "bottleneck" in err and err.endswith("\n")
    epoch(feedrate.Loader(image_folder, **small()))
    assert capfd.readouterr().err == ""
