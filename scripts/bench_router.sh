#!/usr/bin/env bash
# bench_router.sh: goodput from a client on tcp to a server on tcp1
# through ulnet routers, against a Linux IP-forwarding router on the same
# shaped links, and the direct path; then the time from a router's death
# to full goodput through the survivor. Root only (network namespaces);
# without root it says "skipped: needs root" and exits 0. Figures, never
# verdicts.
#
#   net tcp, bridge btT:  C c0 198.18.0.1  c1 198.18.1.1
#                         R1 r0 .0.11 r1 .1.11   R2 r0 .0.12 r1 .1.12
#   net tcp1, bridge btU: S s0 198.18.2.1  s1 198.18.3.1
#                         R1 r2 .2.11 r3 .3.11   R2 r2 .2.12 r3 .3.12
#
# Each bridge is a switch in a namespace of its own; every NI reaches
# every NI of its net through its own port (policy routing by source, see
# mkport), as in a switched fabric.
# The client's and the server's ports are shaped to RATE (1 Gbit/s) each
# way, every router port to RATE / 2: a router carries at most RATE per
# side, two routers 2 x RATE, what the client's two rails can send.
# Cases, in one run:
#   linux 1/2  Linux IP forwarding (ip_forward=1) in R1 (and R2): TCP
#              streams c0 -> s0 and c1 -> s1 through R1, and with two
#              routers c0 -> s1 and c1 -> s0 through R2 too, each held
#              to its router by source routing; the sum;
#   ulnet 1/2  ulnetd everywhere; C routes tcp1 through R1 (1) or through
#              R1 and R2 (2), S routes back the same way; `ulnetctl perf
#              put` of 1 MiB PUTs (each ACKed) from C to S;
#   direct     C and S on one net tcp over bt0 and bt1 (the routers' ports
#              down), the same perf put: ulnet without a router;
#   death      ulnet 2, R1 killed (SIGKILL) 3 s into a 12 s stream: a
#              per-second timeline of what S's ports received, the time
#              from the kill to 90 % of one router's capacity, PUTs failed.
# Goodput: application bytes per second at the receiver (TCP) or ACKed
# PUT payload per second at the sender (ulnet), Gbit/s (10^9).
#
# Usage: scripts/bench_router.sh [BUILD]   (default build/bench)
# Environment: SECONDS_RUN (default 8), RATE (default 1gbit), INFLIGHT
# (default 16). About 2 minutes on 2 CPUs.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "bench_router: skipped: needs root (network namespaces, tc)"
	exit 0
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/bench}
stream="$build/bench/tcp_stream"
daemon="$build/tools/ulnetd/ulnetd"
ctl="$build/tools/ulnetctl/ulnetctl"
for f in "$stream" "$daemon" "$ctl"; do
	if [ ! -x "$f" ]; then
		echo "bench_router: $f missing: build the tree first" \
			"(make bench, or cmake --build $build)" >&2
		exit 1
	fi
done
secs=${SECONDS_RUN:-8}
rate=${RATE:-1gbit}
inflight=${INFLIGHT:-16}
tag=$$
nsw=ubrW-$tag nsc=ubrC-$tag nss=ubrS-$tag nsr1=ubrR1-$tag nsr2=ubrR2-$tag
port=$((20000 + tag % 20000))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-router-$tag-XXXXXX")
pids=()
declare -A dpid=()

stop_pids() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
teardown() {
	local ns
	stop_pids
	for ns in "$nsc" "$nss" "$nsr1" "$nsr2" "$nsw"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}
cleanup() {
	teardown
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() {
	echo "bench_router: $*" >&2
	for f in "$tmp"/*.log; do
		[ -e "$f" ] || continue
		echo "== $f" >&2
		tail -15 "$f" >&2
	done
	exit 1
}
half=$(awk -v r="$rate" 'BEGIN { n = r + 0; u = r; sub(/^[0-9.]+/, "", u)
	printf "%g%s", n / 2, u }')

# port NS NAME BRIDGE ADDR RATE: a veth from NS to BRIDGE, shaped both ways.
# Several ports of a node share a net's bridge, each with its own /24:
# the node's policy routing sends what leaves from ADDR out of this port,
# whatever subnet it goes to, and arp_ignore=1 keeps the node answering
# ARP for ADDR on this port only, so every NI reaches every NI of its net
# through its own port, as in a switched fabric (LNet's assumption).
nport=0
mkport() {
	local ns=$1 name=$2 br=$3 addr=$4 r=$5
	nport=$((nport + 1))
	ip link add "p$nport-$tag" netns "$ns" type veth \
		peer name "q$nport-$tag" netns "$nsw"
	ip -n "$ns" link set "p$nport-$tag" name "$name"
	ip -n "$ns" addr add "$addr/24" dev "$name"
	ip -n "$ns" link set "$name" up
	ip -n "$ns" rule add from "$addr" table $((200 + nport))
	ip -n "$ns" route add 198.18.0.0/16 dev "$name" src "$addr" \
		table $((200 + nport))
	ip -n "$nsw" link set "q$nport-$tag" master "$br" up
	ip netns exec "$ns" tc qdisc add dev "$name" root \
		tbf rate "$r" burst 256kb latency 20ms
	ip netns exec "$nsw" tc qdisc add dev "q$nport-$tag" root \
		tbf rate "$r" burst 256kb latency 20ms
}
# topology MODE: routed (C's ports and the routers' tcp ports on bridge
# btT, S's and the routers' tcp1 ports on btU) or direct (C and S both on
# btT, no routers).
topology() {
	local ns b r
	nport=0
	for ns in "$nsw" "$nsc" "$nss" "$nsr1" "$nsr2"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
	done
	for b in T U; do
		ip -n "$nsw" link add "bt$b" type bridge
		ip -n "$nsw" link set "bt$b" up
	done
	mkport "$nsc" c0 btT 198.18.0.1 "$rate"
	mkport "$nsc" c1 btT 198.18.1.1 "$rate"
	if [ "$1" = direct ]; then
		mkport "$nss" s0 btT 198.18.0.2 "$rate"
		mkport "$nss" s1 btT 198.18.1.2 "$rate"
		return
	fi
	mkport "$nss" s0 btU 198.18.2.1 "$rate"
	mkport "$nss" s1 btU 198.18.3.1 "$rate"
	for r in 1 2; do
		ns=$nsr1
		[ $r = 2 ] && ns=$nsr2
		for b in 0 1; do
			mkport "$ns" "r$b" btT "198.18.$b.1$r" "$half"
		done
		for b in 2 3; do
			mkport "$ns" "r$b" btU "198.18.$b.1$r" "$half"
		done
	done
}

wait_line() { # file, text
	for _ in $(seq 300); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	die "no '$2' in $1"
}
gsum() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }

# linux_fwd N: Linux forwarding through R1 (N=1) or R1 and R2 (N=2); two
# TCP streams, c0 -> s0 and c1 -> s1; prints their sum in Gbit/s.
linux_fwd() {
	local n=$1 k r sum=0 g
	local -a snd=()
	topology routed
	for r in "$nsr1" "$nsr2"; do
		ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1
	done
	# One stream per (client rail k, server rail j) pair that a router
	# carries: through R1 the pairs k = j, through R2 (with N=2) the
	# crossed ones, so each router port pair carries one stream and two
	# routers can fill the client's two rails. Source routing on both
	# ends keeps each stream on its router, there and back.
	local -a pairs=("0 0 1" "1 1 1")
	((n == 2)) && pairs+=("0 1 2" "1 0 2")
	for k in 0 1; do
		ip -n "$nsc" rule add from "198.18.$k.1" table $((100 + k))
		ip -n "$nss" rule add from "198.18.$((k + 2)).1" table $((100 + k))
	done
	local i=0 p j mark
	for p in "${pairs[@]}"; do
		read -r k j r <<<"$p"
		ip -n "$nsc" route add "198.18.$((j + 2)).1/32" \
			via "198.18.$k.1$r" dev "c$k" table $((100 + k))
		ip -n "$nss" route add "198.18.$k.1/32" \
			via "198.18.$((j + 2)).1$r" dev "s$j" table $((100 + j))
		ip netns exec "$nss" "$stream" recv "198.18.$((j + 2)).1" \
			$((port + i)) >"$tmp/lin$i.out" &
		pids+=($!)
		i=$((i + 1))
	done
	for ((i = 0; i < ${#pairs[@]}; i++)); do
		wait_line "$tmp/lin$i.out" listening
	done
	i=0
	mark=$(cpu_mark)
	for p in "${pairs[@]}"; do
		read -r k j r <<<"$p"
		ip netns exec "$nsc" "$stream" send "198.18.$((j + 2)).1" \
			$((port + i)) "$secs" --from "198.18.$k.1" &
		snd+=($!)
		i=$((i + 1))
	done
	for k in "${snd[@]}" "${pids[@]}"; do wait "$k"; done
	pids=()
	echo "    linux, $n router(s): CPUs $(cpu_busy "$mark") % busy" >&2
	for ((i = 0; i < ${#pairs[@]}; i++)); do
		g=$(awk '/gbit_s/ { print $6 }' "$tmp/lin$i.out")
		sum=$(gsum "$sum" "${g:-0}")
	done
	teardown
	echo "$sum"
}

nis() { # net, interfaces...
	local net=$1 i
	shift
	echo "  - net type: $net"
	echo "    local NI(s):"
	for i in "$@"; do
		printf '      - interfaces:\n          0: %s\n' "$i"
	done
}
# start NAME NS CONF: one ulnetd (router checks every second, routing
# starting within 3 s).
start() {
	ip netns exec "$2" "$daemon" --config "$3" --ctl "$tmp/$1.ctl" \
		--foreground --port "$port" --accept all --src-port any \
		--param alive_router_check_interval=1 \
		--param router_ping_timeout=2 2>"$tmp/$1.log" &
	pids+=($!)
	dpid[$1]=$!
	for _ in $(seq 200); do
		[ -S "$tmp/$1.ctl" ] && return 0
		sleep 0.05
	done
	die "ulnetd $1 did not start"
}
# ulnet_up N: ulnetd on C, S and N routers, routes through them, all up.
ulnet_up() {
	local n=$1 r g
	{
		echo "net:"
		nis tcp c0 c1
		echo "route:"
		for ((r = 1; r <= n; r++)); do
			printf '  - net: tcp1\n    gateway: 198.18.0.1%d@tcp\n' "$r"
		done
	} >"$tmp/c.yaml"
	{
		echo "net:"
		nis tcp1 s0 s1
		echo "route:"
		for ((r = 1; r <= n; r++)); do
			printf '  - net: tcp\n    gateway: 198.18.2.1%d@tcp1\n' "$r"
		done
	} >"$tmp/s.yaml"
	{
		echo "net:"
		nis tcp r0 r1
		nis tcp1 r2 r3
		echo "routing:"
		echo "    enable: 1"
	} >"$tmp/r.yaml"
	start r1 "$nsr1" "$tmp/r.yaml"
	((n == 2)) && start r2 "$nsr2" "$tmp/r.yaml"
	start s "$nss" "$tmp/s.yaml"
	start c "$nsc" "$tmp/c.yaml"
	for ((r = 1; r <= n; r++)); do
		g=198.18.0.1$r@tcp
		for _ in $(seq 300); do
			"$ctl" --ctl "$tmp/c.ctl" route show -v |
				awk -v g="$g" '$1 == "gateway:" { c = ($2 == g) }
					c && $1 == "state:" { s = $2 }
					END { exit s != "up" }' && continue 2
			sleep 0.1
		done
		die "C's route through $g did not come up"
	done
}
# perf TARGET SECONDS -> Gbit/s (the stream's figures in $tmp/perf.yaml)
perf() {
	"$ctl" --ctl "$tmp/c.ctl" perf put "$1" --size 1048576 \
		--seconds "$2" --inflight "$inflight" >"$tmp/perf.yaml" ||
		die "ulnetctl perf put failed"
	awk '/MiB\/s:/ { printf "%.4f\n", $2 * 1048576 * 8 / 1e9; exit }' \
		"$tmp/perf.yaml"
}
# cpu_mark: the machine's busy and total jiffies ("busy total");
# cpu_busy MARK: percent of all CPUs busy since MARK.
cpu_mark() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t; exit }' /proc/stat
}
cpu_busy() {
	local b0 t0 b1 t1
	read -r b0 t0 <<<"$1"
	read -r b1 t1 < <(cpu_mark)
	awk -v b="$((b1 - b0))" -v t="$((t1 - t0))" \
		'BEGIN { printf "%.0f", (t > 0) ? 100 * b / t : 0 }'
}
# fwd_mib NAME: MiB router NAME forwarded (stats show route_length).
fwd_mib() {
	"$ctl" --ctl "$tmp/$1.ctl" stats show |
		awk '$1 == "route_length:" { printf "%.0f", $2 / 1048576; exit }'
}
ulnet_fwd() { # N routers -> Gbit/s; the routers' shares on stderr
	local g r line="" mark
	topology routed
	ulnet_up "$1"
	mark=$(cpu_mark)
	g=$(perf 198.18.2.1@tcp1 "$secs")
	line=" (CPUs $(cpu_busy "$mark") % busy)"
	for ((r = 1; r <= $1; r++)); do
		line=" R$r $(fwd_mib "r$r") MiB$line"
	done
	echo "    ulnet, $1 router(s): forwarded:$line" >&2
	teardown
	echo "$g"
}
ulnet_direct() {
	local g mark
	topology direct
	{
		echo "net:"
		nis tcp c0 c1
	} >"$tmp/c.yaml"
	{
		echo "net:"
		nis tcp s0 s1
	} >"$tmp/s.yaml"
	start s "$nss" "$tmp/s.yaml"
	start c "$nsc" "$tmp/c.yaml"
	mark=$(cpu_mark)
	g=$(perf 198.18.0.2@tcp "$secs")
	echo "    ulnet, direct: CPUs $(cpu_busy "$mark") % busy" >&2
	teardown
	echo "$g"
}

# death: two routers, R1 killed 3 s into a 12 s stream; S's receive
# counters sampled every 100 ms give the timeline.
death() {
	local t0 kill_t
	topology routed
	ulnet_up 2
	for n in c s; do
		"$ctl" --ctl "$tmp/$n.ctl" set transaction_timeout 10 >/dev/null
		"$ctl" --ctl "$tmp/$n.ctl" set retry_count 2 >/dev/null
	done
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$nss" bash -c '
		while :; do
			out=$EPOCHREALTIME
			while read -r line; do
				case $line in
				s[01]:*)
					read -ra f <<<"${line#*:}"
					out+=" ${f[0]}"
					;;
				esac
			done </proc/net/dev
			echo "$out"
			sleep 0.1
		done' >"$tmp/samples" &
	pids+=($!)
	t0=$EPOCHREALTIME
	"$ctl" --ctl "$tmp/c.ctl" perf put 198.18.2.1@tcp1 --size 1048576 \
		--seconds 12 --inflight "$inflight" >"$tmp/death.yaml" \
		2>"$tmp/death.err" &
	local perf_pid=$!
	sleep 3
	kill_t=$EPOCHREALTIME
	kill -KILL "${dpid[r1]}"
	wait "$perf_pid" || true
	stop_pids
	awk -v t0="$t0" -v k="$kill_t" -v rate="$rate" '
	BEGIN { n = rate + 0; u = rate; sub(/^[0-9.]+/, "", u)
		m = (u == "gbit") ? 1e9 : (u == "mbit") ? 1e6 : 1
		cap = n * m / 1e6 }  # one router: RATE per side, Mbit/s
	{
		t = $1; b = $2 + $3
		if (have && t > pt) {
			r = (b - pb) * 8 / (t - pt) / 1e6
			if (t - t0 >= nxt && t - t0 <= 12.5) {
				printf "    %5.1f s %6.0f Mbit/s%s\n", t - t0, r,
					(lp < k && t >= k) ? "  <- R1 killed" : ""
				lp = t
				nxt += 1
			}
			if (pt >= k && t90 == "" && r >= 0.9 * cap)
				t90 = t - k
		}
		pb = b; pt = t; have = 1
	}
	END { printf "T90 %s\n", t90 == "" ? "never" : sprintf("%.2f", t90) }' \
		"$tmp/samples" >"$tmp/death.out"
	grep -v '^T90' "$tmp/death.out"
	death_t90=$(awk '/^T90/ { print $2 }' "$tmp/death.out")
	death_failed=$(awk '$1 == "failed:" { print $2; exit }' "$tmp/death.yaml")
	teardown
}

echo "bench_router: $(nproc) CPUs, $(uname -sr); client and server ports" \
	"$rate, router ports $half; ${secs} s per case, 1 MiB PUTs" \
	"($inflight in flight)"
lin1=$(linux_fwd 1)
echo "    linux, 1 router: $lin1 Gbit/s"
lin2=$(linux_fwd 2)
echo "    linux, 2 routers: $lin2 Gbit/s"
ul1=$(ulnet_fwd 1)
echo "    ulnet, 1 router: $ul1 Gbit/s"
ul2=$(ulnet_fwd 2)
echo "    ulnet, 2 routers: $ul2 Gbit/s"
dir=$(ulnet_direct)
echo "    ulnet, direct (no router): $dir Gbit/s"
echo "== router death: 2 routers, R1 killed 3 s into a 12 s stream" \
	"(what S's ports receive: a 100 ms sample each second)"
death
echo
echo "Goodput, Gbit/s (goals: ulnet 1 router >= 0.9 x linux 1 router;"
echo "ulnet 2 routers >= 1.8 x ulnet 1 router where rails allow)"
printf '%-8s %8s %8s %8s %10s\n' routers linux ulnet direct ulnet/linux
printf '%-8s %8.3f %8.3f %8.3f %10s\n' 1 "$lin1" "$ul1" "$dir" \
	"$(ratio "$ul1" "$lin1")"
printf '%-8s %8.3f %8.3f %8s %10s\n' 2 "$lin2" "$ul2" - \
	"$(ratio "$ul2" "$lin2")"
echo "ulnet 2 routers / 1 router: $(ratio "$ul2" "$ul1")"
echo "Router death: to 90 % of one router's capacity ${death_t90} s" \
	"after the kill; PUTs failed: ${death_failed:-?} (tunables:" \
	"alive_router_check_interval 1, router_ping_timeout 2;" \
	"transaction_timeout 10, retry_count 2 on C and S)"
