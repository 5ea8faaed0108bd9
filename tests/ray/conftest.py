"""A local Ray cluster of three 2-CPU nodes on this machine (the head and two more raylets,
150 MB of object store each), and generated datasets. Ray comes from PyPI, and the tests run in
a network namespace of their own (`make test-ray`, tests/ray/in_namespace.sh): the cluster binds
the namespace's address, never this machine's interfaces."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import feedrate  # noqa: E402
import feedrate.ray  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
OBJECT_STORE = 150 * 2**20
NODE_CPUS = 2  # logical CPUs: more than 1, so that the default task width is observable


def cli():
    """The `feedrate` command: FEEDRATE_CLI, else build/bench/feedrate of this checkout."""
    path = os.environ.get("FEEDRATE_CLI") or str(REPO / "build" / "bench" / "feedrate")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no feedrate command at {path}: set FEEDRATE_CLI or run make build")
    return path


def namespace_address():
    """The address Ray will bind: FEEDRATE_RAY_NODE_IP, the one of the network namespace that
    tests/ray/in_namespace.sh (`make test-ray`) runs the tests in. Outside it the cluster would
    bind this machine's own interface address, so the tests refuse to start."""
    from ray.util import get_node_ip_address

    expected = os.environ.get("FEEDRATE_RAY_NODE_IP")
    if not expected:
        pytest.fail("tests/ray start a Ray cluster: run them with `make test-ray`, which runs "
                    "them in a network namespace of their own (tests/ray/in_namespace.sh)")
    detected = get_node_ip_address()
    if detected != expected:
        pytest.fail(f"Ray would bind {detected}, not the namespace's {expected}: run the tests "
                    "through tests/ray/in_namespace.sh")
    return expected


@pytest.fixture(scope="session")
def cluster():
    import ray
    from ray.cluster_utils import Cluster

    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    # The nodes bind the namespace's address, which Ray detects itself (its Cluster builds the
    # GCS address from the detected one, so a node_ip_address of 127.0.0.1 leaves ray.init()
    # waiting on it). The dashboard is off.
    address = namespace_address()
    nodes = Cluster(initialize_head=True, head_node_args={
        "num_cpus": NODE_CPUS, "object_store_memory": OBJECT_STORE, "include_dashboard": False,
        "node_ip_address": address})
    try:
        for _ in range(2):
            nodes.add_node(num_cpus=NODE_CPUS, object_store_memory=OBJECT_STORE, node_ip_address=address)
        ray.init(address=nodes.address)
        nodes.wait_for_nodes()
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()


def make_dataset(root, count, classes):
    subprocess.run([cli(), "make-dataset", "--count", str(count), "--classes", str(classes),
                    str(root)], check=True, stdout=subprocess.DEVNULL)
    return root


@pytest.fixture(scope="session")
def photos(tmp_path_factory):
    """203 ImageNet-sized JPEGs in 7 classes: 203 is divisible by neither 2, 3 nor 4 tasks."""
    return make_dataset(tmp_path_factory.mktemp("ray") / "photos", 203, 7)


@pytest.fixture(scope="session")
def broken(tmp_path_factory, photos):
    """photos with three JPEGs cut to their first 300 bytes; returns (root, bad paths)."""
    root = tmp_path_factory.mktemp("ray") / "broken"
    shutil.copytree(photos, root)
    bad = sorted(root.rglob("*.jpg"))[5::70]
    for path in bad:
        path.write_bytes(path.read_bytes()[:300])
    return root, bad
