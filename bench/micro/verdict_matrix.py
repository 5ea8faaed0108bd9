#!/usr/bin/env python3
"""The verdict against the truth found by relief: a matrix of settings (emulated disk, workers,
training rate, batches in flight), each run as is, with its bottleneck removed (its images/s must
rise) and with the runner-up removed (its images/s must not rise), alternating, medians.

    bench/micro/verdict_matrix.py [--feedrate build/bench/feedrate] [--dataset DIR] [--rounds 3]

Prints the environment, then one markdown table row per setting. Without --dataset it uses
`feedrate bench`'s default dataset (generated on first use). Run it on an otherwise idle machine:
it is a benchmark, not a test.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

RISE = 1.10  # a relief "lifts" the rate when the median rises by more than this

# name, the run's options, what removes each resource's limit (None: this machine cannot).
SETTINGS = [
    ("1 worker, 60 MB/s disk", "--workers 1 --throttle 60"),
    ("1 worker, 100 MB/s disk", "--workers 1 --throttle 100"),
    ("2 workers, 100 MB/s disk", "--workers 2 --throttle 100"),
    ("2 workers, 150 MB/s disk", "--workers 2 --throttle 150"),
    ("2 workers, HDD", "--workers 2 --throttle hdd --batches 4"),
    ("1 worker, page cache", "--workers 1"),
    ("1 worker, 300 MB/s disk", "--workers 1 --throttle 300"),
    ("1 worker, training at 500/s", "--workers 1 --consume-rate 500"),
    ("2 workers, training at 700/s", "--workers 2 --consume-rate 700"),
    ("1 worker, 60 MB/s, training at 300/s", "--workers 1 --throttle 60 --consume-rate 300"),
    ("2 workers, 1 batch in flight, training at 1,000/s",
     "--workers 2 --prefetch-batches 1 --consume-rate 1000"),
    ("1 worker, 1 batch in flight, 100 MB/s disk",
     "--workers 1 --prefetch-batches 1 --throttle 100"),
    ("2 workers, 1 batch in flight, 150 MB/s disk",
     "--workers 2 --prefetch-batches 1 --throttle 150"),
]


def remove(resource, options):
    """The options with `resource`'s limit removed; None when this machine cannot remove it."""
    words = options.split()

    def drop(flag):
        out, skip = [], False
        for w in words:
            if skip:
                skip = False
                continue
            if w == flag:
                skip = True
                continue
            out.append(w)
        return out

    def setting(flag):
        return words[words.index(flag) + 1] if flag in words else None

    if resource == "io":
        return " ".join(drop("--throttle")) if "--throttle" in words else None
    if resource == "consumer":
        return " ".join(drop("--consume-rate")) if "--consume-rate" in words else None
    if resource == "ram":
        return " ".join(drop("--prefetch-batches") + ["--prefetch-batches", "6"])
    if resource == "cpu":
        workers = int(setting("--workers") or 1)
        if workers >= os.cpu_count():
            return None  # no more cores to give
        return " ".join(drop("--workers") + ["--workers", str(os.cpu_count())])
    return None


def run(feedrate, dataset, options):
    args = [feedrate, "bench"] + ([dataset] if dataset else []) + options.split()
    if "--batches" not in options.split():
        args += ["--epochs", "1"]
    args += ["--no-pack-probe", "--json"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out[out.index("{"):])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feedrate", default="build/bench/feedrate")
    parser.add_argument("--dataset", default="")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    print(f"# verdict matrix: commit {commit}, {cpu}, {os.cpu_count()} cores, "
          f"{args.rounds} alternating rounds, medians", flush=True)
    print("| setting | images/s | io | cpu | ram | consumer | verdict | bottleneck removed | "
          "runner-up removed | agrees |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    agree = total = 0
    for name, options in SETTINGS:
        first = run(args.feedrate, args.dataset, options)
        verdict = first["verdict"]
        bottleneck = verdict["bottleneck"]
        # The runner-up: the named one, else the lowest other measured capacity.
        others = sorted((c["images_per_s"] or float("inf"), r)
                        for r, c in first["capacities"].items()
                        if r not in ("delivered", bottleneck) and c["measured"])
        runner = verdict["runner_up"] or (others[0][1] if others else "")
        variants = {"as is": options, "bottleneck": remove(bottleneck, options),
                    "runner-up": remove(runner, options) if runner else None}
        rates = {k: [] for k, v in variants.items() if v is not None}
        capacities = {r: [] for r in ("io", "cpu", "ram", "consumer")}
        for _ in range(args.rounds):
            for key in rates:
                result = run(args.feedrate, args.dataset, variants[key])
                rates[key].append(result["images_per_s"])
                if key == "as is":
                    for r in capacities:
                        c = result["capacities"][r]
                        capacities[r].append(c["images_per_s"] if c["measured"] and
                                             c["images_per_s"] is not None else float("inf"))
        base = statistics.median(rates["as is"])

        def relief(key):
            if key not in rates:
                return None
            return statistics.median(rates[key]) / base

        lifted, other = relief("bottleneck"), relief("runner-up")
        ok = None
        if lifted is not None:
            ok = lifted > RISE and (other is None or other <= RISE or verdict["runner_up"] != "")
            total += 1
            agree += ok

        def cell(r):
            v = statistics.median(capacities[r])
            return "-" if v == float("inf") else f"{v:,.0f}"

        def ratio(x, what):
            return "not possible here" if x is None else f"{what}: {x:.2f}x"

        print(f"| {name} (`{options}`) | {base:,.0f} | {cell('io')} | {cell('cpu')} | "
              f"{cell('ram')} | {cell('consumer')} | {verdict['summary']} | "
              f"{ratio(lifted, bottleneck)} | {ratio(other, runner or 'none')} | "
              f"{'-' if ok is None else ('yes' if ok else 'NO')} |", flush=True)
    print(f"\nagrees with relief in {agree} of {total} settings where relief was possible")
    return 0


if __name__ == "__main__":
    sys.exit(main())
