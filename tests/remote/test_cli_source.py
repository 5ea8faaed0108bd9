"""The command line on a pack's index.json at a remote URL: `feedrate bench` reads the pack
through it, `feedrate doctor --dataset URL` measures the shards the index lists, not the index
file (remote_source_test checks that the index spares a streaming pass).

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt, test remote.cli), which
serves the tree remote.data made (its `packed/` folder is `feedrate pack` output);
FEEDRATE_REMOTE_ENDPOINTS names the servers' endpoints.json (conftest.py's `endpoints` fixture)
and FEEDRATE_CLI the binary.
"""

import json
import os
import subprocess

import pytest


def feedrate(endpoints, *args):
    """The command's JSON output; it runs in the environment the `endpoints` fixture set."""
    done = subprocess.run([os.environ["FEEDRATE_CLI"], *args], capture_output=True, text=True,
                          timeout=240)
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


def test_bench_reads_image_text_shards_with_fields_from_each_server(endpoints):
    folder = os.path.join(endpoints["data"], "fields")
    if not os.path.isdir(folder):
        pytest.skip("no image-text shards: remote.fields_data runs where the Python module is "
                    "built")
    args = ["--fields", "txt,json", "--batches", "3", "--batch", "8", "--workers", "1", "--size",
            "48", "--no-pack-probe", "--json"]
    local = feedrate(endpoints, "bench", folder, *args)
    assert local["dataset_samples"] == 40 and local["skipped"] == 0  # shard_writer.KEYS
    for url in (f"s3://{endpoints['bucket']}/{endpoints['prefix']}fields/",
                endpoints["https"] + "/fields/{00000..00001}.tar"):
        run = feedrate(endpoints, "bench", url, *args)
        assert run["dataset"] == url
        assert run["images"] == 24 and run["skipped"] == 0
        # One range per sample, covering its image and its fields, as the local index has it.
        assert run["dataset_samples"] == local["dataset_samples"]
        assert run["dataset_bytes"] == local["dataset_bytes"]
        store = run["stages"]["store"]
        assert store["requests"] > 0 and store["failed"] == 0


def test_index_of_remote_image_text_shards_lists_them_as_a_local_index_does(endpoints, tmp_path):
    """`feedrate index URL --out FILE` reads the shards through once and lists every archive
    (each member's name, offset and size, a .cls with its text): the same index.json as
    `feedrate index` of the same shards on a local disk, so that a loader of any fields starts
    from it without reading them."""
    folder = os.path.join(endpoints["data"], "fields")
    if not os.path.isdir(folder):
        pytest.skip("no image-text shards: remote.fields_data runs where the Python module is "
                    "built")

    def index(source, out):
        done = subprocess.run([os.environ["FEEDRATE_CLI"], "index", source, "--out", str(out)],
                              capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stdout + done.stderr
        assert endpoints["secret_key"] not in done.stdout + done.stderr
        with open(out) as f:
            return json.load(f)

    local = index(folder, tmp_path / "local.json")
    for url in (f"s3://{endpoints['bucket']}/{endpoints['prefix']}fields/",
                endpoints["https"] + "/fields/{00000..00001}.tar"):
        remote = index(url, tmp_path / "remote.json")
        assert remote["shards"] == local["shards"], url
        assert all(shard["tar"] for shard in remote["shards"])
        assert remote["samples"] == local["samples"] == 40  # shard_writer.KEYS
