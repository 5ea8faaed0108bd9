#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, build feedrate with CUDA, run the GPU tests
# (and the loader suite against that build), then the host-to-device benchmark, and print one
# summary. Meant to run unchanged on a bare machine: it installs Debian packages through
# `make deps` and uses the CUDA toolkit already there (/usr/local/cuda). Budget: 5 minutes.
#
#   bench/gpu_check.sh [DATASET]
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
build=build-gpu
jobs=$(nproc)
summary=()
step() {  # step NAME COMMAND...: runs, times and records one step
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name"
  if "$@"; then summary+=("ok      $name ($((SECONDS - start)) s)"); return 0; fi
  summary+=("FAILED  $name ($((SECONDS - start)) s)")
  return 1
}

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv 2>/dev/null || echo "nvidia-smi not available"
nvcc --version 2>/dev/null | tail -1 || echo "nvcc not found: the build will have no CUDA backend"
echo "cores: $jobs"

step "install Debian packages" make deps &&
  step "configure (CUDA)" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=native -DFEEDRATE_BUILD_TESTS=ON &&
  step "build" cmake --build "$build" -j "$jobs" &&
  step "GPU tests" ctest --test-dir "$build" -R '^(gpu_test|cuda_test)\.' --output-on-failure \
    -j "$jobs" &&
  step "loader tests" ctest --test-dir "$build" -R '^loader_test\.' -j "$jobs" &&
  step "skipped GPU tests (must be none)" \
    bash -c "! ctest --test-dir $build -R '^cuda_test\.' -V 2>&1 | grep -q '\[  SKIPPED \]'" &&
  step "H2D benchmark" timeout 180 "$build/bench/feedrate-h2d" "$@"

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q FAILED
