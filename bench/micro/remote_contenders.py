"""The contenders of compare_remote.py, each run once by Bench.run(name): curl's whole objects
(the link's limit), `feedrate bench` on the local disk and on the s3:// and https:// sources, and
the peers (webdataset, s3torchconnector), which run as compare_remote.py's hidden --peer-child
under the peers' interpreter and print one JSON line (peer_child). compare_remote.py's docstring
says what each contender measures; this module imports only the standard library at the top, so
the peers' interpreter can load it.
"""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().with_name("compare_remote.py")  # the peers' child runs it
BUCKET = "bench"
PREFIX = "shards/"
CROP = 224
BATCH = 64
WORKERS = 2
CONTENDERS = ["curl-s3", "curl-https", "curl-s3static", "local", "local-loaded", "s3-full",
              "s3-blocks", "s3static-full", "s3static-blocks", "https-full", "https-blocks",
              "https-blocks-steady", "s3-cache", "s3static-cache", "https-cache", "wds-https",
              "s3tc-s3", "s3tc-s3static"]
# A feedrate contender's name + FIELDS_SUFFIX ("s3static-full+fields") runs it with FIELD_ARGS:
# each sample's caption and metadata (the .txt and .json members compare_remote.py adds to
# every key) read with its image, against the same contender reading images and classes only.
FIELDS_SUFFIX = "+fields"
FIELD_ARGS = ("--fields", "cls,txt,json")
FIELD_CONTENDERS = ("local", "s3-full", "s3-blocks", "s3static-full", "s3static-blocks",
                    "https-full", "https-blocks", "s3-cache", "s3static-cache", "https-cache")
# The contenders that read moto's S3 server (the others need only nginx).
MOTO = ("curl-s3", "s3-full", "s3-blocks", "s3-cache", "s3tc-s3")
# The static S3 endpoint checks no signature: any key signs.
STATIC_KEYS = {"access_key": "AKIAFEEDRATEBENCH000", "secret_key": "bench-secret-not-checked"}


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


# ----------------------------------------------------------------------------- contenders

def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def bench_command(feedrate, source, extra=()):
    """`feedrate bench SOURCE` as every feedrate contender runs it, then `extra`."""
    return [str(feedrate), "bench", source, "--workers", str(WORKERS), "--transform", "train",
            "--batch", str(BATCH), "--json", "--no-pack-probe", *extra]


def store_env(url, access_key, secret_key, region, ca_file=None):
    """The environment of a process that reads the S3 endpoint `url` with these keys."""
    env = {**os.environ, "AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": access_key,
           "AWS_SECRET_ACCESS_KEY": secret_key, "AWS_REGION": region}
    if ca_file:
        env["AWS_CA_BUNDLE"] = ca_file
    for k in ("AWS_DEFAULT_PROFILE", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        env.pop(k, None)
    return env


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
        self.region = ep.get("region", "us-east-1")
        self.stores = {"s3static": dict(STATIC_KEYS, url=ep["s3_static"])}
        if "s3" in ep:
            self.stores["s3"] = {"url": ep["s3"], "access_key": ep["access_key"],
                                 "secret_key": ep["secret_key"]}
        self.env = self.store_env("s3" if "s3" in ep else "s3static")
        self.s3_source = f"s3://{BUCKET}/{PREFIX}{brace(names)}"
        self.https_source = f"{ep['https']}/{brace(names)}"

    def store_env(self, store):
        """The environment of a contender that reads `store` ("s3": moto, "s3static": nginx)."""
        st = self.stores[store]
        return store_env(st["url"], st["access_key"], st["secret_key"], self.region,
                         self.ep["ca_file"])

    def curl(self, kind):
        procs = []
        start = time.monotonic()
        pending = list(self.names)
        sizes, failed = 0, 0
        while pending or procs:
            while pending and len(procs) < self.args.curl_parallel:
                n = pending.pop(0)
                if kind in self.stores:
                    st = self.stores[kind]
                    cmd = ["curl", "-s", "--fail", "-o", "/dev/null", "-w", "%{size_download}",
                           "--aws-sigv4", f"aws:amz:{self.region}:s3", "--user",
                           f"{st['access_key']}:{st['secret_key']}", "-H",
                           "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                           f"{st['url']}/{BUCKET}/{PREFIX}{n}"]
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

    def local_loaded(self):
        """`local` while curl pulls the shards from the static S3 endpoint at --load-mb-s in all
        (into /dev/null), so that the server side (the relay, nginx) takes the cores it takes
        while feedrate reads a remote source at that rate."""
        st = self.stores["s3static"]
        each = max(1, int(self.args.load_mb_s * 1e6 / len(self.names)))
        # Each shard three times over, so that the pulls outlast the epoch.
        pulls = [subprocess.Popen(["curl", "-s", "--limit-rate", str(each)]
                                  + ["-o", "/dev/null", f"{st['url']}/{BUCKET}/{PREFIX}{n}"] * 3)
                 for n in self.names]
        try:
            time.sleep(1.0)  # the pulls at their rate before the epoch starts
            running = sum(p.poll() is None for p in pulls)
            out = self.feedrate(str(self.data), [])
            if any(p.poll() is not None for p in pulls) or running != len(pulls):
                return {"error": "a pull ended before the epoch did (raise the shards' size or "
                                 "lower --load-mb-s)"}
            out["load_mb_s"] = self.args.load_mb_s
            return out
        finally:
            for p in pulls:
                p.kill()
                p.wait()

    def feedrate(self, source, extra, epoch=0, epochs=1, store="s3"):
        """One process's run; the figures of its epoch `epoch`, or with epochs > 2 (and epoch 0)
        the medians of its epochs after the second, whole epochs each: a loader reads ahead into
        the next epoch from its second epoch on."""
        cmd = bench_command(self.args.feedrate, source, [*extra, *self.field_args])
        if epochs > 1:
            cmd += ["--epochs", str(epochs)]
        try:
            r = sh(cmd, env=self.store_env(store) if store in self.stores else self.env,
                   timeout=self.args.cap_s * max(epochs, epoch + 1))
        except subprocess.TimeoutExpired:
            return {"error": f"capped at {self.args.cap_s} s per epoch", "command": cmd}
        if r.returncode != 0:
            return {"error": (r.stderr or r.stdout)[-800:], "command": cmd}
        j = json.loads(r.stdout[r.stdout.index("{"):])
        e = j["epochs"][epoch]
        if epochs > 2:
            later = j["epochs"][2:]
            e = dict(later[-1], **{k: statistics.median(x[k] for x in later)
                                   for k in ("images_per_s", "mb_per_s", "seconds")})
        store = j["stages"].get("store")
        out = {"images_per_s": e["images_per_s"], "mb_per_s": e["mb_per_s"],
               "seconds": e["seconds"], "images": e["images"],
               "bottleneck": j["verdict"]["bottleneck"], "summary": j["verdict"]["summary"],
               "advice": [a["text"] for a in j["verdict"]["advice"]
                          if a["kind"].startswith("io.store") or a["kind"] == "io.cache_dir"],
               "capacities": {k: {"images_per_s": j["capacities"][k]["images_per_s"],
                                  "basis": j["capacities"][k]["basis"]} for k in ("io", "cpu")},
               "read_busy_s": j["stages"].get("read", {}).get("busy_s"),
               "decode_utilization": j["stages"].get("decode", {}).get("utilization"),
               "command": " ".join(map(str, cmd))}
        if store:
            out["store"] = {k: store[k] for k in (
                "requests", "average_in_flight", "max_in_flight", "first_byte_p50_ms",
                "first_byte_p99_ms", "bytes_per_s", "bytes_per_s_per_connection", "retries",
                "by_in_flight")}
        if epoch or epochs > 1:
            out["epoch1_images_per_s"] = j["epochs"][0]["images_per_s"]
        if epochs > 1:
            out["epochs_images_per_s"] = [x["images_per_s"] for x in j["epochs"]]
            out["cache_hits"] = e.get("cache_hits")
        return out

    def peer(self, kind, store="s3"):
        py = self.args.peers_python
        if not py or not Path(py).exists():
            return {"error": f"no peers python ({py})"}
        if kind == "wds":
            spec = {"urls": [f"{self.ep['https']}/{n}" for n in self.names],
                    "ca_file": self.ep["ca_file"]}
        else:
            spec = {"uri": f"s3://{BUCKET}/{PREFIX}", "region": self.region,
                    "endpoint": self.stores[store]["url"]}
        spec["cap_s"] = self.args.peer_cap_s
        cmd = [py, str(SCRIPT), "--peer-child", kind, "--spec", json.dumps(spec)]
        env = self.store_env(store) if kind == "s3tc" else self.env
        try:
            r = sh(cmd, env=env, timeout=self.args.peer_cap_s + 90)
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

    field_args = ()

    def run(self, name):
        if name.endswith(FIELDS_SUFFIX):
            self.field_args = FIELD_ARGS
            try:
                return self.run(name[:-len(FIELDS_SUFFIX)])
            finally:
                self.field_args = ()
        if name == "curl-s3":
            return self.curl("s3")
        if name == "curl-https":
            return self.curl("https")
        if name == "curl-s3static":
            return self.curl("s3static")
        if name == "local":
            return self.feedrate(str(self.data), [])
        if name == "local-loaded":
            return self.local_loaded()
        if name in ("s3-full", "s3-blocks", "s3static-full", "s3static-blocks", "https-full",
                    "https-blocks"):
            store = name.split("-")[0]
            extra = ["--shuffle", "blocks"] if name.endswith("blocks") else []
            if store == "s3" and self.args.s3_batches:
                extra += ["--batches", str(self.args.s3_batches)]
            source = self.https_source if store == "https" else self.s3_source
            return self.feedrate(source, extra, store=store)
        if name == "https-blocks-steady":
            return self.feedrate(self.https_source, ["--shuffle", "blocks"],
                                 epochs=self.args.steady_epochs)
        if name in ("s3-cache", "s3static-cache", "https-cache"):
            cache = Path(tempfile.mkdtemp(prefix="cache-", dir=self.tmp))
            store = name.split("-")[0]
            src = self.https_source if store == "https" else self.s3_source
            try:
                return self.feedrate(src, ["--epochs", "2", "--cache-dir", str(cache)], epoch=1,
                                     store=store)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        if name == "wds-https":
            return self.peer("wds")
        if name in ("s3tc-s3", "s3tc-s3static"):
            return self.peer("s3tc", store=name.split("-")[1])
        raise ValueError(name)
