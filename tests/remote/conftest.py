"""Fixtures for the harness's own tests (test_harness.py); see servers.py's docstring.

Run: python3 -m pytest -q tests/remote   (Debian's python3 + build/remote-venv from
`make test-remote-deps`, or that venv's own python, which has pytest too).
"""

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
