"""The loaders compare_image_text.py measures, one function per side, each yielding an epoch's
batches of (images, captions) from img2dataset webdataset shards (KEY.jpg, KEY.txt, KEY.json),
images float32 N x 3 x 224 x 224 normalised with CLIP's mean and std, captions a list of str:

  feedrate       feedrate.Loader(shards, fields=("txt",), transform=open_clip's training
                 Compose as open_clip.image_transform(224, is_train=True) returns it:
                 RandomResizedCrop(224, scale=(0.9, 1.0), bicubic), its RGB conversion, ToTensor,
                 Normalize), its default shuffle (a seeded permutation per epoch); num_workers
                 decode threads in one process.
  feedrate-none  the same with fields=(): images only (captions None).
  feedrate-json  the same with fields=("txt", "json"): each sample's JSON parsed too.
  webdataset     open_clip's own training loader: open_clip_train.data.get_wds_dataset (the
                 installed open_clip_torch's) with the same Compose: SimpleShardList ->
                 detshuffle2 -> split_by_node -> split_by_worker -> tarfile_to_samples_nothrow ->
                 shuffle(5000, initial 1000) -> select(filter_no_caption_or_no_image) ->
                 decode("pilrgb") -> rename(image="jpg;png;jpeg;webp", text="txt") ->
                 map_dict(image=preprocess, text=tokenizer(text)[0]) -> to_tuple -> batched,
                 with_epoch, and wds.WebLoader(batch_size=None, num_workers=N,
                 persistent_workers=True). The tokenizer is the identity (the caption string
                 comes out, as on the feedrate side; open_clip tokenises in its workers).
  dali           NVIDIA DALI's CPU pipeline (device_id=None): fn.readers.webdataset (jpg, txt),
                 fn.decoders.image on the CPU, fn.random_resized_crop(224, random_area 0.9-1.0,
                 cubic), fn.crop_mirror_normalize (float CHW, CLIP's mean and std), the captions
                 padded with zeros to the batch's longest and decoded to str after the batch;
                 num_threads=N; DALIGenericIterator.
  torch-import   no loader: a process that imports torch and waits 1 s, the memory baseline.

Each function takes (shards, batch, workers, seed) and returns (versions, epochs): versions names
each package measured, epochs(epoch) iterates that epoch's (images, captions) batches.
"""

import time
from argparse import Namespace
from importlib.metadata import version
from pathlib import Path

from peer_sides import dali_epochs

CROP = 224
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def tar_shards(shards):
    return sorted(str(path) for path in Path(shards).glob("*.tar"))


def shard_samples(shards):
    """The samples img2dataset stored, from its NNNNN_stats.json files."""
    import json
    return sum(json.loads(path.read_text())["successes"]
               for path in Path(shards).glob("*_stats.json"))


def open_clip_train_transform():
    import open_clip
    return open_clip.image_transform(CROP, is_train=True)


def torchvision_train_transform():
    """The same steps as open_clip_train_transform() (RandomResizedCrop(224, scale=(0.9, 1.0),
    bicubic), ToTensor, Normalize with CLIP's mean and std), built from torchvision alone: what
    the loader needs, without importing open_clip."""
    from torchvision import transforms as T
    return T.Compose([
        T.RandomResizedCrop(CROP, scale=(0.9, 1.0), interpolation=T.InterpolationMode.BICUBIC),
        T.ToTensor(),
        T.Normalize(mean=CLIP_MEAN, std=CLIP_STD)])


def _feedrate(fields):
    def side(shards, batch, workers, seed):
        import feedrate
        loader = feedrate.Loader(str(shards), fields=fields, batch_size=batch,
                                 num_workers=workers, transform=open_clip_train_transform(),
                                 seed=seed)

        def epochs(epoch):
            loader.set_epoch(epoch)
            for item in loader:
                yield item[0], (item[1] if len(item) > 1 else None)

        return ({"feedrate": feedrate.__version__, "open_clip_torch": version("open_clip_torch")},
                epochs)
    return side


def webdataset_side(shards, batch, workers, seed):
    from open_clip_train.data import get_wds_dataset
    args = Namespace(train_data="::".join(tar_shards(shards)), dataset_resampled=False,
                     train_num_samples=shard_samples(shards), train_data_upsampling_factors=None,
                     seed=seed, batch_size=batch, world_size=1, workers=workers)
    info = get_wds_dataset(args, open_clip_train_transform(), is_train=True,
                           tokenizer=lambda text: [text])

    def epochs(epoch):
        info.set_epoch(epoch)
        return iter(info.dataloader)

    return ({"webdataset": version("webdataset"), "open_clip_torch": version("open_clip_torch"),
             "torch": version("torch")}, epochs)


def dali_side(shards, batch, workers, seed):
    import nvidia.dali
    from nvidia.dali import fn, pipeline_def, types

    @pipeline_def(batch_size=batch, num_threads=workers, device_id=None, seed=seed)
    def pipeline():
        jpegs, texts = fn.readers.webdataset(paths=tar_shards(shards), ext=["jpg", "txt"],
                                             missing_component_behavior="error",
                                             random_shuffle=True, name="reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.random_resized_crop(images, size=[CROP, CROP], random_area=[0.9, 1.0],
                                        interp_type=types.INTERP_CUBIC)
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                          mean=[255 * m for m in CLIP_MEAN],
                                          std=[255 * s for s in CLIP_STD])
        return images, fn.pad(texts, fill_value=0)

    batches = dali_epochs(pipeline(), ("images", "texts"))

    def epochs(epoch):
        for images, texts in batches(epoch):
            yield images, [row.tobytes().rstrip(b"\0").decode() for row in texts.numpy()]

    return {"nvidia-dali": nvidia.dali.__version__}, epochs


def torch_import_side(shards, batch, workers, seed):
    import torch

    def epochs(epoch):
        time.sleep(1)  # the memory sampler's interval is 0.05 s: it sees this process settled
        return iter(())

    return {"torch": torch.__version__}, epochs


SIDES = {"feedrate": _feedrate(("txt",)), "feedrate-none": _feedrate(()),
         "feedrate-json": _feedrate(("txt", "json")), "webdataset": webdataset_side,
         "dali": dali_side, "torch-import": torch_import_side}
