#!/usr/bin/env bash
# Bench (figures, not verdicts): what a Prometheus scrape of a node with
# many peers costs the node. One ulnetd on loopback with N configured
# peers of 4 NIDs each (default 10,000), --metrics on; scrapes of the
# whole page (plain, and gzip'd as Prometheus asks for it), the default
# page and /metrics?peers=0 (no peer NIs), and
# for each the page's size and samples, the time the node's loop spent
# before a worker thread took over (ulnet_metrics_last_build_seconds,
# which the next scrape reports), the loop thread's CPU time over the
# whole scrape (sending included), and the client's wall time. Goal (issue: packaging):
# under 50 ms of loop time at 10,000 peers.
#
#   scripts/bench_metrics.sh [BUILD_DIR] [NPEERS]
set -euo pipefail
build=${1:-build/bench}
npeers=${2:-10000}
ulnetd="$build/tools/ulnetd/ulnetd"
ulnetctl="$build/tools/ulnetctl/ulnetctl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-bench-metrics-XXXXXX")
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
port=$((42000 + $$ % 10000))

{
	echo "peer:"
	for ((i = 0; i < npeers; i++)); do
		a=$((i / 250)) b=$((i % 250 + 1))
		printf '    - primary nid: 10.%d.%d.1@tcp\n' "$a" "$b"
		printf '      Multi-Rail: True\n      peer ni:\n'
		for n in 1 2 3 4; do
			printf '        - nid: 10.%d.%d.%d@tcp\n' "$a" "$b" "$n"
		done
	done
} >"$tmp/peers.yaml"
printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.1.40.1@tcp\n' \
	>"$tmp/node.yaml"
"$ulnetd" --foreground --config "$tmp/node.yaml" --ctl "$tmp/ctl" \
	--port "$((port + 1))" --accept all --src-port any \
	--metrics "127.0.0.1:$port" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do [ -S "$tmp/ctl" ] && break; sleep 0.1; done
"$ulnetctl" --ctl "$tmp/ctl" import "$tmp/peers.yaml"
# The loop thread: ulnetd's second thread (the first waits for signals;
# a scrape's worker threads come and go). Its CPU time (schedstat, ns)
# over a whole scrape, the sending of the page included, is what the
# scrape cost the node.
loop_tid=$(ls "/proc/$pid/task" | sort -n | sed -n 2p)
loop_cpu_ns() { cut -d' ' -f1 "/proc/$pid/task/$loop_tid/schedstat"; }
echo "bench_metrics: $npeers peers of 4 NIDs on one ulnetd ($build)"
for query in "?peers=1" "?peers=1 gzip" "" "?peers=0"; do
	echo " /metrics$query"
	gz=()
	case $query in
	*gzip) query=${query% gzip} gz=(--compressed) ;;
	esac
	prev=""
	for i in 1 2 3 4; do
		c0=$(loop_cpu_ns)
		t0=$(date +%s%N)
		curl -s "${gz[@]}" -w '%{size_download}\n' \
			-o "$tmp/page" "http://127.0.0.1:$port/metrics$query" \
			>"$tmp/wire"
		t1=$(date +%s%N)
		c1=$(loop_cpu_ns)
		cpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN { print (b - a) / 1e6 }')
		build_s=$(sed -n 's/^ulnet_metrics_last_build_seconds //p' \
			"$tmp/page")
		samples=$(grep -vc '^#' "$tmp/page")
		# The page reports the build time of the scrape before it.
		[ -n "$prev" ] && printf '  scrape %d: %d bytes (%d on the wire), %d samples, loop time %.1f ms to the worker, %.1f ms in all; client wall %.1f ms\n' \
			"$((i - 1))" "$prev_bytes" "$prev_wire" "$prev_samples" \
			"$(awk -v s="$build_s" 'BEGIN { print s * 1000 }')" \
			"$prev_cpu" \
			"$(awk -v a="$prev" 'BEGIN { print a / 1e6 }')"
		prev=$((t1 - t0))
		prev_cpu=$cpu
		prev_wire=$(cat "$tmp/wire")
		prev_bytes=$(wc -c <"$tmp/page")
		prev_samples=$samples
	done
done
