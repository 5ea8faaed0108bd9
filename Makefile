# The two commands: `make bench` and `make test`. Both install missing Debian packages (as root;
# otherwise they print the apt-get line and stop), configure and build Release, then run.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
BENCH_ARGS ?=
DEB_PACKAGES := cmake g++ make pkg-config tar liburing-dev libturbojpeg0-dev \
                libjpeg62-turbo-dev libtbb-dev libgtest-dev libcli11-dev nlohmann-json3-dev \
                libfmt-dev libdlpack-dev libjpeg-turbo-progs

.PHONY: all deps configure build bench test install clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
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

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

bench: build
	$(BUILD_DIR)/bench/feedrate bench $(BENCH_ARGS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
