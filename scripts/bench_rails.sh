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
#        unshaped, 1 rail: the one stream again with MSG_ZEROCOPY;
#   mptcp one MPTCP connection (IPPROTO_MPTCP) from rail 0's address with
#        one extra subflow endpoint per further rail (in-kernel path
#        manager; source-routed on A so each subflow leaves on its rail);
#   ulnet ulnetd in each namespace, one tcp NI per rail (by nid:), the
#        other node as a Multi-Rail peer; `ulnetctl perf put` of 1 MiB
#        PUTs (each ACKed), INFLIGHT outstanding, for SECONDS_ULNET.
# Goodput is application bytes per second at the receiver (TCP, MPTCP) or
# ACKed PUT payload per second at the sender (ulnet), in Gbit/s (10^9).
#
# Failover (after the passes; docs/failure-lab.md): 4 shaped rails, one
# stream of FAILOVER_SECONDS (20) from A to B, rail 1 cut at CUT_AT (5 s)
# and repaired at RESTORE_AT (12 s): its link down (then up), or a black
# hole (every packet arriving on it dropped by iptables at both ends, link
# up). For ulnet (perf put, transaction_timeout 10, retry_count 2) and for
# one MPTCP connection, with the same cut: a per-rail timeline of what A
# sends (every SAMPLE_MS, 200), the time from the cut to 90 % of the
# surviving capacity, PUTs failed, and the time from the repair until the
# rail carries its share again.
#
# Discovery (last): 2 shaped rails; the time from a stream's first PUT
# until both rails carry traffic, with the peer configured and with
# discovery finding it (see discovery_time).
#
# Usage: scripts/bench_rails.sh [--shaped-only|--unshaped-only]
#        [--failover-only|--no-failover] [--discovery-only|--no-discovery]
#        [BUILD]
#   BUILD: a build tree with bench/tcp_stream, tools/ulnetd/ulnetd and
#   tools/ulnetctl/ulnetctl (default build/bench, as `make bench` makes).
#   Environment: SECONDS_ULNET (default 10), SECONDS_TCP (default 4),
#   INFLIGHT (default 16), RATE (default 1gbit), RAILS (default "1 2 4"),
#   ULNETD_ARGS (more ulnetd options for every ulnet run); unshaped, 2
#   and 4 rails: NSCHEDS (default 2) and INFLIGHT_DEEP (default 64) for
#   the two extra ulnet runs.
#   Needs iproute2 (ip, tc, nstat) and a kernel with MPTCP, iptables for
#   the black hole; about 3 minutes for both passes on 2 CPUs, and 2 more
#   for the failover section.
set -euo pipefail

passes="shaped unshaped"
do_failover=true
do_discovery=true
while [ $# -gt 0 ]; do
	case $1 in
	--discovery-only)
		passes=
		do_failover=false
		;;
	--no-discovery) do_discovery=false ;;
	--shaped-only) passes=shaped ;;
	--unshaped-only) passes=unshaped ;;
	--failover-only) passes= ;;
	--no-failover) do_failover=false ;;
	*) break ;;
	esac
	shift
done
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
# Unshaped passes of 2 and 4 rails run ulnet twice more: with NSCHEDS
# scheduler threads, and with INFLIGHT_DEEP PUTs in flight.
nscheds=${NSCHEDS:-2}
inflight_deep=${INFLIGHT_DEEP:-64}
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

# tcp_once RAIL [SEND OPTION...]: one TCP stream over one rail; prints
# Gbit/s.
tcp_once() {
	local k=$1 out="$tmp/tcp.out"
	shift
	ip netns exec "$nsb" "$stream" recv "198.18.$k.2" "$port" >"$out" &
	pids+=($!)
	wait_line "$out" listening
	ip netns exec "$nsa" "$stream" send "198.18.$k.2" "$port" \
		"$sec_tcp" --from "198.18.$k.1" "$@"
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

# ulnet_daemons N: ulnetd on both sides, N NIs each, Multi-Rail peers,
# with the options in ULNETD_ARGS and ul_extra (words).
ul_extra=
# shellcheck disable=SC2086 # ULNETD_ARGS and ul_extra are word lists
ulnet_daemons() {
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
			# UL_NO_PEER: nothing about the other node; discovery
			# finds it.
			if [ -z "${UL_NO_PEER:-}" ]; then
				echo "peer:"
				echo "  - primary nid: 198.18.0.$peer@tcp"
				echo "    Multi-Rail: True"
				echo "    peer ni:"
				for ((k = 0; k < n; k++)); do
					echo "      - nid: 198.18.$k.$peer@tcp"
				done
			fi
		} >"$tmp/$side.yaml"
	done
	ip netns exec "$nsb" "$daemon" --config "$tmp/B.yaml" \
		--ctl "$tmp/B.ctl" --foreground --port "$port" --accept all \
		--src-port any ${ULNETD_ARGS:-} $ul_extra >/dev/null \
		2>"$tmp/B.log" &
	pids+=($!)
	ip netns exec "$nsa" "$daemon" --config "$tmp/A.yaml" \
		--ctl "$tmp/A.ctl" --foreground --port "$port" --accept all \
		--src-port any ${ULNETD_ARGS:-} $ul_extra >/dev/null \
		2>"$tmp/A.log" &
	pids+=($!)
	wait_ready A
	wait_ready B
}

# ulnet_once N [INFLIGHT [ULNETD OPTION...]]: ulnetd on both sides, N
# NIs each; prints Gbit/s.
ulnet_once() {
	local n=$1 inf=${2:-$inflight}
	shift
	[ $# -gt 0 ] && shift
	ul_extra="$*"
	ulnet_daemons "$n"
	ul_extra=
	"$ctl" --ctl "$tmp/A.ctl" perf put 198.18.0.2@tcp --size 1048576 \
		--seconds "$sec_ulnet" --inflight "$inf" >"$tmp/perf.yaml" || {
		# In $(...): the daemons are this subshell's to stop.
		stop_pids
		die "ulnetctl perf put failed (logs: $tmp/A.log, $tmp/B.log)"
	}
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

# Failover: one rail of four cut in the middle of a stream and restored,
# for ulnet and for MPTCP, on the shaped lab (docs/failure-lab.md).
# fo_rail is the rail cut; times are seconds from the stream's start.
fo_rail=1
fo_secs=${FAILOVER_SECONDS:-20}
fo_cut=${CUT_AT:-5}
fo_restore=${RESTORE_AT:-12}
fo_sample=${SAMPLE_MS:-200}

# rate_bps RATE: tc's rate words (kbit, mbit, gbit) in bit/s.
rate_bps() {
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
		m = 0
		if (u == "bit" || u == "") m = 1
		if (u == "kbit") m = 1e3
		if (u == "mbit") m = 1e6
		if (u == "gbit") m = 1e9
		print n * m }'
}

# sampler_start FILE: every SAMPLE_MS, one line "time raK=tx_bytes..."
# with the sender's per-rail transmit counters (from its namespace's
# /proc/net/dev: what left A on each rail, retransmissions included).
sampler_start() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$nsa" bash -c '
		iv=$1
		while :; do
			out=$EPOCHREALTIME
			while read -r line; do
				case $line in
				ra[0-9]:*)
					read -ra f <<<"${line#*:}"
					out+=" ${line%%:*}=${f[8]}"
					;;
				esac
			done </proc/net/dev
			echo "$out"
			sleep "$iv"
		done' sampler "$(awk -v m="$fo_sample" 'BEGIN { print m / 1000 }')" \
		>"$1" &
	pids+=($!)
}

# sleep_until T0 S: sleep until S seconds after EPOCHREALTIME T0.
sleep_until() {
	local d
	d=$(awk -v t0="$1" -v s="$2" -v now="$EPOCHREALTIME" \
		'BEGIN { d = t0 + s - now; print (d > 0) ? d : 0 }')
	sleep "$d"
}

# cut WHAT on|off: rail fo_rail's link down, or a black hole (every
# packet arriving on it dropped at both ends, link up: no local error).
cut() {
	local k=$fo_rail
	case $1-$2 in
	link-on) ip -n "$nsa" link set "ra$k" down ;;
	link-off)
		ip -n "$nsa" link set "ra$k" up
		# Link down flushed the source route MPTCP's subflow uses.
		ip -n "$nsa" route replace 198.18.0.0/16 dev "ra$k" \
			src "198.18.$k.1" table $((100 + k))
		;;
	hole-on | hole-off)
		local op=-I
		[ "$2" = off ] && op=-D
		ip netns exec "$nsa" iptables -t raw $op PREROUTING \
			-i "ra$k" -j DROP
		ip netns exec "$nsb" iptables -t raw $op PREROUTING \
			-i "rb$k" -j DROP
		;;
	esac
}

# fault_timeline WHAT T0: the cut at fo_cut, the repair at fo_restore.
fault_timeline() {
	sleep_until "$2" "$fo_cut"
	fo_t_cut=$EPOCHREALTIME
	cut "$1" on
	sleep_until "$2" "$fo_restore"
	fo_t_restore=$EPOCHREALTIME
	cut "$1" off
}

# analyse SAMPLES T0: prints the per-rail timeline (Mbit/s sent by A on
# each rail, per sample) and ends with "FIG cap t90 back", where cap is
# the surviving capacity (the pre-cut total over the last 2 s before the
# cut times (N-1)/N, at most (N-1) x RATE), t90 the seconds from the cut
# to the first sample whose surviving rails reach 90 % of it (before the
# repair), and back the seconds from the repair to the first sample in
# which the cut rail carries at least 75 % of its share (cap / (N-1)).
analyse() {
	awk -v t0="$2" -v cut="$fo_t_cut" -v rst="$fo_t_restore" \
		-v k="$fo_rail" -v n=4 -v rate="$(rate_bps "$rate")" '
	function fig(v) { return v == "" ? "never" : sprintf("%.2f", v) }
	{
		for (i = 2; i <= NF; i++) {
			split($i, a, "=")
			sub(/^ra/, "", a[1])
			b[a[1]] = a[2]
		}
		t = $1
		if (have && t > pt) {
			dt = t - pt
			sum = 0
			line = sprintf("    %6.2f", t - t0)
			for (j = 0; j < n; j++) {
				r[j] = (b[j] - pb[j]) * 8 / dt / 1e6
				line = line sprintf(" %6.0f", r[j])
				sum += r[j]
			}
			surv = sum - r[k]
			mark = ""
			if (pt < cut && t >= cut)
				mark = "  <- cut"
			if (pt < rst && t >= rst)
				mark = "  <- restored"
			print line sprintf(" %7.0f", sum) mark
			if (t <= cut && t >= cut - 2) {
				pre += sum * dt
				pre_dt += dt
			}
			if (pt >= cut && t <= rst && t90 == "") {
				if (cap == "") {
					cap = pre_dt ? pre / pre_dt * (n - 1) / n : 0
					if (cap > (n - 1) * rate / 1e6)
						cap = (n - 1) * rate / 1e6
				}
				if (cap > 0 && surv >= 0.9 * cap)
					t90 = t - cut
			}
			if (pt >= rst && back == "" && cap > 0 &&
			    r[k] >= 0.75 * cap / (n - 1))
				back = t - rst
		}
		for (j in b)
			pb[j] = b[j]
		pt = t
		have = 1
	}
	END { printf "FIG %.0f %s %s\n", cap, fig(t90), fig(back) }' "$1"
}

# fo_report LABEL SAMPLES T0 FAILED: the timeline, then one figures line
# kept for the summary table.
fo_report() {
	local figs cap t90 back
	echo "    time(s)   rail0  rail1  rail2  rail3   total  (Mbit/s sent by A;" \
		"rail $fo_rail cut)"
	analyse "$2" "$3" >"$tmp/analyse.out"
	grep -v '^FIG' "$tmp/analyse.out"
	figs=$(awk '/^FIG/ { print $2, $3, $4 }' "$tmp/analyse.out")
	read -r cap t90 back <<<"$figs"
	echo "    $1: to 90 % of $cap Mbit/s: ${t90/%[0-9]/& s};" \
		"PUTs failed: $4; rail $fo_rail back to its share:" \
		"${back/%[0-9]/& s} after repair"
	fo_results+=("$1|$cap|$t90|$4|$back")
}

# ulnet_failover WHAT: a perf put stream with the cut in its middle.
ulnet_failover() {
	local what=$1 t0 perf started completed failed rc
	ulnet_daemons 4
	for side in A B; do
		"$ctl" --ctl "$tmp/$side.ctl" set transaction_timeout 10 >/dev/null
		"$ctl" --ctl "$tmp/$side.ctl" set retry_count 2 >/dev/null
	done
	sampler_start "$tmp/samples"
	t0=$EPOCHREALTIME
	# A stream that cannot drain within a minute is reported, not waited.
	timeout -k 5 $((fo_secs + 60)) "$ctl" --ctl "$tmp/A.ctl" perf put \
		198.18.0.2@tcp --size 1048576 --seconds "$fo_secs" \
		--inflight "$inflight" >"$tmp/perf.yaml" 2>"$tmp/perf.log" &
	perf=$!
	fault_timeline "$what" "$t0"
	# perf put exits non-zero when a PUT failed, and still reports.
	rc=0
	wait "$perf" || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "    ulnet: perf put still draining a minute after its" \
			"stream: cut off"
	fi
	stop_pids
	# perf put's totals come before its rails: take each key's first.
	started=$(awk '$1 == "started:" { print $2; exit }' "$tmp/perf.yaml")
	completed=$(awk '$1 == "completed:" { print $2; exit }' "$tmp/perf.yaml")
	failed=$(awk '$1 == "failed:" { print $2; exit }' "$tmp/perf.yaml")
	echo "    ulnet: started ${started:-?} completed ${completed:-?}" \
		"failed ${failed:-?}, stream ended after $(awk '
		$1 == "seconds:" { print $2; exit }' "$tmp/perf.yaml") s"
	# Failures by final status, the lines under "failures:".
	awk '$1 == "failures:" { d = index($0, "f"); f = 1; next }
	     f && index($0, $1) <= d { f = 0 }
	     f { out = out " " $1 " " $2 }
	     END { if (out != "") print "    ulnet: failures:" out }' \
		"$tmp/perf.yaml"
	fo_report "$what ulnet" "$tmp/samples" "$t0" "${failed:-?}"
}

# mptcp_failover WHAT: one MPTCP connection over the 4 rails, same cut.
mptcp_failover() {
	local what=$1 k t0 snd
	for ns in "$nsa" "$nsb"; do
		ip -n "$ns" mptcp endpoint flush
		ip -n "$ns" mptcp limits set subflows 8 add_addr_accepted 8
	done
	for ((k = 1; k < 4; k++)); do
		ip -n "$nsa" mptcp endpoint add "198.18.$k.1" dev "ra$k" subflow
	done
	ip netns exec "$nsb" "$stream" recv 198.18.0.2 "$port" --mptcp \
		>"$tmp/mptcp.out" &
	pids+=($!)
	wait_line "$tmp/mptcp.out" listening
	sampler_start "$tmp/samples"
	t0=$EPOCHREALTIME
	ip netns exec "$nsa" "$stream" send 198.18.0.2 "$port" "$fo_secs" \
		--mptcp --from 198.18.0.1 &
	snd=$!
	fault_timeline "$what" "$t0"
	wait "$snd" || echo "    mptcp: sender ended with $?"
	stop_pids
	fo_report "$what mptcp" "$tmp/samples" "$t0" -
}

failover() {
	local what
	fo_results=()
	if ! command -v iptables >/dev/null; then
		echo "== failover: black hole skipped (no iptables)"
	fi
	echo "== failover: 4 shaped rails at $rate, rail $fo_rail cut at" \
		"${fo_cut} s and restored at ${fo_restore} s of a ${fo_secs} s" \
		"stream; transaction_timeout 10, retry_count 2; sampled every" \
		"$fo_sample ms"
	for what in link hole; do
		[ $what = hole ] && ! command -v iptables >/dev/null && continue
		echo "== failover, $what: ulnet (1 MiB PUTs, $inflight in flight)"
		topology 4 shaped
		ulnet_failover $what
		teardown
		echo "== failover, $what: mptcp"
		topology 4 shaped
		mptcp_failover $what
		teardown
	done
	echo
	echo "Failover (link: rail $fo_rail's link down; hole: every packet on it"
	echo "dropped, link up). t90: seconds from the cut until the surviving"
	echo "rails carry 90 % of the capacity; back: seconds from the repair"
	echo "until the rail carries >= 75 % of its pre-cut share (goals: link down"
	echo "t90 <= 1 s, hole t90 <= 5 s, 0 PUTs failed)"
	printf '%-12s %14s %8s %12s %8s\n' case "capacity(Mb/s)" t90 \
		"PUTs failed" back
	for r in "${fo_results[@]}"; do
		IFS='|' read -r what cap t90 failed back <<<"$r"
		printf '%-12s %14s %8s %12s %8s\n' "$what" "$cap" "$t90" \
			"$failed" "$back"
	done
}

# Discovery time: 2 shaped rails, a 3 s stream from A to B's first NID;
# the time from its start until A sends on both rails at >= 50 % of a
# rail's rate (in a DISC_SAMPLE_MS sample), with B configured as a
# Multi-Rail peer ("static") and with no peer configuration on either
# node ("discovered": the first PUT waits for a ping to B's first NID,
# whose reply lists B's two). The difference is what discovery costs.
disc_first_both() { # samples, t0 -> ms, or "never"
	awk -v t0="$2" -v rate="$(rate_bps "$rate")" '
	{
		for (i = 2; i <= NF; i++) {
			split($i, a, "=")
			b[a[1]] = a[2]
		}
		t = $1
		if (have && t > pt && !done) {
			ok = 1
			for (j in b)
				if ((b[j] - pb[j]) * 8 / (t - pt) < 0.5 * rate)
					ok = 0
			if (ok) {
				printf "%.0f\n", (t - t0) * 1000
				done = 1
			}
		}
		for (j in b)
			pb[j] = b[j]
		pt = t
		have = 1
	}
	END { if (!done) print "never" }' "$1"
}
discovery_time() {
	local mode t0 ms fo_sample=${DISC_SAMPLE_MS:-10}
	disc_results=()
	echo "== discovery: 2 shaped rails at $rate, 3 s stream of 1 MiB PUTs" \
		"($inflight in flight), sampled every $fo_sample ms"
	for mode in static discovered; do
		topology 2 shaped
		if [ $mode = discovered ]; then
			UL_NO_PEER=1 ulnet_daemons 2
		else
			ulnet_daemons 2
		fi
		sampler_start "$tmp/samples"
		t0=$EPOCHREALTIME
		"$ctl" --ctl "$tmp/A.ctl" perf put 198.18.0.2@tcp \
			--size 1048576 --seconds 3 --inflight "$inflight" \
			>"$tmp/perf.yaml" 2>"$tmp/perf.log" ||
			die "ulnetctl perf put failed ($mode)"
		"$ctl" --ctl "$tmp/A.ctl" peer show --nid 198.18.0.2@tcp \
			>"$tmp/peer.yaml" 2>&1 || true
		stop_pids
		ms=$(disc_first_both "$tmp/samples" "$t0")
		echo "    $mode: both rails at >= 50 % after $ms ms; A's peer" \
			"$(awk '$1 == "Multi-Rail:" { print "Multi-Rail: " $2 }' \
				"$tmp/peer.yaml"),"\
			"$(grep -c -- '- nid: 198' "$tmp/peer.yaml") NIDs"
		disc_results+=("$ms")
		teardown
	done
	echo
	echo "Discovery (both rails in use, ms from the first PUT; goal: after"
	echo "one discovery round trip): static ${disc_results[0]} ms," \
		"discovered ${disc_results[1]} ms"
}

wait_line() { # file, text
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	die "no '$2' in $1"
}
# wait_ready A|B: that side's ulnetd has configured its NIs and started
# (its control socket exists before that).
wait_ready() {
	for _ in $(seq 200); do
		[ -S "$tmp/$1.ctl" ] &&
			grep -q 'control socket ready' "$tmp/$1.log" && return 0
		sleep 0.05
	done
	die "ulnetd $1 did not start"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }

if [ -n "$passes" ]; then
	echo "bench_rails: $(nproc) CPUs, $(uname -sr); ulnet ${sec_ulnet} s" \
		"of 1 MiB PUTs ($inflight in flight), TCP/MPTCP ${sec_tcp} s" \
		"per stream"
else
	echo "bench_rails: $(nproc) CPUs, $(uname -sr); no goodput passes"
fi
results=()
cpu_results=()
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
		# Would MSG_ZEROCOPY pay here? The raw stream with it.
		if [ "$pass" = unshaped ] && ((n == 1)); then
			g=$(tcp_once 0 --zerocopy)
			echo "    tcp rail 0, MSG_ZEROCOPY: $g Gbit/s"
		fi
		echo "    tcp, all $n rails at once: $all Gbit/s"
		mp=$(mptcp_once "$n")
		echo "    mptcp: $mp Gbit/s"
		ul=$(ulnet_once "$n")
		echo "    ulnet: $ul Gbit/s"
		results+=("$pass $n $sum $all $mp $ul")
		# CPU bound: what scheduler threads and a deeper window give.
		if [ "$pass" = unshaped ] && ((n > 1)); then
			us=$(ulnet_once "$n" "$inflight" --param \
				"ksocklnd.nscheds=$nscheds")
			echo "    ulnet, ksocklnd.nscheds=$nscheds: $us Gbit/s"
			uw=$(ulnet_once "$n" "$inflight_deep")
			echo "    ulnet, $inflight_deep in flight: $uw Gbit/s"
			cpu_results+=("$n $all $ul $us $uw")
		fi
		teardown
	done
done

if [ ${#results[@]} -gt 0 ]; then
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
fi
if [ ${#cpu_results[@]} -gt 0 ]; then
	echo
	echo "Unshaped (CPU bound), Gbit/s: ulnet as above ($inflight in flight), with"
	echo "ksocklnd.nscheds=$nscheds scheduler threads, and with $inflight_deep PUTs in flight;"
	echo "goal: ulnet >= tcp(all)"
	printf '%5s %9s %7s %9s %9s %10s %12s %12s\n' rails "tcp(all)" \
		ulnet "+threads" "+window" "ulnet/all" "threads/all" \
		"window/all"
	for r in "${cpu_results[@]}"; do
		read -r n all ul us uw <<<"$r"
		printf '%5s %9.3f %7.3f %9.3f %9.3f %10s %12s %12s\n' "$n" \
			"$all" "$ul" "$us" "$uw" "$(ratio "$ul" "$all")" \
			"$(ratio "$us" "$all")" "$(ratio "$uw" "$all")"
	done
fi
if $do_failover; then
	failover
fi
if $do_discovery; then
	discovery_time
fi
