"""rank / world_size select the same samples as torch.utils.data.DistributedSampler."""

import numpy as np
import pytest

from conftest import CLASSES, PER_CLASS, epoch, feedrate, small

torch = pytest.importorskip("torch")
COUNT = len(CLASSES) * PER_CLASS


def loader_indices(root, **options):
    _, _, indices = epoch(feedrate.Loader(root, **small(return_indices=True, **options)))
    return np.concatenate(indices).tolist()


@pytest.mark.parametrize("world_size", [2, 3, 5])
@pytest.mark.parametrize("drop_tail", [False, True])
def test_shards_equal_distributed_sampler(image_folder, world_size, drop_tail):
    shards = []
    for rank in range(world_size):
        sampler = torch.utils.data.DistributedSampler(
            range(COUNT), num_replicas=world_size, rank=rank, shuffle=False, drop_last=drop_tail)
        mine = loader_indices(image_folder, shuffle=False, rank=rank, world_size=world_size,
                              pad_shards=not drop_tail)
        assert mine == list(sampler)  # unshuffled: the same indices in the same order
        shards.append(mine)
        # Shuffled: a different permutation than torch's, but the same shard sizes.
        shuffled = loader_indices(image_folder, shuffle=True, seed=1, rank=rank,
                                  world_size=world_size, pad_shards=not drop_tail)
        assert len(shuffled) == len(sampler)
    covered = set().union(*map(set, shards))
    assert covered == set(range(len(covered))) and len(covered) >= COUNT - world_size + 1


def test_shuffled_shards_are_disjoint_and_cover(image_folder):
    shards = [loader_indices(image_folder, seed=5, rank=r, world_size=4) for r in range(4)]
    assert sorted(sum(shards, [])) == list(range(COUNT))  # 28 = 4 x 7: no padding


def test_rank_and_world_size_come_from_the_environment(image_folder, monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    loader = feedrate.Loader(image_folder, **small(shuffle=False, return_indices=True))
    assert (loader.rank, loader.world_size) == (1, 3)
    sampler = torch.utils.data.DistributedSampler(range(COUNT), num_replicas=3, rank=1,
                                                  shuffle=False)
    assert np.concatenate(epoch(loader)[2]).tolist() == list(sampler)
