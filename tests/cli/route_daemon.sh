#!/usr/bin/env bash
# ulnetctl route add / del / show, routing show and the routing and
# router-buffer settings against a live ulnetd (reference/lnetctl.md
# §4.3, §8): gateway range lists (one route each), hop and priority,
# filters, -v fields, the errors table (D1 YAML, stdout texts, exit
# codes), the unknown-option quirk, gateway peers (non-MR, not
# deletable), routing show before and after `set routing 1`, buffer
# totals, and the buffers not remembered while routing is off. NIDs:
# 127.1.2.0/24 and 127.1.3.0/24. The gateways do not exist: the router
# checker is off (alive_router_check_interval=0) so that every route
# keeps its first state, up, as in LNet without the checker.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon r 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.2.1@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.3.1@tcp1' --cpts 2 --param alive_router_check_interval=0

# The items of an engine-A sequence sorted: routes to one net are kept
# in a random order (as LNet inserts them), the rest is fixed.
items_sorted() {
	local first
	IFS= read -r first || return 0
	printf '%s\n' "$first"
	awk '/^-/ { if (item != "") print item; item = $0; next }
	{ item = item "\001" $0 }
	END { if (item != "") print item }' | LC_ALL=C sort | tr '\001' '\n'
}

# expect_items NAME FILE -- COMMAND...: exit 0, nothing on stderr, and
# stdout equal to tests/cli/expected/FILE once its items are sorted.
expect_items() {
	local name=$1 file=$2
	shift 3
	expect "$name" 0 "*" "" -- "$@"
	items_sorted <"$TMP/out" >"$TMP/sorted"
	if [ "${UL_CLI_RECORD:-0}" = 1 ] && [ ! -e "$EXPECTED/$file" ]; then
		cp "$TMP/sorted" "$EXPECTED/$file"
	fi
	if diff -u "$EXPECTED/$file" "$TMP/sorted" >"$TMP/diff"; then
		passed=$((passed + 1))
	else
		echo "FAIL $name: sorted stdout differs:"
		cat "$TMP/diff"
		failed=$((failed + 1))
	fi
}

# --- nothing yet ------------------------------------------------------
expect show_empty 0 "" "" -- $u route show
expect show_empty_v 0 "" "" -- $u route show -v
# 1 routing never enabled: no pools, no output.
expect routing_never 0 "" "" -- $u routing show
expect add_help 1 "*" "" -- $u route add -h
# every option route add and show accept is in their help (§1.3)
for o in net gateway 'hop\|hop-count' priority; do
	check "add_help_$o" "^	--$o: "
done
expect show_help 1 "*" "" -- $u route show -h
for o in net gateway 'hop\|hop-count' priority verbose; do
	check "show_help_$o" "^	--$o: "
done

# --- route add --------------------------------------------------------
# 2 one route per expanded gateway; --prio and --hop-count abbreviated.
expect add_range 0 "" "" -- $u route add --net tcp5 \
	--gateway '127.1.2.[50-51]@tcp' --hop 3 --prio 2
expect add_short 0 "" "" -- $u route add -n tcp6 -g 127.1.3.50@tcp1 -c 1
expect add_hop_count 0 "" "" -- $u route add --net tcp7 \
	--gateway 127.1.2.52@tcp --hop-count 255 --priority 0
# 3 unparsable --hop / --priority are ignored (hop -1, priority 0).
expect add_hop_garbage 0 "" "" -- $u route add --net tcp8 \
	--gateway 127.1.2.53@tcp --hop x --priority 1y
expect_items show route/show.yaml -- $u route show
expect_items show_v route/show_v.yaml -- $u route show --verbose
# 4 the errors table, numbered.
n=0
while IFS='|' read -r net gw rest err; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # rest holds options
	expect "add_error_$n" 234 "" "@route/$err" -- \
		$u route add --net "$net" --gateway "$gw" $rest
done <<'EOF'
lo|127.1.2.54@tcp||add_lo.err
foo|127.1.2.54@tcp||add_net_any.err
tcp5|127.1.2.54@tcp|--hop 0|add_hop.err
tcp5|127.1.2.54@tcp|--hop 256|add_hop.err
tcp5|127.1.2.54@tcp|--priority -2|add_prio.err
tcp5|0@lo||add_invalid.err
tcp5|127.1.5.1@tcp5||add_invalid.err
tcp1|127.1.2.54@tcp||add_exists.err
tcp5|127.1.2.50@tcp||add_exists.err
tcp5|127.1.2.54@tcp4||add_unreach.err
tcp5|127.1.2.[4-2]@tcp||add_range_order.err
tcp5|1@tcp||add_range_invalid.err
EOF
# 5 missing options: stdout text, 234.
expect add_missing_both 234 "missing mandatory parameters:'net , gateway'" "" \
	-- $u route add
expect add_missing_net 234 "missing mandatory parameters:'net'" "" \
	-- $u route add --gateway 127.1.2.54@tcp
expect add_missing_gw 234 "missing mandatory parameters:'gateway'" "" \
	-- $u route add --net tcp5
# 6 --health_sensitivity is not an option: help, exit 0, no route;
# getopt's own message only for a single argument (§1.2).
expect add_unknown 0 @route/add_help.txt "" -- $u route add --net tcp9 \
	--gateway 127.1.2.55@tcp --health_sensitivity 1
expect add_unknown_sole 0 @route/add_help.txt \
	"add: unrecognized option '--bogus'" -- $u route add --bogus
expect show_unknown 0 @route/show_help.txt "" -- \
	$u route show --net x --bogus
expect show_unknown_sole 0 @route/show_help.txt \
	"show: unrecognized option '--bogus'" -- $u route show --bogus
expect del_unknown 0 @route/del_help.txt "" -- \
	$u route del --net x --gateway y --bogus
# script mode: a line that left the diagnostics on does not turn them
# on for the next verb with more than one argument.
expect_stdin script_diagnostics 0 "*" "show: unrecognized option '--bogus'" \
	"route show --bogus
route show --net x --bogus
" -- $u
expect add_unknown_none 0 "" "" -- $u route show --net tcp9
# 6a nor is --verbose on add: lnetctl's add knows net, gateway, hop
# (hop-count) and priority only.
expect add_verbose 0 @route/add_help.txt "" -- $u route add --net tcp9 \
	--gateway 127.1.2.55@tcp --verbose
expect add_verbose_none 0 "" "" -- $u route show --net tcp9
# 6b --priority -1 and --hop -1 are lnetctl's "not given".
expect add_minus_one 0 "" "" -- $u route add --net tcp9 \
	--gateway 127.1.2.55@tcp --hop -1 --priority -1
expect show_minus_one 0 @route/show_minus_one.yaml "" -- \
	$u route show --net tcp9 -v
expect del_minus_one 0 "" "" -- $u route del --net tcp9 \
	--gateway 127.1.2.55@tcp
# 6c a range stops at its first failure, as lnetctl's one netlink
# request does; the routes before it stay (routing.md §2.2 tells of the
# older ioctl path, which went on past "already exists").
expect add_overlap_first 0 "" "" -- $u route add --net tcp10 \
	--gateway '127.1.2.[60-61]@tcp'
expect add_overlap 234 "" @route/add_exists_tcp10.err -- \
	$u route add --net tcp10 --gateway '127.1.2.[63,61,64]@tcp'
expect_items show_overlap route/show_overlap.yaml -- \
	$u route show --net tcp10
expect del_overlap 0 "" "" -- $u route del --net tcp10 \
	--gateway '127.1.2.[60,61,63]@tcp'
# 6d no 1024 cap: 1270 gateways go in two requests, and show and del
# take such a list too.
expect add_many 0 "" "" -- $u route add --net tcp11 \
	--gateway '127.1.[100-104].[1-254]@tcp'
expect show_many 0 "*" "" -- $u route show --net tcp11
n=$(grep -c '^      gateway: ' "$TMP/out")
if [ "$n" = 1270 ]; then passed=$((passed + 1)); else
	echo "FAIL show_many: $n routes, want 1270"; failed=$((failed + 1)); fi
# LNet lists the routes of each gateway of the list in turn: list order,
# across the requests, whatever the order of the routes.
expect show_many_gw 0 "*" "" -- $u route show \
	--gateway '127.1.2.53@tcp,127.1.[100-104].[1-254]@tcp'
{
	echo 127.1.2.53@tcp
	for c in $(seq 100 104); do
		for d in $(seq 1 254); do echo "127.1.$c.$d@tcp"; done
	done
} >"$TMP/want_gws"
if sed -n 's/^      gateway: //p' "$TMP/out" | cmp -s - "$TMP/want_gws"; then
	passed=$((passed + 1))
else
	echo "FAIL show_many_gw: routes not in the list's order"
	failed=$((failed + 1))
fi
expect del_many 0 "" "" -- $u route del --net tcp11 \
	--gateway '127.1.[100-104].[1-254]@tcp'
expect show_many_gone 0 "" "" -- $u route show --net tcp11
# 6e a list of more NIDs than ulnetctl takes (65536) is refused.
expect add_too_many 234 "" @route/add_too_many.err -- $u route add \
	--net tcp11 --gateway '127.[1-2].[0-255].[0-255]@tcp'

# --- route show filters -------------------------------------------------
expect_items show_net route/show_net5.yaml -- $u route show --net tcp5
expect show_gw_range 0 @route/show_gw_range.yaml "" -- \
	$u route show --gateway '127.1.2.[51-52]@tcp'
expect show_gw_order 0 @route/show_gw_order.yaml "" -- \
	$u route show --gateway '127.1.2.52@tcp,127.1.2.51@tcp'
expect_items show_hop route/show_hop.yaml -- $u route show --hop 3
# --hop -1 and --priority -1 are lnetctl's "not given": no filter.
expect_items show_hop_none route/show.yaml -- $u route show --hop -1
expect_items show_prio_none route/show.yaml -- $u route show --priority -1
# A net LNet cannot parse filters nothing either (it is LNET_NET_ANY).
expect_items show_bad_net route/show.yaml -- $u route show --net foo
expect_items show_prio route/show_prio.yaml -- \
	$u route show --priority 2 -v
expect show_and 0 "" "" -- $u route show --net tcp6 --priority 2
expect show_no_match 0 "" "" -- $u route show --gateway 127.1.2.99@tcp

# --- gateways are peers -----------------------------------------------
expect gw_peer 0 @route/gw_peer.yaml "" -- $u peer show --nid 127.1.2.50@tcp
expect gw_peer_state 0 "*" "" -- $u peer show --nid 127.1.2.50@tcp -v 3
# not MR, not configured, and no ROUTER_ENABLED (bit 2): only a
# discover reply of the gateway tells that (discover_daemon.sh).
check gw_peer_not_configured '^      peer state: 0$'
expect gw_peer_del 234 "" @route/gw_peer_del.err -- \
	$u peer del --prim_nid 127.1.2.50@tcp
expect gw_peer_add 234 "" @route/gw_peer_add.err -- \
	$u peer add --prim_nid 127.1.2.51@tcp
# also as a non-MR peer, which a gateway is (only import takes it as is)
expect gw_peer_add_non_mr 234 "" @route/gw_peer_add.err -- \
	$u peer add --prim_nid 127.1.2.51@tcp --non_mr
expect gw_peer_add_non_mr_lock 234 "" @route/gw_peer_add.err -- \
	$u peer add --prim_nid 127.1.2.51@tcp --non_mr --lock_prim
expect gw_peer_add_unchanged 0 "*" "" -- \
	$u peer show -v 3 --nid 127.1.2.51@tcp
check gw_peer_add_unchanged_state '^      peer state: 0$'
expect gw_peer_add_nid 234 "" @route/gw_peer_add_nid.err -- \
	$u peer add --prim_nid 127.1.2.60@tcp --nid 127.1.2.52@tcp

# --- route del ----------------------------------------------------------
expect del_missing 234 "missing mandatory parameters:'gateway'" "" \
	-- $u route del --net tcp5
# lnetctl's route del knows --net and --gateway only: any other option
# is the unknown-option quirk (help, 0, nothing deleted).
n=0
for o in --verbose '--hop 3' '--prio 3' '-c 1' '-p 1' -v; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # o holds an option and its value
	expect "del_option_$n" 0 @route/del_help.txt "" -- $u route del \
		--net tcp5 --gateway 127.1.2.50@tcp $o
done
expect_items del_option_none route/show_net5.yaml -- $u route show --net tcp5
# the net is checked as for add (§8.1 table)
expect del_lo 234 "" @route/del_lo.err -- \
	$u route del --net lo --gateway 127.1.2.50@tcp
expect del_net_any 234 "" @route/del_net_any.err -- \
	$u route del --net foo --gateway 127.1.2.50@tcp
expect del_range 0 "" "" -- $u route del --net tcp5 \
	--gateway '127.1.2.[50-51]@tcp'
expect del_again 234 "" @route/del.err -- \
	$u route del --net tcp5 --gateway 127.1.2.50@tcp
expect del_wrong_net 234 "" @route/del.err -- \
	$u route del --net tcp6 --gateway 127.1.2.52@tcp
expect show_after_del 0 @route/show_after_del.yaml "" -- $u route show
# 6f remote nets are listed in LNet's remote-net hash order ((net
# number + LND type) & 63: o2ib 5, tcp6 8, tcp70 72 & 63 = 8, tcp7 9,
# tcp8 10, tcp9 11), creation order within a bucket; export too.
for net in tcp9 tcp70 o2ib; do
	expect "order_add_$net" 0 "" "" -- $u route add --net $net \
		--gateway 127.1.2.70@tcp
done
expect order_show 0 "*" "" -- $u route show
want_nets="o2ib tcp6 tcp70 tcp7 tcp8 tcp9 "
if [ "$(sed -n 's/^-     net: //p' "$TMP/out" | uniq | tr '\n' ' ')" = \
	"$want_nets" ]; then
	passed=$((passed + 1))
else
	echo "FAIL order_show: nets not in LNet's hash order:"
	cat "$TMP/out"
	failed=$((failed + 1))
fi
expect order_export 0 "*" "" -- $u export --backup
if [ "$(sed -n '/^route:/,/^[a-z]/s/^-     net: //p' "$TMP/out" | uniq |
	tr '\n' ' ')" = "$want_nets" ]; then
	passed=$((passed + 1))
else
	echo "FAIL order_export: nets not in LNet's hash order:"
	cat "$TMP/out"
	failed=$((failed + 1))
fi
for net in tcp9 tcp70 o2ib; do
	expect "order_del_$net" 0 "" "" -- $u route del --net $net \
		--gateway 127.1.2.70@tcp
done
expect order_gw_del 0 "" "" -- $u peer del --prim_nid 127.1.2.70@tcp
# 7 with its route gone the gateway peer can go.
expect gw_peer_del_free 0 "" "" -- $u peer del --prim_nid 127.1.2.50@tcp

# --- routing and buffers ----------------------------------------------
# 8 buffer values while routing is off are not remembered (quirk).
expect buf_before 0 "" "" -- $u set tiny_buffers 100
# set routing 1 makes the pools at LNet's defaults and starts: "enable:
# 3" for alive_router_check_interval + router_ping_timeout (50 s here); the
# end of that wait is tested on a virtual clock (unit/test_routing).
expect routing_on 0 "" "" -- $u set routing 1
expect routing_show 0 @route/routing_default.yaml "" -- $u routing show
# The wait is alive_router_check_interval (0 here) + router_ping_timeout.
check routing_on_log 'Message forwarding will be enabled in 50s$' \
	"$TMP/r.log"
expect routing_on_again 0 "" "" -- $u set routing 1
expect buf_tiny 0 "" "" -- $u set tiny_buffers 4000
expect buf_small_default 0 "" "" -- $u set small_buffers 0
expect buf_large_keep 0 "" "" -- $u set large_buffers -1
expect buf_range 222 "" @route/buf_range.err -- $u set large_buffers -2
expect routing_show_buf 0 @route/routing_tiny.yaml "" -- $u routing show
# 9 a smaller total is kept, but a pool gives up buffers only as they
# come back (routing.md §7.2), which nothing forwarded means never; a
# total under LNet's recommended minimum (the total, not per CPT) is
# logged.
expect buf_tiny_one 0 "" "" -- $u set tiny_buffers 1
expect routing_show_one 0 @route/routing_tiny.yaml "" -- $u routing show
check buf_tiny_one_log \
	'tiny_router_buffers=1 less than recommended minimum 512$' "$TMP/r.log"
expect routing_bad 255 "" @route/routing_bad.err -- $u set routing 2
# set routing 0: "enable: 2" (stopping) for 110 s to 330 s; the pools
# keep their buffers until then; starting again is refused meanwhile.
expect routing_off 0 "" "" -- $u set routing 0
expect routing_show_off 0 "*" "" -- $u routing show
check routing_off_enable '^    - enable: 2$'
check routing_off_log 'Message forwarding will stop in 50s to 150s$' \
	"$TMP/r.log"
expect routing_on_stopping 240 "" @route/routing_busy.err -- \
	$u set routing 1
# buffers still count while stopping: large grows to 1024 per CPT
expect buf_stopping 0 "" "" -- $u set large_buffers 2048
expect buf_stopping_show 0 "*" "" -- $u routing show
check buf_stopping_large '^    large: 2048$'
# 10 lnet unconfigure ends routing and frees the pools; until lnet
# configure the routing commands fail as LNet's ioctls do (-100), and
# afterwards there are no pools: nothing to show.
expect unconfigure 0 "" "" -- $u lnet unconfigure
expect down_routing_show 156 "" @route/down_routing_show.err -- \
	$u routing show
expect down_routing_on 156 "" @route/down_routing_on.err -- \
	$u set routing 1
expect down_routing_off 156 "" @route/down_routing_off.err -- \
	$u set routing 0
expect down_buf 156 "" @route/down_buf.err -- $u set tiny_buffers 100
expect configure 0 "" "" -- $u lnet configure
expect routing_after_configure 0 "" "" -- $u routing show
# 11 the totals set before (module parameters to LNet) size the new
# pools: each CPT gets max(total / CPTs, 1) and buffers: sums them.
expect routing_on_again_after 0 "" "" -- $u set routing 1
expect routing_show_sized 0 @route/routing_sized.yaml "" -- \
	$u routing show

finish
