#!/usr/bin/env bash
# A capture of ulnet's traffic, decoded by Wireshark's LNet dissector
# (needs root for the namespace and the capture, and tshark; exits 77,
# "skipped", otherwise). Everything runs on the loopback of a private
# network namespace, so the capture holds only this test's traffic:
#
#   netns ulcap-<pid>, all on lo, tshark -i lo -w cap.pcap
#
#   ulnetd a  127.0.1.1@tcp  <--- port 988 --->  127.0.1.2@tcp  ulnetd b
#             127.0.2.1@tcp  <--- port 988 --->  127.0.2.2@tcp
#   ulnetd c  127.0.3.1@tcp  <--- port 7988 -->  127.0.3.2@tcp  ulnetd d
#
# a pings b and sends a short stream of 64-byte PUTs (one in flight) to
# b's perf sink; c pings d on a port the dissector does not know. tshark,
# reading the capture on its own, must show:
#  - the ping as a GET from an NI of a to an NI of b, portal 0, match bits
#    0x8000000000000000, and its REPLY back with b's ping info as payload
#    (16 + 3 * 16 = 64 bytes: 0@lo and two NIs); twice, since the first
#    perf PUT waits for the discovery of b, which is such a ping too
#    (discovery.md §7.1: `ping` itself discovers nothing);
#  - a's push of its ping info to b and b's back, each ACKed
#    (discovery.md §8.2);
#  - every PUT ulnetctl counted (no more, no fewer) from an NI of a to an
#    NI of b, portal 62, match bits 0x554c504552460000, 64-byte payload,
#    each with its ACK back (same match bits, mlength 64);
#  - NIDs of the socklnd type (2) and pid 12345 on every message;
#  - c's ping to d only once told `-d tcp.port==7988,lnet`.
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to make a network namespace and capture in it"
command -v tshark >/dev/null || ul_skip "tshark is not installed"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
ns=ulcap-$$
cap_pid=
ul_cleanup_extra() {
	[ -z "$cap_pid" ] || { kill "$cap_pid" && wait "$cap_pid"; } 2>/dev/null
	ip netns del "$ns" 2>/dev/null
}
ul_setup capture
ip netns add "$ns"
ip -n "$ns" link set lo up

conf() { # name, my NI addresses, peer NI addresses
	local a
	{
		echo "net:"
		echo "  - net type: tcp"
		echo "    local NI(s):"
		for a in $2; do echo "      - nid: $a@tcp"; done
		echo "peer:"
		echo "  - primary nid: ${3%% *}@tcp"
		echo "    Multi-Rail: True"
		echo "    peer ni:"
		for a in $3; do echo "      - nid: $a@tcp"; done
	} >"$tmp/$1.yaml"
}
conf a "127.0.1.1 127.0.2.1" "127.0.1.2 127.0.2.2"
conf b "127.0.1.2 127.0.2.2" "127.0.1.1 127.0.2.1"
conf c "127.0.3.1" "127.0.3.2"
conf d "127.0.3.2" "127.0.3.1"

ip netns exec "$ns" tshark -n -i lo -f tcp -w "$tmp/cap.pcap" \
	2>"$tmp/tshark.log" &
cap_pid=$!
ul_wait_for 150 grep -q 'Capturing on' "$tmp/tshark.log" ||
	ul_fail "tshark does not capture"

export UL_NETNS=$ns
for n in a b; do ul_daemon_start "$n" --port 988; done
for n in c d; do ul_daemon_start "$n" --port 7988; done
unset UL_NETNS
"$ULNETCTL" --ctl "$tmp/a.ctl" ping 127.0.1.2@tcp >"$tmp/ping.out" ||
	ul_fail "ping a -> b"
"$ULNETCTL" --ctl "$tmp/a.ctl" perf put 127.0.1.2@tcp --size 64 \
	--seconds 1 --inflight 1 >"$tmp/perf.out" || ul_fail "perf put"
"$ULNETCTL" --ctl "$tmp/c.ctl" ping 127.0.3.2@tcp >"$tmp/ping2.out" ||
	ul_fail "ping c -> d"
puts=$(awk '$1 == "puts:" { print $2; exit }' "$tmp/perf.out")
grep -q '^    failed: 0$' "$tmp/perf.out" || ul_fail "perf PUTs failed"
[ "${puts:-0}" -gt 0 ] || ul_fail "perf put sent nothing"
# Stop the daemons first: everything they sent is on lo by then.
for p in "${ul_pids[@]}"; do ul_stop "$p"; done
ul_pids=()
sleep 1
kill "$cap_pid"
wait "$cap_pid" 2>/dev/null || true
cap_pid=
if grep -q 'dropped' "$tmp/tshark.log" &&
	! grep -q ' 0 packets dropped' "$tmp/tshark.log"; then
	ul_skip "tshark dropped packets, counts would not hold:" \
		"$(tail -1 "$tmp/tshark.log")"
fi

# One line per LNet message: type, dest+src NID addresses, NID types,
# pids, portal, match bits, payload length, mlength. tshark prints one
# line per frame, and a frame can hold several messages (a PUT and the
# ACK of a push in one segment): their values come comma-joined, and a
# field only some types have (portal: PUT, GET; match bits: all but
# REPLY; mlength: ACK) lists only theirs, so split_msgs deals them out
# by type, in order.
split_msgs() {
	awk 'BEGIN { FS = "[ ]" }
	{
		nt = split($1, t, ",")
		split($2, nid, ",")
		split($3, ty, ",")
		split($4, dp, ",")
		split($5, sp, ",")
		split($6, pt, ",")
		split($7, mb, ",")
		split($8, pl, ",")
		split($9, ml, ",")
		ip = ib = im = 0
		for (k = 1; k <= nt; k++) {
			portal = bits = mlen = ""
			if (t[k] == 1 || t[k] == 2)
				portal = pt[++ip]
			if (t[k] != 3)
				bits = mb[++ib]
			if (t[k] == 0)
				mlen = ml[++im]
			print t[k], nid[2 * k - 1] "," nid[2 * k],
				ty[2 * k - 1] "," ty[2 * k], dp[k], sp[k],
				portal, bits, pl[k], mlen
		}
	}'
}
fields() { # extra tshark options...
	tshark -n -r "$tmp/cap.pcap" "$@" -Y 'lnet.msg_type' -T fields \
		-E separator=' ' -E occurrence=a -E aggregator=, \
		-e lnet.msg_type -e lnet.nid.addr -e lnet.nid.type \
		-e lnet.dest_pid -e lnet.src_pid -e lnet.ptl_index \
		-e lnet.msg_dst_match_bits -e lnet.payload_length \
		-e lnet.msg_length 2>"$tmp/tshark-r.err" | split_msgs
}
fields >"$tmp/msgs.out" || ul_fail "tshark cannot read the capture"
[ -s "$tmp/msgs.out" ] || ul_fail "tshark decoded no LNet message"
count() { grep -Ec "$1" "$tmp/msgs.out" || true; }

A='127\.0\.[12]\.1' B='127\.0\.[12]\.2'
# Columns: type nids(dest,src) types pids(dest,src) portal bits plen mlen
P='2,2 12345 12345'
# The `ping`, and the discovery ping before the first perf PUT.
[ "$(count "^2 $B,$A $P 0 0x8000000000000000 0 *$")" = 2 ] ||
	ul_fail "not two ping GETs from a to b on portal 0"
[ "$(count "^3 $A,$B $P +64 *$")" = 2 ] ||
	ul_fail "not two 64-byte ping REPLYs from b to a"
n=$(count "^1 127\.0\.[12]\.2,127\.0\.[12]\.1 $P 62 0x554c504552460000 64 *$")
[ "$n" = "$puts" ] || ul_fail "$n perf PUTs decoded, ulnetctl counted $puts"
n=$(count "^0 127\.0\.[12]\.1,127\.0\.[12]\.2 $P +0x554c504552460000 0 64$")
[ "$n" = "$puts" ] || ul_fail "$n ACKs decoded for $puts PUTs"
# The pushes (discovery.md §8.2): a's ping info to b once a discovered
# b, b's back once it merged a's; 64 bytes each, ACKed.
[ "$(count "^1 $B,$A $P 0 0x8000000000000000 64 *$")" = 1 ] ||
	ul_fail "not one 64-byte push from a to b on portal 0"
[ "$(count "^1 $A,$B $P 0 0x8000000000000000 64 *$")" = 1 ] ||
	ul_fail "not one 64-byte push from b to a on portal 0"
[ "$(count "^0 ($A,$B|$B,$A) $P +0x8000000000000000 0 64$")" = 2 ] ||
	ul_fail "not two ACKs of the pushes"
# Nothing else on port 988: no message of another shape.
n=$(grep -c "127\.0\.[12]\." "$tmp/msgs.out")
[ "$n" = $((8 + 2 * puts)) ] ||
	ul_fail "$n messages on port 988, expected $((8 + 2 * puts))"
# c -> d on port 7988: only decoded when asked to.
[ "$(count '127\.0\.3\.')" = 0 ] || ul_fail "port 7988 decoded without -d"
fields -d tcp.port==7988,lnet >"$tmp/msgs.out" || ul_fail "tshark -d"
C=127\.0\.3\.1 D=127\.0\.3\.2
[ "$(count "^2 $D,$C $P 0 0x8000000000000000 0 *$")" = 1 ] ||
	ul_fail "no ping GET from c to d with -d tcp.port==7988,lnet"
[ "$(count "^3 $C,$D $P +48 *$")" = 1 ] ||
	ul_fail "no 48-byte ping REPLY from d to c with -d tcp.port==7988,lnet"
echo "tshark decoded the ping, $puts PUTs and $puts ACKs with the intended" \
	"NIDs, types, portals, match bits and lengths"
echo "PASS"
