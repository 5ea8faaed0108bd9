"""Real servers for feedrate's s3:// and https:// source tests, started and stopped by the tests.

Starts, on 127.0.0.1 (or behind an emulated slow link, see --netem), any of:
  * moto's S3 server (PyPI moto[server], run from a venv), with a bucket holding a local
    directory tree under a prefix;
  * nginx (Debian nginx-light) serving a directory over HTTP and HTTPS (self-signed CA made by
    openssl; byte ranges are nginx's default), and, on its HTTP port, the same files as S3's
    path-style GET and HEAD of /BUCKET/PREFIX+KEY without checking the signature ("s3_static":
    an S3 endpoint at a static server's speed, for benchmarks: moto reads a whole object for
    every ranged GET);
  * tests/remote/fault_proxy.py in front of moto or nginx, whose faults (503 SlowDown, 500, 429,
    403, 404, connection resets, short bodies, delays and mid-body stalls) are set at run time
    (see its docstring).

Nothing is written outside the state dir (config, pid files, logs, temp paths, certificates).
Python 3.11 stdlib only; boto3 runs in a subprocess under the venv's python.

Setup (once; as root installs nginx-light iproute2 openssl curl, makes build/remote-venv):

    make test-remote-deps

CLI (exit 0: up; 1: something could not start, nothing left running; 77: unavailable here,
e.g. --netem when not root or without ip/tc; 2: bad arguments):

    python3 tests/remote/servers.py up --state DIR [--s3 [--auth]] [--nginx] [--proxy s3|http]
        [--netem "delay=50ms,rate=200mbit,loss=0%"] [--data DIR --bucket NAME --prefix P]
        [--python VENV_PYTHON] [--ttl SECONDS] [--start-timeout SECONDS]
    python3 tests/remote/servers.py down --state DIR      # idempotent; also cleans stale netns
    python3 tests/remote/servers.py cleanup               # only the stale netns/veth cleanup

`up` returns once everything answers, leaving the servers running in their own sessions (stdin
/dev/null, output in DIR/logs/), and writes DIR/endpoints.json, e.g.

    {"s3": "http://127.0.0.1:40123", "bucket": "feedrate-test", "prefix": "data/",
     "objects": 12, "region": "us-east-1", "access_key": "AKIA...", "secret_key": "...",
     "role_arn": "arn:aws:iam::123456789012:role/feedrate-reader", "auth": true, "http": "http://127.0.0.1:40125", "https": "https://127.0.0.1:40127",
     "s3_static": "http://127.0.0.1:40125",
     "ca_file": "DIR/tls/ca.pem", "proxy": "http://127.0.0.1:40129", "proxy_upstream": "s3",
     "proxy_control": "http://127.0.0.1:40129", "state": "DIR", "data": "/abs/data",
     "netem": null}

Keys appear only for what was started. "proxy_control" is the base URL of the proxy's control
endpoint (POST/DELETE {proxy_control}/__faults, GET {proxy_control}/__log). With --netem the URLs
name the namespace's veth address instead of 127.0.0.1, and "netem" is
    {"namespace": "frh1234", "mode": "netem" | "relay", "host_addr": "10.213.x.1",
     "ns_addr": "10.213.x.2", "delay_ms": 50.0, "rate": "200mbit", "loss": "0%",
     "veth": "frh1234a"}.

`down` stops every process it started (SIGTERM to each process group, SIGKILL after 5 s; a pid is
only signalled while its start time still matches the one recorded), deletes the namespace and
the veth, and removes endpoints.json (logs stay). Every `up` also starts a watchdog process that
runs `down` by itself after --ttl seconds (default 3600), and, for the Python context manager,
as soon as the owning (pytest) process is gone: servers never outlive a crashed test run by long.

Python (pytest fixtures; see conftest.py):

    from servers import Servers
    with Servers(state_dir, s3=True, auth=True, nginx=True, proxy="s3", data=tree,
                 bucket="b", prefix="p/", netem=None) as s:
        s.endpoints["s3"], s.endpoints["secret_key"], s.set_faults([...]), s.log()

ctest (the lead wires CMake; the venv comes from `make test-remote-deps`, FIXTURES_SETUP runs
before every test that REQUIRES the fixture and FIXTURES_CLEANUP after the last):

    set(FEEDRATE_REMOTE_STATE ${CMAKE_BINARY_DIR}/remote-state)
    add_test(NAME remote.up COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/remote/servers.py up
             --state ${FEEDRATE_REMOTE_STATE} --s3 --auth --nginx --proxy s3
             --data ${PROJECT_SOURCE_DIR}/tests/remote/testdata --bucket feedrate-test
             --prefix shards/ --python ${CMAKE_BINARY_DIR}/remote-venv/bin/python)
    add_test(NAME remote.down COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/remote/servers.py down
             --state ${FEEDRATE_REMOTE_STATE})
    set_tests_properties(remote.up PROPERTIES FIXTURES_SETUP remote SKIP_RETURN_CODE 77
                         TIMEOUT 60)
    set_tests_properties(remote.down PROPERTIES FIXTURES_CLEANUP remote TIMEOUT 30)
    gtest_discover_tests(remote_test TEST_PREFIX remote_test.
        PROPERTIES FIXTURES_REQUIRED remote RESOURCE_LOCK remote
                   ENVIRONMENT FEEDRATE_REMOTE_ENDPOINTS=${FEEDRATE_REMOTE_STATE}/endpoints.json)

(The data dir there is illustrative: any directory works, or none for an empty bucket.) A gtest
suite reads the JSON named by $FEEDRATE_REMOTE_ENDPOINTS and GTEST_SKIP()s when it is unset or
the file is missing. Checked with CMake 3.25 on a stand-alone project: when `remote.up` fails
(exit 1) the tests requiring the fixture are "Not Run" (counted as failures) and `remote.down`
still runs; when it is skipped (77, only possible with --netem) ctest DOES run them, so the
GTEST_SKIP on a missing file is what skips them. `up` under ctest took 3 s on an idle machine and
8 s at load 12 on 2 cores (moto ~1.4 s, nginx with certificate ~1.1 s, proxy ~0.2 s idle);
`down` about 0.6-1.7 s. Tests that set proxy faults share one proxy: keep them under
RESOURCE_LOCK remote (serial) and DELETE /__faults in SetUp. With --netem, a second fixture with
its own --state dir (e.g. remote-netem) keeps the slow link away from the other tests.

moto's auth mode (--auth / auth=True): works. moto checks nothing by default; `up` starts it
unchecked, creates IAM user "feedrate" with an inline policy allowing s3:* and an access key,
creates the bucket and uploads with that key, then POSTs "0" to moto's /moto-api/reset-auth
(the run-time form of INITIAL_NO_AUTH_ACTION_COUNT): from then on every request must carry a
valid SigV4 signature by a known key. It also creates role "feedrate-reader" (role_arn; s3:*),
which the user may assume (moto's STS on the same port: AssumeRole, AssumeRoleWithWebIdentity),
and whose temporary credentials moto's S3 accepts with their x-amz-security-token; role_arn is
empty without --auth. A wrong secret answers 403 SignatureDoesNotMatch, an
unknown key 403 InvalidAccessKeyId, an unsigned request 403 (checked against curl
--aws-sigv4, the signing code libcurl's CURLOPT_AWS_SIGV4 uses, in test_harness.py). Without
--auth, any signed request is accepted and endpoints.json reports "testing"/"testing".
A client MUST send `x-amz-content-sha256` (the payload's hex SHA-256, or UNSIGNED-PAYLOAD): real
S3 requires it for SigV4, and libcurl 7.88 (Debian 12) does not add it by itself but, given it as
a header, signs it and uses its value as the payload hash. Without it moto (5.2) hashes the
wrong payload for a body-less request and answers 403 SignatureDoesNotMatch even to a correct
signature. moto's S3 also wants a Content-Type other than application/x-www-form-urlencoded
(curl's default for a body) on PUT, or it stores the object empty.

--netem SPEC: comma-separated delay=<N>ms|<N>s (default 0), rate=<N>[k|m|g]bit (default none),
loss=<P>% (default 0%), mode=auto|netem|relay (default auto). It needs root and `ip`/`tc`
(otherwise exit 77). `up` makes namespace frh<watchdog pid>, a veth pair frh<pid>a (root
namespace, 10.213.x.1/30) and frh<pid>b (namespace, 10.213.x.2/30; a /30 inside 10.213.0.0/16
chosen from the pid and not overlapping any address of the machine), and starts EVERY requested
server inside the namespace, so the client in the root namespace reaches them only through the
link. `delay` is the added ROUND-TRIP time: each end's qdisc delays by delay/2, so a request/
response exchange takes `delay` longer, and a fresh connection's time to first byte about
2 x delay longer (handshake + request). `rate` and `loss` apply to each direction.
  mode=netem: `tc qdisc add dev <end> root netem delay <delay/2> [rate R] [loss L]` on both ends.
  mode=relay: for kernels without sch_netem (such as the 2-core CI machines of this project:
    "Specified qdisc kind is unknown"): `rate` by a tbf qdisc on both ends, `delay` by a
    userspace TCP relay inside the namespace (listening on the veth address, holding every chunk
    delay/2 in each direction before passing it on to the server on the namespace's 127.0.0.1,
    and a new connection's first request bytes until 1.5 x delay after its accept, so a fresh
    connection's time to first byte also grows by about 2 x delay; connect() itself returns at
    once, so curl's time_connect stays ~0). loss is not possible there (loss > 0 exits 77).
    Measured here (relay, delay=80ms): time to first byte 81 ms on a kept-alive connection,
    165 ms on a fresh one, against < 1 ms on 127.0.0.1; rate=200mbit gave 181 Mbit/s for 50 MB,
    and the relay alone (delay=2ms, no rate) 875 Mbit/s. What relay mode does NOT emulate: the
    TCP connections on both sides of the relay see a ~0 ms RTT, so window/slow-start effects of a
    long fat link (throughput capped by window / RTT) are absent; packets are not lost.
  auto: netem when the kernel has it, else relay; endpoints.json says which was used.
Stale namespaces (name frh<pid> whose watchdog pid is gone) and their veths are deleted by every
`up`, `down` and `cleanup`.
"""

import argparse
import contextlib
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EXIT_UNAVAILABLE = 77
REGION = "us-east-1"
NS_PREFIX = "frh"
NS_RE = re.compile(r"^frh(\d+)$")
NS_PORTS = {"s3": 9000, "http": 8080, "https": 8443, "proxy": 8081}
NET_BASE = ipaddress.ip_network("10.213.0.0/16")


class HarnessError(RuntimeError):
    """Something could not start; the message names it."""


class Unavailable(HarnessError):
    """Not possible on this machine (exit code 77)."""


def default_python():
    return os.environ.get("FEEDRATE_REMOTE_PYTHON") or str(REPO / "build/remote-venv/bin/python")


# ----------------------------------------------------------------------------- processes

def proc_start_time(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def proc_alive(pid, start_time=None):
    st = proc_start_time(pid)
    if st is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
    except OSError:
        return False
    return start_time is None or st == start_time


# botocore (moto's server, boto3 in _s3_setup) looks up the profile the environment names
# (AWS_DEFAULT_PROFILE, then AWS_PROFILE) even where the keys are given, and fails on one this
# machine lacks: the servers run without them.
PROFILE_VARIABLES = ("AWS_DEFAULT_PROFILE", "AWS_PROFILE")


def server_env(extra=None):
    """This process's environment without PROFILE_VARIABLES, plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in PROFILE_VARIABLES}
    env.update(extra or {})
    return env


def run(cmd, check=True, timeout=30, **kw):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise HarnessError(f"`{' '.join(map(str, cmd))}` failed ({r.returncode}): "
                           f"{(r.stderr or r.stdout).strip()}")
    return r


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def log_tail(path, n=15):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def json_write(path, obj):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2) + "\n")
    os.replace(tmp, path)


def json_read(path, default=None):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return default


def http_status(url, timeout=2.0, ca_file=None, method="GET", data=None):
    """The HTTP status a URL answers with (errors count: they are answers), or None."""
    ctx = ssl.create_default_context(cafile=ca_file) if url.startswith("https") else None
    req = urllib.request.Request(url, method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return None


# ----------------------------------------------------------------------------- netem

def parse_netem(spec):
    out = {"delay_ms": 0.0, "rate": None, "loss": "0%", "mode": "auto"}
    for item in filter(None, (p.strip() for p in spec.split(","))):
        key, sep, val = item.partition("=")
        key, val = key.strip().lower(), val.strip().lower()
        if not sep:
            raise ValueError(f"--netem: '{item}' is not key=value")
        if key == "delay":
            m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|us)?", val)
            if not m:
                raise ValueError(f"--netem: delay '{val}' (want e.g. 50ms)")
            out["delay_ms"] = float(m[1]) * {"ms": 1, None: 1, "s": 1000, "us": 0.001}[m[2]]
        elif key == "rate":
            if not re.fullmatch(r"\d+(\.\d+)?(bit|kbit|mbit|gbit)", val):
                raise ValueError(f"--netem: rate '{val}' (want e.g. 200mbit)")
            out["rate"] = val
        elif key == "loss":
            if not re.fullmatch(r"\d+(\.\d+)?%", val):
                raise ValueError(f"--netem: loss '{val}' (want e.g. 0.1%)")
            out["loss"] = val
        elif key == "mode":
            if val not in ("auto", "netem", "relay"):
                raise ValueError("--netem: mode is auto, netem or relay")
            out["mode"] = val
        else:
            raise ValueError(f"--netem: unknown key '{key}' (delay, rate, loss, mode)")
    return out


def rate_bytes_per_s(rate):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)", rate)
    return float(m[1]) * {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m[2]] / 8


def netem_prereqs():
    if os.geteuid() != 0:
        raise Unavailable("--netem needs root (network namespaces, veth, tc)")
    for tool in ("ip", "tc"):
        if not shutil.which(tool):
            raise Unavailable(f"--netem needs `{tool}` (Debian package iproute2)")
    r = run(["ip", "netns", "list"], check=False)
    if r.returncode != 0:
        raise Unavailable(f"`ip netns` does not work here: {r.stderr.strip()}")


def used_networks():
    nets = []
    r = run(["ip", "-o", "addr", "show"], check=False)
    for m in re.finditer(r"\binet6?\s+(\S+)", r.stdout):
        with contextlib.suppress(ValueError):
            nets.append(ipaddress.ip_interface(m[1]).network)
    return nets


def choose_subnet(pid):
    used = used_networks()
    count = NET_BASE.num_addresses // 4
    for i in range(count):
        idx = (pid + i) % count
        net = ipaddress.ip_network((int(NET_BASE.network_address) + 4 * idx, 30))
        if not any(net.overlaps(u) for u in used if u.version == 4):
            return net
    raise HarnessError("no free /30 in 10.213.0.0/16")


def link_exists(name):
    return run(["ip", "link", "show", name], check=False).returncode == 0


def delete_namespace(ns, veth=None):
    """Kill what runs in ns, delete it and the veth; quiet when already gone."""
    names = run(["ip", "netns", "list"], check=False).stdout.split()
    if ns in names:
        pids = [int(p) for p in run(["ip", "netns", "pids", ns], check=False).stdout.split()]
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for p in pids:
                with contextlib.suppress(OSError):
                    os.kill(p, sig)
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and any(proc_alive(p) for p in pids):
                time.sleep(0.05)
        run(["ip", "netns", "del", ns], check=False)
    veth = veth or ns + "a"
    if link_exists(veth):
        run(["ip", "link", "del", veth], check=False)


def is_watchdog(pid):
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"_watchdog" in cmd and any(c.endswith(b"servers.py") for c in cmd)


def cleanup_stale():
    """Delete harness namespaces (and their veths) whose watchdog is dead. Returns the names."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        return []
    gone = []
    for ns in run(["ip", "netns", "list"], check=False).stdout.split():
        m = NS_RE.match(ns)
        if m and not is_watchdog(int(m[1])):
            delete_namespace(ns)
            gone.append(ns)
    out = run(["ip", "-o", "link", "show"], check=False).stdout
    for m in re.finditer(r"^\d+:\s+(frh(\d+)a)[@:]", out, re.M):
        if not is_watchdog(int(m[2])):
            run(["ip", "link", "del", m[1]], check=False)
            gone.append(m[1])
    return gone


class Netns:
    def __init__(self, pid, spec):
        self.name = f"{NS_PREFIX}{pid}"
        self.veth_a, self.veth_b = self.name + "a", self.name + "b"
        self.spec = spec
        net = choose_subnet(pid)
        hosts = list(net.hosts())
        self.host_addr, self.ns_addr, self.prefixlen = str(hosts[0]), str(hosts[1]), net.prefixlen
        self.mode = None

    def exec_prefix(self):
        return ["ip", "netns", "exec", self.name]

    def create(self):
        run(["ip", "netns", "add", self.name])
        run(["ip", "link", "add", self.veth_a, "type", "veth", "peer", "name", self.veth_b])
        run(["ip", "link", "set", self.veth_b, "netns", self.name])
        run(["ip", "addr", "add", f"{self.host_addr}/{self.prefixlen}", "dev", self.veth_a])
        run(["ip", "link", "set", self.veth_a, "up"])
        n = ["ip", "-n", self.name]
        run(n + ["addr", "add", f"{self.ns_addr}/{self.prefixlen}", "dev", self.veth_b])
        run(n + ["link", "set", self.veth_b, "up"])
        run(n + ["link", "set", "lo", "up"])
        self.shape()

    def _tc(self, end, args, check=True):
        base = ["tc"] if end == self.veth_a else ["tc", "-n", self.name]
        return run(base + ["qdisc", "add", "dev", end, "root"] + args, check=check)

    def shape(self):
        s = self.spec
        half_us = int(round(s["delay_ms"] * 1000 / 2))
        if s["mode"] in ("auto", "netem"):
            args = ["netem", "delay", f"{half_us}us", "loss", s["loss"]]
            if s["rate"]:
                args += ["rate", s["rate"]]
            r = self._tc(self.veth_a, args, check=False)
            if r.returncode == 0:
                self._tc(self.veth_b, args)
                self.mode = "netem"
                return
            if s["mode"] == "netem":
                raise Unavailable(f"tc netem is not available: {r.stderr.strip()}")
        if float(s["loss"].rstrip("%")) > 0:
            raise Unavailable("loss needs the kernel's netem qdisc, which this kernel lacks "
                              "(relay mode emulates delay and rate only)")
        self.mode = "relay"
        if s["rate"]:
            bps = rate_bytes_per_s(s["rate"])
            burst = max(16 * 1024, int(bps / 100))
            args = ["tbf", "rate", s["rate"], "burst", str(burst), "latency", "200ms"]
            self._tc(self.veth_a, args)
            self._tc(self.veth_b, args)

    def describe(self):
        return {"namespace": self.name, "mode": self.mode, "host_addr": self.host_addr,
                "ns_addr": self.ns_addr, "delay_ms": self.spec["delay_ms"],
                "rate": self.spec["rate"], "loss": self.spec["loss"], "veth": self.veth_a}


# ----------------------------------------------------------------------------- relay (netem fallback)

def relay_main(maps, delay_ms, stop_after_s):
    """TCP relay: listen=target pairs; every chunk is held delay_ms in each direction.

    One thread per connection, select()-driven: each direction has a queue of (due, data),
    where data b"" is the sender's FIN (passed on as shutdown(SHUT_WR)) and None its reset
    (passed on as a close with SO_LINGER 0, i.e. an RST), both at their due time too."""
    import collections
    import select
    delay = delay_ms / 1000.0
    linger0 = struct_linger0()

    def serve_conn(client, target):
        accepted = time.monotonic()
        try:
            upstream = socket.create_connection(target, timeout=10)
        except OSError:
            client.close()
            return
        socks = (client, upstream)
        for s in socks:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.setblocking(True)
            s.settimeout(None)
        peer = {client: upstream, upstream: client}
        queues = {client: collections.deque(), upstream: collections.deque()}  # by source
        # The kernel completed the client's handshake at once; a real link takes one round
        # trip (2 x one-way delay) for it, so the first request bytes reach the server no
        # sooner than accept + 3 x one-way delay, as they would through netem.
        last_due = {client: accepted + 3 * delay, upstream: 0.0}
        reading = {client: True, upstream: True}
        done_writing = {client: False, upstream: False}  # by destination
        try:
            while True:
                now = time.monotonic()
                for src in socks:  # deliver what is due, in order
                    q, dst = queues[src], peer[src]
                    while q and q[0][0] <= now:
                        _, data = q.popleft()
                        if data is None:  # reset: pass it on and end the connection
                            with contextlib.suppress(OSError):
                                dst.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger0)
                            return
                        if data == b"":
                            with contextlib.suppress(OSError):
                                dst.shutdown(socket.SHUT_WR)
                            done_writing[dst] = True
                            continue
                        try:
                            dst.sendall(data)
                        except OSError:  # the receiver is gone: reset the sender
                            with contextlib.suppress(OSError):
                                src.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger0)
                            return
                if all(done_writing.values()):
                    return
                waiting = [s for s in socks if reading[s]]
                dues = [q[0][0] for q in queues.values() if q]
                timeout = max(0.0, min(dues) - time.monotonic()) if dues else 1.0
                if not waiting and not dues:
                    return
                ready = select.select(waiting, [], [], timeout)[0] if waiting else (
                    time.sleep(timeout) or [])
                for src in ready:
                    try:
                        data = src.recv(65536)
                    except ConnectionResetError:
                        data = None
                    except OSError:
                        data = None
                    due = max(time.monotonic() + delay, last_due[src])
                    last_due[src] = due  # never reorder
                    queues[src].append((due, data))
                    if not data:
                        reading[src] = False
        finally:
            for s in socks:
                s.close()

    def accept_loop(ls, target):
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            threading.Thread(target=serve_conn, args=(c, target), daemon=True).start()

    for listen, target in maps:
        lh, lp = listen.rsplit(":", 1)
        th, tp = target.rsplit(":", 1)
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((lh, int(lp)))
        ls.listen(128)
        threading.Thread(target=accept_loop, args=(ls, (th, int(tp))), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    time.sleep(stop_after_s)


def struct_linger0():
    import struct
    return struct.pack("ii", 1, 0)


# ----------------------------------------------------------------------------- S3 setup (venv python)

def s3_setup_main(args):
    """Runs under the venv's python: IAM key (auth mode), bucket, upload, then auth on."""
    import boto3
    from botocore.config import Config
    cfg = Config(retries={"max_attempts": 2}, s3={"addressing_style": "path"})
    kw = dict(endpoint_url=args["url"], region_name=REGION, config=cfg)
    key_id, secret, role_arn = "testing", "testing", ""
    if args["auth"]:
        iam = boto3.client("iam", aws_access_key_id="testing", aws_secret_access_key="testing", **kw)
        iam.create_user(UserName="feedrate")
        iam.put_user_policy(UserName="feedrate", PolicyName="s3-all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        ak = iam.create_access_key(UserName="feedrate")["AccessKey"]
        key_id, secret = ak["AccessKeyId"], ak["SecretAccessKey"]
        # A role the user may assume (sts:AssumeRole) and web identities too, which may read
        # everything: STS's temporary credentials for it sign S3 requests (role_arn).
        user_arn = iam.get_user(UserName="feedrate")["User"]["Arn"]
        iam.put_user_policy(UserName="feedrate", PolicyName="assume-reader", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]}))
        role_arn = iam.create_role(RoleName="feedrate-reader", AssumeRolePolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Principal": {"AWS": user_arn},
                            "Action": "sts:AssumeRole"},
                           {"Effect": "Allow", "Principal": {"Federated": "feedrate-oidc"},
                            "Action": "sts:AssumeRoleWithWebIdentity"}]}))["Role"]["Arn"]
        iam.put_role_policy(RoleName="feedrate-reader", PolicyName="s3-all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    s3 = boto3.client("s3", aws_access_key_id=key_id, aws_secret_access_key=secret, **kw)
    s3.create_bucket(Bucket=args["bucket"])
    n = 0
    if args["data"]:
        root = Path(args["data"])
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            s3.upload_file(str(path), args["bucket"], args["prefix"] + path.relative_to(root).as_posix())
            n += 1
    if args["auth"]:
        req = urllib.request.Request(args["url"] + "/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
    print(json.dumps({"access_key": key_id, "secret_key": secret, "role_arn": role_arn,
                      "objects": n}))


# ----------------------------------------------------------------------------- the harness

def make_tls(tls_dir, names_ip):
    tls_dir.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (tls_dir / n for n in
                                  ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3", "-sha256",
         "-subj", "/CN=feedrate test CA", "-keyout", ca_key, "-out", ca,
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
         "-keyout", key, "-out", csr])
    ext = tls_dir / "server.ext"
    ext.write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                   "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,"
                   + ",".join(f"IP:{ip}" for ip in names_ip) + "\n")
    run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
         "-days", "3", "-sha256", "-extfile", ext, "-out", cert])
    return ca, cert, key


NGINX_CONF = """\
{user}worker_processes 1;
daemon off;
master_process on;
pid {state}/nginx/nginx.pid;
error_log {state}/logs/nginx-error.log notice;
events {{ worker_connections 512; }}
http {{
    access_log {state}/logs/nginx-access.log;
    client_body_temp_path {state}/nginx/client_body;
    proxy_temp_path {state}/nginx/proxy;
    fastcgi_temp_path {state}/nginx/fastcgi;
    uwsgi_temp_path {state}/nginx/uwsgi;
    scgi_temp_path {state}/nginx/scgi;
    types {{ application/x-tar tar; image/jpeg jpg jpeg; image/png png; text/plain txt;
             application/json json; }}
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 60;
    keepalive_requests 100000;
    server {{
        listen {host}:{http_port};
        listen {host}:{https_port} ssl;
        server_name _;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        root {root};
        # S3's path-style GET and HEAD of BUCKET/PREFIX+KEY, answered from the same files at the
        # speed of a static server (the signature is not checked): ep["s3_static"]. Any query
        # on the bucket gets the listing of every key (static_listing).
        location /{bucket}/{prefix} {{ alias {root}/; }}
        location = /{bucket}/ {{
            default_type application/xml;
            root {listing.parent};
            try_files /{listing.name} =404;
        }}
    }}
}}
"""


def static_listing(path, root, prefix):
    """Writes one ListObjectsV2 page of every file under root as PREFIX+relative path, with the
    size and the ETag nginx sends for it ("mtime-size" in hex), and returns path."""
    rows = []
    for f in sorted(q for q in Path(root).rglob("*") if q.is_file()):
        st = f.stat()
        key = xml_escape(prefix + f.relative_to(root).as_posix())
        modified = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(st.st_mtime))
        rows.append(f"<Contents><Key>{key}</Key><LastModified>{modified}</LastModified>"
                    f"<ETag>&quot;{int(st.st_mtime):x}-{st.st_size:x}&quot;</ETag>"
                    f"<Size>{st.st_size}</Size><StorageClass>STANDARD</StorageClass></Contents>")
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><IsTruncated>'
                    f"false</IsTruncated><KeyCount>{len(rows)}</KeyCount>{''.join(rows)}"
                    "</ListBucketResult>\n")
    return path


class Servers:
    """Starts what is asked in __enter__/up(), stops all of it in __exit__/down()."""

    def __init__(self, state_dir, s3=False, auth=False, nginx=False, proxy=None, netem=None,
                 data=None, bucket="feedrate-test", prefix="", python=None, ttl=3600.0,
                 start_timeout=20.0, owner_pid=None):
        if proxy not in (None, "s3", "http"):
            raise ValueError("proxy is None, 's3' or 'http'")
        if proxy == "s3" and not s3 or proxy == "http" and not nginx:
            raise ValueError(f"proxy={proxy!r} needs its upstream started ({'s3' if proxy == 's3' else 'nginx'}=True)")
        if auth and not s3:
            raise ValueError("auth needs s3")
        self.state = Path(state_dir).resolve()
        self.s3, self.auth, self.nginx, self.proxy = s3, auth, nginx, proxy
        self.netem_spec = parse_netem(netem) if isinstance(netem, str) else netem
        self.data = Path(data).resolve() if data else None
        self.bucket = bucket
        self.prefix = (prefix.strip("/") + "/") if prefix.strip("/") else ""
        self.python = python or default_python()
        self.ttl, self.start_timeout, self.owner_pid = ttl, start_timeout, owner_pid
        self.endpoints = {}
        self.ns = None

    # --- bookkeeping
    def _pids(self):
        return json_read(self.state / "pids.json", [])

    def _spawn(self, name, cmd, in_ns=False, env=None):
        logf = open(self.state / "logs" / f"{name}.log", "ab")
        if in_ns and self.ns:
            cmd = self.ns.exec_prefix() + cmd
        p = subprocess.Popen([str(c) for c in cmd], stdin=subprocess.DEVNULL, stdout=logf,
                             stderr=subprocess.STDOUT, start_new_session=True,
                             env=server_env(env))
        logf.close()
        st = None
        for _ in range(100):
            st = proc_start_time(p.pid)
            if st:
                break
            time.sleep(0.005)
        pids = self._pids()
        pids.append({"name": name, "pid": p.pid, "start": st, "cmd": [str(c) for c in cmd][:6]})
        json_write(self.state / "pids.json", pids)
        self._popen[name] = p
        return p

    def _wait_http(self, name, url, ca_file=None, check=None):
        p = self._popen[name]
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if p.poll() is not None:
                raise HarnessError(f"{name} exited with {p.returncode} while starting:\n"
                                   + log_tail(self.state / "logs" / f"{name}.log"))
            st = http_status(url, timeout=1.0, ca_file=ca_file)
            if st is not None and (check is None or check(st)):
                return
            time.sleep(0.1)
        raise HarnessError(f"{name} did not answer {url} within {self.start_timeout:.0f} s:\n"
                           + log_tail(self.state / "logs" / f"{name}.log"))

    # --- lifecycle
    def __enter__(self):
        if self.owner_pid is None:  # a crashed test process takes its servers with it
            self.owner_pid = os.getpid()
        self.up()
        return self

    def __exit__(self, *exc):
        self.down()

    def up(self):
        if self.netem_spec is not None:
            netem_prereqs()  # Unavailable (77) before anything is made
        self.state.mkdir(parents=True, exist_ok=True)
        (self.state / "logs").mkdir(exist_ok=True)
        if any(proc_alive(e["pid"], e.get("start")) for e in self._pids()):
            raise HarnessError(f"{self.state} is in use (its servers run): `down` it first")
        for f in ("pids.json", "netns.json", "endpoints.json"):
            with contextlib.suppress(FileNotFoundError):
                (self.state / f).unlink()
        self._popen = {}
        self.timings = {}
        try:
            self._up()
        except BaseException as e:
            self.down()
            if isinstance(e, (HarnessError, ValueError, KeyboardInterrupt)):
                raise
            raise HarnessError(f"up failed: {e!r}") from e
        return self.endpoints

    def _up(self):
        if self.netem_spec is not None:
            netem_prereqs()
        cleanup_stale()
        if self.s3 and not Path(self.python).exists():
            raise HarnessError(f"s3: no python at {self.python} (run `make test-remote-deps`, or "
                               "pass --python / set FEEDRATE_REMOTE_PYTHON)")
        nginx_bin = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin")
        if self.nginx and not nginx_bin:
            raise HarnessError("nginx: not installed (Debian nginx-light; `make test-remote-deps`)")
        if self.nginx and not shutil.which("openssl"):
            raise HarnessError("nginx: openssl (for the certificate) is not installed")
        if self.data and not self.data.is_dir():
            raise HarnessError(f"data: {self.data} is not a directory")
        watchdog = [sys.executable, __file__, "_watchdog", "--state", self.state,
                    "--ttl", self.ttl] + (["--owner", self.owner_pid] if self.owner_pid else [])
        wd = self._spawn("watchdog", watchdog)
        ep = {"state": str(self.state), "data": str(self.data) if self.data else None,
              "netem": None}
        host = "127.0.0.1"
        if self.netem_spec is not None:
            self.ns = Netns(wd.pid, self.netem_spec)
            json_write(self.state / "netns.json", {"namespace": self.ns.name, "veth": self.ns.veth_a})
            try:
                self.ns.create()
            except HarnessError as e:
                raise type(e)(f"netem: {e}") from e
            ep["netem"] = self.ns.describe()
            host = self.ns.ns_addr

        # Where each server listens (bind, port), how processes next to it reach it (inner), and
        # how the client in the root namespace does (public).
        wanted = [k for k, on in (("s3", self.s3), ("http", self.nginx), ("https", self.nginx),
                                  ("proxy", self.proxy)) if on]
        place = {}
        for key in wanted:
            if not self.ns:
                port = 0 if key == "proxy" else free_port()
                place[key] = ("127.0.0.1", port, f"127.0.0.1:{port}", f"127.0.0.1:{port}")
            elif self.ns.mode == "relay":
                port = NS_PORTS[key]
                place[key] = ("127.0.0.1", port, f"127.0.0.1:{port}", f"{host}:{port}")
            else:
                port = NS_PORTS[key]
                place[key] = (host, port, f"{host}:{port}", f"{host}:{port}")
        if self.ns and self.ns.mode == "relay":
            # First, so that every readiness check below already goes through the slow link.
            spec = ",".join(f"{place[k][3]}={place[k][2]}" for k in wanted)
            self._spawn("relay", [sys.executable, __file__, "_relay", "--map", spec,
                                  "--delay-ms", self.ns.spec["delay_ms"] / 2,
                                  "--stop-after", self.ttl + 60], in_ns=True)
            deadline = time.monotonic() + self.start_timeout
            for key in wanted:
                h, p = place[key][3].rsplit(":", 1)
                while True:
                    if self._popen["relay"].poll() is not None or time.monotonic() > deadline:
                        raise HarnessError("netem relay did not start:\n"
                                           + log_tail(self.state / "logs/relay.log"))
                    with contextlib.suppress(OSError), socket.create_connection((h, int(p)), 1):
                        break
                    time.sleep(0.05)

        if self.s3:
            t0 = time.monotonic()
            bind, port, inner, public = place["s3"]
            self._spawn("moto", [self.python, "-m", "moto.server", "-H", bind, "-p", port],
                        in_ns=True, env={"PYTHONUNBUFFERED": "1"})
            self._wait_http("moto", f"http://{public}/moto-api/data.json")
            args = {"url": f"http://{inner}", "auth": self.auth, "bucket": self.bucket,
                    "prefix": self.prefix, "data": str(self.data) if self.data else None}
            cmd = [self.python, __file__, "_s3_setup", json.dumps(args)]
            if self.ns:
                cmd = self.ns.exec_prefix() + cmd
            r = run(cmd, check=False, timeout=max(60, self.start_timeout * 3), env=server_env())
            if r.returncode != 0:
                raise HarnessError("s3: bucket setup failed:\n" + (r.stderr or r.stdout)[-3000:])
            made = json.loads(r.stdout.strip().splitlines()[-1])
            ep.update(s3=f"http://{public}", bucket=self.bucket, prefix=self.prefix,
                      objects=made["objects"], region=REGION, access_key=made["access_key"],
                      secret_key=made["secret_key"], role_arn=made["role_arn"], auth=self.auth)
            self.timings["s3"] = time.monotonic() - t0
        if self.nginx:
            t0 = time.monotonic()
            bind, http_port, _, public = place["http"]
            _, https_port, _, public_s = place["https"]
            ca, cert, key = make_tls(self.state / "tls", sorted({"127.0.0.1", host}))
            ndir = self.state / "nginx"
            ndir.mkdir(exist_ok=True)
            root = self.data or (self.state / "www")
            root.mkdir(exist_ok=True)
            conf = ndir / "nginx.conf"
            conf.write_text(NGINX_CONF.format(
                user="user root;\n" if os.geteuid() == 0 else "", state=self.state, host=bind,
                http_port=http_port, https_port=https_port, cert=cert, key=key, root=root,
                bucket=self.bucket, prefix=self.prefix,
                listing=static_listing(ndir / "listing.xml", root, self.prefix)))
            self._spawn("nginx", [nginx_bin, "-p", ndir, "-c", conf, "-e",
                                  self.state / "logs" / "nginx-error.log"], in_ns=True)
            self._wait_http("nginx", f"http://{public}/")
            self._wait_http("nginx", f"https://{public_s}/", ca_file=str(ca))
            ep.update(http=f"http://{public}", https=f"https://{public_s}", ca_file=str(ca),
                      s3_static=f"http://{public}")
            self.timings["nginx"] = time.monotonic() - t0
        if self.proxy:
            t0 = time.monotonic()
            bind, port, inner, public = place["proxy"]
            pf = self.state / "proxy.port"
            with contextlib.suppress(FileNotFoundError):
                pf.unlink()
            upstream = "http://" + place["s3" if self.proxy == "s3" else "http"][2]
            self._spawn("proxy", [sys.executable, HERE / "fault_proxy.py", "--listen",
                                  f"{bind}:{port}", "--upstream", upstream, "--port-file", pf],
                        in_ns=True)
            deadline = time.monotonic() + self.start_timeout
            while not pf.exists():
                if self._popen["proxy"].poll() is not None or time.monotonic() > deadline:
                    raise HarnessError("proxy did not start:\n" + log_tail(self.state / "logs/proxy.log"))
                time.sleep(0.05)
            if not self.ns:
                public = f"127.0.0.1:{int(pf.read_text())}"
            self._wait_http("proxy", f"http://{public}/__faults")
            ep.update(proxy=f"http://{public}", proxy_control=f"http://{public}",
                      proxy_upstream=self.proxy)
            self.timings["proxy"] = time.monotonic() - t0
        ep["timings_s"] = {k: round(v, 3) for k, v in self.timings.items()}
        self.endpoints = ep
        json_write(self.state / "endpoints.json", ep)

    def down(self):
        left = down(self.state)
        for p in getattr(self, "_popen", {}).values():  # reap our children
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=2)
        return left

    # --- conveniences for tests
    def _control(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.endpoints["proxy_control"] + path, data=data,
                                     method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def set_faults(self, rules):
        return self._control("POST", "/__faults", rules)["ids"]

    def clear_faults(self):
        self._control("DELETE", "/__faults")

    def faults(self):
        return self._control("GET", "/__faults")["rules"]

    def log(self):
        return self._control("GET", "/__log")["log"]

    def clear_log(self):
        self._control("DELETE", "/__log")


def down(state_dir, skip_pid=None):
    """Stop everything recorded in state_dir and delete its namespace. Idempotent."""
    state = Path(state_dir).resolve()
    entries = [e for e in json_read(state / "pids.json", []) if e["pid"] != skip_pid]
    live = [e for e in reversed(entries) if proc_alive(e["pid"], e.get("start"))]
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        for e in live:
            with contextlib.suppress(OSError):
                os.killpg(e["pid"], sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            live = [e for e in live if proc_alive(e["pid"], e.get("start"))]
            if not live:
                break
            time.sleep(0.05)
        if not live:
            break
    ns = json_read(state / "netns.json")
    if ns:
        delete_namespace(ns["namespace"], ns.get("veth"))
    cleanup_stale()
    for f in ("pids.json", "netns.json", "endpoints.json", "proxy.port"):
        with contextlib.suppress(FileNotFoundError):
            (state / f).unlink()
    return [e["name"] for e in live]


def watchdog_main(state, ttl, owner):
    deadline = time.monotonic() + ttl
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    while time.monotonic() < deadline:
        if owner and not proc_alive(owner):
            break
        time.sleep(0.5)
    down(state, skip_pid=os.getpid())


# ----------------------------------------------------------------------------- CLI

def main(argv=None):
    ap = argparse.ArgumentParser(description="feedrate's remote-source test servers "
                                 "(see the module docstring)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="start servers, write STATE/endpoints.json, exit")
    up.add_argument("--state", required=True)
    up.add_argument("--s3", action="store_true", help="moto's S3 server")
    up.add_argument("--auth", action="store_true", help="moto checks SigV4 signatures")
    up.add_argument("--nginx", action="store_true", help="nginx on http and https")
    up.add_argument("--proxy", choices=("s3", "http"), help="fault proxy in front of moto or nginx")
    up.add_argument("--netem", help='e.g. "delay=50ms,rate=200mbit,loss=0%%"')
    up.add_argument("--data", help="directory uploaded to the bucket and served by nginx")
    up.add_argument("--bucket", default="feedrate-test")
    up.add_argument("--prefix", default="")
    up.add_argument("--python", default=None, help="the venv's python with moto and boto3 "
                    "(default $FEEDRATE_REMOTE_PYTHON, else build/remote-venv/bin/python)")
    up.add_argument("--ttl", type=float, default=3600.0, help="stop by itself after this (s)")
    up.add_argument("--start-timeout", type=float, default=20.0)
    dn = sub.add_parser("down", help="stop everything of STATE (idempotent)")
    dn.add_argument("--state", required=True)
    sub.add_parser("cleanup", help="delete stale harness namespaces and veths")
    wd = sub.add_parser("_watchdog")
    wd.add_argument("--state", required=True)
    wd.add_argument("--ttl", type=float, required=True)
    wd.add_argument("--owner", type=int)
    s3 = sub.add_parser("_s3_setup")
    s3.add_argument("args")
    rl = sub.add_parser("_relay")
    rl.add_argument("--map", required=True)
    rl.add_argument("--delay-ms", type=float, required=True)
    rl.add_argument("--stop-after", type=float, required=True)
    a = ap.parse_args(argv)

    if a.cmd == "up":
        try:
            s = Servers(a.state, s3=a.s3, auth=a.auth, nginx=a.nginx, proxy=a.proxy,
                        netem=a.netem, data=a.data, bucket=a.bucket, prefix=a.prefix,
                        python=a.python, ttl=a.ttl, start_timeout=a.start_timeout)
        except ValueError as e:
            print(f"servers.py up: {e}", file=sys.stderr)
            return 2
        if not (a.s3 or a.nginx):
            print("servers.py up: nothing to start (give --s3 and/or --nginx)", file=sys.stderr)
            return 2
        try:
            ep = s.up()
        except Unavailable as e:
            print(f"servers.py up: unavailable here: {e}", file=sys.stderr)
            return EXIT_UNAVAILABLE
        except HarnessError as e:
            print(f"servers.py up: {e}\n(nothing left running)", file=sys.stderr)
            return 1
        print(json.dumps(ep, indent=2))
        return 0
    if a.cmd == "down":
        left = down(a.state)
        if left:
            print(f"servers.py down: still alive after SIGKILL: {left}", file=sys.stderr)
            return 1
        return 0
    if a.cmd == "cleanup":
        for n in cleanup_stale():
            print("deleted", n)
        return 0
    if a.cmd == "_watchdog":
        watchdog_main(a.state, a.ttl, a.owner)
        return 0
    if a.cmd == "_s3_setup":
        s3_setup_main(json.loads(a.args))
        return 0
    if a.cmd == "_relay":
        maps = [tuple(m.split("=", 1)) for m in a.map.split(",")]
        relay_main(maps, a.delay_ms, a.stop_after)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
