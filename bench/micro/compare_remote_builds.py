#!/usr/bin/python3
"""Builds of feedrate side by side on one remote source: an A/B of a read-ahead change.

Each --variant NAME=FEEDRATE[:ARG,ARG...] runs `FEEDRATE bench s3://bench/shards/BRACE
--workers 2 --transform train --batch 64 --json --no-pack-probe ARG...`, where FEEDRATE is a
build's `feedrate` program (BUILD/bench/feedrate, which holds the library's code: copy it aside
before rebuilding the other variant), one whole epoch each, the variants alternating within
every round. The
source is compare_remote.py's dataset (build/remote-bench/data, made by it) on servers.py's
static S3 endpoint (nginx) behind the emulated --link. Prints each run's images/s, verdict,
requests, requests in flight and in-flight bands (in_flight, busy_s, MB/s), then the medians.

Usage (as root: the harness makes a network namespace):
  python3 bench/micro/compare_remote_builds.py --link "delay=25ms,rate=1gbit" --rounds 3 \\
      --variant base=/tmp/feedrate-base:--shuffle,blocks --variant new=build/bench/feedrate:--shuffle,blocks
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from remote_contenders import BUCKET, PREFIX, STATIC_KEYS, bench_command, brace, store_env

REPO = Path(__file__).resolve().parent.parent.parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--data", type=Path, default=REPO / "build/remote-bench/data")
    ap.add_argument("--link", default="delay=25ms,rate=1gbit")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variant", action="append", required=True, help="NAME=FEEDRATE[:ARG,...]")
    args = ap.parse_args()
    variants = {}
    for v in args.variant:
        name, _, rest = v.partition("=")
        feedrate, _, extra = rest.partition(":")
        if not name or not Path(feedrate).is_file():
            ap.error(f"--variant {v}: NAME=FEEDRATE with FEEDRATE a `feedrate` program")
        variants[name] = (feedrate, [a for a in extra.split(",") if a])
    names = sorted(p.name for p in args.data.glob("*.tar"))
    if not names:
        ap.error(f"no shards in {args.data} (compare_remote.py makes them)")
    sys.path.insert(0, str(REPO / "tests/remote"))
    from servers import Servers  # noqa: E402
    state = args.data.parent / "state-builds"
    servers = Servers(state, nginx=True, netem=args.link, data=args.data, bucket=BUCKET,
                      prefix=PREFIX, ttl=3600, owner_pid=os.getpid())
    ep = servers.up()
    env = store_env(ep["s3_static"], STATIC_KEYS["access_key"], STATIC_KEYS["secret_key"],
                    "us-east-1")
    source = f"s3://{BUCKET}/{PREFIX}{brace(names)}"
    rates = {name: [] for name in variants}
    try:
        print(json.dumps({"link": ep["netem"], "source": source}), flush=True)
        for rnd in range(args.rounds):
            for name, (feedrate, extra) in variants.items():
                r = subprocess.run(bench_command(feedrate, source, extra), env=env,
                                   capture_output=True, text=True, timeout=600)
                if r.returncode != 0:
                    print(f"{rnd} {name}: {r.stderr[-400:]}", flush=True)
                    continue
                j = json.loads(r.stdout[r.stdout.index("{"):])
                e, st = j["epochs"][0], j["stages"]["store"]
                rates[name].append(e["images_per_s"])
                bands = [(round(b["in_flight"], 1), round(b["busy_s"], 2),
                          round(b["bytes_per_s"] / 1e6)) for b in st["by_in_flight"]]
                print(f"{rnd} {name}: {e['images_per_s']:.0f} images/s, "
                      f"{j['verdict']['bottleneck']}, {st['requests']} requests, "
                      f"{st['average_in_flight']:.1f} in flight, bands {bands}", flush=True)
    finally:
        servers.down()
    for name, r in rates.items():
        if r:
            print(f"{name}: median {statistics.median(r):.0f} images/s, runs "
                  f"{[round(x) for x in r]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
