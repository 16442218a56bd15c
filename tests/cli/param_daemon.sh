#!/usr/bin/env bash
# Module parameters on a running ulnetd (issue 16 item 11): `ulnetctl
# param get|set` shows the kernel's lnet and ksocklnd parameters and
# ulnet's own socklnd limits, writes those the kernel lets an operator
# write (sysfs mode 0644) and refuses the others and bad input with
# lnetctl's error YAML (234); the router timers set this way reach the
# next routing enable (before, only --param at start did, so routing
# waited 110 s whatever was set afterwards); ksocklnd.sock_timeout given
# at start is the socklnd timeout `net show -v` reports (before, always
# 50) and a running change reaches it too. NIDs: 127.1.62.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
conf() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - nid: 127.1.62.%s@tcp\n' "$1"
}
cli_daemon p1 "$(conf 1)" --param ksocklnd.sock_timeout=77 \
	--param ulnet.max_handshakes=100 --param router_ping_timeout=40 \
	--param ksocklnd.nscheds=2

# --- get: the whole table, then one, then a bare lnet name -----------------
expect get_all 0 "*" "" -- $u param get
for kv in 'lnet.alive_router_check_interval: 60' \
	'lnet.router_ping_timeout: 40' 'lnet.lnet_transaction_timeout: 150' \
	'lnet.accept_timeout: 5' 'ksocklnd.sock_timeout: 77' \
	'ksocklnd.min_reconnectms: 1000' 'ksocklnd.max_reconnectms: 60000' \
	'ulnet.max_handshakes: 100' 'ulnet.max_handshakes_per_addr: 16' \
	'ulnet.max_hello_peers: 65536' 'ulnet.busy_poll: 0' \
	'ksocklnd.nscheds: 2' 'ulnet.sched_min_conns: 2'; do
	check "get_all ${kv%%:*}" "^    ${kv//./\\.}\$"
done
expect get_one 0 "param:
    ksocklnd.sock_timeout: 77" "" -- $u param get ksocklnd.sock_timeout
expect get_bare 0 "param:
    lnet.router_ping_timeout: 40" "" -- $u param get router_ping_timeout
expect net_show_timeout 0 "*" "" -- $u net show -v
check net_show_timeout '^                  timeout: 77$'

# --- set: writable ones, shown back; sock_timeout reaches net show ----------
expect set_two 0 "param:
    lnet.alive_router_check_interval: 1
param:
    lnet.router_ping_timeout: 2" "" -- \
	$u param set lnet.alive_router_check_interval=1 router_ping_timeout=2
expect set_sock_timeout 0 "param:
    ksocklnd.sock_timeout: 33" "" -- $u param set ksocklnd.sock_timeout=33
expect net_show_timeout_33 0 "*" "" -- $u net show -v
check net_show_timeout_33 '^                  timeout: 33$'
expect set_discovery_disabled 0 "param:
    lnet.lnet_peer_discovery_disabled: 1" "" -- \
	$u param set lnet.lnet_peer_discovery_disabled=7
expect global_discovery_off 0 "*" "" -- $u global show
check global_discovery_off '^    discovery: 0$'
expect set_limits 0 "*" "" -- \
	$u param set ulnet.max_handshakes_per_addr=4 ksocklnd.nagle=1
expect get_limits 0 "param:
    ulnet.max_handshakes_per_addr: 4" "" -- \
	$u param get ulnet.max_handshakes_per_addr
expect set_busy_poll 0 "param:
    ulnet.busy_poll: 50" "" -- $u param set ulnet.busy_poll=50
expect get_busy_poll 0 "param:
    ulnet.busy_poll: 50" "" -- $u param get ulnet.busy_poll
expect ping_busy_poll 0 "*" "" -- $u ping 127.1.62.1@tcp
expect set_busy_poll_off 0 "*" "" -- $u param set ulnet.busy_poll=0

# --- the router timers reach the next routing enable ------------------------
expect routing_on 0 "" "" -- $u set routing 1
check routing_wait 'Message forwarding will be enabled in 3s' "$TMP/p1.log"

# --- refusals ----------------------------------------------------------------
expect set_read_only 234 "" "$(d1 param set -1 "lnet.lock_prim_nid is read-only once running (the kernel's mode 0444: a load-time option); give it to ulnetd with --param")" \
	-- $u param set lnet.lock_prim_nid=0
expect set_nscheds_read_only 234 "" "$(d1 param set -1 "ksocklnd.nscheds is read-only once running (the kernel's mode 0444: a load-time option); give it to ulnetd with --param")" \
	-- $u param set ksocklnd.nscheds=1
check nscheds_started 'socklnd: 2 scheduler thread\(s\)' "$TMP/p1.log"
# Named as the kernel names its schedulers, so top -H tells them apart.
cat /proc/"${cli_pids[p1]}"/task/*/comm >"$TMP/comm"
check nscheds_named '^socknal_sd00_01$' "$TMP/comm"
expect get_unknown 234 "" "$(d1 param get -2 'no such parameter: bogus (ulnetctl param get lists them)')" \
	-- $u param get bogus
expect set_unknown 234 "" "$(d1 param set -2 'no such parameter: ksocklnd.bogus (ulnetctl param get lists them)')" \
	-- $u param set ksocklnd.bogus=1
expect set_range 234 "" "$(d1 param set -22 'ksocklnd.keepalive: -1 is out of range 0..2147483647')" \
	-- $u param set ksocklnd.keepalive=-1
expect set_busy_poll_range 234 "" "$(d1 param set -22 'ulnet.busy_poll: 2000000 is out of range 0..1000000')" \
	-- $u param set ulnet.busy_poll=2000000
expect set_reconnect_order 234 "" "$(d1 param set -22 'ksocklnd.min_reconnectms: 100000 is above max_reconnectms (60000)')" \
	-- $u param set ksocklnd.min_reconnectms=100000
expect set_lnet_check 234 "" "*" -- $u param set lnet.lnet_response_tracking=9
expect set_no_equals 234 "" "$(d1 param set -22 "bad argument 'x': NAME=VALUE")" \
	-- $u param set x
expect set_bad_value 234 "" "$(d1 param set -22 "bad value '12abc'")" \
	-- $u param set ksocklnd.keepalive=12abc
expect set_nothing 234 "" "$(d1 param set -22 'missing NAME=VALUE')" \
	-- $u param set
# the first failure stops the rest
expect set_stops 234 "param:
    ksocklnd.keepalive: 20" "*" -- \
	$u param set ksocklnd.keepalive=20 bogus=1 ksocklnd.keepalive=25
expect get_after_stop 0 "param:
    ksocklnd.keepalive: 20" "" -- $u param get ksocklnd.keepalive
expect param_help 1 "*" "" -- $u param set -h
check param_help '^param set: '

# --- ulnetd refuses bad --param values before it starts ---------------------
rc=0
"$ULNETD" --foreground --ctl "$TMP/bad.ctl" --param ksocklnd.keepalive=-1 \
	>"$TMP/out" 2>&1 || rc=$?
[ "$rc" = 2 ] && passed=$((passed + 1)) ||
	{ echo "FAIL ulnetd_bad_param: exit $rc"; failed=$((failed + 1)); }
check ulnetd_bad_param 'ksocklnd.keepalive: -1 is out of range'
rc=0
"$ULNETD" --foreground --ctl "$TMP/bad.ctl" --param nosuch=1 \
	>"$TMP/out" 2>&1 || rc=$?
[ "$rc" = 2 ] && passed=$((passed + 1)) ||
	{ echo "FAIL ulnetd_unknown_param: exit $rc"; failed=$((failed + 1)); }
check ulnetd_unknown_param "not a module parameter ulnet models"
finish
