#!/usr/bin/python3
"""Remote sources (s3:// from moto, https:// from nginx) through an emulated link, against the
link's own limit, the local disk, webdataset and s3torchconnector.

What it measures
  A generated tar-shard dataset (`feedrate make-dataset DIR --count N --format tar
  --images-per-shard K`, ImageNet-like JPEGs) is served, for each --link setting, by moto's S3
  server (bucket/prefix) and by nginx (https) behind an emulated link, both started by
  tests/remote/servers.py (`Servers(..., netem=SPEC)`) and always stopped again (try/finally).
  On a kernel without sch_netem the harness emulates the delay with a userspace TCP relay and
  the rate with tbf: the summary prints which mode ran. Contenders, each a whole epoch in a
  child process capped at --cap-s seconds (a peer at --peer-cap-s, its
  rate then over the part it read), alternate within every round, the order rotated from
  one round to the next; the summary quotes medians over rounds and the spread (min-max):

    curl-s3, curl-https   the link's limit: every shard at once (at most --curl-parallel), whole
                          objects, by curl (S3: --aws-sigv4; https: --cacert); images/s is the
                          dataset's images over the wall time
    local                 feedrate bench on the same shards on the local disk (warm page cache)
    s3-full, https-full   feedrate bench SOURCE, full shuffle (one ranged GET per sample)
    s3-blocks, https-blocks   --shuffle blocks (neighbouring samples in one GET)
    s3-cache, https-cache feedrate bench --epochs 2 --cache-dir (fresh each round): epoch 2
                          reads the samples stored in epoch 1 from the local disk
  --s3-batches N bounds s3-full and s3-blocks to their first N batches (moto answers a ranged GET
  in time that grows with the object's size, see docs/benchmarks.md): their rate is then over
  those batches.
    wds-https             webdataset (1.x) over `pipe:curl` https shards + torch DataLoader
    s3tc-s3               s3torchconnector's S3IterableDataset over the moto endpoint,
                          streaming each tar shard + torch DataLoader

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
import contextlib
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent.parent
BUCKET = "bench"
PREFIX = "shards/"
CROP = 224
BATCH = 64
WORKERS = 2
CONTENDERS = ["curl-s3", "curl-https", "local", "s3-full", "s3-blocks", "https-full",
              "https-blocks", "s3-cache", "https-cache", "wds-https", "s3tc-s3"]
OTHER_BENCH = ("compare_", "feedrate bench", "feedrate tune")


# ----------------------------------------------------------------------------- peers (child)

def peer_transform():
    import torchvision.transforms as T
    return T.Compose([T.RandomResizedCrop(CROP), T.RandomHorizontalFlip(), T.PILToTensor()])


def decode(data, transform):
    import io
    from PIL import Image
    with Image.open(io.BytesIO(data)) as im:
        return transform(im.convert("RGB"))


def wds_dataset(spec, transform):
    import webdataset as wds
    urls = [f"pipe:curl -s --fail --cacert {spec['ca_file']} {u}" for u in spec["urls"]]

    def sample(s):
        key = next(k for k in s if k.endswith(("jpg", "jpeg")))
        return decode(s[key], transform), len(s[key])

    return (wds.WebDataset(urls, shardshuffle=len(urls), empty_check=False)
            .shuffle(1000).map(sample))


def s3tc_dataset(spec, transform):
    import tarfile
    import torch.utils.data
    from s3torchconnector import S3ClientConfig, S3IterableDataset

    class TarSamples(torch.utils.data.IterableDataset):
        def __iter__(self):
            shards = S3IterableDataset.from_prefix(
                spec["uri"], region=spec["region"], endpoint=spec["endpoint"],
                s3client_config=S3ClientConfig(force_path_style=True), enable_sharding=True)
            for reader in shards:
                with tarfile.open(fileobj=reader, mode="r|") as tar:
                    for member in tar:
                        if member.isfile() and member.name.endswith((".jpg", ".jpeg")):
                            data = tar.extractfile(member).read()
                            yield decode(data, transform), len(data)

    return TarSamples()


def peer_child(kind, spec):
    import torch.utils.data
    transform = peer_transform()
    dataset = wds_dataset(spec, transform) if kind == "wds" else s3tc_dataset(spec, transform)
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, num_workers=WORKERS)
    images = nbytes = 0
    capped = False
    start = time.monotonic()
    for batch, sizes in loader:
        images += batch.shape[0]
        nbytes += int(sizes.sum())
        if time.monotonic() - start > spec["cap_s"]:
            capped = True
            break
    seconds = time.monotonic() - start
    print(json.dumps({"images": images, "bytes": nbytes, "seconds": seconds, "capped": capped}))


# ----------------------------------------------------------------------------- parent

def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


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
    r = sh([feedrate, "make-dataset", data, "--count", str(count), "--format", "tar",
            "--images-per-shard", str(per_shard)])
    if r.returncode != 0:
        sys.exit(f"make-dataset failed:\n{r.stdout}{r.stderr}")
    marker.write_text(json.dumps({"count": count, "per_shard": per_shard}))


def shard_names(data):
    return sorted(p.relative_to(data).as_posix() for p in data.rglob("*.tar"))


def brace(names):
    """shard_{000000..000005}.tar for consecutive names, as feedrate's sources take them."""
    stem, ext = names[0].rsplit("_", 1)[0], ".tar"
    digits = [n[len(stem) + 1:-len(ext)] for n in names]
    return f"{stem}_{{{digits[0]}..{digits[-1]}}}{ext}"


class Bench:
    def __init__(self, args, ep, data, names, tmp):
        self.args, self.ep, self.data, self.names, self.tmp = args, ep, data, names, tmp
        self.count = args.count
        self.total_bytes = sum((data / n).stat().st_size for n in names)
        self.env = {**os.environ, "AWS_ENDPOINT_URL": ep["s3"], "AWS_ACCESS_KEY_ID":
                    ep["access_key"], "AWS_SECRET_ACCESS_KEY": ep["secret_key"],
                    "AWS_REGION": ep["region"], "AWS_CA_BUNDLE": ep["ca_file"]}
        for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
            self.env.pop(k, None)
        self.s3_source = f"s3://{BUCKET}/{PREFIX}{brace(names)}"
        self.https_source = f"{ep['https']}/{brace(names)}"

    def curl(self, kind):
        procs = []
        start = time.monotonic()
        pending = list(self.names)
        sizes, failed = 0, 0
        while pending or procs:
            while pending and len(procs) < self.args.curl_parallel:
                n = pending.pop(0)
                if kind == "s3":
                    cmd = ["curl", "-s", "--fail", "-o", "/dev/null", "-w", "%{size_download}",
                           "--aws-sigv4", f"aws:amz:{self.ep['region']}:s3", "--user",
                           f"{self.ep['access_key']}:{self.ep['secret_key']}", "-H",
                           "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                           f"{self.ep['s3']}/{BUCKET}/{PREFIX}{n}"]
                else:
                    cmd = ["curl", "-s", "--fail", "-o", "/dev/null", "-w", "%{size_download}",
                           "--cacert", self.ep["ca_file"], f"{self.ep['https']}/{n}"]
                procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
            p = procs.pop(0)
            try:
                out, _ = p.communicate(timeout=max(1, self.args.cap_s - (time.monotonic() - start)))
            except subprocess.TimeoutExpired:
                for q in [p] + procs:
                    q.kill()
                    q.wait()
                return {"error": f"capped at {self.args.cap_s} s"}
            if p.returncode != 0:
                failed += 1
            sizes += int(out or 0)
        seconds = time.monotonic() - start
        if failed or sizes != self.total_bytes:
            return {"error": f"{failed} curl(s) failed, {sizes} of {self.total_bytes} bytes"}
        return {"images_per_s": self.count / seconds, "mb_per_s": sizes / 1e6 / seconds,
                "seconds": seconds}

    def feedrate(self, source, extra, epoch=0):
        cmd = [self.args.feedrate, "bench", source, "--workers", str(WORKERS), "--transform",
               "train", "--batch", str(BATCH), "--json", "--no-pack-probe"] + extra
        try:
            r = sh(cmd, env=self.env, timeout=self.args.cap_s * (2 if epoch else 1))
        except subprocess.TimeoutExpired:
            return {"error": f"capped at {self.args.cap_s} s per epoch", "command": cmd}
        if r.returncode != 0:
            return {"error": (r.stderr or r.stdout)[-800:], "command": cmd}
        j = json.loads(r.stdout[r.stdout.index("{"):])
        e = j["epochs"][epoch]
        store = j["stages"].get("store")
        out = {"images_per_s": e["images_per_s"], "mb_per_s": e["mb_per_s"],
               "seconds": e["seconds"], "images": e["images"],
               "bottleneck": j["verdict"]["bottleneck"], "summary": j["verdict"]["summary"],
               "advice": [a["text"] for a in j["verdict"]["advice"]
                          if a["kind"].startswith("io.store") or a["kind"] == "io.cache_dir"],
               "read_busy_s": j["stages"].get("read", {}).get("busy_s"),
               "decode_utilization": j["stages"].get("decode", {}).get("utilization"),
               "command": " ".join(map(str, cmd))}
        if store:
            out["store"] = {k: store[k] for k in (
                "requests", "average_in_flight", "max_in_flight", "first_byte_p50_ms",
                "first_byte_p99_ms", "bytes_per_s", "bytes_per_s_per_connection", "retries")}
        if epoch:
            out["epoch1_images_per_s"] = j["epochs"][0]["images_per_s"]
            out["cache_hits"] = e.get("cache_hits")
        return out

    def peer(self, kind):
        py = self.args.peers_python
        if not py or not Path(py).exists():
            return {"error": f"no peers python ({py})"}
        if kind == "wds":
            spec = {"urls": [f"{self.ep['https']}/{n}" for n in self.names],
                    "ca_file": self.ep["ca_file"]}
        else:
            spec = {"uri": f"s3://{BUCKET}/{PREFIX}", "region": self.ep["region"],
                    "endpoint": self.ep["s3"]}
        spec["cap_s"] = self.args.peer_cap_s
        cmd = [py, __file__, "--peer-child", kind, "--spec", json.dumps(spec)]
        try:
            r = sh(cmd, env=self.env, timeout=self.args.peer_cap_s + 90)
        except subprocess.TimeoutExpired:
            return {"error": f"capped at {self.args.peer_cap_s} s"}
        if r.returncode != 0:
            return {"error": r.stderr[-800:]}
        j = json.loads(r.stdout.strip().splitlines()[-1])
        if j["images"] != self.count and not j["capped"]:
            return {"error": f"{j['images']} of {self.count} images"}
        return {"images_per_s": j["images"] / j["seconds"],
                "mb_per_s": j["bytes"] / 1e6 / j["seconds"], "seconds": j["seconds"],
                "capped": j["capped"], "images": j["images"]}

    def run(self, name):
        if name == "curl-s3":
            return self.curl("s3")
        if name == "curl-https":
            return self.curl("https")
        if name == "local":
            return self.feedrate(str(self.data), [])
        if name in ("s3-full", "s3-blocks", "https-full", "https-blocks"):
            s3 = name.startswith("s3")
            extra = ["--shuffle", "blocks"] if name.endswith("blocks") else []
            if s3 and self.args.s3_batches:
                extra += ["--batches", str(self.args.s3_batches)]
            return self.feedrate(self.s3_source if s3 else self.https_source, extra)
        if name in ("s3-cache", "https-cache"):
            cache = Path(tempfile.mkdtemp(prefix="cache-", dir=self.tmp))
            src = self.s3_source if name.startswith("s3") else self.https_source
            try:
                return self.feedrate(src, ["--epochs", "2", "--cache-dir", str(cache)], epoch=1)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        if name == "wds-https":
            return self.peer("wds")
        if name == "s3tc-s3":
            return self.peer("s3tc")
        raise ValueError(name)


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
    for src in ("s3", "https"):
        if link_bound:
            add(f"{src}-blocks >= 0.9x curl-{src} (link-bound)", f"{src}-blocks", f"curl-{src}", 0.9)
        else:
            add(f"{src}-blocks >= 0.9x local (not link-bound)", f"{src}-blocks", "local", 0.9)
        add(f"{src}-full (per-sample GETs) >= 0.8x curl-{src}", f"{src}-full", f"curl-{src}", 0.8)
    add("s3-cache epoch 2 >= 0.95x local", "s3-cache", "local", 0.95)
    add("https-cache epoch 2 >= 0.95x local", "https-cache", "local", 0.95)
    for fr in ("s3-full", "s3-blocks", "https-full", "https-blocks"):
        for peer in ("wds-https", "s3tc-s3"):
            add(f"{fr} ahead of {peer}", fr, peer, 1.0)
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
    ap.add_argument("--only", default=",".join(CONTENDERS))
    ap.add_argument("--peers-python", default="/work/remote-peers-venv/bin/python")
    ap.add_argument("--remote-python", default=str(REPO / "build/remote-venv/bin/python"))
    ap.add_argument("--json", type=Path, help="write every run and the summary here")
    ap.add_argument("--peer-child", choices=["wds", "s3tc"], help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peer_child:
        return peer_child(args.peer_child, json.loads(args.spec))

    # A SIGTERM (a timeout, a kill) unwinds through the finally that stops the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, str(REPO / "tests/remote"))
    from servers import Servers  # noqa: E402

    contenders = [c for c in args.only.split(",") if c]
    for c in contenders:
        if c not in CONTENDERS:
            ap.error(f"unknown contender {c} (of {', '.join(CONTENDERS)})")
    links = [s.strip() for s in args.links.split(";") if s.strip()]
    bound = [b == "1" for b in args.link_bound.split(",")] + [False] * len(links)
    env = environment(args)
    print(json.dumps(env), flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    data = args.work / "data"
    make_dataset(args.feedrate, data, args.count, args.images_per_shard)
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
        servers = Servers(state, s3=True, nginx=True, netem=link, data=data, bucket=BUCKET,
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
                 "s3_source": b.s3_source, "https_source": b.https_source,
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
