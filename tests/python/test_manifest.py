"""Manifests (docs/image-text.md, "Manifests"): a .jsonl or .csv file, a list of dicts, a
pandas DataFrame or a pyarrow Table whose rows name an image and hold the columns fields=
names. The images decode exactly as the same files in a file list do (same seed, same order),
each row's columns arrive with its image, bad and missing rows are named by manifest:line,
and state_dict resumes a manifest's epoch."""

import csv
import gc
import json
import os

import pytest

import feedrate

from conftest import write_jpeg

ROWS = 30


def caption(k):
    return f'photo {k}, "quoted", café' + ("\nsecond line" if k % 5 == 0 else "")


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """imgs/img_<k>.jpg and a file list of them ("path label"), labels k % 3."""
    root = tmp_path_factory.mktemp("manifest")
    (root / "imgs").mkdir()
    for k in range(ROWS):
        write_jpeg(root / "imgs" / f"img_{k}.jpg", k, 48 + k % 5 * 4, 40 + k % 3 * 4)
    (root / "list.txt").write_text("".join(f"imgs/img_{k}.jpg {k % 3}\n" for k in range(ROWS)))
    return root


def rows():
    return [{"image": f"imgs/img_{k}.jpg", "caption": caption(k), "label": k % 3,
             "json": {"k": k, "tags": ["a", "b"]}, "index": 1000 + k} for k in range(ROWS)]


@pytest.fixture(scope="module")
def jsonl(images):
    path = images / "train.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for row in rows():
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


@pytest.fixture(scope="module")
def csv_manifest(images):
    path = images / "train.csv"
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)  # quotes the captions' commas, quotes and line breaks
        writer.writerow(["image", "caption", "label", "json", "index"])
        for row in rows():
            writer.writerow([row["image"], row["caption"], row["label"], json.dumps(row["json"]),
                             row["index"]])
    return path


OPTIONS = dict(batch_size=8, size=32, num_workers=2, arrays="numpy", transform="train", seed=7)


def number(key):
    return int(key.rsplit("_", 1)[1].split(".")[0])


def check_rows(loader):
    seen = []
    for images, keys, texts, labels, metas, indices in loader:
        assert images.shape == (len(keys), 32, 32, 3)
        for key, text, label, value, index in zip(keys, texts, labels.tolist(), metas,
                                                  indices.tolist()):
            k = number(key)
            assert (text, label, value, index) == (caption(k), k % 3,
                                                    {"k": k, "tags": ["a", "b"]}, 1000 + k)
            seen.append(k)
    assert sorted(seen) == list(range(ROWS))


FIELDS = ("__key__", "caption", "cls", "json", "index")


@pytest.mark.parametrize("name", ["jsonl", "csv_manifest"])
def test_a_manifest_delivers_each_row_with_its_image(name, request):
    loader = feedrate.Loader(request.getfixturevalue(name), fields=FIELDS, **OPTIONS)
    check_rows(loader)
    assert loader.report()["skipped"] == 0


@pytest.mark.parametrize("name", ["jsonl", "csv_manifest"])
def test_pixels_and_labels_equal_a_file_list_of_the_same_images(name, request, images):
    def epoch(source):
        return [(batch.tobytes(), labels.tolist())
                for batch, labels in feedrate.Loader(source, **OPTIONS)]

    assert epoch(request.getfixturevalue(name)) == epoch(images / "list.txt")


def test_keys_are_the_paths_as_the_manifest_writes_them(jsonl):
    keys = [key for _, batch in feedrate.Loader(jsonl, fields=("__key__",), **OPTIONS)
            for key in batch]
    assert sorted(keys) == sorted(f"imgs/img_{k}.jpg" for k in range(ROWS))


def test_a_list_of_dicts_is_a_manifest(images, monkeypatch):
    monkeypatch.chdir(images)  # the rows' relative paths are taken from the current folder
    loader = feedrate.Loader(rows(), fields=FIELDS, **OPTIONS)
    check_rows(loader)
    manifest = loader._manifest.path
    assert os.path.exists(manifest)
    del loader
    gc.collect()
    assert not os.path.exists(manifest)  # removed with its Loader


def test_rows_give_the_same_pixels_as_the_file_list(images, monkeypatch):
    monkeypatch.chdir(images)
    got = [(b.tobytes(), labels.tolist()) for b, labels in feedrate.Loader(rows(), **OPTIONS)]
    want = [(b.tobytes(), labels.tolist())
            for b, labels in feedrate.Loader(images / "list.txt", **OPTIONS)]
    assert got == want


def test_a_pandas_dataframe_is_a_manifest(images):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([{**row, "image": str(images / row["image"])} for row in rows()])
    check_rows(feedrate.Loader(frame, fields=FIELDS, **OPTIONS))


def test_integer_columns_with_a_missing_value_are_read_as_integers(images):
    # pandas turns an integer column that misses a value into floats (1.0, NaN): the row that
    # misses its label is left out, the others keep theirs.
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([{**row, "image": str(images / row["image"])} for row in rows()])
    frame.loc[3, "label"] = float("nan")
    frame["index"] = frame["index"].astype(float)
    assert frame["label"].dtype == float
    loader = feedrate.Loader(frame, fields=("__key__", "cls", "index"),
                             **{**OPTIONS, "shuffle": False, "pad_shards": False})
    got = {}
    for _, keys, labels, indices in loader:
        got.update({key: (label, index) for key, label, index in zip(keys, labels, indices)})
    assert len(got) == ROWS - 1
    for k in range(ROWS):
        key = str(images / f"imgs/img_{k}.jpg")
        assert (key not in got) if k == 3 else got[key] == (k % 3, 1000 + k)
    assert "no column 'cls' or 'label'" in loader.report()["skipped_samples"][0]["reason"]


def test_a_pyarrow_table_is_a_manifest(images):
    pyarrow = pytest.importorskip("pyarrow")
    table = pyarrow.Table.from_pylist([{**row, "image": str(images / row["image"])}
                                       for row in rows()])
    check_rows(feedrate.Loader(table, fields=FIELDS, **OPTIONS))


def test_the_image_option_names_the_column(images, monkeypatch):
    monkeypatch.chdir(images)
    renamed = [{"picture": row["image"], "txt": row["caption"]} for row in rows()]
    loader = feedrate.Loader(renamed, image="picture", fields=("__key__", "txt"), **OPTIONS)
    for _, keys, texts in loader:
        assert texts == [caption(number(key)) for key in keys]
    with pytest.raises(feedrate.Error, match="no image column"):
        feedrate.Loader(renamed, fields=("txt",), **OPTIONS)


def test_missing_and_bad_rows_are_named_by_line(images):
    path = images / "bad.jsonl"
    path.write_text('{"image": "imgs/img_0.jpg", "txt": "ok"}\n'
                    '{"image": "imgs/img_1.jpg"}\n'
                    '{"image": "imgs/img_2.jpg", "txt": \n'
                    '{"image": "imgs/img_3.jpg", "txt": "\\u00e9"}\n')
    loader = feedrate.Loader(path, fields=("txt",), on_bad="skip", **OPTIONS)
    assert sorted(t for _, texts in loader for t in texts) == ["ok", "é"]
    skipped = loader.report()["skipped_samples"]
    assert [s["where"] for s in skipped][:2] == [f"{path}:2", f"{path}:3"]
    assert "no column 'txt'" in skipped[0]["reason"]
    with pytest.raises(feedrate.Error, match=r"bad.jsonl:2: no column 'txt'"):
        feedrate.Loader(path, fields=("txt",), on_missing="error", on_bad="skip", **OPTIONS)
    with pytest.raises(feedrate.Error, match=r"bad.jsonl:3: not JSON"):
        feedrate.Loader(path, fields=("txt",), **OPTIONS)


def test_a_bad_json_cell_of_a_csv_follows_on_bad(images):
    path = images / "bad.csv"
    path.write_text('image,json\nimgs/img_0.jpg,"{""a"": 1}"\nimgs/img_1.jpg,{oops\n')
    loader = feedrate.Loader(path, fields=("json",), on_bad="skip", pad_shards=False, **OPTIONS)
    assert [v for _, values in loader for v in values] == [{"a": 1}]
    (skip,) = loader.report()["skipped_samples"]
    assert skip["where"] == f"{path}:3 (imgs/img_1.jpg)" and "not JSON" in skip["reason"]


def test_state_dict_resumes_a_manifest(jsonl):
    options = dict(OPTIONS, fields=("__key__", "caption"))
    whole = [(keys, texts) for _, keys, texts in feedrate.Loader(jsonl, **options)]
    first = feedrate.Loader(jsonl, **options)
    it = iter(first)
    next(it), next(it)
    state = first.state_dict()
    resumed = feedrate.Loader(jsonl, **options)
    resumed.load_state_dict(state)
    assert [(keys, texts) for _, keys, texts in resumed] == whole[2:]
