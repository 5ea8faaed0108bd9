"""state_dict() / load_state_dict(): torchdata StatefulDataLoader semantics. The state is plain
data; a restored loader continues the epoch exactly (same batches, order and bytes, any
num_workers); a finished epoch resumes at the next one; processes in the torchrun environment
that stop at world size 2 resume at 1 and 3 with every sample of the epoch delivered once."""

import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import CLASSES, PER_CLASS, feedrate, small

COUNT = len(CLASSES) * PER_CLASS


def batches(iterator, count=None):
    out = []
    for images, labels, indices in iterator:
        out.append((np.array(images), np.array(labels), np.array(indices)))
        if count is not None and len(out) == count:
            break
    return out


def loader(root, **options):
    return feedrate.Loader(root, **small(return_indices=True, seed=3, **options))


def test_state_dict_is_plain_data(image_folder):
    sd = loader(image_folder).state_dict()
    assert json.loads(json.dumps(sd)) == sd
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(sd, buffer)
    buffer.seek(0)
    assert torch.load(buffer) == sd


@pytest.mark.parametrize("shuffle", [True, "blocks"])
@pytest.mark.parametrize("stop_after", [1, 2])
def test_resumed_epoch_is_the_uninterrupted_rest(image_folder, stop_after, shuffle):
    order = dict(shuffle=shuffle, tar_chunk_bytes=4096)  # blocks of a few files
    whole = loader(image_folder, num_workers=2, **order)
    epoch0 = batches(iter(whole))
    epoch1 = batches(iter(whole))

    first = loader(image_folder, num_workers=1, **order)
    head = batches(iter(first), stop_after)
    saved = json.loads(json.dumps(first.state_dict()))  # as a checkpoint file holds it
    assert saved["in_epoch"] and saved["loader"]["batches_received"] == stop_after
    assert saved["loader"]["shuffle"]["mode"] == ("blocks" if shuffle == "blocks" else "full")

    resumed = loader(image_folder, num_workers=3, **order)
    resumed.load_state_dict(saved)
    rest = batches(iter(resumed))
    assert len(head) + len(rest) == len(epoch0)
    for got, want in zip(head + rest, epoch0):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    for got, want in zip(batches(iter(resumed)), epoch1):  # the next epoch is unaffected
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_shuffle_takes_a_bool_or_a_mode(image_folder):
    def order(**options):
        return [i for _, _, idx in batches(iter(loader(image_folder, **options))) for i in idx]
    assert order(shuffle=False) == order(shuffle="none") == list(range(COUNT))
    assert order(shuffle=True) == order(shuffle="full")
    assert sorted(order(shuffle="blocks", tar_chunk_bytes=4096)) == list(range(COUNT))
    with pytest.raises(ValueError, match="blocks"):
        loader(image_folder, shuffle="sometimes")
    with pytest.raises(TypeError):
        loader(image_folder, shuffle=2)


def test_a_finished_epoch_resumes_at_the_next(image_folder):
    first = loader(image_folder)
    batches(iter(first))
    saved = first.state_dict()
    assert not saved["in_epoch"] and saved["next_epoch"] == 1
    resumed = loader(image_folder)
    resumed.load_state_dict(saved)
    fresh = loader(image_folder)
    fresh.set_epoch(1)
    for got, want in zip(batches(iter(resumed)), batches(iter(fresh))):
        np.testing.assert_array_equal(got[2], want[2])
    assert resumed.epoch == 1


def test_a_state_of_other_options_is_refused(image_folder):
    saved = loader(image_folder).state_dict()
    with pytest.raises(feedrate.Error, match="batch_size 8 in the state, 4 here"):
        loader(image_folder, batch_size=4).load_state_dict(saved)
    damaged = json.loads(json.dumps(saved))
    damaged["loader"]["seed"] = 99
    with pytest.raises(feedrate.Error, match="checksum mismatch"):
        loader(image_folder).load_state_dict(damaged)


WORKER = textwrap.dedent("""
    import json, sys
    import feedrate
    root, phase, steps, state_path, out_path = sys.argv[1:]
    loader = feedrate.Loader(root, batch_size=4, size=32, num_workers=1, seed=3,
                             arrays="numpy", return_indices=True)  # rank, world from the env
    seen = []
    if phase == "resume":
        with open(state_path) as f:
            loader.load_state_dict(json.load(f))
    for step, (_, _, indices) in enumerate(loader):
        seen += [int(i) for i in indices]  # handed over: received, whether trained on or not
        if phase == "stop" and step + 1 == int(steps):
            break
    if phase == "stop":
        with open(state_path, "w") as f:
            json.dump(loader.state_dict(), f)
    with open(out_path, "w") as f:
        json.dump(seen, f)
""")


def run_ranks(tmp_path, root, world, phase, steps, state_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    procs, outs = [], []
    for rank in range(world):
        out = tmp_path / f"{phase}-{world}-{rank}.json"
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
        state = state_path if phase == "resume" else tmp_path / f"state-{rank}.json"
        procs.append(subprocess.Popen([sys.executable, str(script), str(root), phase, str(steps),
                                       str(state), str(out)], env=env))
        outs.append(out)
    for p in procs:
        assert p.wait(timeout=120) == 0
    return [json.loads(o.read_text()) for o in outs]


@pytest.mark.parametrize("new_world", [1, 3])
def test_torchrun_ranks_resume_at_another_world_size(image_folder, tmp_path, new_world):
    steps = 2  # each of 2 ranks takes 2 batches of 4: 16 of the 28 samples
    consumed = run_ranks(tmp_path, image_folder, 2, "stop", steps, None)
    assert [len(c) for c in consumed] == [8, 8]
    rest = run_ranks(tmp_path, image_folder, new_world, "resume", 0, tmp_path / "state-0.json")
    left = COUNT - 16
    padding = (new_world - left % new_world) % new_world
    delivered = sum(consumed, []) + sum(rest, [])
    assert sorted(set(delivered)) == list(range(COUNT))  # every sample
    assert len(delivered) == COUNT + padding  # once, plus the padding of the new deal
