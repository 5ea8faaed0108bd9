"""Fault-injecting HTTP/1.1 reverse proxy for feedrate's remote-source tests (Python stdlib only).

Run by tests/remote/servers.py (see its docstring for the whole harness); standalone:

    python3 tests/remote/fault_proxy.py --listen 127.0.0.1:0 --upstream http://127.0.0.1:9000 \
        --port-file /tmp/p.port [--max-delay-s 60]

Every request is forwarded to the upstream as received (method, path and query byte for byte,
all end-to-end headers including Host, Authorization and Range, the body), and the upstream's
status, headers and body are relayed, unless a fault rule matches. Host is kept, so a SigV4
signature made for the proxy's address still verifies at moto. Hop-by-hop headers (Connection,
Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade, Proxy-*, Expect) are not forwarded; the
client connection is keep-alive unless the client asked for close (or sent HTTP/1.0 without
keep-alive), and every response it gets carries an exact Content-Length (a chunked upstream
body is read whole first), so keep-alive stays honest. Upstream connections are one per request.

Control endpoint, on the proxy's own port (never forwarded, never faulted, never logged):

    POST   /__faults   JSON rule or list of rules, appended in order   -> {"ids": [...]}
    GET    /__faults   the rules with "fired" and "remaining" counts
    DELETE /__faults   remove every rule
    GET    /__log      every proxied request seen, oldest first (at most 20000 kept)
    DELETE /__log      forget them

A rule (the first rule that matches and has firings left is used; one rule per request):

    {"match": "shard-0003", # substring of path?query; or "regex": "..." (re.search); or neither
     "method": "GET",       # optional
     "has_range": true,     # optional: only requests with (true) / without (false) a Range header
     "times": 2,            # fires this many times then stops (default 1); or "always": true
     "fault": "status",     # status | reset | short | delay | stall
     "status": 503,         # for "status": 503 SlowDown, 500 InternalError, 429 TooManyRequests,
                            # 403 AccessDenied, 404 NoSuchKey (others: "code" says it)
     "code": "SlowDown",    # optional S3 error code in the XML body
     "retry_after": 1,      # optional Retry-After header on a status fault
     "after_bytes": 100,    # reset: RST after this many body bytes of the real response (absent:
                            #   RST before any response byte); short: body bytes sent before a
                            #   clean close (default: half the body), Content-Length stays the
                            #   upstream's full length
     "delay_ms": 500,       # delay before the first response byte (the whole fault for "delay";
                            # also applies before any other fault when given)
     "stall_ms": 2000}      # stall: pause after after_bytes body bytes (default 0), then go on

Faults in detail:
  status  the request is not forwarded; the answer is the status with an S3-style XML <Error>
          body, exact Content-Length, connection kept alive (as S3 does).
  reset   the request is read whole, then the socket is closed with SO_LINGER 0 (the client sees
          ECONNRESET), either at once or after the upstream's status line, headers and
          after_bytes bytes of its body.
  short   the upstream response is relayed with its real Content-Length, but only after_bytes of
          the body are sent before a clean close (FIN): the client sees a body shorter than
          Content-Length (curl: error 18, CURLE_PARTIAL_FILE).
  delay   delay_ms of silence, then the request is forwarded normally (at most --max-delay-s).
  stall   the response starts normally; after after_bytes body bytes it pauses stall_ms (at most
          --max-delay-s), then sends the rest: a client's low-speed or transfer timeout fires.

Log entry: {"seq", "t" (unix time), "method", "path" (path?query with X-Amz-Signature,
X-Amz-Security-Token and X-Amz-Credential values replaced by "REDACTED"), "range" (the Range
header or null), "has_auth" (bool), "header_names" (names only), "status" (served, or null when
no status line was sent), "fault" (kind or null), "rule" (id or null), "body_bytes" (response body
bytes sent), "error" (upstream error text or null)}. No header value other than Range is logged.
"""

import argparse
import http.client
import http.server
import json
import os
import re
import select
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
    "upgrade", "proxy-authorization", "proxy-authenticate", "expect",
}
REDACT_QUERY = {"x-amz-signature", "x-amz-security-token", "x-amz-credential"}
S3_CODES = {503: "SlowDown", 500: "InternalError", 429: "TooManyRequests", 403: "AccessDenied",
            404: "NoSuchKey", 400: "BadRequest", 502: "BadGateway", 504: "GatewayTimeout"}
FAULTS = {"status", "reset", "short", "delay", "stall"}
LOG_MAX = 20000
CHUNK = 64 * 1024


def redact_path(path):
    if "?" not in path:
        return path
    base, query = path.split("?", 1)
    parts = []
    for item in query.split("&"):
        name = urllib.parse.unquote(item.split("=", 1)[0]).lower()
        parts.append(item.split("=", 1)[0] + "=REDACTED" if name in REDACT_QUERY else item)
    return base + "?" + "&".join(parts)


def validate_rule(rule):
    if not isinstance(rule, dict):
        raise ValueError("a rule is a JSON object")
    fault = rule.get("fault")
    if fault not in FAULTS:
        raise ValueError(f"fault must be one of {sorted(FAULTS)}, got {fault!r}")
    if fault == "status" and not isinstance(rule.get("status"), int):
        raise ValueError("a status fault needs an integer 'status'")
    if "regex" in rule:
        re.compile(rule["regex"])
    times = rule.get("times", 1)
    if not rule.get("always") and (not isinstance(times, int) or times < 1):
        raise ValueError("'times' must be a positive integer (or give 'always': true)")
    if fault == "stall" and not rule.get("stall_ms"):
        raise ValueError("a stall fault needs 'stall_ms'")
    for key in ("after_bytes", "delay_ms", "stall_ms"):
        if key in rule and (not isinstance(rule[key], (int, float)) or rule[key] < 0):
            raise ValueError(f"'{key}' must be a non-negative number")
    unknown = set(rule) - {"match", "regex", "method", "has_range", "times", "always", "fault",
                           "status", "code", "retry_after", "after_bytes", "delay_ms", "stall_ms",
                           "message"}
    if unknown:
        raise ValueError(f"unknown rule keys: {sorted(unknown)}")


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules = []  # dicts with "id", "fired"
        self.next_id = 1
        self.log = []
        self.seq = 0

    def add_rules(self, rules):
        for r in rules:
            validate_rule(r)
        ids = []
        with self.lock:
            for r in rules:
                r = dict(r)
                r["id"] = self.next_id
                r["fired"] = 0
                self.next_id += 1
                self.rules.append(r)
                ids.append(r["id"])
        return ids

    def take_rule(self, method, path, has_range):
        with self.lock:
            for r in self.rules:
                if not r.get("always") and r["fired"] >= r.get("times", 1):
                    continue
                if r.get("method") and r["method"].upper() != method:
                    continue
                if "has_range" in r and bool(r["has_range"]) != has_range:
                    continue
                if "match" in r and r["match"] not in path:
                    continue
                if "regex" in r and not re.search(r["regex"], path):
                    continue
                r["fired"] += 1
                return dict(r)
        return None

    def rules_view(self):
        with self.lock:
            out = []
            for r in self.rules:
                v = dict(r)
                v["remaining"] = None if r.get("always") else r.get("times", 1) - r["fired"]
                out.append(v)
            return out

    def record(self, entry):
        with self.lock:
            self.seq += 1
            entry["seq"] = self.seq
            self.log.append(entry)
            if len(self.log) > LOG_MAX:
                del self.log[: len(self.log) - LOG_MAX]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "feedrate-fault-proxy"
    timeout = 300  # an idle keep-alive connection is closed after this
    sys_version = ""

    def log_message(self, fmt, *args):  # access log goes to /__log, not stderr
        pass

    # One method for every verb.
    def do_GET(self):
        self.handle_any()

    do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def read_body(self):
        te = self.headers.get("Transfer-Encoding", "").lower()
        if "chunked" in te:
            parts = []
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline(65537)
            return b"".join(parts)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def client_wants_close(self):
        conn = self.headers.get("Connection", "").lower()
        if self.request_version == "HTTP/1.0":
            return "keep-alive" not in conn
        return "close" in conn

    def send_simple(self, status, body, ctype="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Connection", "close" if self.close_connection else "keep-alive")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def control(self, body):
        state = self.server.state
        path = self.path.split("?", 1)[0]
        try:
            if path == "/__faults" and self.command == "POST":
                rules = json.loads(body or b"null")
                rules = rules if isinstance(rules, list) else [rules]
                out = {"ids": state.add_rules(rules)}
            elif path == "/__faults" and self.command == "GET":
                out = {"rules": state.rules_view()}
            elif path == "/__faults" and self.command == "DELETE":
                with state.lock:
                    state.rules.clear()
                out = {"ok": True}
            elif path == "/__log" and self.command == "GET":
                with state.lock:
                    out = {"log": list(state.log)}
            elif path == "/__log" and self.command == "DELETE":
                with state.lock:
                    state.log.clear()
                out = {"ok": True}
            else:
                self.send_simple(404, b'{"error": "no such control endpoint"}')
                return
        except (ValueError, re.error) as e:
            self.send_simple(400, json.dumps({"error": str(e)}).encode())
            return
        self.send_simple(200, json.dumps(out).encode())

    def pause(self, seconds):
        """Sleeps, but returns False early when the client closes its end meanwhile."""
        deadline = time.monotonic() + min(seconds, self.server.max_delay_s)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            try:
                readable = select.select([self.connection], [], [], left)[0]
                if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return False
            except (OSError, ValueError):
                return False
            if readable:  # a pipelined request: nothing to watch for, just wait
                time.sleep(max(0.0, deadline - time.monotonic()))
                return True

    def reset_now(self):
        """RST: SO_LINGER on with 0 s, then close."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

    def handle_any(self):
        self.close_connection = self.client_wants_close()
        try:
            body = self.read_body()
        except (ValueError, OSError):
            self.close_connection = True
            return
        if self.path.split("?", 1)[0] in ("/__faults", "/__log"):
            self.control(body)
            return
        has_range = "Range" in self.headers
        entry = {
            "t": time.time(), "method": self.command, "path": redact_path(self.path),
            "range": self.headers.get("Range"),
            "has_auth": "Authorization" in self.headers or "X-Amz-Security-Token" in self.headers,
            "header_names": list(self.headers.keys()),
            "status": None, "fault": None, "rule": None, "body_bytes": 0, "error": None,
        }
        rule = self.server.state.take_rule(self.command, self.path, has_range)
        if rule:
            entry["fault"] = rule["fault"]
            entry["rule"] = rule["id"]
        try:
            self.serve(rule, body, entry)
        except (BrokenPipeError, ConnectionResetError) as e:
            entry["error"] = entry["error"] or f"client: {e}"
            self.close_connection = True
        finally:
            self.server.state.record(entry)

    def serve(self, rule, body, entry):
        fault = rule["fault"] if rule else None
        if rule and rule.get("delay_ms") and not self.pause(rule["delay_ms"] / 1000.0):
            entry["error"] = "client: closed during the delay"
            self.close_connection = True
            return
        if fault == "status":
            status = rule["status"]
            code = rule.get("code") or S3_CODES.get(status, "Error")
            msg = rule.get("message") or f"fault injected by feedrate's fault proxy ({code})"
            xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s'
                   '</Message><Resource>%s</Resource><RequestId>feedrate-fault-%d</RequestId>'
                   '</Error>' % (code, msg, self.path.split("?", 1)[0], rule["id"])).encode()
            extra = [("Retry-After", str(rule["retry_after"]))] if "retry_after" in rule else []
            entry["status"] = status
            self.send_simple(status, xml, "application/xml", extra)
            entry["body_bytes"] = 0 if self.command == "HEAD" else len(xml)
            return
        if fault == "reset" and "after_bytes" not in rule:
            self.reset_now()
            return
        self.forward(rule, body, entry)

    def forward(self, rule, body, entry):
        fault = rule["fault"] if rule else None
        up = self.server.upstream
        conn_cls = http.client.HTTPSConnection if up.scheme == "https" else http.client.HTTPConnection
        kwargs = {"timeout": self.server.upstream_timeout}
        if up.scheme == "https":
            import ssl
            kwargs["context"] = ssl._create_unverified_context()
        conn = conn_cls(up.hostname, up.port or (443 if up.scheme == "https" else 80), **kwargs)
        try:
            try:
                conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for k, v in self.headers.items():
                    if k.lower() in HOP_BY_HOP or k.lower() == "content-length":
                        continue
                    conn.putheader(k, v)
                if body or self.command in ("PUT", "POST", "PATCH"):
                    conn.putheader("Content-Length", str(len(body)))
                conn.putheader("Connection", "close")
                conn.endheaders(body if body else None)
                resp = conn.getresponse()
                head_only = self.command == "HEAD" or resp.status in (204, 304) or resp.status < 200
                length = resp.getheader("Content-Length")
                if head_only:
                    data = None
                    length = int(length) if length is not None else None
                elif length is None:  # chunked or until-close upstream: read whole
                    data = resp.read()
                    length = len(data)
                else:
                    data = None
                    length = int(length)
            except (OSError, http.client.HTTPException) as e:
                entry["error"] = f"upstream: {e!r}"
                entry["status"] = 502
                self.close_connection = True
                self.send_simple(502, b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>'
                                 b'BadGateway</Code><Message>fault proxy: upstream failed'
                                 b'</Message></Error>', "application/xml")
                return
            limit = None  # body bytes to send before the fault fires
            if fault in ("reset", "short") and not head_only:
                limit = int(rule.get("after_bytes", length // 2 if fault == "short" else 0))
                limit = min(limit, max(length - 1, 0))
                self.close_connection = True
            self.send_response_only(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() in HOP_BY_HOP or k.lower() in ("content-length", "date", "server"):
                    continue
                self.send_header(k, v)
            self.send_header("Date", self.date_time_string())
            if length is not None:
                self.send_header("Content-Length", str(length))
            if resp.getheader("Server"):
                self.send_header("Server", resp.getheader("Server"))
            self.send_header("Connection", "close" if self.close_connection else "keep-alive")
            self.end_headers()
            entry["status"] = resp.status
            if head_only:
                if fault == "reset":
                    self.reset_now()
                return
            sent = 0
            budget = length if limit is None else limit
            pause_at = int(rule.get("after_bytes", 0)) if fault == "stall" else None
            while sent < budget:
                if sent == pause_at:
                    pause_at = None
                    if not self.pause(rule["stall_ms"] / 1000.0):
                        entry["error"] = "client: closed during the stall"
                        self.close_connection = True
                        break
                want = min(CHUNK, budget - sent)
                if pause_at is not None and pause_at > sent:
                    want = min(want, pause_at - sent)
                piece = data[sent:sent + want] if data is not None else resp.read(want)
                if not piece:
                    entry["error"] = "upstream: body ended early"
                    self.close_connection = True
                    break
                self.wfile.write(piece)
                sent += len(piece)
            entry["body_bytes"] = sent
            if fault == "reset":
                self.reset_now()
        finally:
            conn.close()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):  # a client gone mid-request is not news
        exc = sys.exc_info()[1]
        if not isinstance(exc, (ConnectionError, TimeoutError, OSError)):
            super().handle_error(request, client_address)


def make_server(listen_host, listen_port, upstream, max_delay_s=60.0, upstream_timeout=60.0):
    srv = Server((listen_host, listen_port), Handler)
    srv.state = State()
    srv.upstream = urllib.parse.urlsplit(upstream)
    srv.max_delay_s = max_delay_s
    srv.upstream_timeout = upstream_timeout
    return srv


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT (port 0: a free one)")
    ap.add_argument("--upstream", required=True, help="http://HOST:PORT or https://HOST:PORT")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--max-delay-s", type=float, default=60.0)
    ap.add_argument("--upstream-timeout-s", type=float, default=60.0)
    args = ap.parse_args(argv)
    host, _, port = args.listen.rpartition(":")
    srv = make_server(host, int(port), args.upstream, args.max_delay_s, args.upstream_timeout_s)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(tmp, args.port_file)
    import signal
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=srv.shutdown).start())
    try:
        srv.serve_forever(poll_interval=0.2)
    finally:
        srv.server_close()


if __name__ == "__main__":
    main()
