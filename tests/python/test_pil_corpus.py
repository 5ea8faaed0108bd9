"""A small run of pil_corpus.py: every file of a generated corpus of PNG, WebP, TIFF, BMP and PNM
variants that PIL loads, feedrate decodes to exactly PIL's pixels."""

import os
import shutil

import pytest

import pil_corpus


def test_generated_corpus_agrees_with_pil(tmp_path):
    tool = os.environ.get("FEEDRATE_DECODE_FILES")
    if not tool:
        pytest.skip("FEEDRATE_DECODE_FILES is not set (run through ctest)")
    paths = pil_corpus.make_corpus(tmp_path / "corpus", 2, shutil.which("tiffcp") is not None)
    counts, notes = pil_corpus.compare(paths, tool, tmp_path)
    assert len(paths) > 100
    for fmt, count in counts.items():
        assert count["differ"] == 0 and count["refused, PIL loads it"] == 0, (fmt, notes)
        assert count["agree"] > 0, fmt
