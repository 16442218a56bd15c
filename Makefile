# The two commands a newcomer needs: `make demo` and `make check`.
# Everything here drives CMake + Ninja; build trees live under build/.

SHELL        := /bin/bash
BUILD        ?= build
FUZZ_SECONDS ?= 20
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_GEN    := -G Ninja -DULNET_WERROR=ON
CTEST_ARGS   ?= --output-on-failure -j $(JOBS)

.PHONY: all bootstrap build asan tsan check test test-asan test-tsan fuzz \
	fuzz-build demo bench bench-build \
	format format-check tidy spell clean

all: build

bootstrap:
	@bash scripts/bootstrap.sh

$(BUILD)/plain/build.ninja:
	cmake -S . -B $(BUILD)/plain $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug

$(BUILD)/asan/build.ninja:
	cmake -S . -B $(BUILD)/asan $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug \
		-DULNET_ASAN=ON -DULNET_UBSAN=ON

# ThreadSanitizer over the tests labelled "threads" (tests/CMakeLists.txt):
# the ones where several threads run, the loop thread of an instance or of
# ulnetd beside its callers.
$(BUILD)/tsan/build.ninja:
	cmake -S . -B $(BUILD)/tsan $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug \
		-DULNET_TSAN=ON

# The optimised tree, with the tests: make check builds it, so a warning
# that only -O2/-O3 finds (format-overflow, stringop-truncation) fails CI.
$(BUILD)/bench/build.ninja:
	cmake -S . -B $(BUILD)/bench $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release

$(BUILD)/fuzz/build.ninja:
	CC=clang cmake -S . -B $(BUILD)/fuzz $(CMAKE_GEN) \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DULNET_FUZZ=ON

build: $(BUILD)/plain/build.ninja
	cmake --build $(BUILD)/plain

asan: $(BUILD)/asan/build.ninja
	cmake --build $(BUILD)/asan

tsan: $(BUILD)/tsan/build.ninja
	cmake --build $(BUILD)/tsan

test: build
	ctest --test-dir $(BUILD)/plain $(CTEST_ARGS)

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir $(BUILD)/asan $(CTEST_ARGS)

test-tsan: tsan
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	ctest --test-dir $(BUILD)/tsan -L threads $(CTEST_ARGS)

fuzz-build: $(BUILD)/fuzz/build.ninja
	cmake --build $(BUILD)/fuzz

# Run every fuzz target for FUZZ_SECONDS on a scratch copy of its seeds.
fuzz: fuzz-build
	@bash scripts/run-fuzz.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

# make check: bootstrap, the formatting referee and codespell, the tests
# plain and under ASan+UBSan, the threaded ones under TSan, clang-tidy
# (warnings are errors), the
# optimised (Release) build, then a short fuzz run of every target when
# clang is present.
check: bootstrap
	$(MAKE) format-check
	$(MAKE) spell
	$(MAKE) test
	$(MAKE) test-asan
	$(MAKE) test-tsan
	$(MAKE) tidy
	$(MAKE) bench-build
	@if command -v clang >/dev/null 2>&1; then \
		$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS); \
	else \
		echo "check: clang not found, fuzz run skipped"; \
	fi
	@n=$$(ctest --test-dir $(BUILD)/plain -N | sed -n 's/^Total Tests: //p'); \
	a=$$(ctest --test-dir $(BUILD)/asan -N | sed -n 's/^Total Tests: //p'); \
	t=$$(ctest --test-dir $(BUILD)/tsan -N -L threads | sed -n 's/^Total Tests: //p'); \
	echo "check: $$n tests plain, $$a under ASan+UBSan, $$t under TSan"; \
	echo "check: $$((n + a + t)) passed, 0 failed"

# The optimised tree: -O3 finds warnings a debug build does not.
bench-build: $(BUILD)/bench/build.ninja
	cmake --build $(BUILD)/bench

# Figures, not verdicts: each bench program prints what it measured.
bench: bootstrap bench-build
	@for b in $(BUILD)/bench/bench/bench_*; do echo "== $$b"; "$$b"; done
	@bash scripts/bench_selftest.sh $(BUILD)/bench
	@bash scripts/bench_metrics.sh $(BUILD)/bench
	@bash scripts/bench_peers.sh $(BUILD)/bench

demo: bootstrap build
	@bash scripts/demo.sh $(BUILD)/plain

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h') && \
		echo "format-check: every C file is as .clang-format wants"

# clang-tidy's "N warnings generated" chatter (about suppressed system
# headers) is dropped; its findings and its exit status are kept.
tidy: build
	@set -o pipefail; \
	clang-tidy -p $(BUILD)/plain --quiet $$(git ls-files 'src/*.c' 'tools/*.c') 2>&1 | \
		{ grep -v '^[0-9]* warnings\? generated\.$$' || true; } && \
		echo "tidy: no clang-tidy warnings"

spell:
	@codespell && echo "spell: codespell found nothing"

clean:
	rm -rf $(BUILD)
