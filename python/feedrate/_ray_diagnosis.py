"""What held an epoch of feedrate.ray.read() back: the diagnosis behind feedrate.ray.report(),
from the collector's state (each task attempt's Loader reports, clocks and progress). Pure
functions of that state; Ray is not needed here.
"""

from __future__ import annotations

from typing import Any, Dict, List

def _merge_reports(reports: List[dict]) -> dict:
    images = sum(r["images"] for r in reports)
    weighted = lambda key: (sum(r[key] * r["images"] for r in reports) / images if images else 0.0)
    return {"images": images, "skipped": sum(r["skipped"] for r in reports),
            "skipped_samples": [s for r in reports for s in r["skipped_samples"]],
            "decode_cpu_ms": weighted("decode_cpu_ms_per_image"),
            "read_bytes": weighted("read_bytes_per_image"),
            "verdicts": [r["verdict"]["bottleneck"] for r in reports]}


def diagnose(state: dict, node_cores: int) -> Dict[str, Any]:
    parts = state["parts"]
    attempts = sorted(state["attempts"].values(), key=lambda a: a["start"])
    by_part: Dict[int, dict] = {}
    tried: Dict[int, int] = {}
    for a in attempts:
        tried[a["part"]] = tried.get(a["part"], 0) + 1
        if a["finished"]:
            by_part[a["part"]] = a  # the latest finished attempt of each part
    missing = [p for p in range(parts) if p not in by_part]
    done = list(by_part.values())
    log = lambda p: [{k: a[k] for k in ("pid", "node", "start", "batches", "finished")}
                     for a in attempts if a["part"] == p]
    result: Dict[str, Any] = {
        "parts": [{"part": p, "attempts": tried.get(p, 0), "finished": p in by_part,
                   "attempt_log": log(p),
                   **({k: v for k, v in by_part[p].items() if k not in ("part", "finished")}
                      if p in by_part else {})} for p in range(parts)],
        "missing": missing, "node_cores": node_cores}
    consumers = list(state["consumers"].values())
    result["consumers"] = consumers
    if not done:
        result.update(bottleneck="none", images=0, images_per_s=0.0,
                      summary=f"no part of {parts} finished yet" +
                      (f"; parts {missing} are lost or unfinished" if attempts else ""))
        return result
    loaders = _merge_reports([r for a in done for r in a["reports"]])
    images = sum(a["rows"] for a in done)
    start = min(a["start"] for a in done)
    end = max([a["end"] for a in done] + [c["end"] for c in consumers])
    span = max(end - start, 1e-9)
    wait = sum(a["wait_s"] for a in done)
    emit_cpu = sum(a["emit_cpu_s"] for a in done)
    blocked = sum(max(a["emit_s"] - a["emit_cpu_s"], 0.0) for a in done)
    task_wall = sum(a["end"] - a["start"] for a in done)
    shipped = sum(a["shipped_bytes"] for a in done) / images if images else 0.0
    task_cpu_ms = loaders["decode_cpu_ms"] + (1000.0 * emit_cpu / images if images else 0.0)
    per_node = node_cores * 1000.0 / task_cpu_ms if task_cpu_ms > 0 else 0.0
    result.update(
        images=images, images_per_s=images / span, epoch_s=span,
        skipped=loaders["skipped"], skipped_samples=loaders["skipped_samples"],
        decode_cpu_ms=loaders["decode_cpu_ms"], task_cpu_ms=task_cpu_ms,
        shipped_bytes=shipped, read_bytes=loaders["read_bytes"],
        tasks={"wall_s": task_wall, "setup_s": sum(a["setup_s"] for a in done),
               "waiting_on_loader_s": wait, "making_blocks_s": emit_cpu,
               "blocked_handing_on_s": blocked, "loader_verdicts": loaders["verdicts"]},
        projection={"images_per_s_per_added_node": per_node,
                    "mb_per_s_per_1000_images_per_s": shipped * 1000 / 1e6})
    trainer_wait = sum(c["wait_s"] for c in consumers)
    trainer_step = sum(c["step_s"] for c in consumers)
    trainer_share = trainer_wait / (trainer_wait + trainer_step) if consumers else None
    if blocked > wait:
        if trainer_share is None:
            cause = ("downstream", "the tasks spent more time blocked handing blocks on "
                     f"({blocked:.1f} s) than waiting on their Loaders ({wait:.1f} s): the "
                     "trainers or the object store and network; wrap the trainers' loop in "
                     "feedrate.ray.timed() to tell which")
        elif trainer_share < 0.5:
            cause = ("trainers", f"the tasks waited on the trainers ({blocked:.1f} s blocked "
                     f"handing blocks on) and the trainers waited only {trainer_share:.0%} of "
                     "their time for data: the GPUs are the limit, as they should be")
        else:
            cause = ("transfer", f"the tasks were blocked handing blocks on ({blocked:.1f} s) "
                     f"while the trainers waited {trainer_share:.0%} of their time: the object "
                     f"store and network between them ({shipped / 1e3:.0f} kB per image, "
                     f"{images / span * shipped / 1e6:.0f} MB/s) hold the epoch back")
    else:
        io = loaders["verdicts"].count("io") > len(loaders["verdicts"]) / 2
        held = f"({wait:.1f} s against {blocked:.1f} s blocked handing on)"
        if io:
            cause = ("decode", f"the tasks waited on their Loaders' reads {held}: the CPU "
                     "nodes' disks or the store they read from (their Loader reports in "
                     "'parts' say which and what would lift it)")
        else:
            cause = ("decode", f"the tasks waited on their Loaders' decoding {held}: add CPU "
                     f"nodes; each node of {node_cores} cores decodes about {per_node:.0f} "
                     f"images/s at {task_cpu_ms:.2f} ms of CPU per image")
    result["bottleneck"], text = cause
    result["summary"] = (f"{images} images in {span:.1f} s ({images / span:.0f} images/s) from "
                         f"{len(done)} of {parts} parts; {text}" +
                         (f"; parts {missing} did not finish" if missing else ""))
    return result
