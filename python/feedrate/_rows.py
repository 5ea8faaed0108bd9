"""Rows given to feedrate.Loader instead of a path (docs/image-text.md, "Manifests"): a sequence
of dicts, a pandas DataFrame or a pyarrow Table, written as a JSON Lines manifest that the
native loader reads. Each row names its image (a column image, path, file, filepath or url, or
the one option image= names) and holds the columns that fields= names. The manifest lies in a
temporary folder, so a relative image path is taken from the current folder and written as an
absolute one (the sample's __key__ is that absolute path)."""

from __future__ import annotations

import json
import math
import os
import tempfile
from typing import Any, Dict, Iterator, Mapping, Optional

IMAGE_COLUMNS = ("image", "path", "file", "filepath", "url")
# option image= names tar members' image extensions unless it is one other name (a column).
IMAGE_EXTENSIONS = ("jpg", "jpeg", "png", "ppm", "bmp", "pgm", "tif", "tiff", "webp")


def is_rows(source: Any) -> bool:
    """True for what Manifest writes: a pandas DataFrame, a pyarrow Table, or a list or tuple
    of mappings (a path, str or os.PathLike, is not rows)."""
    if isinstance(source, (str, bytes, os.PathLike)):
        return False
    if _is_dataframe(source) or _is_arrow_table(source):
        return True
    return isinstance(source, (list, tuple)) and all(isinstance(r, Mapping) for r in source)


def _is_dataframe(source: Any) -> bool:
    return type(source).__name__ == "DataFrame" and hasattr(source, "to_dict")


def _is_arrow_table(source: Any) -> bool:
    return type(source).__name__ == "Table" and hasattr(source, "to_batches")


def _dicts(source: Any) -> Iterator[Mapping[str, Any]]:
    if _is_dataframe(source):
        yield from source.to_dict("records")
    elif _is_arrow_table(source):
        for batch in source.to_batches():
            yield from batch.to_pylist()
    else:
        yield from source


def _plain(value: Any) -> Any:
    """A value json.dumps writes: NaN (pandas' missing value) is None, a numpy scalar or array
    its Python value, a path its text."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _image_column(row: Mapping[str, Any], image: str) -> Optional[str]:
    if image and ";" not in image and image.lower() not in IMAGE_EXTENSIONS:
        return image
    return next((c for c in IMAGE_COLUMNS if row.get(c) is not None), None)


class Manifest:
    """`rows` written as manifest.jsonl in a temporary folder, removed when the Manifest is
    garbage-collected (the Loader keeps it). `image` is the image column (option image=, when it
    names a column); relative image paths are made absolute from the current folder."""

    def __init__(self, rows: Any, image: str = "") -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="feedrate-manifest-")
        self.path = os.path.join(self._folder.name, "manifest.jsonl")
        with open(self.path, "w", encoding="utf-8") as out:
            for row in _dicts(rows):
                out.write(json.dumps(self._row(row, image), ensure_ascii=False) + "\n")

    @staticmethod
    def _row(row: Mapping[str, Any], image: str) -> Dict[str, Any]:
        plain = {str(k): _plain(v) for k, v in row.items()}
        column = _image_column(plain, image)
        if column is not None:
            path = plain.get(column)
            if isinstance(path, str) and path and "://" not in path and not os.path.isabs(path):
                plain[column] = os.path.abspath(path)
        return plain

