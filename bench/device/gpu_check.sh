#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU and no network: runs the bundle that
# bench/device/bundle.sh built elsewhere (build-device/bundle: programs, tests, libraries, the
# Python 3.12 module, the nvJPEG probe and libnvjpeg) with LD_LIBRARY_PATH, installs nothing,
# builds nothing. In order of importance, each step under its own timeout, 8 minutes in all on
# a 16-core H200 (a budget of 470 s: later steps are cut to what is left):
#   preflight   the GPU, the cores (physical or SMT threads), libnvcuvid.so.1, glibc/libstdc++
#               against what the bundle needs, no library missing
#   probe       feedrate-nvjpeg-probe on 2,048 ImageNet-like JPEGs (feedrate make-dataset):
#               nvJPEG's hardware engine, GPU_HYBRID and HYBRID backends (images/s, host CPU per
#               image, refused images, pixels against libjpeg-turbo, stream order)
#   tests       cuda_test and gpu_test, none skipped (device bytes equal the host path's in
#               uint8, float32 and float16; device memory flat over 1,000 batches)
#   dataset     feedrate make-dataset: a photo-like dataset (6,000 images), timed
#   h2d         feedrate-h2d: pageable, pinned, feedrate's copier, the plain pinned loop
#   torch       torch_check.py: CUDA torch tensors through DLPack, ResNet-18 steps, no host
#               block, device memory over 1,000 batches, the h2d verdict scenario
#   tune        num_workers 1..16 (exhaustive), and bench at 1, 8 and 16 workers for the stages
#   bench       the loader end to end with --device cuda in uint8, float16, float32 (and host)
#   doctor      doctor's GPU lines
# Results: OUT/gpu_check.json (every figure and the targets, see summarize.py), OUT/gpu_check.log,
# and each step's own output beside them. See docs/gpu-check.md.
#
#   bench/device/gpu_check.sh [OUT]      (OUT: $OUT when set, else build-device/out)
#
# FEEDRATE_BUNDLE    the bundle folder (default build-device/bundle)
# FEEDRATE_CHECK_NO_GPU=1   a dry run on a machine without a GPU: a GPU step that reports
#                    "no CUDA device" cleanly is recorded as no-gpu instead of failed, and the
#                    Python check runs its CPU part (when this python3 has torch)
# FEEDRATE_CHECK_SMALL=1    a small dataset and tune range, for a dry run on a small machine
# FEEDRATE_CHECK_PYTHON     the Python 3.12 with torch (default python3)
# FEEDRATE_CHECK_BUDGET     seconds for the whole check (default 470): each step's timeout is
#                    cut to what is left, and steps past it are recorded as not-run
# FEEDRATE_CHECK_ONLY       the steps to run, by name ("probe torch"; preflight always runs,
#                    and torch and tune make the dataset they need): a second run for what failed
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bundle=$(realpath -m "${FEEDRATE_BUNDLE:-$repo/build-device/bundle}")
out=${1:-${OUT:-$repo/build-device/out}}
mkdir -p "$out" && out=$(realpath "$out")
exec > >(tee "$out/gpu_check.log") 2>&1
tee_pid=$!
bin=$bundle/bin
python=${FEEDRATE_CHECK_PYTHON:-python3}
no_gpu=${FEEDRATE_CHECK_NO_GPU:-0}
export LD_LIBRARY_PATH="$bundle/lib:$bundle/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$bundle/python${PYTHONPATH:+:$PYTHONPATH}"
work=$(mktemp -d "${TMPDIR:-/tmp}/feedrate-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
cores=$(nproc)
if [[ ${FEEDRATE_CHECK_SMALL:-0} == 1 ]]; then
  count=300 max_workers=2 window=1 steps=2 batch=8 probe_count=64
else
  count=6000 max_workers=16 window=2 steps=30 batch=64 probe_count=2048
fi
data=$work/photos
probe_data=$work/probe
budget=${FEEDRATE_CHECK_BUDGET:-470}  # seconds for the whole check
: >"$out/steps.tsv"
started=$SECONDS

# step NAME TIMEOUT COMMAND...: runs COMMAND (a program or a function below) under `timeout`,
# its output to OUT/NAME.txt and the log, and records NAME, ok|failed|timeout|no-gpu|not-run,
# seconds and the exit status in steps.tsv. The timeout is cut to what is left of the budget.
step() {
  local name=$1 limit=$2 start=$SECONDS rc status
  shift 2
  local only=" ${FEEDRATE_CHECK_ONLY:-$name} "
  if [[ $name != preflight && $only != *" $name "* &&
        ! ($name == dataset && ($only == *" torch "* || $only == *" tune "*)) ]]; then
    return 0  # not asked for: no row
  fi
  local left=$((budget - (SECONDS - started) - 20))  # 20 s for the summary
  ((limit > left)) && limit=$left
  if ((limit < 10)); then
    printf '%s\tnot-run\t0\t-\n' "$name" >>"$out/steps.tsv"
    echo "-- $name: not run (the ${budget} s budget is spent)"
    return 1
  fi
  echo "== $name (timeout ${limit} s, at $((SECONDS - started)) s)"
  timeout --kill-after=10 "$limit" bash -c '"$@"' "$name" "$@" 2>&1 | tee "$out/$name.txt"
  rc=${PIPESTATUS[0]}
  if ((rc == 0)); then
    status=ok
  elif ((rc == 124 || rc == 137)); then
    status=timeout
  elif [[ $no_gpu == 1 && $name != preflight ]] && grep -qiE 'no (usable )?CUDA (device|GPU)|sees no CUDA|"no-(gpu|torch)"' "$out/$name.txt"; then
    status=no-gpu
  else
    status=failed
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - start))" "$rc" >>"$out/steps.tsv"
  echo "-- $name: $status ($((SECONDS - start)) s, exit $rc)"
  [[ $status == ok || $status == no-gpu ]]
}

# The machine, and whether this bundle can run on it at all.
preflight() {
  nvidia-smi --query-gpu=name,memory.total,driver_version,pcie.link.gen.current,pcie.link.width.current \
    --format=csv || echo "nvidia-smi: not available"
  echo "cores $cores; $(grep MemTotal /proc/meminfo); $(. /etc/os-release && echo "$PRETTY_NAME")"
  # Physical cores or SMT threads: threads per core, cores per socket, sockets.
  lscpu | grep -E '^(Model name|Socket\(s\)|Core\(s\) per socket|Thread\(s\) per core|CPU\(s\)):' ||
    echo "lscpu: not available"
  # The hardware JPEG engine is reached through libnvcuvid (absent in a container without the
  # driver's video capability).
  echo "libnvcuvid.so.1: $(ldconfig -p | awk '/libnvcuvid\.so\.1 / {print $NF; exit}' | grep . || echo absent)"
  "$python" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.is_available())' ||
    echo "python: $("$python" -V 2>&1), no torch"
  [[ -f $bundle/MANIFEST.txt ]] || { echo "no bundle at $bundle (run bench/device/bundle.sh)"; return 1; }
  head -6 "$bundle/MANIFEST.txt"
  local ok=0 glibc libstdcxx need
  glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
  libstdcxx=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
  for need in $(awk '$1 == "needs" {$1 = ""; print}' "$bundle/MANIFEST.txt"); do
    case $need in
      GLIBC_*)
        if [[ $(printf '%s\n' "${need#GLIBC_}" "$glibc" | sort -V | head -1) != "${need#GLIBC_}" ]]; then
          echo "glibc $glibc is older than the bundle's $need"; ok=1
        fi ;;
      *) grep -aq "$need" "$libstdcxx" || { echo "$libstdcxx lacks $need"; ok=1; } ;;
    esac
  done
  echo "glibc $glibc, $libstdcxx"
  if ldd "$bin"/* "$bundle"/python/*.so 2>&1 | grep 'not found'; then ok=1; fi
  return $ok
}

# A gtest program with its JSON report in OUT; fails when a test is skipped (a GPU test that
# skips did not run).
gtest() {
  local name=$1
  "$bin/$name" --gtest_output="json:$out/$name.json" || return 1
  if grep -q '"result": "SKIPPED"' "$out/$name.json"; then
    echo "$name: $(grep -c '"result": "SKIPPED"' "$out/$name.json") test(s) skipped (above): they did not run"
    return 1
  fi
}

doctor_gpus() {
  "$bin/feedrate" doctor --dataset "$data" --no-disk | tee "$out/doctor_text.txt"
  "$bin/feedrate" doctor --dataset "$data" --json >"$out/doctor.json" || return 1
  grep -E '^(gpus|gpu|warning)' "$out/doctor_text.txt" || true
  [[ $no_gpu == 1 ]] || ! grep -q '^gpus *none' "$out/doctor_text.txt"
}

nvjpeg_probe() {
  "$bin/feedrate" make-dataset "$probe_data" --count "$probe_count" --classes 10 >/dev/null &&
    "$bin/feedrate-nvjpeg-probe" --images "$probe_data" --count "$probe_count" \
      --json "$out/nvjpeg_probe.json"
}

make_dataset() {
  "$bin/feedrate" make-dataset "$data" --count "$count" --classes 10 &&
    find "$data" -type f -exec cat {} + >/dev/null &&  # into the page cache
    du -sh "$data"
}

bench_cuda() {
  local layout
  for layout in uint8 float16 float32; do
    "$bin/feedrate" bench "$data" --device cuda --layout "$layout" --epochs 2 --json \
      >"$out/bench_cuda_$layout.json" || { cat "$out/bench_cuda_$layout.json"; return 1; }
    echo "cuda $layout: $(grep -o '"images_per_s": *[0-9.]*' "$out/bench_cuda_$layout.json" | head -1)"
  done
}

torch_check() {
  local device=cuda
  [[ $no_gpu == 1 ]] && device=cpu
  # Without the bundle's CUDA runtime on the path: torch's own serves the module (torch_check.py
  # loads the bundle's only where torch has none of that major version).
  LD_LIBRARY_PATH=${LD_LIBRARY_PATH/"$bundle/lib:$bundle/cuda"/"$bundle/lib"} \
    FEEDRATE_CUDART=$(echo "$bundle"/cuda/libcudart.so.*) \
    "$python" "$here/torch_check.py" "$data" --out "$out/torch.json" --device "$device" \
    --workers "$cores" --steps "$steps" --batch "$batch"
}

tune_curve() {
  "$bin/feedrate" tune "$data" --exhaustive --min-workers 1 --max-workers "$max_workers" \
    --no-adjust --window "$window" --plot "$out/tune.svg" --json >"$out/tune.json" &&
    # The stages and decode CPU per image at 1, half and all the workers, for the why.
    for w in $(printf '%s\n' 1 $((max_workers / 2)) "$max_workers" | sort -un); do
      "$bin/feedrate" bench "$data" --workers "$w" --batches $((w == 1 ? 40 : 150)) --json \
        >"$out/bench_host_$w.json" || return 1
    done
}

export bin bundle out data probe_data python here no_gpu cores count probe_count max_workers \
  window steps batch
export -f preflight gtest doctor_gpus nvjpeg_probe make_dataset bench_cuda torch_check tune_curve
if step preflight 30 preflight; then
  step probe 180 nvjpeg_probe
  step cuda_test 90 gtest cuda_test
  step gpu_test 30 gtest gpu_test
  step dataset 60 make_dataset
  step h2d 45 "$bin/feedrate-h2d" "$data" --iterations 200
  step torch 90 torch_check
  step tune 120 tune_curve
  step bench_cuda 60 bench_cuda
  step bench_host 30 "$bin/feedrate" bench "$data" --device cpu --epochs 2 --json
  step doctor 20 doctor_gpus
else
  echo "preflight failed: nothing else can run here"
fi
echo "== summary (at $((SECONDS - started)) s)"
"$python" "$here/summarize.py" "$out" "$bundle" "$((SECONDS - started))" ||
  python3 "$here/summarize.py" "$out" "$bundle" "$((SECONDS - started))"
status=0
grep -qP '\t(failed|timeout|not-run)\t' "$out/steps.tsv" && status=1
exec >&- 2>&-  # the log is complete once tee has read the last line
wait "$tee_pid"
exit "$status"
