#!/usr/bin/env bash
# bench_rails.sh: ulnet Multi-Rail goodput over 1, 2 and 4 veth rails,
# against single-stream TCP per rail and MPTCP over the same rails, all
# measured in the same run. Root only (network namespaces); without root
# it says "skipped: needs root" and exits 0. Figures, never verdicts.
#
#   ns ulbA-<pid> (sender)                      ns ulbB-<pid> (receiver)
#   ra0 198.18.0.1/24  <==== veth pair 0 ====>  rb0 198.18.0.2/24
#   ra1 198.18.1.1/24  <==== veth pair 1 ====>  rb1 198.18.1.2/24
#   ra2 198.18.2.1/24  <==== veth pair 2 ====>  rb2 198.18.2.2/24
#   ra3 198.18.3.1/24  <==== veth pair 3 ====>  rb3 198.18.3.2/24
#        (rails 0..N-1 exist for a run over N rails; N = 1, 2, 4)
#
# Shaped pass: every veth end has a tbf qdisc at RATE (1 Gbit/s), so each
# rail is a 1 Gbit/s link both ways. Unshaped pass: plain veth (CPU bound).
# For each pass and rail count, in this order:
#   tcp  one TCP stream per rail, one rail at a time (tcp_stream), and
#        their sum: what N independent links give one stream each;
#   tcp(all) the same N streams at once (what this machine's CPUs can
#        carry; unshaped, the sum of one-at-a-time streams is not);
#   mptcp one MPTCP connection (IPPROTO_MPTCP) from rail 0's address with
#        one extra subflow endpoint per further rail (in-kernel path
#        manager; source-routed on A so each subflow leaves on its rail);
#   ulnet ulnetd in each namespace, one tcp NI per rail (by nid:), the
#        other node as a Multi-Rail peer; `ulnetctl perf put` of 1 MiB
#        PUTs (each ACKed), INFLIGHT outstanding, for SECONDS_ULNET.
# Goodput is application bytes per second at the receiver (TCP, MPTCP) or
# ACKed PUT payload per second at the sender (ulnet), in Gbit/s (10^9).
#
# Usage: scripts/bench_rails.sh [--shaped-only|--unshaped-only] [BUILD]
#   BUILD: a build tree with bench/tcp_stream, tools/ulnetd/ulnetd and
#   tools/ulnetctl/ulnetctl (default build/bench, as `make bench` makes).
#   Environment: SECONDS_ULNET (default 10), SECONDS_TCP (default 4),
#   INFLIGHT (default 16), RATE (default 1gbit), RAILS (default "1 2 4").
#   Needs iproute2 (ip, tc, nstat) and a kernel with MPTCP; about 3
#   minutes for both passes on 2 CPUs.
set -euo pipefail

passes="shaped unshaped"
case "${1:-}" in
--shaped-only) passes=shaped; shift ;;
--unshaped-only) passes=unshaped; shift ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "bench_rails: skipped: needs root (network namespaces, tc)"
	exit 0
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/bench}
stream="$build/bench/tcp_stream"
daemon="$build/tools/ulnetd/ulnetd"
ctl="$build/tools/ulnetctl/ulnetctl"
for f in "$stream" "$daemon" "$ctl"; do
	if [ ! -x "$f" ]; then
		echo "bench_rails: $f missing: build the tree first" \
			"(make bench, or cmake --build $build)" >&2
		exit 1
	fi
done
sec_ulnet=${SECONDS_ULNET:-10}
sec_tcp=${SECONDS_TCP:-4}
inflight=${INFLIGHT:-16}
rate=${RATE:-1gbit}

tag=$$
nsa=ulbA-$tag
nsb=ulbB-$tag
port=$((20000 + tag % 20000))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-rails-$tag-XXXXXX")
pids=()

stop_pids() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
teardown() {
	stop_pids
	ip netns del "$nsa" 2>/dev/null || true
	ip netns del "$nsb" 2>/dev/null || true
}
cleanup() {
	teardown
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "bench_rails: $*" >&2
	for f in "$tmp"/*.log; do
		[ -e "$f" ] || continue
		echo "== $f" >&2
		tail -15 "$f" >&2
	done
	exit 1
}

# topology N SHAPED: the two namespaces joined by N veth pairs.
topology() {
	local n=$1 shaped=$2 k
	ip netns add "$nsa"
	ip netns add "$nsb"
	ip -n "$nsa" link set lo up
	ip -n "$nsb" link set lo up
	for ((k = 0; k < n; k++)); do
		ip link add "ra$k-$tag" netns "$nsa" type veth \
			peer name "rb$k-$tag" netns "$nsb"
		ip -n "$nsa" link set "ra$k-$tag" name "ra$k"
		ip -n "$nsb" link set "rb$k-$tag" name "rb$k"
		ip -n "$nsa" addr add "198.18.$k.1/24" dev "ra$k"
		ip -n "$nsb" addr add "198.18.$k.2/24" dev "rb$k"
		ip -n "$nsa" link set "ra$k" up
		ip -n "$nsb" link set "rb$k" up
		if [ "$shaped" = shaped ]; then
			# burst: a few 64 KiB GSO segments; latency bounds the
			# queue (tbf drops past it, as a switch port would).
			ip netns exec "$nsa" tc qdisc add dev "ra$k" root \
				tbf rate "$rate" burst 256kb latency 20ms
			ip netns exec "$nsb" tc qdisc add dev "rb$k" root \
				tbf rate "$rate" burst 256kb latency 20ms
		fi
		# MPTCP subflows from this rail's address leave on this rail.
		ip -n "$nsa" rule add from "198.18.$k.1" table $((100 + k))
		ip -n "$nsa" route add 198.18.0.0/16 dev "ra$k" \
			src "198.18.$k.1" table $((100 + k))
	done
}

# tcp_once RAIL: one TCP stream over one rail; prints Gbit/s.
tcp_once() {
	local k=$1 out="$tmp/tcp.out"
	ip netns exec "$nsb" "$stream" recv "198.18.$k.2" "$port" >"$out" &
	pids+=($!)
	wait_line "$out" listening
	ip netns exec "$nsa" "$stream" send "198.18.$k.2" "$port" \
		"$sec_tcp" --from "198.18.$k.1"
	wait "${pids[-1]}"
	unset 'pids[-1]'
	awk '/gbit_s/ { print $6 }' "$out"
}

# tcp_all N: one TCP stream on every rail at once; prints their sum.
tcp_all() {
	local n=$1 k sum=0 g
	local -a snd=()
	for ((k = 0; k < n; k++)); do
		ip netns exec "$nsb" "$stream" recv "198.18.$k.2" \
			$((port + 1 + k)) >"$tmp/all$k.out" &
		pids+=($!)
	done
	for ((k = 0; k < n; k++)); do
		wait_line "$tmp/all$k.out" listening
	done
	for ((k = 0; k < n; k++)); do
		ip netns exec "$nsa" "$stream" send "198.18.$k.2" \
			$((port + 1 + k)) "$sec_tcp" --from "198.18.$k.1" &
		snd+=($!)
	done
	for k in "${snd[@]}" "${pids[@]}"; do wait "$k"; done
	pids=()
	for ((k = 0; k < n; k++)); do
		g=$(awk '/gbit_s/ { print $6 }' "$tmp/all$k.out")
		sum=$(awk -v a="$sum" -v b="$g" 'BEGIN { print a + b }')
	done
	echo "$sum"
}

# mptcp_once N: one MPTCP connection over N rails; prints Gbit/s.
mptcp_once() {
	local n=$1 k out="$tmp/mptcp.out"
	for ns in "$nsa" "$nsb"; do
		ip -n "$ns" mptcp endpoint flush
		ip -n "$ns" mptcp limits set subflows 8 add_addr_accepted 8
	done
	for ((k = 1; k < n; k++)); do
		ip -n "$nsa" mptcp endpoint add "198.18.$k.1" dev "ra$k" subflow
	done
	ip netns exec "$nsb" "$stream" recv 198.18.0.2 "$port" --mptcp \
		>"$out" &
	pids+=($!)
	wait_line "$out" listening
	ip netns exec "$nsa" "$stream" send 198.18.0.2 "$port" "$sec_tcp" \
		--mptcp --from 198.18.0.1 &
	local sender=$!
	wait "$sender"
	wait "${pids[-1]}"
	unset 'pids[-1]'
	# Subflows: the first one and every join the server answered.
	local joins
	joins=$(ip netns exec "$nsa" nstat -saz MPTcpExtMPJoinSynAckRx |
		awk '/MPJoinSynAckRx/ { print $2 }')
	echo "    mptcp subflows: $((1 + ${joins:-0}))" >&2
	awk '/gbit_s/ { print $6 }' "$out"
}

# ulnet_once N: ulnetd on both sides, N NIs each; prints Gbit/s.
ulnet_once() {
	local n=$1 side me peer k
	for side in A B; do
		if [ $side = A ]; then me=1 peer=2; else me=2 peer=1; fi
		{
			echo "net:"
			echo "  - net type: tcp"
			echo "    local NI(s):"
			for ((k = 0; k < n; k++)); do
				echo "      - nid: 198.18.$k.$me@tcp"
			done
			echo "peer:"
			echo "  - primary nid: 198.18.0.$peer@tcp"
			echo "    Multi-Rail: True"
			echo "    peer ni:"
			for ((k = 0; k < n; k++)); do
				echo "      - nid: 198.18.$k.$peer@tcp"
			done
		} >"$tmp/$side.yaml"
	done
	ip netns exec "$nsb" "$daemon" --config "$tmp/B.yaml" \
		--ctl "$tmp/B.ctl" --foreground --port "$port" --accept all \
		--src-port any 2>"$tmp/B.log" &
	pids+=($!)
	ip netns exec "$nsa" "$daemon" --config "$tmp/A.yaml" \
		--ctl "$tmp/A.ctl" --foreground --port "$port" --accept all \
		--src-port any 2>"$tmp/A.log" &
	pids+=($!)
	wait_sock "$tmp/A.ctl"
	wait_sock "$tmp/B.ctl"
	"$ctl" --ctl "$tmp/A.ctl" perf put 198.18.0.2@tcp --size 1048576 \
		--seconds "$sec_ulnet" --inflight "$inflight" >"$tmp/perf.yaml" ||
		die "ulnetctl perf put failed"
	stop_pids
	awk '/^    rails:/ { r = 1 } r && /nid:/ { nid = $NF }
	     r && /share:/ { share = $NF }
	     r && /MiB\/s:/ { printf "    ulnet rail %s: %.4f Gbit/s (%s)\n",
				nid, $2 * 1048576 * 8 / 1e9, share }' \
		"$tmp/perf.yaml" >&2
	# The first MiB/s line is the whole stream's.
	awk '/MiB\/s:/ { printf "%.4f\n", $2 * 1048576 * 8 / 1e9; exit }' \
		"$tmp/perf.yaml"
}

wait_line() { # file, text
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	die "no '$2' in $1"
}
wait_sock() {
	for _ in $(seq 200); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	die "no control socket $1"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }

echo "bench_rails: $(nproc) CPUs, $(uname -sr); ulnet ${sec_ulnet} s of" \
	"1 MiB PUTs ($inflight in flight), TCP/MPTCP ${sec_tcp} s per stream"
results=()
for pass in $passes; do
	for n in ${RAILS:-1 2 4}; do
		echo "== $pass, $n rail(s)"
		topology "$n" "$pass"
		sum=0
		for ((k = 0; k < n; k++)); do
			g=$(tcp_once "$k")
			echo "    tcp rail $k: $g Gbit/s"
			sum=$(awk -v a="$sum" -v b="$g" 'BEGIN { print a + b }')
		done
		if ((n > 1)); then
			all=$(tcp_all "$n")
		else
			all=$sum
		fi
		echo "    tcp, all $n rails at once: $all Gbit/s"
		mp=$(mptcp_once "$n")
		echo "    mptcp: $mp Gbit/s"
		ul=$(ulnet_once "$n")
		echo "    ulnet: $ul Gbit/s"
		results+=("$pass $n $sum $all $mp $ul")
		teardown
	done
done

echo
echo "Goodput, Gbit/s (goals: ulnet >= 0.99 x sum of single-rail TCP, and"
echo ">= MPTCP; per-rail figures above)"
printf '%-9s %5s %9s %9s %7s %7s %10s %10s %12s\n' pass rails \
	"sum(tcp)" "tcp(all)" mptcp ulnet "ulnet/sum" "ulnet/all" "ulnet/mptcp"
for r in "${results[@]}"; do
	read -r pass n sum all mp ul <<<"$r"
	printf '%-9s %5s %9.3f %9.3f %7.3f %7.3f %10s %10s %12s\n' \
		"$pass" "$n" "$sum" "$all" "$mp" "$ul" "$(ratio "$ul" "$sum")" \
		"$(ratio "$ul" "$all")" "$(ratio "$ul" "$mp")"
done
