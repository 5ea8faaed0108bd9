"""feedrate.ray's collecting actor: one per driver (Ray job), shared by all of that driver's
read() runs, so that a run (an epoch) starts no process of its own. It keeps each run's state
(every attempt of every part, the trainers' clocks) under the run's name until the run's dataset
is released (close_run). A run's name is "<actor name>/<run id>", so that timed() and report()
in other processes (Ray Train workers) find the actor from the name alone. The actor reserves
no CPU and lives as long as the process that made it holds Ray (the driver, mostly). Ray is
imported only inside the functions.
"""

from __future__ import annotations

import functools
import uuid
from typing import Any, Dict, Optional, Tuple

NAMESPACE = "feedrate"
# This process's handle on its job's collector, by job id: Ray ends an actor that is not
# detached once no handle on it is left, and this one is to outlive the datasets.
_HANDLE: Dict[str, Any] = {}


@functools.lru_cache(maxsize=None)
def _actor_class() -> Any:
    import ray

    @ray.remote(num_cpus=0, max_restarts=0)
    class _Collector:
        """Per run: its parts' count, every attempt of every part, and the trainers' clocks.
        Reports for a run it does not hold (one already closed) are dropped."""

        def __init__(self) -> None:
            self.runs: Dict[str, Dict[str, Any]] = {}

        def open(self, run: str, parts: int) -> None:
            self.runs[run] = {"parts": parts, "attempts": {}, "consumers": {}}

        def close(self, run: str) -> None:
            self.runs.pop(run, None)

        def started(self, run: str, attempt: str, info: Dict[str, Any]) -> None:
            if run in self.runs:
                self.runs[run]["attempts"][attempt] = dict(info, batches=0, finished=False)

        def progress(self, run: str, attempt: str, batches: int) -> None:
            attempts = self.runs.get(run, {}).get("attempts", {})
            if attempt in attempts:
                attempts[attempt]["batches"] = batches

        def finished(self, run: str, attempt: str, figures: Dict[str, Any]) -> None:
            attempts = self.runs.get(run, {}).get("attempts", {})
            if attempt in attempts:
                attempts[attempt].update(figures, finished=True)

        def consumer(self, run: str, key: str, figures: Dict[str, Any]) -> None:
            if run in self.runs:
                self.runs[run]["consumers"][key] = figures

        def snapshot(self, run: str) -> Optional[Dict[str, Any]]:
            state = self.runs.get(run)
            if state is None:
                return None
            return {"parts": state["parts"], "attempts": dict(state["attempts"]),
                    "consumers": dict(state["consumers"])}

    return _Collector


def open_run(parts: int) -> Tuple[str, Any]:
    """A new run of `parts` parts on this driver's collector (started on first use): its name
    and the actor's handle. Returns once the actor holds the run."""
    import ray

    job = ray.get_runtime_context().get_job_id()
    actor = f"feedrate.ray.collector.{job}"
    handle = _HANDLE.get(job)
    if handle is None:
        handle = _actor_class().options(name=actor, namespace=NAMESPACE, num_cpus=0,
                                        get_if_exists=True).remote()
        _HANDLE.clear()  # a handle of an earlier ray.init() is of no use any more
        _HANDLE[job] = handle
    run = f"{actor}/{uuid.uuid4().hex[:12]}"
    ray.get(handle.open.remote(run, parts))
    return run, handle


def of_run(run: str) -> Any:
    """The collector holding `run` (a name from open_run), from any process of the cluster."""
    import ray

    return ray.get_actor(run.split("/", 1)[0], namespace=NAMESPACE)


def close_run(run: str) -> None:
    """Drops the run's state; nothing to do once Ray is shut down (its actors are gone)."""
    import ray

    if not ray.is_initialized():
        return
    try:
        of_run(run).close.remote(run)
    except ValueError:  # the actor is gone already
        pass
