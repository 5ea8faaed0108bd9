#!/bin/sh
# The reader alone against fio: runs feedrate-io-bench (bench/micro/io_bench/main.cc), which reads one file
# with feedrate's reader and with fio at the same block size, queue depth and O_DIRECT flag and
# prints both MB/s, their ratio and the targets. Builds nothing: run `make build` first.
#
# Usage: bench/micro/compare_fio.sh [feedrate-io-bench options]   (--help lists them)
# With no options it writes a 1 GiB test file under /var/tmp/feedrate-io-bench (reused later)
# and takes a few minutes. fio comes from the Debian package fio.
set -eu
binary="$(dirname "$0")/../../build/bench/feedrate-io-bench"
if [ ! -x "$binary" ]; then
  echo "compare_fio.sh: $binary not found; run \`make build\` first" >&2
  exit 1
fi
exec "$binary" "$@"
