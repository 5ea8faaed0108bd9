#!/usr/bin/python3
"""Remote sources (s3:// from moto and from a static S3 endpoint, https:// from nginx) through an
emulated link, against the link's own limit, the local disk, webdataset and s3torchconnector.

What it measures
  A generated tar-shard dataset (`feedrate make-dataset DIR --count N --format tar
  --images-per-shard K`, ImageNet-like JPEGs) is served, for each --link setting, by moto's S3
  server (bucket/prefix) and by nginx (https) behind an emulated link, both started by
  tests/remote/servers.py (`Servers(..., netem=SPEC)`) and always stopped again (try/finally);
  nginx also answers S3's path-style GETs and the listing of the same files without checking
  signatures (servers.py's "s3_static"): an S3 endpoint at a static server's speed, where moto
  reads the whole object for every ranged GET. moto starts only when a contender reads it.
  On a kernel without sch_netem the harness emulates the delay with a userspace TCP relay and
  the rate with tbf: the summary prints which mode ran. Contenders, each a whole epoch in a
  child process capped at --cap-s seconds (a peer at --peer-cap-s, its
  rate then over the part it read), alternate within every round, the order rotated from
  one round to the next; the summary quotes medians over rounds and the spread (min-max):

    curl-s3, curl-https, curl-s3static
                          the link's limit: every shard at once (at most --curl-parallel), whole
                          objects, by curl (S3: --aws-sigv4; https: --cacert); images/s is the
                          dataset's images over the wall time
    local                 feedrate bench on the same shards on the local disk (warm page cache)
    local-loaded          the same while curl pulls the shards from the static S3 endpoint at
                          --load-mb-s in all: the server side's share of the cores, without
                          the client's (a control for the remote contenders' gap to `local`)
    s3-full, https-full   feedrate bench SOURCE, full shuffle (one ranged GET per sample)
    s3-blocks, https-blocks   --shuffle blocks (neighbouring samples in one GET)
    s3static-full, s3static-blocks   the same s3:// source from the static S3 endpoint
    https-blocks-steady   the same over --steady-epochs epochs of one process: the median of
                          epochs 3 and later, whose first windows were read ahead while the
                          epoch before decoded
    s3-cache, s3static-cache, https-cache
                          feedrate bench --epochs 2 --cache-dir (fresh each round): epoch 2
                          reads the samples stored in epoch 1 from the local disk
    NAME+fields           a feedrate contender above (local, s3-*, s3static-*, https-*) with
                          --fields cls,txt,json: with one, every key of the dataset also holds
                          a .txt caption and a .json of metadata (img2dataset's sizes), and
                          NAME alone reads the same shards' images and classes only
  --s3-batches N bounds s3-full and s3-blocks to their first N batches (moto answers a ranged GET
  in time that grows with the object's size, see docs/benchmarks.md): their rate is then over
  those batches.
    wds-https             webdataset (1.x) over `pipe:curl` https shards + torch DataLoader
    s3tc-s3, s3tc-s3static   s3torchconnector's S3IterableDataset over the moto endpoint / the
                          static one, streaming each tar shard + torch DataLoader

  feedrate: `feedrate bench ... --workers 2 --transform train --json` (batch 64, uint8), images/s
  and MB/s of JPEG bytes per epoch from its JSON, with its verdict, the stages.store figures and
  the io.store* advice. Peers: decode with PIL, RandomResizedCrop(224) + RandomHorizontalFlip +
  PILToTensor, DataLoader(batch_size=64, num_workers=2), clock from iter() to the last batch;
  they stream each shard in order (webdataset adds its shard shuffle and a 1,000-sample buffer
  shuffle), while feedrate's default is a full permutation.

  The peers run under --peers-python (a venv outside the repository with torch, torchvision,
  webdataset and s3torchconnector; a contender whose imports fail is reported as skipped).

Usage (as root: the harness makes a network namespace):
  python3 bench/micro/compare_remote.py [--links "delay=25ms,rate=1gbit;delay=25ms,rate=10gbit"]
      [--rounds 3] [--cap-s 150] [--only s3-full,curl-s3,...] [--json OUT]
"""

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import time
from pathlib import Path

# The contenders and the peers' child are remote_contenders.py's; this script sets up the
# dataset and the servers, runs the rounds and summarises them.
from remote_contenders import (BUCKET, CONTENDERS, FIELD_CONTENDERS, FIELDS_SUFFIX, MOTO, PREFIX,
                               Bench, peer_child, sh)

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent.parent
OTHER_BENCH = ("compare_", "feedrate bench", "feedrate tune")


# ----------------------------------------------------------------------------- set-up

def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def other_benchmarks():
    mine = {os.getpid(), os.getppid()}
    out = sh(["ps", "-eo", "pid=,args="]).stdout.splitlines()
    found = []
    for line in out:
        pid, _, args = line.strip().partition(" ")
        if int(pid) in mine or "grep" in args or args.startswith("flock "):  # a waiter
            continue
        if any(word in args for word in OTHER_BENCH):
            found.append(args[:120])
    return found


def make_dataset(feedrate, data, count, per_shard):
    marker = data.with_name(data.name + ".made")  # beside it: the servers serve all of data/
    if data.is_dir() and marker.exists():
        made = json.loads(marker.read_text())
        if made == {"count": count, "per_shard": per_shard}:
            return
    shutil.rmtree(data, ignore_errors=True)
    data.with_name(data.name + ".text").unlink(missing_ok=True)  # add_text_members' marker
    r = sh([feedrate, "make-dataset", data, "--count", str(count), "--format", "tar",
            "--images-per-shard", str(per_shard)])
    if r.returncode != 0:
        sys.exit(f"make-dataset failed:\n{r.stdout}{r.stderr}")
    marker.write_text(json.dumps({"count": count, "per_shard": per_shard}))


def add_text_members(data):
    """Adds KEY.txt (a caption) and KEY.json (url, caption, sizes, hashes: img2dataset's fields)
    beside every key's image of every shard, in place, once (a marker file says so)."""
    import io
    import tarfile
    marker = data.with_name(data.name + ".text")
    if marker.exists():
        return
    for shard in sorted(data.rglob("*.tar")):
        with tarfile.open(shard) as tar:
            members = [(m, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]
        out = shard.with_suffix(".tar.new")
        with tarfile.open(out, "w") as tar:
            for member, body in members:
                tar.addfile(member, io.BytesIO(body))
                key, _, ext = member.name.partition(".")
                if ext != "cls":
                    continue
                text = f"a photograph of sample {key} with some scenery and a caption".encode()
                meta = json.dumps({"url": f"http://images.example/{key}.jpg", "key": key,
                                   "caption": text.decode(), "width": 500, "height": 375,
                                   "original_width": 1024, "original_height": 768,
                                   "similarity": 0.31, "status": "success", "error_message": None,
                                   "exif": "{}", "sha256": "0" * 64}).encode()
                for name, payload in ((f"{key}.txt", text), (f"{key}.json", meta)):
                    info = tarfile.TarInfo(name)
                    info.size = len(payload)
                    tar.addfile(info, io.BytesIO(payload))
        out.replace(shard)
    marker.write_text("txt,json")


def shard_names(data):
    return sorted(p.relative_to(data).as_posix() for p in data.rglob("*.tar"))


def summarize(runs):
    ok = [r for r in runs if "images_per_s" in r]
    if not ok:
        return {"error": runs[-1].get("error", "no run") if runs else "no run"}
    ips = [r["images_per_s"] for r in ok]
    mbs = [r["mb_per_s"] for r in ok]
    return {"images_per_s": statistics.median(ips), "min": min(ips), "max": max(ips),
            "mb_per_s": statistics.median(mbs), "runs": len(ok), "all": [round(x, 1) for x in ips],
            "failed": len(runs) - len(ok)}


def targets(s, link_bound):
    def ratio(a, b):
        if "images_per_s" not in s.get(a, {}) or "images_per_s" not in s.get(b, {}):
            return None
        return s[a]["images_per_s"] / s[b]["images_per_s"]
    out = []

    def add(what, a, b, bound):
        r = ratio(a, b)
        out.append({"target": what, "ratio": r, "bound": bound,
                    "met": None if r is None else r >= bound})
    for src in ("s3", "s3static", "https"):
        if link_bound:
            add(f"{src}-blocks >= 0.9x curl-{src} (link-bound)", f"{src}-blocks", f"curl-{src}", 0.9)
            # Against the link's limit, so only where the link is the limit.
            add(f"{src}-full (per-sample GETs) >= 0.8x curl-{src}", f"{src}-full", f"curl-{src}",
                0.8)
        else:
            add(f"{src}-blocks >= 0.9x local (not link-bound)", f"{src}-blocks", "local", 0.9)
            add(f"{src}-blocks >= 0.9x local-loaded (the server side's cores taken from both)",
                f"{src}-blocks", "local-loaded", 0.9)
    if link_bound:
        add("https-blocks-steady (epochs 3+ of a process) >= 0.9x curl-https (link-bound)",
            "https-blocks-steady", "curl-https", 0.9)
    add("s3-cache epoch 2 >= 0.95x local", "s3-cache", "local", 0.95)
    add("s3static-cache epoch 2 >= 0.95x local", "s3static-cache", "local", 0.95)
    add("https-cache epoch 2 >= 0.95x local", "https-cache", "local", 0.95)
    for fr in ("s3-full", "s3-blocks", "s3static-full", "s3static-blocks", "https-full",
               "https-blocks"):
        for peer in ("wds-https", "s3tc-s3", "s3tc-s3static"):
            add(f"{fr} ahead of {peer}", fr, peer, 1.0)
    for c in FIELD_CONTENDERS:
        if c + FIELDS_SUFFIX in s:
            add(f"{c}{FIELDS_SUFFIX} (txt, json) >= 0.9x {c}", c + FIELDS_SUFFIX, c, 0.9)
    return out


def environment(args):
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    commit = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = bool(sh(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"]).stdout.strip())
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit + ("+dirty" if dirty else ""),
            "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "load_average": load_average(), "feedrate": str(args.feedrate)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--feedrate", type=Path, default=REPO / "build/bench/feedrate")
    ap.add_argument("--work", type=Path, default=REPO / "build/remote-bench",
                    help="dataset, server state and caches (default build/remote-bench)")
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--images-per-shard", type=int, default=900)
    ap.add_argument("--links", default="delay=25ms,rate=1gbit;delay=25ms,rate=10gbit",
                    help="';'-separated servers.py --netem specs")
    ap.add_argument("--link-bound", default="1,0",
                    help="per link: 1 if it is the link-bound setting (the targets differ)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cap-s", type=float, default=150, help="cap of each contender's epoch")
    ap.add_argument("--peer-cap-s", type=float, default=60,
                    help="cap of a peer's epoch: its images/s is then over the part it read")
    ap.add_argument("--s3-batches", type=int, default=0,
                    help="s3-full and s3-blocks: only the first N batches (0: whole epochs)")
    ap.add_argument("--curl-parallel", type=int, default=8)
    ap.add_argument("--load-mb-s", type=float, default=130,
                    help="local-loaded: the MB/s the server side moves during its epoch")
    ap.add_argument("--steady-epochs", type=int, default=6,
                    help="https-blocks-steady: epochs of its process (at least 3)")
    ap.add_argument("--only", default=",".join(CONTENDERS))
    ap.add_argument("--peers-python", default="/work/remote-peers-venv/bin/python")
    ap.add_argument("--remote-python", default=str(REPO / "build/remote-venv/bin/python"))
    ap.add_argument("--json", type=Path, help="write every run and the summary here")
    ap.add_argument("--peer-child", choices=["wds", "s3tc"], help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.steady_epochs < 3:
        ap.error("--steady-epochs must be at least 3 (the rate is over epochs 3 and later)")
    if args.peer_child:
        return peer_child(args.peer_child, json.loads(args.spec))

    # A SIGTERM (a timeout, a kill) unwinds through the finally that stops the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, str(REPO / "tests/remote"))
    from servers import Servers  # noqa: E402

    contenders = [c for c in args.only.split(",") if c]
    for c in contenders:
        if c not in CONTENDERS and not (c.endswith(FIELDS_SUFFIX) and
                                        c[:-len(FIELDS_SUFFIX)] in FIELD_CONTENDERS):
            ap.error(f"unknown contender {c} (of {', '.join(CONTENDERS)}, and "
                     f"{FIELDS_SUFFIX} after one of {', '.join(FIELD_CONTENDERS)})")
    links = [s.strip() for s in args.links.split(";") if s.strip()]
    bound = [b == "1" for b in args.link_bound.split(",")] + [False] * len(links)
    env = environment(args)
    print(json.dumps(env), flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    text = any(c.endswith(FIELDS_SUFFIX) for c in contenders)
    data = args.work / ("data-text" if text else "data")
    make_dataset(args.feedrate, data, args.count, args.images_per_shard)
    if text:
        add_text_members(data)
    names = shard_names(data)
    for n in names:  # warm page cache for `local`
        with open(data / n, "rb") as f:
            while f.read(1 << 24):
                pass
    result = {"environment": env, "links": []}
    for li, link in enumerate(links):
        others = other_benchmarks()
        if others:
            print(f"warning: other benchmarks run: {others}", flush=True)
        state = args.work / f"state{li}"
        tmp = args.work / f"tmp{li}"
        tmp.mkdir(exist_ok=True)
        servers = Servers(state, s3=any(c.removesuffix(FIELDS_SUFFIX) in MOTO for c in contenders), nginx=True, netem=link, data=data, bucket=BUCKET,
                          prefix=PREFIX, python=args.remote_python, ttl=3 * 3600,
                          start_timeout=60, owner_pid=os.getpid())
        runs = {c: [] for c in contenders}
        ep, b = None, None
        try:
            t0 = time.monotonic()
            ep = servers.up()
            print(f"link {link}: {ep['netem']} up in {time.monotonic() - t0:.1f} s", flush=True)
            b = Bench(args, ep, data, names, tmp)
            for rnd in range(args.rounds):
                order = contenders[rnd % len(contenders):] + contenders[:rnd % len(contenders)]
                for c in order:
                    load = load_average()
                    r = b.run(c)
                    r.update(round=rnd, load_average=load)
                    runs[c].append(r)
                    shown = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items()
                             if k in ("images_per_s", "mb_per_s", "seconds", "bottleneck",
                                      "error", "load_average", "capped")}
                    print(f"  round {rnd} {c}: {json.dumps(shown)}", flush=True)
        except Exception as e:  # noqa: BLE001 - reported, then the next link
            print(f"link {link}: {e!r}", flush=True)
        finally:
            servers.down()
        if b is None:
            continue
        summary = {c: summarize(runs[c]) for c in contenders}
        entry = {"link": link, "netem": ep.get("netem"),
                 "link_bound": bound[li], "shard_bytes": b.total_bytes, "shards": len(names),
                 "s3_source": b.s3_source, "s3_static": ep.get("s3_static"), "https_source": b.https_source,
                 "summary": summary, "targets": targets(summary, bound[li]), "runs": runs,
                 "other_benchmarks": others}
        result["links"].append(entry)
        print(f"\n== {link} (mode {entry['netem']['mode'] if entry['netem'] else '?'}) ==")
        for c, s in summary.items():
            if "error" in s:
                print(f"  {c:13s} {s['error'][:200]}")
            else:
                print(f"  {c:13s} {s['images_per_s']:8.1f} images/s ({s['min']:.1f}-{s['max']:.1f})"
                      f" {s['mb_per_s']:7.1f} MB/s  runs {s['all']}")
        for t in entry["targets"]:
            r = "n/a" if t["ratio"] is None else f"{t['ratio']:.2f}x"
            print(f"  target {t['target']}: {r} -> {'met' if t['met'] else 'NOT met' if t['met'] is False else '?'}")
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
