#!/usr/bin/env bash
# Builds feedrate with CUDA for an sm_90 GPU (H100/H200) on this machine and collects what
# bench/device/gpu_check.sh needs on a GPU machine that has no network and none of our Debian
# libraries: the programs and the test programs (each holds the library's code, feedrate_internal),
# every shared library they load outside the base system, the Python module for Python 3.12, and
# the nvJPEG probe with the libnvjpeg.so.13 it loads (from the nvidia-nvjpeg wheel). See
# docs/gpu-check.md.
#
#   bench/device/bundle.sh            builds into build-device/build, collects build-device/bundle
#
# Environment: FEEDRATE_PYTHON312 (a Python 3.12 interpreter; default: pyenv's newest 3.12, else
# python3.12 on PATH), FEEDRATE_DEVICE_VENV (where a venv of it gets pybind11 from PyPI; default
# ~/.cache/feedrate/py312-build), JOBS (default 2).
#
# The base system, not carried: glibc (ld-linux, libc, libm, libpthread, libdl, librt), the GCC
# runtime (libstdc++, libgcc_s) and the CUDA driver (libcuda, libnvidia-*), which must be the
# GPU machine's own. The bundle records the newest glibc and libstdc++ symbol versions it needs
# (MANIFEST.txt) and gpu_check.sh compares them with the machine's before it runs anything.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="build-device"
build=$out/build
bundle=$out/bundle
jobs=${JOBS:-2}
cuda=/usr/local/cuda
base_system='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia-.*)\.so'

python=${FEEDRATE_PYTHON312:-}
if [[ -z $python ]]; then
  python=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 2>/dev/null | sort -V |
    tail -1)
  [[ -n $python ]] || python=$(command -v python3.12 || true)
fi
if [[ -z $python ]] || ! "$python" -c 'import sys; assert sys.version_info[:2] == (3, 12)'; then
  echo "bundle.sh: no Python 3.12 interpreter (set FEEDRATE_PYTHON312=/path/to/python3.12)" >&2
  exit 1
fi
venv=${FEEDRATE_DEVICE_VENV:-$HOME/.cache/feedrate/py312-build}
if ! "$venv/bin/python" -m pybind11 --cmakedir >/dev/null 2>&1; then
  echo "== venv $venv ($python) with pybind11"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet 'pybind11>=2.12'
fi

# nvJPEG for the probe (bench/micro/nvjpeg_probe): the header it builds against and the
# libnvjpeg.so.13 it loads with dlopen, from NVIDIA's wheel, fetched once.
nvjpeg=${FEEDRATE_NVJPEG_DIR:-$HOME/.cache/feedrate/nvjpeg}
nvjpeg_include=$nvjpeg/wheel/nvidia/cu13/include
if [[ ! -f $nvjpeg_include/nvjpeg.h ]]; then
  echo "== nvJPEG from PyPI (nvidia-nvjpeg) into $nvjpeg"
  "$venv/bin/pip" download --quiet --no-deps --only-binary=:all: -d "$nvjpeg" \
    'nvidia-nvjpeg==13.3.2.43'
  "$venv/bin/python" -m zipfile -e "$nvjpeg"/nvidia_nvjpeg-13.3.2.43-*.whl "$nvjpeg/wheel"
fi

mkdir -p "$out"
echo "== configure $build (CUDA sm_90, Python $("$venv/bin/python" -V))"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DFEEDRATE_BUILD_TESTS=ON -DFEEDRATE_PYTHON="$venv/bin/python" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache -DFEEDRATE_NVJPEG_INCLUDE_DIR="$nvjpeg_include" \
  >"$out/configure.log" ||
  { cat "$out/configure.log"; exit 1; }
grep -q 'feedrate: CUDA backend ON' "$out/configure.log" ||
  { echo "bundle.sh: the CUDA backend is off (no nvcc at $cuda?)" >&2; exit 1; }
grep -q 'feedrate: Python package for' "$out/configure.log" ||
  { grep 'Python package' "$out/configure.log" >&2; exit 1; }

targets=(feedrate_cli feedrate_h2d feedrate_nvjpeg_probe cuda_test gpu_test feedrate_python)
echo "== build ${targets[*]} (-j$jobs)"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

echo "== collect $bundle"
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/cuda" "$bundle/python"
cp "$build/bench/feedrate" "$build/bench/feedrate-h2d" "$build/bench/feedrate-nvjpeg-probe" \
  "$build/tests/gpu/cuda_test" "$build/tests/gpu/gpu_test" "$bundle/bin/"
cp -rL "$build/python/feedrate" "$bundle/python/"
rm -rf "$bundle/python/feedrate/__pycache__"
elves=("$bundle"/bin/* "$bundle"/python/feedrate/*.so)
# ldd lists the whole closure: copy each library it resolves outside the base system, under
# the name the loader asks for (its soname).
for elf in "${elves[@]}"; do
  ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $base_system ]] && continue
  [[ -e $bundle/lib/$name ]] || cp -L "$path" "$bundle/lib/$name"
done
# The CUDA runtime in a folder of its own: a torch process has its own (the same major version,
# maybe newer), which the module should use instead (bench/device/torch_check.py).
mv "$bundle"/lib/libcudart.so.* "$bundle/cuda/"
# nvJPEG beside it: the probe loads it with dlopen, so ldd does not list it.
cp -L "$nvjpeg/wheel/nvidia/cu13/lib/libnvjpeg.so.13" "$bundle/cuda/"
chmod -R u+w "$bundle"/lib/* "$bundle"/cuda/* "$bundle"/bin/* "$bundle"/python/*
strip --strip-unneeded "$bundle"/bin/* "$bundle"/lib/* "$bundle"/cuda/* "$bundle"/python/feedrate/*.so
# The build tree's RPATH would find the libraries here, not in the bundle.
echo 'file(RPATH_REMOVE FILE "${FILE}")' >"$out/rpath_remove.cmake"
for elf in "${elves[@]}"; do
  cmake -DFILE="$elf" -P "$out/rpath_remove.cmake"
done

echo "== check: every library resolves inside the bundle, in a clean environment"
paths="$PWD/$bundle/lib:$PWD/$bundle/cuda"
# Only LD_LIBRARY_PATH, and (as root) no /etc/ld.so.cache either, so that nothing outside the
# bundle and the default folders (/lib, /usr/lib) is found, as on the GPU machine: here the
# cache would find the CUDA toolkit's libcudart, for one.
clean() {
  if [[ $EUID == 0 ]] && unshare -m true 2>/dev/null; then
    unshare -m sh -c 'mount --bind /dev/null /etc/ld.so.cache && exec env -i LD_LIBRARY_PATH="$0" "$@"' \
      "$paths" "$@"
  else
    env -i LD_LIBRARY_PATH="$paths" "$@"
  fi
}
missing=0
for elf in "$bundle"/bin/* "$bundle"/python/feedrate/*.so "$bundle"/lib/* "$bundle"/cuda/*; do
  while read -r name _ path _; do
    if [[ $path == "not" ]] || { [[ ! $name =~ $base_system ]] && [[ $path != "$PWD/$bundle/"* ]]; }; then
      echo "  $elf: $name => $path" >&2
      missing=1
    fi
  done < <(clean ldd "$elf" | awk '$2 == "=>"')
done
((missing == 0)) || { echo "bundle.sh: libraries outside the bundle (above)" >&2; exit 1; }
clean "$bundle/bin/feedrate" --version
clean "$bundle/bin/cuda_test" --gtest_list_tests >/dev/null
clean env PYTHONPATH="$PWD/$bundle/python" "$venv/bin/python" -c \
  'import feedrate; print("python module", feedrate.__version__, "loads")'

# The newest symbol versions the bundle needs from the base system.
needs() {
  objdump -T "$bundle"/bin/* "$bundle"/lib/* "$bundle"/cuda/* "$bundle"/python/feedrate/*.so 2>/dev/null |
    grep -o "$1_[0-9.]*" | sort -uV | tail -1
}
{
  echo "feedrate device bundle"
  echo "commit     $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!build-device' || echo ' (with uncommitted changes)')"
  echo "built      $(date -u +%FT%TZ) on $(uname -n), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "cuda       $("$cuda/bin/nvcc" --version | tail -1), sm_90"
  echo "python     $("$venv/bin/python" -V) (module built here)"
  echo "needs      $(needs GLIBC) $(needs GLIBCXX) $(needs CXXABI)"
  echo "files"
  (cd "$bundle" && find . -type f ! -name MANIFEST.txt -printf '  %P %s\n' | sort)
} >"$bundle/MANIFEST.txt"
cat "$bundle/MANIFEST.txt"
size=$(du -sb "$bundle" | cut -f1)
echo "bundle     $bundle: $((size / 1024 / 1024)) MiB ($size bytes; the device tool carries 64 MiB)"
((size < 64 * 1024 * 1024)) || { echo "bundle.sh: over 64 MiB" >&2; exit 1; }
