"""The command line on a pack's index.json at a remote URL: `feedrate bench` reads the pack
through it, `feedrate doctor --dataset URL` measures the shards the index lists, not the index
file (remote_source_test checks that the index spares a streaming pass).

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt, test remote.cli), which
serves the tree remote.data made (its `packed/` folder is `feedrate pack` output);
FEEDRATE_REMOTE_ENDPOINTS names the servers' endpoints.json and FEEDRATE_CLI the binary.
"""

import json
import os
import subprocess

import pytest


@pytest.fixture()
def endpoints():
    path = os.environ.get("FEEDRATE_REMOTE_ENDPOINTS")
    if not path or not os.path.exists(path):
        pytest.skip("FEEDRATE_REMOTE_ENDPOINTS not set: the remote fixture did not run")
    with open(path) as f:
        return json.load(f)


def feedrate(endpoints, *args):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=endpoints["access_key"],
               AWS_SECRET_ACCESS_KEY=endpoints["secret_key"], AWS_REGION=endpoints["region"],
               AWS_ENDPOINT_URL=endpoints["s3"], AWS_CA_BUNDLE=endpoints["ca_file"])
    env.pop("AWS_PROFILE", None)
    done = subprocess.run([os.environ["FEEDRATE_CLI"], *args], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert endpoints["secret_key"] not in done.stdout + done.stderr
    return json.loads(done.stdout[done.stdout.index("{"):])


def local_index(endpoints):
    with open(os.path.join(endpoints["data"], "packed", "index.json")) as f:
        return json.load(f)


def test_bench_reads_a_pack_index_at_an_s3_url(endpoints):
    url = f"s3://{endpoints['bucket']}/{endpoints['prefix']}packed/index.json"
    run = feedrate(endpoints, "bench", url, "--batches", "3", "--batch", "8", "--workers", "1",
                   "--size", "48", "--no-pack-probe", "--json")
    assert run["dataset"] == url
    assert run["images"] == 24
    store = run["stages"]["store"]
    assert store["scheme"] == "s3" and store["requests"] > 0 and store["failed"] == 0


def test_doctor_measures_the_shards_a_pack_index_lists(endpoints):
    url = endpoints["https"] + "/packed/index.json"
    doc = feedrate(endpoints, "doctor", "--dataset", url, "--no-disk", "--probe-mb", "4", "--json")
    assert doc["store"]["error"] == ""
    assert doc["store"]["url"] == url
    shards = local_index(endpoints)["shards"]
    assert len(shards) >= 2
    assert doc["store"]["objects"] == min(len(shards), doc["store"]["connections"])
