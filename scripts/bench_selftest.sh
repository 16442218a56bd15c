#!/usr/bin/env bash
# bench_selftest.sh [BUILD-TREE]: ulnetctl selftest against perf put, and
# selftest's other tests, on loopback (no root). Figures, not verdicts.
#
#   A 127.0.1.1@tcp + 127.0.2.1@tcp ==== B 127.0.1.2@tcp + 127.0.2.2@tcp
#                                   ==== C 127.0.1.3@tcp + 127.0.2.3@tcp
#
# 1. perf put and `selftest run brw write` from A to B, both 1 MiB PUTs,
#    8 in flight, SECONDS each, taken in turn ROUNDS times in the same
#    run: the median MiB/s of each and their ratio (the goal: within 2 %).
# 2. brw read, brw write with check=full, ping, and a 1:all write from A
#    to B and C: MiB/s and RPC/s, to see what each costs beside (1); the
#    last one's per-rail rates over time as BUILD-TREE/bench-selftest-
#    rails.png (with gnuplot).
# Environment: ULNET_BENCH_SECONDS (5), ULNET_BENCH_ROUNDS (5).
set -euo pipefail
build=${1:-build/bench}
top=$(pwd)
secs=${ULNET_BENCH_SECONDS:-5}
rounds=${ULNET_BENCH_ROUNDS:-5}
ctl="$(cd "$build/tools/ulnetctl" && pwd)/ulnetctl"
daemon="$build/tools/ulnetd/ulnetd"
port=$((20000 + $$ % 20000))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-bench-st-XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

start_node() { # name, last address byte
	printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.0.1.%s@tcp\n      - nid: 127.0.2.%s@tcp\n' \
		"$2" "$2" >"$tmp/$1.yaml"
	"$daemon" --config "$tmp/$1.yaml" --ctl "$tmp/$1.ctl" --foreground \
		--port "$port" --accept all --src-port any 2>"$tmp/$1.log" &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q 'control socket ready' "$tmp/$1.log" 2>/dev/null && return
		sleep 0.05
	done
	echo "ulnetd $1 did not start" >&2
	cat "$tmp/$1.log" >&2
	exit 1
}

start_node A 1
start_node B 2
start_node C 3
cd "$tmp"
# Discovery first, so that no round pays for it.
"$ctl" --ctl A.ctl ping 127.0.1.2@tcp >/dev/null
"$ctl" --ctl A.ctl ping 127.0.1.3@tcp >/dev/null

# key FILE NAME: the first "NAME: value" of a YAML report.
key() { awk -v k="$2:" '$1 == k || ($1 == "-" && $2 == k) {print $NF; exit}' "$1"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "== selftest against perf put: A -> B, 1 MiB PUTs, 8 in flight, ${secs} s, $rounds rounds each, in turn"
: >perf.txt
: >st.txt
for r in $(seq "$rounds"); do
	"$ctl" --ctl A.ctl perf put 127.0.1.2@tcp --size 1M --inflight 8 \
		--seconds "$secs" >perf.yaml
	"$ctl" selftest run --from A.ctl --to 127.0.1.2@tcp --concurrency 8 \
		--seconds "$secs" brw write size=1M >st.yaml
	p=$(key perf.yaml MiB/s)
	s=$(key st.yaml MiB/s)
	echo "$p" >>perf.txt
	echo "$s" >>st.txt
	printf '    round %d: perf put %8.1f MiB/s   selftest %8.1f MiB/s\n' "$r" "$p" "$s"
done
pm=$(median <perf.txt)
sm=$(median <st.txt)
awk -v p="$pm" -v s="$sm" 'BEGIN {printf "    median: perf put %.1f MiB/s, selftest %.1f MiB/s, selftest / perf put = %.3f (goal: within 2 %%)\n", p, s, s / p}'

echo "== selftest's tests, A -> B unless said, 8 in flight, ${secs} s each"
run() { # label, selftest run arguments...
	local label=$1
	shift
	"$ctl" selftest run --concurrency 8 --seconds "$secs" "$@" >run.yaml ||
		echo "    ($label: selftest exited non-zero)"
	printf '    %-34s %9.1f MiB/s %9s RPC/s  failed %s\n' "$label" \
		"$(key run.yaml MiB/s)" "$(key run.yaml RPC/s)" \
		"$(key run.yaml failed)"
}
run "brw write size=1M" --from A.ctl --to B.ctl brw write size=1M
run "brw write size=1M check=simple" --from A.ctl --to B.ctl brw write size=1M check=simple
run "brw write size=1M check=full" --from A.ctl --to B.ctl brw write size=1M check=full
run "brw read size=1M" --from A.ctl --to B.ctl brw read size=1M
run "brw read size=1M check=full" --from A.ctl --to B.ctl brw read size=1M check=full
run "brw write size=4K" --from A.ctl --to B.ctl brw write size=4K
run "ping" --from A.ctl --to B.ctl ping
plot=()
png="$(cd "$top/$build" 2>/dev/null && pwd || echo "$top")/bench-selftest-rails.png"
command -v gnuplot >/dev/null && plot=(--rates rails.tsv --plot "$png")
run "brw write size=1M, A -> B,C 1:all" --from A.ctl --to B.ctl,C.ctl \
	--distribute 1:all "${plot[@]}" brw write size=1M
if [ ${#plot[@]} -gt 0 ]; then
	echo "    (the 1:all run's rails over time: $png)"
fi
