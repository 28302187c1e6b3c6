# Entry points for people and CI. `make demo` and `make test` install what they need
# (scripts/install-deps.sh), configure and build first.
#
#   make demo      optimize the bundled demo model and check the result
#   make test      build, run every test, then the sanitizer subset under ASan+UBSan
#   make build     configure and build (build/)
#   make asan      build the sanitizer variant (build-asan/) of the tested targets
#   make fuzz      build the libFuzzer targets with clang (build-fuzz/)
#   make release   build the library and the command line as a user would (Release, -O3, warnings
#                  not errors) into build-release/
#
# Development builds (build/, build-asan/, build-fuzz/) turn compiler warnings into errors
# (ONNXOPT_WERROR); a user's own cmake build does not.

BUILD_DIR ?= build
ASAN_DIR ?= build-asan
RELEASE_DIR ?= build-release
FUZZ_DIR ?= build-fuzz
JOBS ?= $(shell nproc)
CTEST_FLAGS ?= --output-on-failure -j $(JOBS)

# Precompiled headers and ccache: ccache must ignore the time stamps that PCH files carry.
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE ?= 10G
# Paths relative to the checkout, so that a fresh clone in another folder (CI) hits the
# cache filled by earlier builds.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# What each build directory takes on disk when complete, in GB (a clean clone of 2026-12-06:
# 4.9, 6.9 and 0.45 GB, rounded up). Each build first checks that its file system has that
# much free, less what the directory already holds (scripts/check-disk-space.sh).
BUILD_DISK_GB := 6
ASAN_DISK_GB := 8
RELEASE_DISK_GB := 1

SANITIZED_TARGETS := ir_tests builder_tests passes_tests cli_tests utils_tests eval_tests onnxopt resource_limits_tests \
                     optimizer_tests optimizer_kernel_tests rewrite_file_tests pattern_tests optimize_replay_tests \
                     run_verify_tests file_handling_tests \
                     canonicalization_pattern_tests collections_pattern_tests expand_pattern_tests reshape_pattern_tests layout_pattern_tests algebra_pattern_tests matmul_pattern_tests normalization_pattern_tests attention_pattern_tests fusion_pattern_tests elimination_pattern_tests pattern_numerics_tests kernel_tests \
                     op_schema_tests model_validity_tests nested_names_tests \
                     graph_case_tests memory_tests transpose_optimizer_tests fusion_tests verify_tests

.PHONY: deps configure build demo test test-main test-asan asan fuzz release clean

deps:
	@scripts/install-deps.sh

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONNXOPT_WERROR=ON

build: configure
	@scripts/check-disk-space.sh $(BUILD_DIR) $(BUILD_DISK_GB)
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	examples/demo/run_demo.sh $(BUILD_DIR)/onnxopt

test: test-main test-asan release

test-main: build
	ctest --test-dir $(BUILD_DIR) $(CTEST_FLAGS)

asan: deps
	@test -f $(ASAN_DIR)/build.ninja || cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DONNXOPT_SANITIZE=ON -DONNXOPT_WERROR=ON
	@scripts/check-disk-space.sh $(ASAN_DIR) $(ASAN_DISK_GB)
	cmake --build $(ASAN_DIR) -j $(JOBS) --target $(SANITIZED_TARGETS)

# Only the tests labelled "sanitize" are built in the sanitizer variant; ctest runs those,
# one ctest test per executable (tests/CMakeLists.txt: onnxopt_add_test).
test-asan: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_DIR) -L sanitize $(CTEST_FLAGS)

# What a user gets from `cmake -DCMAKE_BUILD_TYPE=Release`: the libraries, the command line
# and the Python modules at -O3, without -Werror; the demo model is optimized with it.
release: deps
	@test -f $(RELEASE_DIR)/build.ninja || cmake -S . -B $(RELEASE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DONNXOPT_BUILD_TESTS=OFF
	@scripts/check-disk-space.sh $(RELEASE_DIR) $(RELEASE_DISK_GB)
	cmake --build $(RELEASE_DIR) -j $(JOBS)
	examples/demo/run_demo.sh $(RELEASE_DIR)/onnxopt

fuzz: deps
	@test -f $(FUZZ_DIR)/build.ninja || CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONNXOPT_WERROR=ON -DONNXOPT_FUZZ=ON -DONNXOPT_BUILD_TESTS=OFF -DONNXOPT_BUILD_TOOLS=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target load_fuzzer graph_fuzzer

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) $(RELEASE_DIR)

# Runs both fuzz targets for FUZZ_SECONDS each, each with its corpus in $(FUZZ_DIR)/<target>/corpus
# and its findings in $(FUZZ_DIR)/<target>/findings:
# - load_fuzzer: load + GraphBuilder + cleanup, seeded with small generated models
#   (fuzz/make_seeds.py) and the corpus models;
# - graph_fuzzer: random graphs from the operator schemas through validation, optimization,
#   record and replay (also of edited rewrite files) and verify (fuzz/graph_case.h), seeded
#   with the reproducers of past findings. Its tensor limit
#   is 16 MiB (graph_fuzzer.cc): -malloc_limit_mb reports any larger allocation.
# Both run even when the first one finds something; the exit status reports either. UBSan
# reports are findings too (halt_on_error makes libFuzzer record the input).
FUZZ_SECONDS ?= 600
.PHONY: fuzz-run
fuzz-run: export UBSAN_OPTIONS = halt_on_error=1:print_stacktrace=1
fuzz-run: fuzz
	mkdir -p $(FUZZ_DIR)/load_fuzzer/corpus $(FUZZ_DIR)/load_fuzzer/findings \
	  $(FUZZ_DIR)/graph_fuzzer/corpus $(FUZZ_DIR)/graph_fuzzer/findings
	/usr/bin/python3 fuzz/make_seeds.py $(FUZZ_DIR)/load_fuzzer/corpus
	cp ../shared/corpus/*.onnx $(FUZZ_DIR)/load_fuzzer/corpus/
	$(FUZZ_DIR)/fuzz/load_fuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/load_fuzzer/findings/ $(FUZZ_DIR)/load_fuzzer/corpus; load=$$?; \
	$(FUZZ_DIR)/fuzz/graph_fuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -malloc_limit_mb=96 -rss_limit_mb=2048 -timeout=20 -max_len=4096 \
	  -artifact_prefix=$(FUZZ_DIR)/graph_fuzzer/findings/ $(FUZZ_DIR)/graph_fuzzer/corpus tests/fuzz/graph_regressions; \
	test $$load -eq 0 -a $$? -eq 0

# Mutants of the pattern tests' graphs through `onnxopt optimize --check 2`
# (fuzz/mutate_pattern_graphs.py): MUTATE_PER_CASE mutants of each of the ~390 graphs, from
# MUTATE_SEED; findings (internal errors, outputs that differ, timeouts, crashes) are copied
# to $(BUILD_DIR)/mutants/findings. ctest runs a short fixed-seed round of it.
# MUTATE_OPTIONS=--ort judges each optimized mutant in onnxruntime as well (slower: two
# Node.js processes a mutant).
MUTATE_SEED ?= 1
MUTATE_PER_CASE ?= 10
MUTATE_OPTIONS ?=
.PHONY: mutate-run
mutate-run: build
	/usr/bin/python3 fuzz/mutate_pattern_graphs.py --onnxopt $(BUILD_DIR)/onnxopt --seed $(MUTATE_SEED) \
	  --per-case $(MUTATE_PER_CASE) --jobs $(JOBS) --findings $(BUILD_DIR)/mutants/findings $(MUTATE_OPTIONS) \
	  --export $$(find $(BUILD_DIR)/tests -type f \( -name '*_pattern_tests' -o -name transpose_optimizer_tests \))

# --- Scale and onnxruntime corpus checks (tests/scale, tests/corpus, tests/ort) ---------
# test-scale: optimize a generated model with SCALE_GIB GiB of external weights and check
# that peak RSS <= 1.5 x weight bytes. Needs ~2.5 x SCALE_GIB GiB of free disk in
# $TMPDIR (or SCALE_DIR) and /usr/bin/time; not part of `make test`.
# test-ort: the harness self-test and the corpus cleanup comparisons with onnxruntime-node.
SCALE_GIB ?= 4.2
SCALE_DIR ?=
.PHONY: test-scale test-ort
test-scale: build
	ONNXOPT=$(BUILD_DIR)/onnxopt $(if $(SCALE_DIR),ONNXOPT_SCALE_DIR=$(SCALE_DIR)) tests/scale/run_scale_test.sh $(SCALE_GIB)

test-ort: build
	ctest --test-dir $(BUILD_DIR) -L ort --output-on-failure
