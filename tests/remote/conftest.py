"""Fixtures for the harness's own tests (test_harness.py), which start their own servers (see
servers.py's docstring), and `endpoints`, for the suites ctest runs under its `remote` fixture
(test_python_source.py, test_fields_source.py, test_cli_source.py).

Run: python3 -m pytest -q tests/remote   (Debian's python3 + build/remote-venv from
`make test-remote-deps`, or that venv's own python, which has pytest too).
"""

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers  # noqa: E402


def _has_moto(python):
    if not Path(python).exists():
        return False
    r = subprocess.run([python, "-c", "import moto.server, boto3"], capture_output=True)
    return r.returncode == 0


@pytest.fixture()
def endpoints(monkeypatch):
    """The endpoints.json of the servers ctest's `remote` fixture started (named by
    FEEDRATE_REMOTE_ENDPOINTS; the test is skipped without it), with this process's environment
    (which the feedrate command inherits) reading the S3 server as the AWS tools would: its
    keys, region, endpoint and CA bundle, no profile (botocore reads AWS_DEFAULT_PROFILE, then
    AWS_PROFILE), no session token, no instance metadata."""
    path = os.environ.get("FEEDRATE_REMOTE_ENDPOINTS")
    if not path or not os.path.exists(path):
        pytest.skip("FEEDRATE_REMOTE_ENDPOINTS not set: the remote fixture did not run")
    with open(path) as f:
        e = json.load(f)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", e["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", e["secret_key"])
    monkeypatch.setenv("AWS_REGION", e["region"])
    monkeypatch.setenv("AWS_ENDPOINT_URL", e["s3"])
    monkeypatch.setenv("AWS_CA_BUNDLE", e["ca_file"])
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for variable in ("AWS_DEFAULT_PROFILE", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    return e


@pytest.fixture(scope="session")
def venv_python():
    python = servers.default_python()
    if not _has_moto(python):
        pytest.skip(f"no moto/boto3 at {python}: run `make test-remote-deps` "
                    "(or set FEEDRATE_REMOTE_PYTHON)")
    return python


@pytest.fixture(scope="session")
def need_curl():
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")


@pytest.fixture(scope="session")
def need_nginx():
    if not shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin"):
        pytest.skip("nginx is not installed (make test-remote-deps)")
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed (make test-remote-deps)")


@pytest.fixture(scope="session")
def tree(tmp_path_factory):
    """A small data tree: two 'shards' of seeded random bytes and a nested text file."""
    root = tmp_path_factory.mktemp("tree")
    rng = random.Random(1234)
    for i, size in enumerate((300_000, 70_001)):
        (root / f"shard-{i:04d}.tar").write_bytes(rng.randbytes(size))
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("hello from the harness\n")
    return root


@pytest.fixture(scope="module")
def s3(tmp_path_factory, venv_python, tree):
    """moto with auth on, the tree under prefix data/, and the fault proxy in front."""
    state = tmp_path_factory.mktemp("s3-state")
    with servers.Servers(state, s3=True, auth=True, proxy="s3", data=tree, prefix="data/",
                         python=venv_python) as s:
        yield s


@pytest.fixture(scope="module")
def web(tmp_path_factory, need_nginx, tree):
    """nginx on http and https serving the tree, and the fault proxy in front of http."""
    state = tmp_path_factory.mktemp("web-state")
    with servers.Servers(state, nginx=True, proxy="http", data=tree) as s:
        yield s


@pytest.fixture
def clean_proxy(web):
    web.clear_faults()
    web.clear_log()
    yield web
    web.clear_faults()
