#!/usr/bin/env bash
# Traffic to the node's own NIDs against a live ulnetd (lnetctl.md §18
# "Statistics" and "Sockets", selection.md §6.9; sanity-lnet 215, 475):
# a ping of our own tcp NID goes through the socklnd to ourselves, makes a
# peer for that NID (peer list, peer show --nid) and is counted and timed
# on the tcp NI and that peer NI; a ping from a NID of another local net
# (--source) has no route and fails; a ping of 0@lo is counted on 0@lo
# and makes no peer; stats reset clears all of it. NIDs: 127.1.9.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon s 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.9.1@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.9.2@tcp1' --cpts 2

# field FILE KEY: the value of the first "KEY: value" line of FILE.
field() { awk -v k="$2:" '$1 == k { print $2; exit }' "$1"; }
positive() { # name, value
	if [ -n "$2" ] && [ "$2" -gt 0 ]; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: '$2' is not > 0"
		failed=$((failed + 1))
	fi
}

expect ping_self 0 "*" "" -- $u ping 127.1.9.1@tcp
check ping_self_nid '^  - nid: 127.1.9.1@tcp$'
expect peer_list_self 0 "peer list:
-     nid: 127.1.9.1@tcp" "" -- $u peer list
expect peer_show_self 0 "*" "" -- $u peer show --nid 127.1.9.1@tcp -v 4
positive peer_send_count "$(field "$TMP/out" send_count)"
positive peer_recv_count "$(field "$TMP/out" recv_count)"
positive peer_get_rtt "$(field "$TMP/out" get_rtt_samples)"
positive peer_get_rtt_max "$(field "$TMP/out" get_rtt_max_nsec)"
expect net_show_tcp 0 "*" "" -- $u net show --net tcp -v 4
positive tcp_send_count "$(field "$TMP/out" send_count)"
positive tcp_get_rtt "$(field "$TMP/out" get_rtt_samples)"

# From tcp1 to our tcp NID: no route between two local nets (sanity 215).
expect ping_source_other_net 255 "manage:
- ping:
  errno: -113
  descr: ! 'failed to ping 127.1.9.1@tcp: No route to host'" "" -- \
	$u ping --source 127.1.9.2@tcp1 127.1.9.1@tcp

# 0@lo: over lolnd, counted on 0@lo, no peer.
expect stats_reset 0 "" "" -- $u stats reset
expect ping_lo 0 "*" "" -- $u ping 0@lo
expect net_show_lo 0 "*" "" -- $u net show --net lo -v
check lo_send_count '^ +send_count: 2$'
check lo_recv_count '^ +recv_count: 2$'
expect peer_show_lo 234 "" "*" -- $u peer show --nid 0@lo
expect stats_reset_again 0 "" "" -- $u stats reset
expect net_show_zero 0 "*" "" -- $u net show -v 4
if grep -E '^ +((send|recv)_count|[a-z_]+_samples): [1-9]' "$TMP/out"; then
	echo "FAIL net_show_zero: counters not cleared"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
# A host name that resolves to the loopback address makes a peer of
# 127.0.0.1@tcp, as LNet's resolver allows; it can be shown and deleted,
# and a backup holding it imports again (the kernel's NID parser takes
# 127.0.0.1 where lnetctl hands it over as a string).
if getent hosts localhost | grep -q '^127\.0\.0\.1 '; then
	expect ping_localhost 255 "*" "" -- $u ping --timeout 2 localhost@tcp
	check ping_localhost_nid "failed to ping 127.0.0.1@tcp"
	expect peer_show_loopback 0 "*" "" -- $u peer show --nid 127.0.0.1@tcp
	check peer_show_loopback_nid '^-     primary nid: 127.0.0.1@tcp$'
	# The backup's peer section, into a second daemon (s's NIs are
	# taken on this host).
	$u export --backup | sed -n '/^peer:$/,/^[a-z]/p' | sed '$d' \
		>"$TMP/peers.yaml"
	cli_daemon s2 "" --cpts 2
	export ULNET_CTL=$TMP/s.ctl
	expect import_loopback 0 "" "" -- $u --ctl "$TMP/s2.ctl" import \
		"$TMP/peers.yaml"
	expect export_loopback 0 "*" "" -- $u --ctl "$TMP/s2.ctl" export --backup
	check export_loopback_peer '^-     primary nid: 127.0.0.1@tcp$'
	expect peer_del_loopback 0 "" "" -- $u peer del --prim_nid 127.0.0.1@tcp
	expect peer_gone_loopback 234 "" "*" -- $u peer show --nid 127.0.0.1@tcp
else
	echo "skip: localhost does not resolve to 127.0.0.1 here"
fi
finish
