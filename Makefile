# The two commands: `make bench` and `make test`. Both install missing Debian packages (as root;
# otherwise they print the apt-get line and stop), configure Release, build what they run, then
# run it: `make bench` builds only the `feedrate` command and the libraries it links, `make test`
# everything (the suites, the Python module, the developer benchmarks). The configure step uses
# ccache when it is installed (CMakeLists.txt); FEEDRATE_WERROR=ON, in the environment or on make's
# command line, makes every warning an error (CI sets it; see .ci/run).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
BENCH_ARGS ?=
# What the `feedrate` command builds against (configure finds all of these, GoogleTest included):
# `make bench` installs only these. The Python module, the suites and the tools the tests run
# (torch alone is over a gigabyte) come with TEST_DEB_PACKAGES, which `make test` adds.
BENCH_DEB_PACKAGES := cmake g++ make pkg-config tar liburing-dev libturbojpeg0-dev \
                      libjpeg62-turbo-dev libtbb-dev libgtest-dev libcli11-dev \
                      nlohmann-json3-dev libfmt-dev libdlpack-dev libspng-dev libwebp-dev \
                      libtiff-dev libxxhash-dev libcurl4-openssl-dev libssl-dev libpugixml-dev \
                      libsimdjson-dev libyaml-cpp-dev
TEST_DEB_PACKAGES := python3-dev python3-pybind11 python3-numpy python3-pytest python3-mypy \
                     python3-torch python3-torchvision python3-pil libjpeg-turbo-progs \
                     libtiff-tools python3-venv python3-pandas
DEB_PACKAGES := $(BENCH_DEB_PACKAGES) $(TEST_DEB_PACKAGES)
# cmake/pip.cmake checks the build-time ones of these for `pip install .` (ctest: package.pip_*).

# Only `make fuzz` needs these: clang brings libFuzzer.
FUZZ_DEB_PACKAGES := clang

.PHONY: all deps deps-bench configure build build-bench bench test test-pip test-asan test-tsan fuzz soak \
        install clean test-remote test-remote-deps fuzz-build

all: build

# Installs the missing packages of a list (as root; otherwise prints the apt-get line and fails).
define install_missing
@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "feedrate: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "feedrate: missing Debian packages; run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

deps-bench:
	$(call install_missing,$(BENCH_DEB_PACKAGES))

$(BUILD_DIR)/CMakeCache.txt: | deps-bench
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

# After `make bench` the cache predates the test packages: configuring again finds the Python
# module's interpreter headers and pybind11 (a few seconds when nothing changed).
configure: deps $(BUILD_DIR)/CMakeCache.txt
	cmake -S . -B $(BUILD_DIR)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The command line alone (bench/cli: feedrate_cli), for `make bench`.
build-bench: deps-bench $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target feedrate_cli

bench: build-bench
	$(BUILD_DIR)/bench/feedrate bench $(BENCH_ARGS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# `pip install .` as the README tells a PyTorch user: into a fresh virtual environment over
# Debian's python3 (whose torch and numpy it sees), then the Python tests run from outside the
# tree against the installed package and the installed `feedrate` command, and mypy checks the
# typed example against the installed package's stubs (py.typed, _C.pyi) and rejects the
# misspelled keywords of typing/misspelled_keyword.py. pip fetches the build
# backend (scikit-build-core, pybind11) from PyPI; `make test` stays offline. The tests that
# compare with the C++ Loader use feedrate-dump-batches from $(BUILD_DIR) when `make test` has
# built it, and skip otherwise.
PIP_VENV ?= $(BUILD_DIR)/pip-venv
PIP_DUMP_BATCHES := $(abspath $(BUILD_DIR)/tests/python/feedrate-dump-batches)
# Then numpy 2 from PyPI replaces Debian's numpy 1.24 in that environment, and the array tests
# run again, for the pip-installed module and for the CMake-built one in $(BUILD_DIR)/python
# (which `make test` builds first; CI runs it first).
NUMPY2_TESTS := $(CURDIR)/tests/python/test_numpy_arrays.py
numpy2_check = 'import sys, feedrate, numpy; assert int(numpy.__version__.split(".")[0]) >= 2; \
  assert feedrate.__file__.startswith($(1)), feedrate.__file__; \
  print("numpy", numpy.__version__, "with", feedrate.__file__)'
PIP_TESTS_ENV := FEEDRATE_CLI=$(abspath $(PIP_VENV))/bin/feedrate \
                 $(if $(wildcard $(PIP_DUMP_BATCHES)),FEEDRATE_DUMP_BATCHES=$(PIP_DUMP_BATCHES))

test-pip: deps
	rm -rf $(PIP_VENV)
	/usr/bin/python3 -m venv --system-site-packages $(PIP_VENV)
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PIP_VENV)/bin/pip install $(CURDIR)
	cd / && $(abspath $(PIP_VENV))/bin/python -c 'import sys, feedrate; \
	  assert feedrate.__file__.startswith(sys.prefix), feedrate.__file__; \
	  print("feedrate", feedrate.__version__, "from", feedrate.__file__)'
	cd / && $(abspath $(PIP_VENV))/bin/feedrate --version
	cd / && env -u PYTHONPATH $(PIP_TESTS_ENV) $(abspath $(PIP_VENV))/bin/python -m pytest -q \
	  -p no:cacheprovider $(CURDIR)/tests/python
	cd / && env -u PYTHONPATH $(abspath $(PIP_VENV))/bin/python -m mypy --cache-dir /dev/null \
	  --config-file $(CURDIR)/tests/python/typing/mypy.ini $(CURDIR)/tests/python/typing/train_loop.py
	cd / && env -u PYTHONPATH $(abspath $(PIP_VENV))/bin/python \
	  $(CURDIR)/tests/python/typing/check_rejected.py $(CURDIR)/tests/python/typing/misspelled_keyword.py \
	  --config-file $(CURDIR)/tests/python/typing/mypy.ini
	$(PIP_VENV)/bin/pip install 'numpy>=2'
	cd / && env -u PYTHONPATH $(abspath $(PIP_VENV))/bin/python -c $(call numpy2_check,sys.prefix)
	cd / && env -u PYTHONPATH $(abspath $(PIP_VENV))/bin/python -m pytest -q -p no:cacheprovider \
	  $(NUMPY2_TESTS)
	cd / && PYTHONPATH=$(abspath $(BUILD_DIR))/python $(abspath $(PIP_VENV))/bin/python -c \
	  $(call numpy2_check,"$(abspath $(BUILD_DIR))/python/")
	cd / && PYTHONPATH=$(abspath $(BUILD_DIR))/python $(abspath $(PIP_VENV))/bin/python -m pytest -q \
	  -p no:cacheprovider $(NUMPY2_TESTS)

# What tests/remote/servers.py (the harness of the s3:// and https:// sources' tests) runs: moto's
# S3 server, boto3 and pytest from PyPI in $(REMOTE_VENV), made only when missing (or when it
# cannot import moto); nginx, ip/tc, openssl, curl and python3-venv from Debian.
REMOTE_VENV ?= $(BUILD_DIR)/remote-venv
REMOTE_DEB_PACKAGES := nginx-light iproute2 openssl curl python3-venv

# The suites that read s3:// and https:// sources from real servers started on 127.0.0.1 by
# ctest's `remote` fixture (tests/remote/CMakeLists.txt; docs/remote.md), then the harness's own
# tests. `make test` runs the same ctest entries, skipped where the venv is missing.
test-remote: build test-remote-deps
	ctest --test-dir $(BUILD_DIR) --output-on-failure -R '^(remote|io_remote_server_test)'
	$(REMOTE_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/remote/test_harness.py

test-remote-deps:
	$(call install_missing,$(REMOTE_DEB_PACKAGES))
	@if [ ! -x $(REMOTE_VENV)/bin/python ] || ! $(REMOTE_VENV)/bin/python -c 'import moto.server, boto3' 2>/dev/null; then \
	  echo "feedrate: creating $(REMOTE_VENV)"; \
	  rm -rf $(REMOTE_VENV) && /usr/bin/python3 -m venv $(REMOTE_VENV) && \
	  $(REMOTE_VENV)/bin/pip install -q 'moto[server]==5.2.5' 'boto3==1.44.8' pytest; \
	fi

# feedrate.ray's tests (tests/ray) on a local Ray cluster of three 2-CPU raylets, against the
# Python module and the `feedrate` command (which makes their datasets), built here. Ray comes from PyPI into a virtual environment over Debian's python3
# (whose torch and torchvision it sees), made only when missing (or when it cannot import
# ray.data); `make test` stays offline. ray[train] because iter_torch_batches imports
# ray.train.torch; numpy stays at 1.x because Debian's torch 1.13 is built against it
# (torch.as_tensor, which iter_torch_batches uses, fails under numpy 2), and pyarrow below 21
# because newer ones require numpy 2. pip runs here, with the network; pytest runs in network,
# PID and mount namespaces of its own (tests/ray/in_namespace.sh, which needs root or user
# namespaces, and iproute2): the cluster binds an address inside that namespace, never this
# machine's interfaces, whatever is left of it when the run ends is killed, and the whole run is
# bounded (RAY_TIMEOUT seconds).
RAY_VENV ?= $(BUILD_DIR)/ray-venv
RAY_PIP_PACKAGES := 'ray[data,train]' 'numpy<2' 'pyarrow<21'
RAY_DEB_PACKAGES := iproute2 util-linux python3-venv
RAY_TIMEOUT ?= 1200

.PHONY: test-ray test-ray-deps
test-ray: configure test-ray-deps
	cmake --build $(BUILD_DIR) -j $(JOBS) --target feedrate_cli feedrate_python
	PYTHONPATH=$(abspath $(BUILD_DIR))/python FEEDRATE_CLI=$(abspath $(BUILD_DIR))/bench/feedrate \
	  FEEDRATE_RAY_TIMEOUT=$(RAY_TIMEOUT) $(CURDIR)/tests/ray/in_namespace.sh \
	  $(abspath $(RAY_VENV))/bin/python -m pytest -q -p no:cacheprovider $(CURDIR)/tests/ray

test-ray-deps:
	$(call install_missing,$(RAY_DEB_PACKAGES))
	@if [ ! -x $(RAY_VENV)/bin/python ] || ! $(RAY_VENV)/bin/python -c 'import ray.data, ray.train' 2>/dev/null; then \
	  echo "feedrate: creating $(RAY_VENV)"; \
	  rm -rf $(RAY_VENV) && /usr/bin/python3 -m venv --system-site-packages $(RAY_VENV) && \
	  $(RAY_VENV)/bin/pip install -q $(RAY_PIP_PACKAGES); \
	fi

# These judge runs by their real timing (the verdict), which a sanitizer's slowdown changes (under
# TSan decode takes ~40 ms an image): a bare loop over the page cache and the CLI's slow step.
# Those assertions are about the verdict, not about memory or threads, and run in `make test`.
# Every other verdict is timed on a fake clock (FakeClockVerdict), does not depend on the
# machine's speed and runs under the sanitizers too.
TIMING_SCENARIOS := \.VerdictScenario\.|Cli\.ASlowStepIsTheVerdict

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer on), from
# the `asan` preset in build-asan/. The package test is left out: it links an uninstrumented
# consumer against the instrumented library, which ASan refuses to start.
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

test-asan: deps
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	$(ASAN_ENV) ctest --preset asan -j $(JOBS) -E '^package\.|$(TIMING_SCENARIOS)'

# The pipeline and concurrency suites under ThreadSanitizer, from the `tsan` preset in
# build-tsan/: the loader, the readers, the remote fetcher (wake() from another thread, its waits
# on the clock) and the remote read-ahead's thread. Debian's libtbb is not instrumented, so races
# reported inside decode tasks that TBB hands between threads are false positives;
# tests/sanitizers/tsan.supp says what is suppressed and why. The other suites are
# single-threaded code that ASan already covers.
TSAN_TARGETS := loader_test io_test io_remote_test read_ahead_runner_test
TSAN_TESTS := ^(loader_test|io_test|io_remote_test|read_ahead_runner_test)\.
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/sanitizers/tsan.supp

test-tsan: deps
	cmake --preset tsan
	cmake --build --preset tsan -j $(JOBS) --target $(TSAN_TARGETS)
	$(TSAN_ENV) ctest --preset tsan -j $(JOBS) -R '$(TSAN_TESTS)' -E '$(TIMING_SCENARIOS)'

# libFuzzer targets (tests/fuzz), built with clang in build-fuzz/ with ASan+UBSan; each runs for
# FUZZ_SECONDS from the generated seeds. New inputs collect in build-fuzz/corpus/<target>,
# crashes in build-fuzz/crashes/ (each one becomes a regression test; see README).
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := tar_index file_list jpeg_decode image_decode bench_args loader_state png_decode \
                webp_decode tiff_decode bmp_pnm_decode pack_index

# fuzz-build builds them without running them (CI does, with FEEDRATE_WERROR=ON, so that
# clang's warnings fail it as GCC's do).
fuzz-build: deps
	$(call install_missing,$(FUZZ_DEB_PACKAGES))
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DFEEDRATE_FUZZ=ON -DFEEDRATE_BUILD_TESTS=OFF -DFEEDRATE_WITH_CUDA=OFF \
	  -DFEEDRATE_BUILD_PYTHON=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target feedrate_fuzz_seeds $(addprefix fuzz_,$(FUZZ_TARGETS))

fuzz: fuzz-build
	$(FUZZ_DIR)/tests/fuzz/feedrate-fuzz-seeds $(FUZZ_DIR)/seeds
	@mkdir -p $(FUZZ_DIR)/crashes
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  echo "=== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crashes/$$t- \
	    $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/seeds/$$t || exit 1; \
	done

# A few minutes of many epochs with random num_workers and early destruction (not part of CI):
# exactly-once delivery, flat RSS, no growing file descriptors. glibc's cache of thread stacks
# is turned off and its malloc arenas capped at 2 so that neither blurs the RSS figure: each
# loader's new TBB threads may otherwise open another arena (up to 8 per core) that keeps its
# freed memory; with default arenas RSS between loaders rose from 9 to 22 MB over 78 loaders,
# with one arena it stayed flat (see tests/loader/soak_test.cc).
SOAK_SECONDS ?= 180

soak: build
	GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0 MALLOC_ARENA_MAX=2 \
	  FEEDRATE_SOAK_SECONDS=$(SOAK_SECONDS) $(BUILD_DIR)/tests/loader/loader_soak

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
