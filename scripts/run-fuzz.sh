#!/usr/bin/env bash
# Run each libFuzzer target in BUILD_DIR for SECONDS, starting from its seed
# corpus, which tests/fuzz/make_seeds.py writes from the wire vectors and
# tests/fuzz/nid_seeds.txt into a scratch directory. Any crash fails the run; the reproducer is
# kept in build/fuzz/artifacts/.
set -euo pipefail
build=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS}
seconds=${2:-20}
top=$(cd "$(dirname "$0")/.." && pwd)
artifacts="$build/artifacts"
mkdir -p "$artifacts"
status=0
for target in "$build"/tests/fuzz/fuzz_*; do
	[ -x "$target" ] || continue
	name=$(basename "$target")
	name=${name#fuzz_}
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	python3 "$top/tests/fuzz/make_seeds.py" "$name" "$work"
	dict=()
	[ -f "$top/tests/fuzz/$name.dict" ] && dict=(-dict="$top/tests/fuzz/$name.dict")
	echo "fuzz: $name for ${seconds}s"
	if ! "$target" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$artifacts/$name-" "${dict[@]}" "$work" \
		>"$build/fuzz-$name.log" 2>&1; then
		echo "fuzz: $name FAILED; log: $build/fuzz-$name.log"
		tail -40 "$build/fuzz-$name.log"
		status=1
	else
		grep -E 'stat::number_of_executed_units|Done' "$build/fuzz-$name.log" | tr '\n' ' '
		echo
	fi
	rm -rf "$work"
	trap - EXIT
done
exit $status
