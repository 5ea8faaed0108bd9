"""Tests of tests/remote/servers.py and fault_proxy.py against the real servers they start."""

import hashlib
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import servers

SERVERS_PY = str(Path(servers.__file__).resolve())
EMPTY_SHA = hashlib.sha256(b"").hexdigest()


# ----------------------------------------------------------------------------- helpers

def curl_s3(ep, method, path, key=None, secret=None, body=None, headers=(), base=None):
    """Signed request with curl --aws-sigv4 (libcurl's CURLOPT_AWS_SIGV4 code).

    curl 7.88 does not send x-amz-content-sha256 by itself; real S3 requires it, and moto
    only verifies a signature that includes it (without it moto hashes the wrong payload), so
    it is given here, as feedrate's client must give it too."""
    out = subprocess.run(
        ["curl", "-s", "-S", "-o", "-", "-w", "\n%{http_code}"]
        + (["-I"] if method == "HEAD" else ["-X", method]) + [  # -I: headers are the output
         "--aws-sigv4", f"aws:amz:{ep['region']}:s3",
         "--user", f"{key or ep['access_key']}:{secret or ep['secret_key']}",
         "-H", f"x-amz-content-sha256: {hashlib.sha256(body or b'').hexdigest()}"]
        + [a for h in headers for a in ("-H", h)]
        + (["--data-binary", "@-", "-H", "Content-Type: application/octet-stream"]
           if body is not None else [])
        + [(base or ep["s3"]) + path],
        input=body, capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    data, _, code = out.stdout.rpartition(b"\n")
    return int(code), data


def xml_code(body):
    return ET.fromstring(body).findtext("Code")


def list_keys(body):
    ns = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    return sorted(e.text for e in ET.fromstring(body).findall("s3:Contents/s3:Key", ns))


def raw_request(base, path, headers=(), method="GET", timeout=10.0):
    """Sends one request on a fresh socket and reads until EOF or reset.

    Returns (head: bytes, body: bytes, end: 'eof' | 'reset' | 'open'), where 'open' means the
    server kept the connection after a complete Content-Length body."""
    u = urllib.parse.urlsplit(base)
    s = socket.create_connection((u.hostname, u.port), timeout=timeout)
    req = f"{method} {path} HTTP/1.1\r\nHost: {u.netloc}\r\n" + "".join(
        h + "\r\n" for h in headers) + "\r\n"
    s.sendall(req.encode())
    buf, end = b"", None
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if b"\r\n\r\n" in buf:
                head, _, body = buf.partition(b"\r\n\r\n")
                cl = [ln for ln in head.split(b"\r\n") if ln.lower().startswith(b"content-length:")]
                need = 0 if method == "HEAD" else int(cl[0].split(b":")[1]) if cl else None
                if need is not None and len(body) >= need and b"Connection: close" not in head:
                    end = "open"
                    break
            try:
                piece = s.recv(65536)
            except ConnectionResetError:
                end = "reset"
                break
            if not piece:
                end = "eof"
                break
            buf += piece
    finally:
        s.close()
    head, _, body = buf.partition(b"\r\n\r\n")
    return head, body, end


def settled_log(server, n, timeout=10.0):
    """The proxy's log once it holds n entries.

    The proxy records a request after its answer is sent, so the last entry can land a moment
    after the client has read the answer."""
    deadline = time.monotonic() + timeout
    log = server.log()
    while len(log) < n and time.monotonic() < deadline:
        time.sleep(0.02)
        log = server.log()
    assert len(log) == n, log
    return log


def content_length(head):
    for ln in head.split(b"\r\n"):
        if ln.lower().startswith(b"content-length:"):
            return int(ln.split(b":")[1])
    return None


def status_of(head):
    return int(head.split(b" ", 2)[1]) if head else None


def alive(pid, start=None):
    return servers.proc_alive(pid, start)


def harness_links():
    return [ln for ln in subprocess.run(["ip", "-o", "link", "show"], capture_output=True,
                                        text=True).stdout.splitlines() if ": frh" in ln]


def harness_netns():
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [n for n in r.stdout.split() if servers.NS_RE.match(n)]


# ----------------------------------------------------------------------------- moto S3

def test_s3_endpoints_and_upload(s3, tree):
    ep = s3.endpoints
    assert ep["s3"].startswith("http://127.0.0.1:") and ep["region"] == "us-east-1"
    assert ep["auth"] is True and ep["access_key"].startswith("AKIA") and ep["secret_key"]
    assert ep["objects"] == 3 and ep["prefix"] == "data/"
    saved = json.loads((Path(ep["state"]) / "endpoints.json").read_text())
    assert saved["s3"] == ep["s3"] and saved["proxy"] == ep["proxy"]


def test_s3_list_put_ranged_get_with_curl_sigv4(s3, tree, need_curl):
    ep = s3.endpoints
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}?list-type=2&prefix=data/")
    assert code == 200, body
    assert list_keys(body) == ["data/shard-0000.tar", "data/shard-0001.tar", "data/sub/a.txt"]
    blob = bytes(range(256)) * 40
    code, body = curl_s3(ep, "PUT", f"/{ep['bucket']}/data/new.bin", body=blob)
    assert code == 200, body
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/data/new.bin", headers=["Range: bytes=100-355"])
    assert code == 206 and body == blob[100:356]
    want = (tree / "shard-0000.tar").read_bytes()
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/data/shard-0000.tar",
                         headers=["Range: bytes=123456-199999"])
    assert code == 206 and body == want[123456:200000]
    code, body = curl_s3(ep, "DELETE", f"/{ep['bucket']}/data/new.bin")
    assert code == 204
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/data/nope")
    assert code == 404 and xml_code(body) == "NoSuchKey"


def test_s3_auth_mode_checks_the_signature(s3, need_curl):
    ep = s3.endpoints
    path = f"/{ep['bucket']}/data/sub/a.txt"
    assert curl_s3(ep, "GET", path) == (200, b"hello from the harness\n")
    secret = ep["secret_key"]
    wrong = secret[:-1] + ("y" if secret.endswith("x") else "x")  # moto's secrets are random
    code, body = curl_s3(ep, "GET", path, secret=wrong)
    assert code == 403 and xml_code(body) == "SignatureDoesNotMatch"
    code, body = curl_s3(ep, "GET", path, key="AKIAIOSFODNN7EXAMPLE")
    assert code == 403 and xml_code(body) == "InvalidAccessKeyId"
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}?list-type=2", secret="wrong")
    assert code == 403 and xml_code(body) == "SignatureDoesNotMatch"
    try:  # unsigned
        urllib.request.urlopen(ep["s3"] + path, timeout=10)
        raise AssertionError("an unsigned GET was served in auth mode")
    except urllib.error.HTTPError as e:
        assert e.code == 403


def test_s3_through_the_proxy_keeps_the_signature_valid(s3, need_curl):
    s3.clear_faults()
    s3.clear_log()
    ep = s3.endpoints
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}?list-type=2&prefix=data/sub/", base=ep["proxy"])
    assert code == 200 and list_keys(body) == ["data/sub/a.txt"]
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/data/sub/a.txt", base=ep["proxy"],
                         headers=["Range: bytes=0-4"])
    assert (code, body) == (206, b"hello")
    code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/data/sub/a.txt", base=ep["proxy"], secret="bad")
    assert code == 403 and xml_code(body) == "SignatureDoesNotMatch"
    log = settled_log(s3, 3)
    assert [e["status"] for e in log] == [200, 206, 403]
    assert log[1]["range"] == "bytes=0-4" and all(e["has_auth"] for e in log)
    # bodies are forwarded: a Content-Length PUT and a chunked one (curl -T - reads stdin)
    blob = os.urandom(200_000)
    code, _ = curl_s3(ep, "PUT", f"/{ep['bucket']}/up/a.bin", body=blob, base=ep["proxy"])
    assert code == 200
    r = subprocess.run(["curl", "-s", "-f", "-T", "-", "--aws-sigv4", "aws:amz:us-east-1:s3",
                        "--user", f"{ep['access_key']}:{ep['secret_key']}",
                        "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                        f"{ep['proxy']}/{ep['bucket']}/up/b.bin"], input=blob[::-1], timeout=30)
    assert r.returncode == 0
    last = settled_log(s3, 5)[-1]
    assert last["method"] == "PUT" and "Transfer-Encoding" in last["header_names"]
    assert curl_s3(ep, "GET", f"/{ep['bucket']}/up/a.bin", base=ep["proxy"]) == (200, blob)
    assert curl_s3(ep, "GET", f"/{ep['bucket']}/up/b.bin") == (200, blob[::-1])
    code, head = curl_s3(ep, "HEAD", f"/{ep['bucket']}/up/a.bin", base=ep["proxy"])
    assert code == 200 and b"Content-Length: 200000" in head and b"keep-alive" in head
    for key in ("up/a.bin", "up/b.bin"):
        assert curl_s3(ep, "DELETE", f"/{ep['bucket']}/{key}", base=ep["proxy"])[0] == 204


def test_s3_faults_through_the_proxy(s3, need_curl):
    s3.clear_faults()
    ep = s3.endpoints
    path = f"/{ep['bucket']}/data/sub/a.txt"
    s3.set_faults([{"match": "/data/sub/a.txt", "fault": "status", "status": 503, "times": 2}])
    for _ in range(2):
        code, body = curl_s3(ep, "GET", path, base=ep["proxy"])
        assert code == 503 and xml_code(body) == "SlowDown"
    assert curl_s3(ep, "GET", path, base=ep["proxy"])[0] == 200
    assert s3.faults()[0]["remaining"] == 0


def test_proxy_log_never_holds_a_secret(s3, need_curl):
    s3.clear_faults()
    s3.clear_log()
    ep = s3.endpoints
    token = "FwoGZXIvYXdzEXAMPLE-session-token-value"
    curl_s3(ep, "GET", f"/{ep['bucket']}/data/sub/a.txt", base=ep["proxy"],
            headers=[f"X-Amz-Security-Token: {token}"])
    s3.set_faults({"match": "a.txt", "fault": "status", "status": 500})
    curl_s3(ep, "GET", f"/{ep['bucket']}/data/sub/a.txt", base=ep["proxy"])
    presigned = (f"/{ep['bucket']}/data/sub/a.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                 f"&X-Amz-Credential={ep['access_key']}%2F20260101%2Fus-east-1%2Fs3%2Faws4_request"
                 "&X-Amz-Signature=abcdef0123456789deadbeef&X-Amz-Security-Token=" + token)
    raw_request(ep["proxy"], presigned)
    text = json.dumps(settled_log(s3, 3))
    assert ep["secret_key"] not in text
    assert token not in text and "deadbeef" not in text
    assert "Signature=" not in text.replace("X-Amz-Signature=REDACTED", "")
    assert "AWS4-HMAC-SHA256 Credential" not in text
    state = Path(ep["state"])
    for f in (state / "logs").iterdir():
        assert ep["secret_key"] not in f.read_text(errors="replace"), f


# ----------------------------------------------------------------------------- nginx

@pytest.mark.parametrize("scheme", ["http", "https"])
def test_nginx_ranges(web, tree, scheme):
    ep = web.endpoints
    want = (tree / "shard-0000.tar").read_bytes()
    u = urllib.parse.urlsplit(ep[scheme])
    if scheme == "https":
        conn = http.client.HTTPSConnection(u.hostname, u.port, timeout=10,
                                           context=ssl.create_default_context(cafile=ep["ca_file"]))
    else:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    for rng, lo, hi in (("bytes=0-99", 0, 100), ("bytes=1000-264999", 1000, 265000),
                        ("bytes=-10", len(want) - 10, len(want))):
        conn.request("GET", "/shard-0000.tar", headers={"Range": rng})  # one keep-alive conn
        r = conn.getresponse()
        body = r.read()
        assert r.status == 206 and body == want[lo:hi], rng
        assert r.getheader("Content-Range") == f"bytes {lo}-{hi - 1}/{len(want)}"
    conn.request("GET", "/shard-0001.tar")
    r = conn.getresponse()
    assert r.status == 200 and r.read() == (tree / "shard-0001.tar").read_bytes()
    conn.request("GET", "/shard-0000.tar", headers={"Range": "bytes=900000-"})
    r = conn.getresponse()
    r.read()
    assert r.status == 416
    conn.request("GET", "/missing.tar")
    r = conn.getresponse()
    r.read()
    assert r.status == 404
    conn.close()


def test_nginx_static_s3_lists_and_serves_the_tree(web, tree):
    """The static S3 endpoint: a listing whose sizes and ETags are those nginx's GETs carry, so
    a client's If-Match from the listing holds, and path-style ranged GETs of BUCKET/KEY."""
    u = urllib.parse.urlsplit(web.endpoints["s3_static"])
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", "/feedrate-test/?list-type=2&prefix=")
    r = conn.getresponse()
    listing = ET.fromstring(r.read())
    assert r.status == 200 and listing.findtext("IsTruncated") == "false"
    objects = {c.findtext("Key"): (int(c.findtext("Size")), c.findtext("ETag"))
               for c in listing.iter("Contents")}
    files = sorted(q for q in tree.rglob("*") if q.is_file())
    assert sorted(objects) == [q.relative_to(tree).as_posix() for q in files]
    want = (tree / "sub" / "a.txt").read_bytes()
    size, etag = objects["sub/a.txt"]
    assert size == len(want)
    conn.request("GET", "/feedrate-test/sub/a.txt", headers={"Range": "bytes=6-9",
                                                             "If-Match": etag})
    r = conn.getresponse()
    assert (r.status, r.read(), r.getheader("ETag")) == (206, want[6:10], etag)
    conn.request("GET", "/feedrate-test/sub/a.txt", headers={"If-Match": '"0-0"'})
    r = conn.getresponse()
    r.read()
    assert r.status == 412
    conn.close()


def test_nginx_https_needs_the_ca(web):
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        urllib.request.urlopen(web.endpoints["https"] + "/sub/a.txt", timeout=10,
                               context=ssl.create_default_context())
    assert Path(web.endpoints["ca_file"]).is_file()


# ----------------------------------------------------------------------------- fault kinds

@pytest.mark.parametrize("status,code", [(503, "SlowDown"), (500, "InternalError"),
                                         (429, "TooManyRequests"), (403, "AccessDenied"),
                                         (404, "NoSuchKey")])
def test_status_faults_fire_times_then_stop_on_one_connection(clean_proxy, tree, status, code):
    p = clean_proxy
    p.set_faults({"match": "shard-0001", "fault": "status", "status": status, "times": 2,
                  "retry_after": 1})
    u = urllib.parse.urlsplit(p.endpoints["proxy"])
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    got = []
    for _ in range(3):
        conn.request("GET", "/shard-0001.tar", headers={"Range": "bytes=0-9"})
        r = conn.getresponse()
        body = r.read()
        got.append((r.status, body if r.status == 206 else xml_code(body)))
        if r.status == status:
            assert r.getheader("Content-Length") == str(len(body))
            assert r.getheader("Connection") == "keep-alive" and r.getheader("Retry-After") == "1"
            assert r.getheader("Content-Type") == "application/xml"
    conn.close()
    assert got == [(status, code), (status, code), (206, (tree / "shard-0001.tar").read_bytes()[:10])]
    log = settled_log(p, 3)
    assert [(e["status"], e["fault"]) for e in log] == [(status, "status")] * 2 + [(206, None)]
    assert all(e["range"] == "bytes=0-9" for e in log)


def test_reset_before_response(clean_proxy):
    p = clean_proxy
    p.set_faults({"match": "shard-0000", "fault": "reset"})
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")
    assert (head, body, end) == (b"", b"", "reset")
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")
    assert status_of(head) == 200 and len(body) == 300_000 and end == "open"
    log = settled_log(p, 2)
    assert [(e["fault"], e["status"]) for e in log] == [("reset", None), (None, 200)]


def test_reset_mid_body(clean_proxy, tree):
    p = clean_proxy
    p.set_faults({"match": "shard-0000", "fault": "reset", "after_bytes": 12345})
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")
    assert status_of(head) == 200 and content_length(head) == 300_000
    assert end == "reset" and body == (tree / "shard-0000.tar").read_bytes()[:12345]
    first = settled_log(p, 1)[0]
    assert first["body_bytes"] == 12345 and first["fault"] == "reset"
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")  # times=1: done
    assert status_of(head) == 200 and len(body) == 300_000 and end == "open"


def test_short_body(clean_proxy, tree):
    p = clean_proxy
    p.set_faults({"match": "shard-0000", "fault": "short", "after_bytes": 5000, "has_range": True})
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar",
                                  ["Range: bytes=1000-20999"])
    assert status_of(head) == 206 and content_length(head) == 20000
    assert b"Connection: close" in head and end == "eof"
    assert body == (tree / "shard-0000.tar").read_bytes()[1000:6000]
    # has_range: a request without Range does not match; then one with Range is served whole
    p.set_faults({"match": "shard-0000", "fault": "short", "has_range": True})
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")
    assert status_of(head) == 200 and len(body) == 300_000
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar", ["Range: bytes=0-999"])
    assert status_of(head) == 206 and len(body) == 500 and end == "eof"  # default: half


def test_delay_before_first_byte(clean_proxy):
    p = clean_proxy
    p.set_faults({"match": "a.txt", "fault": "delay", "delay_ms": 1500, "method": "GET"})
    head, body, _ = raw_request(p.endpoints["proxy"], "/sub/a.txt", method="HEAD")
    assert status_of(head) == 200 and settled_log(p, 1)[-1]["fault"] is None  # method differs
    t0 = time.monotonic()
    head, body, _ = raw_request(p.endpoints["proxy"], "/sub/a.txt")
    assert time.monotonic() - t0 >= 1.5 and body == b"hello from the harness\n"
    assert settled_log(p, 2)[-1]["fault"] == "delay"
    raw_request(p.endpoints["proxy"], "/sub/a.txt")
    assert settled_log(p, 3)[-1]["fault"] is None  # times=1: fired once


def test_stall_mid_body(clean_proxy, tree, need_curl):
    p = clean_proxy
    p.set_faults({"match": "shard-0000", "fault": "stall", "after_bytes": 4096, "stall_ms": 800})
    t0 = time.monotonic()
    head, body, end = raw_request(p.endpoints["proxy"], "/shard-0000.tar")
    assert time.monotonic() - t0 >= 0.8
    assert body == (tree / "shard-0000.tar").read_bytes() and end == "open"
    p.set_faults({"match": "shard-0000", "fault": "stall", "after_bytes": 4096, "stall_ms": 3000})
    r = subprocess.run(["curl", "-s", "-o", os.devnull, "-w", "%{size_download}", "--max-time",
                        "1", p.endpoints["proxy"] + "/shard-0000.tar"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 28 and r.stdout == "4096"  # CURLE_OPERATION_TIMEDOUT


def test_always_regex_and_clearing(clean_proxy):
    p = clean_proxy
    p.set_faults({"regex": r"shard-000[01]\.tar$", "fault": "status", "status": 500, "always": True})
    for name in ("shard-0000.tar", "shard-0001.tar", "shard-0000.tar", "shard-0001.tar"):
        assert status_of(raw_request(p.endpoints["proxy"], "/" + name)[0]) == 500
    assert status_of(raw_request(p.endpoints["proxy"], "/sub/a.txt")[0]) == 200
    assert p.faults()[0]["fired"] == 4 and p.faults()[0]["remaining"] is None
    p.clear_faults()
    assert status_of(raw_request(p.endpoints["proxy"], "/shard-0000.tar")[0]) == 200


def test_bad_rules_are_refused(clean_proxy):
    for bad in ({"fault": "explode"}, {"fault": "status"}, {"fault": "reset", "times": 0},
                {"fault": "delay", "regex": "("}, {"fault": "reset", "colour": 1}):
        with pytest.raises(urllib.error.HTTPError) as e:
            clean_proxy.set_faults(bad)
        assert e.value.code == 400
    assert clean_proxy.faults() == []


def test_curl_sees_each_fault_as_libcurl_reports_it(clean_proxy, need_curl):
    """The C++ client's view: libcurl's error codes for each fault."""
    p = clean_proxy
    url = p.endpoints["proxy"] + "/shard-0000.tar"
    cases = [({"fault": "reset"}, 56), ({"fault": "reset", "after_bytes": 100}, 56),
             ({"fault": "short", "after_bytes": 100}, 18),
             ({"fault": "status", "status": 503}, 22), ({"fault": "delay", "delay_ms": 5000}, 28)]
    for rule, want in cases:
        p.set_faults(dict(rule, match="shard-0000"))
        r = subprocess.run(["curl", "-s", "-f", "-o", os.devnull, "--max-time", "2", url],
                           capture_output=True, timeout=30)
        assert r.returncode == want, (rule, r.returncode, r.stderr)
    assert subprocess.run(["curl", "-s", "-f", "-o", os.devnull, url], timeout=30).returncode == 0
    # the delayed request ended when curl gave up, not 5 s later
    delayed = [e for e in settled_log(p, len(cases) + 1, timeout=4) if e["fault"] == "delay"]
    assert len(delayed) == 1 and delayed[0]["error"] == "client: closed during the delay"


# ----------------------------------------------------------------------------- CLI and lifecycle

def cli(*args, timeout=90):
    return subprocess.run([sys.executable, SERVERS_PY, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_cli_up_down_leaves_nothing(tmp_path, need_nginx, tree):
    state = tmp_path / "st"
    r = cli("up", "--state", state, "--nginx", "--proxy", "http", "--data", tree)
    assert r.returncode == 0, r.stderr
    ep = json.loads((state / "endpoints.json").read_text())
    pids = json.loads((state / "pids.json").read_text())
    assert {e["name"] for e in pids} == {"watchdog", "nginx", "proxy"}
    assert all(alive(e["pid"], e["start"]) for e in pids)
    with urllib.request.urlopen(ep["proxy"] + "/sub/a.txt", timeout=10) as resp:
        assert resp.read() == b"hello from the harness\n"
    assert cli("up", "--state", state, "--nginx").returncode == 1  # in use
    assert cli("down", "--state", state).returncode == 0
    assert not any(alive(e["pid"], e["start"]) for e in pids)
    assert not (state / "endpoints.json").exists() and not (state / "pids.json").exists()
    assert cli("down", "--state", state).returncode == 0  # idempotent


def test_cli_up_failure_names_it_and_leaves_nothing(tmp_path):
    state = tmp_path / "st"
    r = cli("up", "--state", state, "--s3", "--python", "/bin/false")
    assert r.returncode == 1 and "moto exited with 1" in r.stderr and "nothing left" in r.stderr
    assert not (state / "pids.json").exists() and not (state / "endpoints.json").exists()
    r = cli("up", "--state", state, "--s3", "--python", tmp_path / "no-python")
    assert r.returncode == 1 and "s3: no python" in r.stderr
    assert cli("up", "--state", state, "--proxy", "s3").returncode == 2


def test_watchdog_stops_servers_when_the_owner_dies(tmp_path, need_nginx):
    state = tmp_path / "st"
    code = ("import sys, os; sys.path.insert(0, %r); import servers\n"
            "s = servers.Servers(%r, nginx=True, proxy='http'); s.owner_pid = os.getpid(); s.up()\n"
            "print('up', flush=True); os._exit(3)  # a crash: no down()\n"
            % (str(Path(SERVERS_PY).parent), str(state)))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and "up" in r.stdout, r.stderr
    pids = json.loads((state / "pids.json").read_text())
    # The watchdog stops them 2 s after `up`; its down() may take 7 s more (SIGTERM, then SIGKILL),
    # so the bound leaves a loaded machine room (it failed once at 15 s beside an ASan build).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(alive(e["pid"], e["start"]) for e in pids):
        time.sleep(0.2)
    assert not any(alive(e["pid"], e["start"]) for e in pids)
    assert not (state / "pids.json").exists()


def test_ttl_bounds_a_cli_up(tmp_path, need_nginx):
    state = tmp_path / "st"
    assert cli("up", "--state", state, "--nginx", "--ttl", 2).returncode == 0
    pids = json.loads((state / "pids.json").read_text())
    # The watchdog stops them 2 s after `up`; its down() may take 7 s more (SIGTERM, then SIGKILL),
    # so the bound leaves a loaded machine room (it failed once at 15 s beside an ASan build).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(alive(e["pid"], e["start"]) for e in pids):
        time.sleep(0.2)
    assert not any(alive(e["pid"], e["start"]) for e in pids)


def test_netem_mode_commands(monkeypatch):
    """The tc commands of mode=netem (this machine's kernel has no sch_netem to run them)."""
    calls = []

    def fake_run(cmd, check=True, timeout=30, **kw):
        calls.append([str(c) for c in cmd])
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(servers, "run", fake_run)
    ns = servers.Netns(4242, servers.parse_netem("delay=50ms,rate=200mbit,loss=0.5%,mode=netem"))
    ns.create()
    assert ns.mode == "netem" and ns.name == "frh4242" and ns.veth_a == "frh4242a"
    tc = [c for c in calls if c[0] == "tc"]
    assert tc == [
        ["tc", "qdisc", "add", "dev", "frh4242a", "root", "netem", "delay", "25000us", "loss",
         "0.5%", "rate", "200mbit"],
        ["tc", "-n", "frh4242", "qdisc", "add", "dev", "frh4242b", "root", "netem", "delay",
         "25000us", "loss", "0.5%", "rate", "200mbit"]]
    assert ["ip", "netns", "add", "frh4242"] in calls
    net = servers.ipaddress.ip_network(f"{ns.host_addr}/30", strict=False)
    assert net.subnet_of(servers.NET_BASE) and ns.ns_addr in map(str, net.hosts())


def test_netem_spec_parsing():
    assert servers.parse_netem("delay=50ms,rate=200mbit,loss=0%") == {
        "delay_ms": 50.0, "rate": "200mbit", "loss": "0%", "mode": "auto"}
    assert servers.parse_netem("delay=0.1s,mode=relay")["delay_ms"] == 100.0
    for bad in ("delay=fast", "rate=10", "loss=1", "jitter=1ms", "delay"):
        with pytest.raises(ValueError):
            servers.parse_netem(bad)


# ----------------------------------------------------------------------------- netem

def need_netem():
    try:
        servers.netem_prereqs()
    except servers.Unavailable as e:
        pytest.skip(str(e))


def ttfb(base, path, conn=None):
    """Seconds from sending a GET to its first response byte, on conn or a fresh connection."""
    u = urllib.parse.urlsplit(base)
    own = conn is None
    conn = conn or http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    t0 = time.monotonic()
    conn.request("GET", path, headers={"Range": "bytes=0-99"})
    r = conn.getresponse()
    took = time.monotonic() - t0
    assert r.status == 206 and len(r.read()) == 100
    if own:
        conn.close()
    return took


def test_netem_link_adds_the_delay_and_down_removes_it(tmp_path, need_nginx, tree):
    need_netem()
    delay_ms = 80
    with servers.Servers(tmp_path / "st", nginx=True, proxy="http", data=tree,
                         netem=f"delay={delay_ms}ms,rate=100mbit") as s:
        ep = s.endpoints
        nm = ep["netem"]
        assert nm["mode"] in ("netem", "relay") and nm["delay_ms"] == delay_ms
        assert ep["http"] == f"http://{nm['ns_addr']}:8080"
        assert nm["namespace"] in harness_netns() and any(nm["veth"] in ln for ln in harness_links())
        for base in (ep["http"], ep["proxy"]):
            u = urllib.parse.urlsplit(base)
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
            ttfb(base, "/shard-0000.tar", conn)  # connection set up
            warm = min(ttfb(base, "/shard-0000.tar", conn) for _ in range(3))
            conn.close()
            fresh = ttfb(base, "/shard-0000.tar")
            print(f"netem {nm['mode']} {base}: keep-alive ttfb {warm * 1000:.1f} ms, "
                  f"fresh connection {fresh * 1000:.1f} ms (delay {delay_ms} ms RTT)")
            assert warm >= delay_ms / 1000  # one round trip
            assert fresh >= 2 * delay_ms / 1000  # handshake + request
        # faults keep their kind through the link (the relay passes an RST on as an RST)
        s.set_faults([{"match": "shard-0000", "fault": "reset", "after_bytes": 1000},
                      {"match": "shard-0000", "fault": "short", "after_bytes": 2000}])
        head, body, end = raw_request(ep["proxy"], "/shard-0000.tar")
        assert (status_of(head), len(body), end) == (200, 1000, "reset")
        head, body, end = raw_request(ep["proxy"], "/shard-0000.tar")
        assert (status_of(head), len(body), end) == (200, 2000, "eof")
        head, body, end = raw_request(ep["proxy"], "/shard-0000.tar")
        assert (status_of(head), len(body), end) == (200, 300_000, "open")
        ctx = ssl.create_default_context(cafile=ep["ca_file"])
        with urllib.request.urlopen(ep["https"] + "/sub/a.txt", context=ctx, timeout=20) as r:
            assert r.read() == b"hello from the harness\n"
        pids = json.loads((Path(ep["state"]) / "pids.json").read_text())
    assert nm["namespace"] not in harness_netns()
    assert not any(nm["veth"] in ln for ln in harness_links())
    assert not any(alive(e["pid"], e["start"]) for e in pids)


def test_netem_s3_behind_the_link(tmp_path, venv_python, tree, need_curl):
    need_netem()
    with servers.Servers(tmp_path / "st", s3=True, auth=True, data=tree, python=venv_python,
                         netem="delay=40ms") as s:
        ep = s.endpoints
        assert ep["s3"].startswith(f"http://{ep['netem']['ns_addr']}:")
        t0 = time.monotonic()
        code, body = curl_s3(ep, "GET", f"/{ep['bucket']}/sub/a.txt")
        assert (code, body) == (200, b"hello from the harness\n")
        assert time.monotonic() - t0 >= 0.04
        assert curl_s3(ep, "GET", f"/{ep['bucket']}/sub/a.txt", secret="x")[0] == 403


def test_stale_namespaces_are_cleaned(tmp_path):
    need_netem()
    p = subprocess.Popen(["true"])
    p.wait()
    ns = f"frh{p.pid}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    subprocess.run(["ip", "link", "add", ns + "a", "type", "veth", "peer", "name", ns + "b"],
                   check=True)
    subprocess.run(["ip", "link", "set", ns + "b", "netns", ns], check=True)
    inside = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "60"], start_new_session=True)
    try:
        time.sleep(0.2)
        r = cli("cleanup")
        assert r.returncode == 0 and ns in r.stdout
        assert ns not in harness_netns()
        assert not any(f"{ns}a" in ln for ln in harness_links())
        assert inside.wait(timeout=10) is not None  # what ran inside was ended
    finally:
        if inside.poll() is None:
            inside.kill()
            inside.wait()
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", ns + "a"], capture_output=True)


def test_netem_unavailable_exits_77_when_not_root(tmp_path, need_nginx):
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("needs setpriv to drop root")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
               sys.executable, SERVERS_PY]
    else:
        cmd = [sys.executable, SERVERS_PY]
    state = Path(tempfile.mkdtemp(prefix="frh-77-"))
    try:
        os.chmod(state, 0o777)
        r = subprocess.run(cmd + ["up", "--state", str(state), "--nginx", "--netem", "delay=10ms"],
                           capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    assert r.returncode == servers.EXIT_UNAVAILABLE and "root" in r.stderr, r.stderr
