"""The Python Loader reads an s3:// source as it reads the local copy of the same bytes.

Run by ctest under the `remote` fixture (tests/remote/CMakeLists.txt), which serves the local
tree remote.data made; FEEDRATE_REMOTE_ENDPOINTS names the servers' endpoints.json (conftest.py's
`endpoints` fixture). Skipped when it is not set.
"""

import os

import pytest

feedrate = pytest.importorskip("feedrate")


def epoch(source, **options):
    loader = feedrate.Loader(source, batch_size=8, num_workers=2, seed=3, size=48,
                             rank=0, world_size=1, **options)
    loader.set_epoch(1)
    return [(images.numpy().tobytes(), labels.tolist()) for images, labels in loader], loader


def test_s3_shards_give_the_local_copys_batches(endpoints):
    remote, loader = epoch(f"s3://{endpoints['bucket']}/{endpoints['prefix']}tar/")
    local, _ = epoch(os.path.join(endpoints["data"], "tar"))
    assert local and remote == local
    store = loader.report()["stages"]["store"]
    assert store["scheme"] == "s3" and store["requests"] > 0
    assert store["bytes"] > 0


def test_a_denied_request_names_the_credentials_source_never_the_secret(endpoints, monkeypatch):
    secret = "wrong-secret-for-the-test"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    with pytest.raises(feedrate.Error) as raised:
        feedrate.Loader(f"s3://{endpoints['bucket']}/{endpoints['prefix']}folder/")
    text = str(raised.value)
    assert "403" in text and "AWS_ACCESS_KEY_ID" in text
    assert secret not in text and endpoints["secret_key"] not in text
