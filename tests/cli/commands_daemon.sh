#!/usr/bin/env bash
# Every configuration command of ulnetctl against a live ulnetd, with
# lnetctl's outputs, error YAML and exit codes (reference/lnetctl.md
# §5-§14): net add/del/set, peer add/del/set/list, route add/del/show,
# routing show, set, global show, stats show/reset, udsp add/del/show,
# fault add/del/show/reset, debug recovery, cpt-of-nid, lnet
# configure/unconfigure. Good and bad input; every expected text is the
# one lnetctl prints for the same state (expected/cmd/*). Route
# gateways here do not exist: the router checker is off
# (alive_router_check_interval=0), so routes keep their first state.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon n 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.1.1@tcp' --cpts 2 --param alive_router_check_interval=0

# --- net -------------------------------------------------------------
expect net_add_nid 0 "" "" -- $u net add --nid 127.1.1.2@tcp --peer-credits 16
expect net_add_if_cpt 0 "" "" -- $u net add --nid 127.1.2.1@tcp1 --cpt '[1]' \
	--conns-per-peer 2 --tos 8
expect net_show_v1 0 @cmd/net_show_v1.yaml "" -- $u net show -v
expect net_add_exists 234 "" @cmd/net_add_exists.err -- \
	$u net add --nid 127.1.1.2@tcp
expect net_add_bad_cpt 234 "" @cmd/net_add_bad_cpt.err -- \
	$u net add --net tcp2 --if 'lo[7]'
expect net_add_lo 234 "" @cmd/net_add_lo.err -- $u net add --net lo --if lo
expect net_add_no_net 234 "missing mandatory parameters in NI config: 'network'" "" \
	-- $u net add --if lo
expect net_add_no_if 234 "creating a local NI needs at least one interface" "" \
	-- $u net add --net tcp3
expect net_add_net_and_nid 234 "--net is invalid with --nid option" "" \
	-- $u net add --net tcp --nid 127.1.1.3@tcp
expect net_add_cpp_range 255 "" @cmd/net_add_cpp.err -- \
	$u net add --net tcp3 --if lo --conns-per-peer 200
expect net_add_tos 234 "" @cmd/net_add_tos.err -- \
	$u net add --net tcp3 --if lo --tos 300
expect net_set_health 0 "" "" -- $u net set --nid 127.1.1.2@tcp --health 0
expect net_show_down 0 @cmd/net_show_down.yaml "" -- $u net show --net tcp
expect debug_recovery_local 0 @cmd/recovery_local.yaml "" -- \
	$u debug recovery --local
expect debug_recovery_none 234 "" "" -- $u debug recovery
expect net_set_up 0 "" "" -- $u net set --nid 127.1.1.2@tcp --health 1000
expect debug_recovery_empty 0 "" "" -- $u debug recovery --local
expect net_set_lnd_timeout_no_net 234 "" @cmd/lnd_timeout_no_net.err -- \
	$u net set --lnd-timeout 5
expect net_set_bad_option 234 "" @cmd/net_set_bad_opt.err -- \
	$u net set --bogus
expect net_del_nid 0 "" "" -- $u net del --nid 127.1.1.2@tcp
expect net_del_missing 234 "" @cmd/net_del_missing.err -- \
	$u net del --nid 127.1.1.2@tcp
expect net_del_net 0 "" "" -- $u net del --net tcp1
expect net_del_net_again 234 "" @cmd/net_del_net_again.err -- \
	$u net del --net tcp1
expect net_show_bad_net 234 "" @cmd/net_show_bad_net.err -- \
	$u net show --net tcp5
expect net_set_help_names_opt 1 "*" "" -- $u net set -h
grep -q -- '--lnd-timeout:' "$TMP/out" ||
	{ echo "FAIL: net set -h lacks --lnd-timeout:"; failed=$((failed + 1)); }

# A NI at health 0 gets a recovery ping to its own NID a second later, as
# in LNet, which makes peers of this node's NIDs (both ends of that ping).
# On a loaded machine more than a second may pass between the health 0
# and 1000 above: those peers go, so that the checks below see the same
# table either way.
for own in 127.1.1.2@tcp 127.1.1.1@tcp; do
	$u peer del --prim_nid $own >/dev/null 2>&1 || true
done

# --- peer ------------------------------------------------------------
expect peer_add 0 "" "" -- $u peer add --prim_nid 127.1.1.20@tcp \
	--nid '127.1.1.[20-22]@tcp'
expect peer_add_lock 0 "" "" -- $u peer add --prim 127.1.1.30@tcp --lock_prim
expect peer_show 0 @cmd/peer_show.yaml "" -- $u peer show
expect peer_show_v3_state 0 "*" "" -- $u peer show --nid 127.1.1.30@tcp -v 3
grep -q 'peer state: 1048585$' "$TMP/out" ||
	{ echo "FAIL: locked peer state is not 1048585"; cat "$TMP/out"; failed=$((failed + 1)); }
expect peer_list 0 @cmd/peer_list.yaml "" -- $u peer list
expect peer_add_bad_range 234 "can't parse nidrange: \"127.1.1.[2-1]@tcp\"" \
	@cmd/peer_bad_range.err -- $u peer add --prim_nid 127.1.1.40@tcp \
	--nid '127.1.1.[2-1]@tcp'
expect peer_add_too_many 234 "can't parse nidrange: \"127.1.[1-2].[1-100]@tcp\"" \
	@cmd/peer_too_many.err -- $u peer add --prim_nid 127.1.1.40@tcp \
	--nid '127.1.[1-2].[1-100]@tcp'
expect peer_add_exists_elsewhere 234 "" @cmd/peer_add_exists.err -- \
	$u peer add --prim_nid 127.1.1.21@tcp
expect peer_add_no_options 234 "*" "" -- $u peer add
expect peer_del_locked_keeps 0 "" "" -- $u peer del --prim_nid 127.1.1.30@tcp
expect peer_still_there 0 "*" "" -- $u peer show --nid 127.1.1.30@tcp
expect peer_del_force 0 "" "" -- $u peer del --prim_nid 127.1.1.30@tcp --force
expect peer_gone 234 "" @cmd/peer_gone.err -- $u peer show --nid 127.1.1.30@tcp
expect peer_del_nid 0 "" "" -- $u peer del --prim_nid 127.1.1.20@tcp \
	--nid 127.1.1.21@tcp
expect peer_del_unknown 234 "" @cmd/peer_del_unknown.err -- \
	$u peer del --prim_nid 127.1.1.99@tcp
expect peer_del_no_prim 234 "" @cmd/peer_del_no_prim.err -- \
	$u peer del --nid 127.1.1.20@tcp
expect peer_del_non_mr 234 "" @cmd/peer_del_non_mr.err -- \
	$u peer del --prim_nid 127.1.1.20@tcp --non_mr
expect peer_set_health 0 "" "" -- $u peer set --all --health 300
# never heard from: not on the peer recovery queue (health.md §5.2)
expect peer_recovery 0 "" "" -- $u debug recovery --peer

# --- route and routing -------------------------------------------------
expect route_add 0 "" "" -- $u route add --net tcp9 --gateway \
	'127.1.1.[5-6]@tcp' --hop 2 --prio 1
expect route_show 0 @cmd/route_show.yaml "" -- $u route show
expect route_show_v_filter 0 @cmd/route_show_v.yaml "" -- \
	$u route show --gateway 127.1.1.6@tcp -v
expect route_add_dup 234 "" @cmd/route_dup.err -- \
	$u route add --net tcp9 --gateway 127.1.1.5@tcp
expect route_add_unreachable 234 "" @cmd/route_unreach.err -- \
	$u route add --net tcp9 --gateway 10.1.1.1@tcp7
expect route_add_bad_hop 234 "" @cmd/route_hop.err -- \
	$u route add --net tcp9 --gateway 127.1.1.7@tcp --hop 300
expect route_add_missing 234 "missing mandatory parameters:'net , gateway'" "" \
	-- $u route add
expect route_unknown_option 0 "*" "*" -- $u route add --net tcp9 \
	--gateway 127.1.1.7@tcp --health_sensitivity 1
expect gateway_is_peer 0 "*" "" -- $u peer show --nid 127.1.1.5@tcp
expect route_del 0 "" "" -- $u route del --net tcp9 --gateway 127.1.1.5@tcp
expect route_del_again 234 "" @cmd/route_del.err -- \
	$u route del --net tcp9 --gateway 127.1.1.5@tcp
expect routing_show_never 0 "" "" -- $u routing show
expect set_routing 0 "" "" -- $u set routing 1
expect set_small 0 "" "" -- $u set small_buffers 8192
expect set_buffers_range 222 "" @cmd/buffers.err -- $u set large_buffers -5
expect routing_show 0 @cmd/routing_show.yaml "" -- $u routing show

# --- set, global, stats ------------------------------------------------
expect set_retry 0 "" "" -- $u set retry_count 3
expect set_unparsable 255 "" @cmd/set_parse.err -- $u set retry_count 3x
expect set_refused 195 "" @cmd/set_refused.err -- $u set health_sensitivity 2000
expect set_rt_range 234 "" @cmd/set_rt.err -- $u set response_tracking 4
expect set_missing_value 234 "*" "" -- $u set discovery
expect global_show 0 @cmd/global_show.yaml "" -- $u global show -v
expect stats_show 0 "*" "" -- $u stats show
grep -q '^    send_count: ' "$TMP/out" ||
	{ echo "FAIL: stats show"; failed=$((failed + 1)); }
expect stats_reset 0 "" "" -- $u stats reset

# --- udsp ------------------------------------------------------------
expect udsp_add 0 "" "" -- $u udsp add --src tcp --priority 1
expect udsp_add_idx 0 "" "" -- $u udsp add --dst '127.1.1.[20-29]@tcp' \
	--rte 127.1.1.6@tcp --idx 0
expect udsp_show 0 @cmd/udsp_show.yaml "" -- $u udsp show
expect udsp_show_idx 0 @cmd/udsp_show_idx.yaml "" -- $u udsp show --idx 1
expect udsp_dup 114 "" @cmd/udsp_dup.err -- $u udsp add --src tcp --priority 1
expect udsp_src_rte 234 "" @cmd/udsp_src_rte.err -- \
	$u udsp add --src tcp --rte tcp1
expect udsp_bad_prio 234 'Invalid priority "x"' "" -- \
	$u udsp add --src tcp --priority x
expect udsp_nothing 0 "*" "" -- $u udsp add
expect udsp_del_unknown 255 "" @cmd/udsp_del.err -- $u udsp del --idx 9
expect udsp_del_neither 234 "Must specify --idx or --all" "" -- $u udsp del
expect udsp_del_both 234 "Cannot combine --all with --idx" "" -- \
	$u udsp del --all --idx 0
expect udsp_del_all 0 "" "" -- $u udsp del --all
expect udsp_show_empty 0 "" "" -- $u udsp show

# --- fault -----------------------------------------------------------
expect fault_add 0 "" "" -- $u fault drop add -s '*@tcp' -d 127.1.1.20@tcp \
	-r 1 -m GET -p 4
expect fault_add_delay 0 "" "" -- $u fault delay add -s '*' -d '*' \
	--interval 5 -l 2
expect fault_show 0 @cmd/fault_show.yaml "" -- $u fault drop show
expect fault_show_delay 0 @cmd/fault_show_delay.yaml "" -- $u fault delay show
expect fault_bad_nid 234 "" "Invalid NID: x" -- $u fault drop add -s x -d y -r 1
expect fault_rate_and_interval 255 "" "*" -- \
	$u fault drop add -s '*' -d '*' -r 1 -i 2
expect fault_reset 0 "" "" -- $u fault drop reset
expect fault_del_all 0 "" "" -- $u fault drop del -a
expect fault_del_none 254 "failed to delete drop rule: No such file or directory" \
	"" -- $u fault drop del -a
expect fault_no_kind 255 "" "*" -- $u fault reset

# --- cpt-of-nid, lnet ----------------------------------------------------
expect cpt_of_nid 0 @cmd/cpt_of_nid.yaml "" -- $u cpt-of-nid 127.1.1.1@tcp \
	127.1.1.2@tcp 192.168.1.20@tcp
expect lnet_unconfigure 0 "" "" -- $u lnet unconfigure
expect down_net_show 234 "" @cmd/down_net_show.err -- $u net show
expect down_peer_add 234 "" @cmd/down_peer_add.err -- \
	$u peer add --prim_nid 127.1.1.50@tcp
# numa_range's ioctl needs LNet up: global show stops there.
expect down_global 156 "" \
	"$(d2 show global -100 '"cannot get numa_range: Network is down"')" \
	-- $u global show
expect lnet_configure 0 "" "" -- $u lnet configure
expect lo_only 0 @cmd/lo_only.yaml "" -- $u net show
expect lnet_configure_all 0 "" "" -- $u lnet unconfigure
expect lnet_configure_all2 0 "" "" -- $u lnet configure --all
expect config_back 0 @cmd/config_back.yaml "" -- $u net show
expect lnet_configure_twice 0 "" "" -- $u lnet configure
finish
