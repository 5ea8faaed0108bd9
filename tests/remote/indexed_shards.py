"""Writes remote-data/fields-indexed for test_fields_source.py: a copy of the img2dataset-style
shards of remote-data/fields with the index `feedrate index` writes beside them (each archive
listed whole), whose first tar header is then damaged (its checksum) without changing a byte of
any member's data or the shard's size. A loader that reads the shards' headers fails on them;
one that takes the archive listing from index.json reads only the members' data, and must
deliver the batches of the intact shards.

    python3 indexed_shards.py FEEDRATE_CLI SHARDS_DIR OUT_DIR
"""

import shutil
import subprocess
import sys
from pathlib import Path


def main(cli, source, out):
    out = Path(out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shards = sorted(Path(source).glob("*.tar"))
    for shard in shards:
        shutil.copyfile(shard, out / shard.name)
    subprocess.run([cli, "index", str(out)], check=True, stdout=subprocess.DEVNULL)
    for shard in shards:
        with open(out / shard.name, "r+b") as f:
            f.seek(148)  # the first header's checksum field (ustar: 8 bytes at 148)
            f.write(b"000000\0 ")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(f"usage: {sys.argv[0]} FEEDRATE_CLI SHARDS_DIR OUT_DIR")
    main(*sys.argv[1:])
