# steptp — top-level driver. `make run` and `make test` are the only two commands a fresh Debian machine needs.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
# The shared data (leir-reference/, kernelbench-onnx/) when it is not ../shared beside the checkout.
SHARED ?=
SHARED_FLAG := $(if $(SHARED),-DSTEPTP_SHARED_DIR=$(abspath $(SHARED)))
OUT ?= out/default

# Debian packages the build and tests need (only missing ones are installed).
PACKAGES := build-essential cmake ninja-build pkg-config clang python3 \
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev \
  libginac-dev libcln-dev libgmp-dev libisl-dev libonnx-dev libprotobuf-dev protobuf-compiler libsqlite3-dev libomp-dev \
  libcurl4-openssl-dev libcpp-httplib-dev libxgboost-dev libopenblas-dev \
  libopenmpi-dev openmpi-bin python3-yaml gnuplot-nox chromium \
  python3-torch python3-torchvision python3-onnx

.PHONY: all deps build build-steptp build-asan run test unit asan check-all fuzz bench clean

all: build

# $(call install_missing,PKGS): apt-get install those of PKGS that are not installed (sudo when not root).
define install_missing
@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
if [ -n "$$missing" ]; then \
  echo "installing missing packages:" $$missing; \
  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
fi
endef

deps:
	$(call install_missing,$(PACKAGES))

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(SHARED_FLAG)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTEPTP_SANITIZE=ON -DSTEPTP_BENCH=OFF $(SHARED_FLAG)

# The `steptp` executable alone: what `make run` needs (tests and benchmarks are built by `make test`/`make build`).
build-steptp: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target steptp

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target steptp_tests

# The main job: the dataset pipeline on the small built-in default (5 workloads per family, one measurable shape each,
# one-step candidates, measured), then an audit of 30 sampled records, then the HTML report of the dataset
# ($(OUT)/report.html, `steptp report`, which prints the path last). A rerun reuses $(OUT)/cache.sqlite.
run: build-steptp
	./$(BUILD)/steptp generate --out $(OUT)
	./$(BUILD)/steptp audit $(OUT) --sample 30
	@echo "dataset: $(OUT)/chat/{train,val,test}.jsonl (chat template), $(OUT)/archive/all.jsonl (full records)"
	@echo "stats:   $(OUT)/stats.md (and stats.json); full audit: ./$(BUILD)/steptp audit $(OUT)"
	./$(BUILD)/steptp report $(OUT) -o $(OUT)/report.html

unit: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

# Sanitizer build of the unit tests (ASan+UBSan, any report fails the test: UBSan does not recover). It holds the
# unit tests only: suites named *Cli* (they run the built CLI, which is not built here) and *Slow* are left out at
# test discovery (CMakeLists.txt) and run in `unit`. libcln's static-init leak is suppressed in the binaries
# themselves (src/cli/ and tests/lsan_suppressions.cpp). --no-tests=error: an empty test list is a failure.
asan: build-asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure --no-tests=error -j $(JOBS)

test: unit asan

# Opt-in, not part of `test`: the exhaustive suites in full (STEPTP_CHECK_ALL=1, tests/test_scope.hpp): every
# built-in workload and shared model through the C lowering, every strategy candidate of the property test.
check-all: build
	cd $(BUILD) && STEPTP_CHECK_ALL=1 ctest --output-on-failure --no-tests=error -j $(JOBS)

# libFuzzer (clang, ASan+UBSan): the LEIR parser/validator/interpreter target and the ONNX importer target,
# FUZZ_SECONDS each (default 60). Inputs up to 64 KiB (deep nesting needs long inputs), LEIR tokens from
# fuzz/leir.dict. New inputs go to build-fuzz/corpus*; the committed seeds in fuzz/corpus and fuzz/corpus-onnx are read only; crashes
# go to fuzz/artifacts/ and, once fixed, into fuzz/corpus/.
FUZZ_SECONDS ?= 60
fuzz: deps
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSTEPTP_FUZZ=ON -DSTEPTP_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_parser fuzz_onnx
	mkdir -p fuzz/artifacts build-fuzz/corpus build-fuzz/corpus-onnx build-fuzz/seeds-onnx
	./build-fuzz/fuzz_parser -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=65536 -dict=fuzz/leir.dict \
	  -artifact_prefix=fuzz/artifacts/ build-fuzz/corpus fuzz/corpus
	for m in ../shared/kernelbench-onnx/*/*/model.onnx; do \
	  cp "$$m" "build-fuzz/seeds-onnx/$$(basename $$(dirname $$m)).onnx"; done
	./build-fuzz/fuzz_onnx -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=1048576 -rss_limit_mb=4096 \
	  -artifact_prefix=fuzz/artifacts/onnx- build-fuzz/corpus-onnx build-fuzz/seeds-onnx fuzz/corpus-onnx

# Random-program differential fuzzer (src/fuzz/, `steptp fuzz`), not part of `test`: FUZZ_TIME seconds from
# FUZZ_SEED; minimised failures in $(FUZZ_OUT)/regressions/, figures in $(FUZZ_OUT)/fuzz_summary.json (gitignored out/).
# Exit status 1 if any check failed or the equivalence checker accepted a wrong mutant.
FUZZ_TIME ?= 600
FUZZ_SEED ?= 0
FUZZ_OUT ?= out/fuzz-long
FUZZ_ARGS ?=

.PHONY: fuzz-long
fuzz-long: build
	./$(BUILD)/steptp fuzz --seed $(FUZZ_SEED) --programs 0 --time-limit $(FUZZ_TIME) --out $(FUZZ_OUT) $(FUZZ_ARGS)

bench: build
	@for b in $(BUILD)/bench_*; do [ -x $$b ] && $$b; done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz

# Kernel-quality benchmark of `steptp search` (bench/search_bench.py): mcts/cost on the tasks of
# bench/search_tasks.json at equal budgets, side by side with PyTorch eager (Debian python3-torch, in PACKAGES; run by
# /usr/bin/python3) and the OpenBLAS baseline, same thread count. Writes $(BENCH_OUT)/search_results.md (gitignored
# out/); BENCH_ARGS passes options, e.g. BENCH_ARGS="--threads 2" or BENCH_ARGS="--algorithms" (all six algorithms x
# {random, cost}: $(BENCH_OUT)/search_algorithms.md). Takes long with the default budgets: run it on an idle machine.
BENCH_OUT ?= out/bench-search
BENCH_ARGS ?=

.PHONY: bench-search
bench-search: build
	/usr/bin/python3 bench/search_bench.py --out $(BENCH_OUT) $(BENCH_ARGS)
