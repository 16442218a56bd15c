#!/usr/bin/env bash
# Multi-Rail routing tables for NIs on one subnet (issue 16 item 12), in
# two network namespaces (root only; exits 77, "skipped", otherwise):
#
#   netns ulMa-<pid>                              netns ulMb-<pid>
#   ma1 198.18.0.1/24  <------ veth ------>  mb1 198.18.0.11/24
#   ma2 198.18.0.2/24  <------ veth ------>  mb2 198.18.0.12/24
#
# Both NIs of each node are on one /24, so Linux's main table sends the
# subnet out of one interface whatever address a socket is bound to. As
# the kernel's ksocklnd-config does, ulnetd adds a table per interface
# (48000 + ifindex) with the subnet's route out of it and a rule "from
# <NI address>" for each NI. Checked:
#  1. with --param ksocklnd.skip_mr_route_setup=1 (the kernel's switch)
#     no rule is added and a PUT stream from 198.18.0.2 leaves A through
#     ma1: ma2 carries under 10 % of A's transmitted bytes;
#  2. by default each NI has its rule and table in both namespaces, and a
#     stream using both of A's NIs moves at least 25 % of the bytes over
#     each interface (the interfaces' own counters);
#  3. when ulnetd stops, its rules and tables are gone;
#  4. ulnetd without CAP_NET_ADMIN (run as nobody through setpriv) adds
#     nothing and says so in one warning, not one per NI start.
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to create network namespaces"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
nsa=ulMa-$$
nsb=ulMb-$$
priv_dir=
ul_cleanup_extra() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	[ -z "$priv_dir" ] || rm -rf "$priv_dir"
}
ul_setup mrrouting

ip netns add "$nsa"
ip netns add "$nsb"
for i in 1 2; do
	ip link add "ma$i" netns "$nsa" type veth peer name "mb$i" netns "$nsb"
	ip -n "$nsa" addr add "198.18.0.$i/24" dev "ma$i"
	ip -n "$nsb" addr add "198.18.0.1$i/24" dev "mb$i"
	ip -n "$nsa" link set "ma$i" up
	ip -n "$nsb" link set "mb$i" up
done
ip -n "$nsa" link set lo up
ip -n "$nsb" link set lo up
conf() { # prefix
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - interfaces:\n          0: %s1\n' "$1"
	printf '      - interfaces:\n          0: %s2\n' "$1"
}
conf ma >"$tmp/a.yaml"
conf mb >"$tmp/b.yaml"
ctl() { "$ULNETCTL" --ctl "$tmp/a.ctl" "$@"; }
txb() { # ifname
	ip netns exec "$nsa" cat "/sys/class/net/$1/statistics/tx_bytes"
}
rules() { # ns
	ip -n "$1" -4 rule show | grep -E 'from 198\.18\.0\.[0-9]+ lookup' || true
}
# stream NAME: PUTs from A to B for 2 s; the share of A's transmitted
# bytes each interface carried, "ma1 ma2" in percent.
stream() {
	local a1 a2 d1 d2
	a1=$(txb ma1)
	a2=$(txb ma2)
	ctl perf put 198.18.0.11@tcp --size 1M --seconds 2 >"$tmp/$1.out" ||
		ul_fail "perf stream $1"
	d1=$(($(txb ma1) - a1))
	d2=$(($(txb ma2) - a2))
	[ $((d1 + d2)) -gt 0 ] || ul_fail "perf $1: nothing sent"
	echo "$((d1 * 100 / (d1 + d2))) $((d2 * 100 / (d1 + d2)))"
}
start_both() { # ulnetd options...
	UL_NETNS=$nsa ul_daemon_start a --port 988 --accept secure "$@"
	UL_NETNS=$nsb ul_daemon_start b --port 988 --accept secure "$@"
	ctl peer add --prim_nid 198.18.0.11@tcp --nid 198.18.0.12@tcp \
		>/dev/null || ul_fail "peer add"
	ctl ping 198.18.0.11@tcp >"$tmp/ping.out" || ul_fail "ping across"
}
stop_both() {
	ul_stop "${ul_pid[a]}"
	ul_stop "${ul_pid[b]}"
}

# 1. The kernel's switch: nothing added, one interface carries it all.
start_both --param ksocklnd.skip_mr_route_setup=1
[ -z "$(rules "$nsa")" ] || ul_fail "rules added with skip_mr_route_setup: $(rules "$nsa")"
read -r s1 s2 <<<"$(stream skip)"
echo "skip_mr_route_setup=1: ma1 carried $s1 %, ma2 $s2 %"
[ "$s2" -lt 10 ] || ul_fail "ma2 carried $s2 % without routing tables"
stop_both

# 2. Default: a table and a rule per NI, each interface its share.
start_both
for ns in "$nsa" "$nsb"; do
	[ "$(rules "$ns" | wc -l)" = 2 ] ||
		ul_fail "$ns: rules are: $(rules "$ns")"
done
idx2=$(ip netns exec "$nsa" cat /sys/class/net/ma2/ifindex)
# grep reads it all: with -q it may stop early, and under pipefail ip's
# SIGPIPE would fail the check (it did once in CI).
ip -n "$nsa" -4 rule show | grep "from 198.18.0.2 lookup $((48000 + idx2))" >/dev/null ||
	ul_fail "no rule from 198.18.0.2 to table $((48000 + idx2))"
ip -n "$nsa" -4 route show table $((48000 + idx2)) |
	grep -q "198.18.0.0/24 dev ma2 .*src 198.18.0.2" ||
	ul_fail "table $((48000 + idx2)): $(ip -n "$nsa" -4 route show table $((48000 + idx2)))"
grep -q "set up route table" "$tmp/a.log" || ul_fail "no log line for the tables"
read -r s1 s2 <<<"$(stream mr)"
echo "routing tables: ma1 carried $s1 %, ma2 $s2 %"
[ "$s1" -ge 25 ] && [ "$s2" -ge 25 ] ||
	ul_fail "ma1 carried $s1 %, ma2 $s2 % with routing tables"

# 3. Gone with the daemon.
stop_both
[ -z "$(rules "$nsa")" ] || ul_fail "rules left after stop: $(rules "$nsa")"
[ -z "$(ip -n "$nsa" -4 route show table $((48000 + idx2)))" ] ||
	ul_fail "table $((48000 + idx2)) left after stop"

# 4. Without the privilege: nothing added, one warning.
if command -v setpriv >/dev/null; then
	priv_dir=$(mktemp -d /tmp/ulnet-mrpriv-XXXXXX)
	chmod 777 "$priv_dir"
	cp "$tmp/a.yaml" "$priv_dir/a.yaml"
	chmod 644 "$priv_dir/a.yaml"
	ip netns exec "$nsa" setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all --bounding-set=-all \
		"$ULNETD" --config "$priv_dir/a.yaml" --ctl "$priv_dir/a.ctl" \
		--foreground --port 7988 --accept all --src-port any \
		2>"$tmp/nobody.log" &
	ul_track $!
	ul_wait_for 200 grep -q 'control socket ready' "$tmp/nobody.log" ||
		ul_fail "ulnetd as nobody did not start"
	[ -z "$(rules "$nsa")" ] || ul_fail "rules added without privilege"
	n=$(grep -c "without CAP_NET_ADMIN" "$tmp/nobody.log" || true)
	[ "$n" = 1 ] || ul_fail "$n 'without CAP_NET_ADMIN' warnings, want 1"
	echo "without CAP_NET_ADMIN: no rules, one warning"
else
	echo "setpriv missing: the unprivileged case is not tried"
fi
echo "PASS"
