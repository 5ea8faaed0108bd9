"""The peak memory of a process tree, for the peer comparisons (compare_torch.py,
compare_peers.py): the summed PSS (proportional set size, /proc/<pid>/smaps_rollup) of a
process and all its descendants, sampled from a thread while it runs.

Under PSS a page shared by forked workers and their parent counts once in total, so the sum is
the tree's real footprint; the summed RSS (shared pages once per process) is kept for
reference. Reading smaps_rollup makes the kernel walk the page tables, which costs CPU in
proportion to the resident memory (about 10 ms per 250 MB on a small VM), so the sampler
stretches its interval to use at most SAMPLER_CPU_SHARE of one core: its cost stays the same
fraction of the machine for a small and a large tree.
"""

import json
import os
import subprocess
import threading
import time

SAMPLE_INTERVAL_S = 0.05  # shortest interval between memory samples
SAMPLER_CPU_SHARE = 0.10  # at most this fraction of one core goes to sampling


class ChildFailed(RuntimeError):
    """A measured child process exited with an error; carries its stderr."""

    def __init__(self, command, returncode, stderr):
        super().__init__(
            f"command failed with exit status {returncode}:\n  {' '.join(command)}\n"
            f"--- its stderr ---\n{stderr.rstrip() or '(empty)'}\n--- end of stderr ---")


def children_by_parent():
    """Map each pid to the list of its children's pids, from /proc/<pid>/stat."""
    children = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process is gone
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def process_tree(root):
    """The root pid and all its descendants."""
    children = children_by_parent()
    tree, pending = [], [root]
    while pending:
        pid = pending.pop()
        tree.append(pid)
        pending.extend(children.get(pid, []))
    return tree


def rss_pss_kib(pid):
    """(Rss, Pss) in KiB from /proc/<pid>/smaps_rollup, or (0, 0) if the process is gone."""
    values = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                key, _, rest = line.partition(":")
                if key in ("Rss", "Pss"):
                    values[key] = int(rest.split()[0])
    except (OSError, ValueError):
        pass
    return values.get("Rss", 0), values.get("Pss", 0)


class TreeMemorySampler:
    """Samples a process tree's summed PSS and RSS from a thread; keeps the peaks.

    Samples are SAMPLE_INTERVAL_S apart, or further apart when one sample costs more than
    SAMPLER_CPU_SHARE of the interval (smaps_rollup is expensive for large processes)."""

    def __init__(self, root):
        self.root = root
        self.peak_pss_kib = 0
        self.peak_rss_kib = 0
        self.peak_processes = 0
        self.samples = 0
        self.cpu_s = 0.0
        self.wall_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        start = time.perf_counter()
        while True:
            began = time.thread_time()
            self._sample()
            cost = time.thread_time() - began
            self.cpu_s += cost
            if self._stop.wait(max(SAMPLE_INTERVAL_S, cost * (1 / SAMPLER_CPU_SHARE - 1))):
                break
        self.wall_s = time.perf_counter() - start

    def _sample(self):
        tree = process_tree(self.root)
        rss = pss = 0
        for pid in tree:
            pid_rss, pid_pss = rss_pss_kib(pid)
            rss += pid_rss
            pss += pid_pss
        self.peak_rss_kib = max(self.peak_rss_kib, rss)
        self.peak_pss_kib = max(self.peak_pss_kib, pss)
        self.peak_processes = max(self.peak_processes, len(tree))
        self.samples += 1


def run_sampled(command):
    """Run command while sampling its process tree; return its parsed JSON stdout + memory."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    with TreeMemorySampler(process.pid) as sampler:
        stdout, stderr = process.communicate()
    if process.returncode != 0:
        raise ChildFailed(command, process.returncode, stderr)
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError as error:
        raise ChildFailed(command, process.returncode,
                          f"{stderr}\n(stdout was not JSON: {error}; stdout: {stdout[:2000]!r})")
    result["tree_peak_pss_mb"] = sampler.peak_pss_kib * 1024 / 1e6
    result["tree_peak_rss_sum_mb"] = sampler.peak_rss_kib * 1024 / 1e6
    result["tree_peak_processes"] = sampler.peak_processes
    result["memory_samples"] = sampler.samples
    result["memory_sample_interval_s"] = sampler.wall_s / sampler.samples
    result["memory_sampler_cpu_s"] = sampler.cpu_s
    return result
