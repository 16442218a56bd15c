#!/usr/bin/env bash
# ulnetctl discover against two live ulnetd on loopback (lnetctl.md §11.2,
# discovery.md §8.3, §10, §11):
# A (127.1.7.1, 127.1.17.1) discovers B by B's second NID and gets one
# Multi-Rail peer holding both of B's NIDs with B's first NID as primary;
# peer show agrees, with the state bits DISCOVERED and NIDS_UPTODATE
# (273); a primary locked before keeps its place (sanity-lnet 304);
# with discovery off here, or there, B is a non-MR peer of one NID; a
# gateway shows ROUTER_ENABLED only from B's reply, and its route goes
# down when B's reply says B does not route (A runs without the router
# checker, alive_router_check_interval=0, so that only discover speaks
# for the gateway; tests/sim/test_route_*.c test the checker); an unreachable NID lands
# under "manage:" with exit 255; no NID fails as lnetctl does; every
# target is parsed before any is discovered (a bad one: D1, 234, nothing
# done); host names resolve; an unknown option prints getopt's line only;
# a missing socket is a D1 error (exit 234).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

conf() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - nid: 127.1.7.%s@tcp\n      - nid: 127.1.17.%s@tcp\n' "$1" "$1"
}
cli_daemon b "$(conf 2)" --cpts 2
cli_daemon a "$(conf 1)" --cpts 2 --param alive_router_check_interval=0
export ULNET_CTL=$TMP/a.ctl

u=$ULNETCTL

# A primary locked before discovery stays primary and locked (sanity-lnet
# 304: CONFIGURED cleared by peer set --state); the reply's primary
# comes first.
expect lock_add 0 "" "" -- $u peer add --prim_nid 127.1.17.2@tcp --lock_prim
expect lock_state_set 0 "" "" -- $u peer set --nid 127.1.17.2@tcp \
	--state 1048577
expect lock_discover 0 @discover/locked.yaml "" -- \
	$u discover 127.1.7.2@tcp
expect lock_show 0 @discover/locked_show.yaml "" -- $u peer show
expect lock_show_v4 0 "*" "" -- $u peer show -v 4 --nid 127.1.17.2@tcp
check lock_state '^      peer state: 1048849$'
expect lock_del 0 "" "" -- $u peer del --prim_nid 127.1.17.2@tcp --force

expect discover_by_second_nid 0 @discover/two_nids.yaml "" -- \
	"$ULNETCTL" discover 127.1.17.2@tcp
expect discovered_state 0 "*" "" -- $u peer show -v 3
# 273: MULTI_RAIL, DISCOVERED, NIDS_UPTODATE; B does not route (no 4).
check discovered_state_273 '^      peer state: 273$'
expect peer_show_after 0 @discover/peer_show.yaml "" -- \
	"$ULNETCTL" peer show
# Again, and with --force: the same one peer.
expect discover_again_force 0 @discover/two_nids.yaml "" -- \
	"$ULNETCTL" discover --force 127.1.7.2@tcp
expect peer_show_still_one 0 @discover/peer_show.yaml "" -- \
	"$ULNETCTL" peer show

# Discovery off here: one ping, B is non-MR with the NID pinged
# (discovery.md §10): NO_DISCOVERY, DISCOVERED, NIDS_UPTODATE.
expect off_here_set 0 "" "" -- $u set discovery 0
expect off_here_del 0 "" "" -- $u peer del --prim_nid 127.1.7.2@tcp
expect off_here 0 @discover/non_mr_17.yaml "" -- $u discover 127.1.17.2@tcp
expect off_here_state 0 "*" "" -- $u peer show -v 3
check off_here_state_274 '^      peer state: 274$'
expect off_here_on 0 "" "" -- $u set discovery 1
expect off_here_del_again 0 "" "" -- $u peer del --prim_nid 127.1.17.2@tcp
# Discovery off on B: its reply lacks DISCOVERY, A deletes the MR peer
# it had and makes it again non-MR (sanity-lnet 238).
expect off_there_before 0 @discover/two_nids.yaml "" -- \
	$u discover 127.1.17.2@tcp
expect off_there_set 0 "" "" -- $u --ctl "$TMP/b.ctl" set discovery 0
expect off_there 0 @discover/non_mr_17.yaml "" -- $u discover 127.1.17.2@tcp
expect off_there_show 0 @discover/non_mr_17_show.yaml "" -- $u peer show
expect off_there_on 0 "" "" -- $u --ctl "$TMP/b.ctl" set discovery 1
expect off_there_del 0 "" "" -- $u peer del --prim_nid 127.1.17.2@tcp

# A gateway: route add says nothing of its routing (no bit 2, route up,
# multi-hop); B's reply says it does not route: still no bit 2, and the
# route is down (routing.md §4.2).
expect gw_route 0 "" "" -- $u route add --net tcp9 --gateway 127.1.7.2@tcp
expect gw_route_ghost 0 "" "" -- $u route add --net tcp5 \
	--gateway 127.1.7.9@tcp
expect gw_state 0 "*" "" -- $u peer show -v 3
check gw_state_0 '^      peer state: 0$'
if grep -q '^      peer state: [^0]' "$TMP/out"; then
	echo "FAIL gw_state: a gateway has state bits before any reply"
	cat "$TMP/out"
	failed=$((failed + 1))
fi
expect gw_route_up 0 @discover/route_up.yaml "" -- $u route show -v
expect gw_discover 0 @discover/two_nids.yaml "" -- $u discover 127.1.7.2@tcp
expect gw_discovered 0 "*" "" -- $u peer show -v 3 --nid 127.1.7.2@tcp
check gw_discovered_273 '^      peer state: 273$'
expect gw_route_down 0 @discover/route_down.yaml "" -- \
	$u route show -v --net tcp9
expect gw_route_del 0 "" "" -- $u route del --net tcp9 \
	--gateway 127.1.7.2@tcp
expect gw_route_ghost_del 0 "" "" -- $u route del --net tcp5 \
	--gateway 127.1.7.9@tcp

expect discover_unreachable 255 @discover/unreachable.yaml "" -- \
	"$ULNETCTL" discover 127.1.17.2@tcp 127.1.7.9@tcp
# 0@lo: the node itself, no peer made, exit 0 (sanity-lnet 217).
expect discover_lo 0 "discover:
- primary nid: 0@lo
  Multi-Rail: false
  peer_ni: []" "" -- "$ULNETCTL" discover 0@lo
expect discover_no_nid 255 "Missing nid argument" "" -- \
	"$ULNETCTL" discover
# Every target is parsed first (yaml_lnet_ping): a bad one is lnetctl's
# D1 error on stderr, 234, and nothing is discovered, not even the good
# targets before it.
expect discover_bad_range 234 "" \
	"$(d1 manage discover -22 '\"Unable to parse nidlist: range is wrong order\"')" \
	-- "$ULNETCTL" discover 127.1.7.8@tcp '127.1.7.[2-1]@tcp'
expect discover_bad_nothing_done 234 "" "*" -- \
	"$ULNETCTL" peer show --nid 127.1.7.8@tcp
expect discover_bad_nid 234 "" \
	"$(d1 manage discover -22 '\"Unable to parse nidlist: invalid NID in nidstr\"')" \
	-- "$ULNETCTL" discover 127.1.7.8@tcp 1.2.3@tcp
expect discover_no_at 234 "" \
	"$(d1 manage discover -22 '\"Unable to parse nidlist: no valid NIDs in string\"')" \
	-- "$ULNETCTL" discover 127.1.7.8@tcp foo
expect discover_asterisk 234 "" \
	"$(d1 manage discover -22 'asterisk not allowed in nidstring')" \
	-- "$ULNETCTL" discover '*@tcp'
expect discover_still_nothing 234 "" "*" -- \
	"$ULNETCTL" peer show --nid 127.1.7.8@tcp
# Host names are resolved as ping and peer resolve them (nothing listens
# on 127.0.0.1).
expect discover_localhost 255 \
	"$(printf 'manage:\n- discover:\n  errno: -111\n'
	   printf "  descr: ! 'failed to discover 127.0.0.1@tcp: Connection refused'")" \
	"" -- "$ULNETCTL" discover localhost@tcp
# An unknown option: getopt's line only, status 0 (jt_discover).
expect discover_unknown_option 0 "" \
	"discover: unrecognized option '--bogus'" -- \
	"$ULNETCTL" discover --bogus 127.1.7.2@tcp
expect discover_help 0 @discover/help.txt "" -- "$ULNETCTL" discover -h
expect discover_no_daemon 234 "" "*" -- \
	"$ULNETCTL" --ctl "$TMP/none.ctl" discover 127.1.7.2@tcp
grep -q 'errno: -2$' "$TMP/err" && grep -q 'manage:' "$TMP/err" ||
	{ echo "FAIL discover_no_daemon: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
finish
