"""What held an epoch of feedrate.ray.read() back: the diagnosis behind feedrate.ray.report(),
from the collector's state (each task attempt's Loader reports and figures, clocks and
progress). Pure functions of that state; Ray is not needed here.

Each part is judged by the library (feedrate._C._diagnose: the capacity model and verdict of
Loader.report()) from its Loader's figures; the tail Loader of the last part, which delivers
fewer samples than there are parts, is not judged. The epoch waits for its slowest part, so the
verdict is that part's: io, cpu or ram as the library names the resource. Where its Loader kept
up with its task (the library's "consumer"), what held the task is the ray layer's own figures:
blocked handing blocks on (then the trainers' clocks from timed() tell the transfer from the
trainers) or busy making them (cpu).
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from feedrate import _C

# The trainers are the limit when the tasks were blocked handing blocks on and the trainers
# waited for data less than this share of their time.
TRAINERS_BUSY = 0.5


def _merge_reports(reports: List[Dict[str, Any]]) -> Dict[str, Any]:
    images: int = sum(r["images"] for r in reports)

    def weighted(key: str) -> float:
        return float(sum(r[key] * r["images"] for r in reports)) / images if images else 0.0

    return {"images": images, "skipped": sum(r["skipped"] for r in reports),
            "skipped_samples": [s for r in reports for s in r["skipped_samples"]],
            "decode_cpu_ms": weighted("decode_cpu_ms_per_image"),
            "read_bytes": weighted("read_bytes_per_image")}


def _rate(figures: Dict[str, Any]) -> float:
    """Images/s of a Loader's figures."""
    wall_s = float(figures["wall_s"])
    return float(figures["images"]) / wall_s if wall_s > 0 else 0.0


def _remedy(verdict: Dict[str, Any]) -> str:
    """The first advice of a verdict that says what to do, as "; <text>", or ""."""
    for advice in verdict["advice"]:
        if advice["remedy"]:
            return f"; {advice['text']}"
    return ""


def diagnose(state: Dict[str, Any], node_cores: int) -> Dict[str, Any]:
    parts = state["parts"]
    attempts = sorted(state["attempts"].values(), key=lambda a: float(a["start"]))
    by_part: Dict[int, Dict[str, Any]] = {}
    tried: Dict[int, int] = {}
    for a in attempts:
        tried[a["part"]] = tried.get(a["part"], 0) + 1
        if a["finished"]:
            by_part[a["part"]] = a  # the latest finished attempt of each part
    missing = [p for p in range(parts) if p not in by_part]
    done = list(by_part.values())
    verdicts = {p: _C._diagnose(a["figures"])["verdict"] for p, a in by_part.items()}

    def log(p: int) -> List[Dict[str, Any]]:
        return [{k: a[k] for k in ("pid", "node", "start", "batches", "finished")}
                for a in attempts if a["part"] == p]

    result: Dict[str, Any] = {
        "parts": [{"part": p, "attempts": tried.get(p, 0), "finished": p in by_part,
                   "attempt_log": log(p),
                   **({k: v for k, v in by_part[p].items() if k not in ("part", "finished")}
                      if p in by_part else {}),
                   **({"verdict": verdicts[p]} if p in by_part else {})} for p in range(parts)],
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
    slowest = min(by_part, key=lambda p: _rate(by_part[p]["figures"]))
    result.update(
        images=images, images_per_s=images / span, epoch_s=span,
        skipped=loaders["skipped"], skipped_samples=loaders["skipped_samples"],
        decode_cpu_ms=loaders["decode_cpu_ms"], task_cpu_ms=task_cpu_ms,
        shipped_bytes=shipped, read_bytes=loaders["read_bytes"], slowest_part=slowest,
        tasks={"wall_s": task_wall, "setup_s": sum(a["setup_s"] for a in done),
               "waiting_on_loader_s": wait, "making_blocks_s": emit_cpu,
               "blocked_handing_on_s": blocked,
               "loader_verdicts": [verdicts[p]["bottleneck"] for p in sorted(verdicts)]},
        projection={"images_per_s_per_added_node": per_node,
                    "mb_per_s_per_1000_images_per_s": shipped * 1000 / 1e6})
    trainer_wait = sum(c["wait_s"] for c in consumers)
    trainer_step = sum(c["step_s"] for c in consumers)
    trainer_share = (trainer_wait / (trainer_wait + trainer_step)
                     if consumers and trainer_wait + trainer_step > 0 else None)
    verdict = verdicts[slowest]
    judged = (f"part {slowest}'s Loader, the slowest ({_rate(by_part[slowest]['figures']):.0f} "
              f"images/s): {verdict['summary']}")
    add_nodes = (f"add CPU nodes; each node of {node_cores} cores decodes about {per_node:.0f} "
                 f"images/s at {task_cpu_ms:.2f} ms of CPU per image")
    cause: Tuple[str, str]
    if verdict["bottleneck"] == "consumer":  # the Loaders kept up with their tasks
        if emit_cpu >= blocked:
            cause = ("cpu", f"the tasks spent more time making blocks ({emit_cpu:.1f} s) than "
                     f"blocked handing them on ({blocked:.1f} s), and {judged}: {add_nodes}")
        elif trainer_share is None:
            cause = ("downstream", "the tasks spent more time blocked handing blocks on "
                     f"({blocked:.1f} s) than making them ({emit_cpu:.1f} s), and {judged}: the "
                     "trainers or the object store and network; wrap the trainers' loop in "
                     "feedrate.ray.timed() to tell which")
        elif trainer_share < TRAINERS_BUSY:
            cause = ("trainers", f"the tasks waited on the trainers ({blocked:.1f} s blocked "
                     f"handing blocks on) and the trainers waited only {trainer_share:.0%} of "
                     "their time for data: the GPUs are the limit, as they should be")
        else:
            cause = ("transfer", f"the tasks were blocked handing blocks on ({blocked:.1f} s) "
                     f"while the trainers waited {trainer_share:.0%} of their time: the object "
                     f"store and network between them ({shipped / 1e3:.0f} kB per image, "
                     f"{images / span * shipped / 1e6:.0f} MB/s) hold the epoch back")
    elif verdict["bottleneck"] == "cpu":
        cause = ("cpu", f"the tasks waited on their Loaders' decoding ({wait:.1f} s), and "
                 f"{judged}: {add_nodes}")
    else:  # io, ram, h2d (no device but the CPU here) or none: the part's own verdict
        cause = (verdict["bottleneck"], f"the tasks waited on their Loaders ({wait:.1f} s), and "
                 f"{judged}{_remedy(verdict)}")
    result["bottleneck"], text = cause
    result["summary"] = (f"{images} images in {span:.1f} s ({images / span:.0f} images/s) from "
                         f"{len(done)} of {parts} parts; {text}" +
                         (f"; parts {missing} did not finish" if missing else ""))
    return result
