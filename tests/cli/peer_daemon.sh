#!/usr/bin/env bash
# ulnetctl peer add / del / set / list / show against a live ulnetd
# (reference/lnetctl.md §4.3, §7): every option with its short letter or
# an abbreviation, NID range lists, the errors (D1/D2 YAML, stdout
# texts, exit codes), the quirks (--force locks on add, --lock_prim
# forces on del, unknown options print the help and exit 0), the peer
# state bits and the NI order of peer show. NIDs: 127.1.2.0/24 and
# 127.1.3.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon p 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.2.1@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.3.1@tcp1
        tunables:
          peer_credits: 16
          peer_buffer_credits: 32' --cpts 2

# --- empty table, help ------------------------------------------------
# 1 peer list with no peer prints nothing (not lnetctl's emitter error).
expect list_empty 0 "" "" -- $u peer list
expect show_empty 0 "" "" -- $u peer show
expect add_no_option 234 @peer/add_help.txt "" -- $u peer add
expect add_help 1 @peer/add_help.txt "" -- $u peer add -h
# every option that add, del and set accept is in their help (§1.3)
for o in prim_nid nid non_mr lock_prim force; do
	check "add_help_$o" "^	--$o: "
done
expect del_help 1 "*" "" -- $u peer del --help
for o in prim_nid nid force lock_prim; do
	check "del_help_$o" "^	--$o: "
done
expect set_help 1 "*" "" -- $u peer set -h
for o in nid all health state conns-per-peer lnd-timeout net; do
	check "set_help_$o" "^	--$o: "
done
# peer del with no option is its help and 234, as peer add.
expect del_no_option 234 @peer/del_help.txt "" -- $u peer del

# --- peer add ---------------------------------------------------------
# 2 NI order: primary's net first, primary first in it, the others in
# insertion order; a repeated primary is ignored.
expect add_ranges 0 "" "" -- $u peer add --prim_nid 127.1.2.10@tcp \
	--nid '127.1.3.[10-11]@tcp1,127.1.2.[12-13]@tcp,127.1.2.10@tcp'
# 3 the same primary again: no-op, then --nid appends (short options).
expect add_again 0 "" "" -- $u peer add -k 127.1.2.10@tcp -n 127.1.2.11@tcp
expect show_order 0 @peer/show_order.yaml "" -- \
	$u peer show --nid 127.1.3.11@tcp1
# 3a router credits come from the net's peer_buffer_credits, else its
# peer credits (routing.md §7.3): 32 on tcp1, 8 on tcp.
expect show_rtr_credits 0 @peer/show_rtr_credits.yaml "" -- \
	$u peer show --nid 127.1.3.11@tcp1 -v 1
# 4 --lock_prim (abbreviated) sets bits 0, 3 and 20: 1048585.
expect add_lock 0 "" "" -- $u peer add --prim 127.1.2.20@tcp --lock
expect show_v3_locked 0 @peer/show_v3_locked.yaml "" -- \
	$u peer show --nid 127.1.2.20@tcp -v 3
# 5 --force on add locks too (lnetctl's quirk).
expect add_force 0 "" "" -- $u peer add --prim_nid 127.1.2.21@tcp -f
expect show_v3_force 0 "*" "" -- $u peer show --nid 127.1.2.21@tcp -v 3
check show_v3_force_state '^      peer state: 1048585$'
# 6 a configured MR peer: bits 0 and 3.
expect show_v3_plain 0 "*" "" -- $u peer show --nid 127.1.2.10@tcp --verbose 3
check show_v3_plain_state '^      peer state: 9$'
# 7 -v3 (attached) is level 1 as in lnetctl: no peer state.
expect show_v3_attached 0 "*" "" -- $u peer show --nid 127.1.2.10@tcp -v3
if grep -q 'peer state' "$TMP/out"; then
	echo "FAIL show_v3_attached: peer state shown at level 1"
	failed=$((failed + 1))
fi
# 8 --non_mr is honoured (lnetctl's netlink path ignores it: documented).
expect add_non_mr 0 "" "" -- $u peer add --prim_nid 127.1.2.30@tcp --non_mr
expect show_non_mr 0 "*" "" -- $u peer show --nid 127.1.2.30@tcp -v 3
check show_non_mr_mr '^      Multi-Rail: false$'
check show_non_mr_state '^      peer state: 8$'
expect add_mr_mismatch 234 "" @peer/add_mismatch.err -- \
	$u peer add --prim_nid 127.1.2.30@tcp
# 8a a non-MR peer has one NID per net: LNet's -ENOTUNIQ, and the new
# peer goes again; NIDs on other nets are fine.
expect add_non_mr_same_net 234 "" @peer/add_non_mr_same_net.err -- \
	$u peer add --prim_nid 127.1.2.31@tcp --non_mr --nid 127.1.2.32@tcp
expect add_non_mr_same_net_gone 234 "" @peer/show_40_gone.err -- \
	$u peer show --nid 127.1.2.31@tcp
expect add_non_mr_other_net 0 "" "" -- $u peer add \
	--prim_nid 127.1.2.31@tcp --non_mr --nid 127.1.3.31@tcp1
expect del_non_mr_other_net 0 "" "" -- $u peer del --prim_nid 127.1.2.31@tcp
# 9 primary is another peer's secondary NID.
expect add_prim_taken 234 "" @peer/add_prim_taken.err -- \
	$u peer add --prim_nid 127.1.2.12@tcp
# 10 unparsable primary (host names are not resolved for --prim_nid).
expect add_bad_prim 234 "" @peer/add_bad_prim.err -- \
	$u peer add --prim_nid 1@tcp
expect add_prim_hostname 234 "" @peer/add_bad_prim.err -- \
	$u peer add --prim_nid localhost@tcp
# 11 a secondary NID of another peer: nothing of the new peer stays.
expect add_nid_taken 234 "" @peer/add_nid_taken.err -- \
	$u peer add --prim_nid 127.1.2.40@tcp --nid 127.1.2.41@tcp,127.1.2.13@tcp
expect add_nid_taken_gone 234 "" @peer/show_40_gone.err -- \
	$u peer show --nid 127.1.2.40@tcp
# 12 NID range errors (lnetctl.md §4.3), numbered.
n=0
while IFS='|' read -r list rc err; do
	n=$((n + 1))
	expect "add_range_$n" "$rc" "can't parse nidrange: \"$list\"" \
		"@peer/$err" -- $u peer add --prim_nid 127.1.2.42@tcp --nid "$list"
done <<'EOF'
127.1.2.[5-3]@tcp|234|range_order.err
127.1.2.*@tcp|234|range_asterisk.err
<?>|234|range_any.err
127.1.2.5|234|range_no_at.err
127.1.2.[5-6@tcp|234|range_bracket.err
127.1.2.[1-200]@tcp|234|range_too_many.err
127.1.2.[a-f]@tcp|234|range_char.err
127.1.2.43@tcp,foo|234|range_invalid.err
1@tcp|234|range_invalid.err
1.2.3@tcp|234|range_invalid.err
010.1.1.1@tcp|234|range_invalid.err
0x0a000001@tcp|234|range_invalid.err
1@o2ib|234|range_invalid.err
1.2@o2ib|234|range_invalid.err
1@gip|234|range_invalid.err
127.1.2.43@tcp,1@tcp,localhost@tcp|234|range_invalid.err
localhost@gni|234|range_invalid.err
127.1.2.43@tcp,localhost@tcp,|234|range_invalid.err
EOF
expect add_range_none_added 234 "" @peer/show_42_gone.err -- \
	$u peer show --nid 127.1.2.42@tcp
# 13 exactly 128 NIDs are accepted.
expect add_128 0 "" "" -- $u peer add --prim_nid 127.1.2.100@tcp \
	--nid '127.1.2.[101-228]@tcp'
expect del_128 0 "" "" -- $u peer del --prim_nid 127.1.2.100@tcp
# 14 host names in --nid are resolved (IPv4) when they start with a
# letter, on IP nets: localhost on o2ib, and on tcp, where a name may
# give the loopback address that a number may not.
expect add_hostname 0 "" "" -- $u peer add --prim_nid 127.1.2.50@tcp \
	--nid 'localhost@o2ib,127.1.2.[51-52]@tcp,localhost@tcp'
expect show_hostname 0 @peer/show_hostname.yaml "" -- \
	$u peer show --nid 127.1.2.50@tcp
expect del_hostname 0 "" "" -- $u peer del --prim_nid 127.1.2.50@tcp \
	--nid 'localhost@tcp,127.1.2.[51-52]@tcp'
expect add_hostname_loopback_number 234 \
	"can't parse nidrange: \"127.0.0.1@tcp\"" @peer/range_invalid.err -- \
	$u peer add --prim_nid 127.1.2.50@tcp --nid 127.0.0.1@tcp
# 14a without --prim_nid the list is not looked at: LNet's -42; with
# one, the list is expanded before the primary is parsed (§7.1).
expect add_no_prim 234 "" @peer/add_no_prim.err -- $u peer add --nid foo
expect add_bad_prim_bad_list 234 "can't parse nidrange: \"foo\"" \
	@peer/range_no_at.err -- $u peer add --prim_nid foobar --nid foo
# 15 unknown option: help, exit 0, nothing added. getopt's own message
# comes only when the option is the verb's single argument: lnetctl's
# check_cmd() leaves diagnostics off otherwise (§1.2).
expect add_unknown 0 @peer/add_help.txt "" -- \
	$u peer add --prim_nid 127.1.2.51@tcp --bogus
expect add_unknown_none 234 "" @peer/show_51_gone.err -- \
	$u peer show --nid 127.1.2.51@tcp
expect add_unknown_sole 0 @peer/add_help.txt \
	"add: unrecognized option '--bogus'" -- $u peer add --bogus
expect show_unknown 0 @peer/show_help.txt "" -- \
	$u peer show --nid 127.1.2.10@tcp --bogus
expect show_unknown_sole 0 @peer/show_help.txt \
	"show: unrecognized option '--bogus'" -- $u peer show --bogus
# -h among other options: lnetctl's show takes it and has no case for
# it, so nothing is shown and the status is 0.
expect show_h_among 0 "" "" -- $u peer show --nid 127.1.2.10@tcp -h
# script mode: each verb sets the diagnostics for itself, whatever the
# line before left (net show with three words turns them off).
expect_stdin script_diagnostics 0 "*" "show: unrecognized option '--bogus'" \
	"net show --net tcp --bogus
peer show --bogus
peer show --nid 127.1.2.10@tcp --bogus
" -- $u
# 16 peers are listed by the CPT of their primary NID (LNet's peer
# tables), creation order within one: with 2 CPTs 127.1.2.21@tcp (byte
# sum 153) is on CPT 1, after the others (CPT 0).
expect list 0 @peer/list.yaml "" -- $u peer list
expect show_order 0 "*" "" -- $u peer show
if [ "$(sed -n 's/^-     primary nid: //p' "$TMP/out" | tr '\n' ' ')" = \
	"127.1.2.10@tcp 127.1.2.20@tcp 127.1.2.30@tcp 127.1.2.50@tcp 127.1.2.21@tcp " ]; then
	passed=$((passed + 1))
else
	echo "FAIL show_order: peers not in CPT order:"
	cat "$TMP/out"
	failed=$((failed + 1))
fi
expect list_abbrev 0 @peer/list.yaml "" -- $u peer list --ni

# --- peer set ---------------------------------------------------------
expect set_health_nid 0 "" "" -- $u peer set --nid 127.1.3.10@tcp1 --health 300
expect show_health 0 "*" "" -- $u peer show --nid 127.1.2.10@tcp -v 2
check show_health_300 '^                  health value: 300$'
expect set_health_all 0 "" "" -- $u peer set --all -t 700
expect show_health_all 0 "*" "" -- $u peer show -v 2
if grep 'health value:' "$TMP/out" | grep -qv ': 700$'; then
	echo "FAIL set_health_all: a health value is not 700"
	failed=$((failed + 1))
fi
# a negative health is not sent, so nothing changes (with --nid or
# --all); one above 1000 is stored as given (§7.5: not range-checked).
expect set_health_negative_all 0 "" "" -- $u peer set --all --health -5
expect set_health_negative_nid 0 "" "" -- \
	$u peer set --nid 127.1.3.10@tcp1 --health -2
expect show_health_negative 0 "*" "" -- $u peer show -v 2
if grep 'health value:' "$TMP/out" | grep -qv ': 700$'; then
	echo "FAIL set_health_negative: a health value changed"
	failed=$((failed + 1))
fi
expect set_health_over 0 "" "" -- \
	$u peer set --nid 127.1.3.10@tcp1 --health 2000
expect show_health_over 0 "*" "" -- $u peer show --nid 127.1.2.10@tcp -v 2
check show_health_over_2000 '^                  health value: 2000$'
expect set_health_neither 0 "" "" -- $u peer set --health 5
# --state and --health together: both apply (LNet reads the state,
# then the peer NI's health, from one request).
expect set_state 0 "" "" -- \
	$u peer set --nid 127.1.2.30@tcp --state 0x100009 --health 500
expect show_state 0 "*" "" -- $u peer show --nid 127.1.2.30@tcp -v 3
check show_state_value '^      peer state: 1048585$'
check show_state_mr '^      Multi-Rail: true$'
check show_state_health '^                  health value: 500$'
expect set_state_unknown 234 "" @peer/set_state_unknown.err -- \
	$u peer set --nid 127.1.2.99@tcp --state 1
expect set_state_unparsable 0 "" "" -- \
	$u peer set --nid 127.1.2.99@tcp --state 12x
expect set_bad_option 234 "" "set: unrecognized option '--bogus'
$(cat "$EXPECTED/peer/set_bad_option.err")" -- $u peer set --bogus
expect set_bad_option_quiet 234 "" @peer/set_bad_option.err -- \
	$u peer set --all --bogus
expect set_missing_arg 234 "" "set: option '--nid' requires an argument
$(cat "$EXPECTED/peer/set_bad_option.err")" -- $u peer set --nid
expect set_lnd_timeout 234 "" @peer/set_lnd_timeout.err -- \
	$u peer set --lnd-timeout 3
# --net and --lnd-timeout are checked as net set checks them (§6.4).
expect set_bad_net 234 "" @peer/set_bad_net.err -- \
	$u peer set --net foo --lnd-timeout 5
expect set_bad_lnd_timeout 234 "" @peer/set_bad_lnd_timeout.err -- \
	$u peer set --net tcp --lnd-timeout -1
expect set_net_ok 0 "" "" -- $u peer set --net tcp --lnd-timeout 5
# Cut at 127 characters as lnetctl's err_str[LNET_MAX_STR_LEN].
long=$(printf 'a%.0s' $(seq 300))
want="\"Invalid LND timeout value '-1$long', must be >= 0\""
expect set_timeout_long 234 "" "$(d2 net set -22 "${want:0:127}")" -- \
	$u peer set --net tcp --lnd-timeout "-1$long"
# A NID LNet cannot parse: its D1, then lnetctl's empty D2.
expect set_bad_nid 234 "" @peer/set_bad_nid.err -- \
	$u peer set --nid foo --health 5

# --- peer del ---------------------------------------------------------
# 16 some NIDs, a range.
expect del_nids 0 "" "" -- $u peer del --prim_nid 127.1.2.10@tcp \
	--nid '127.1.2.[11-12]@tcp,127.1.3.10@tcp1'
expect show_after_del 0 @peer/show_after_del.yaml "" -- \
	$u peer show --nid 127.1.2.10@tcp
expect del_nid_missing 234 "" @peer/del_nid_missing.err -- \
	$u peer del --prim_nid 127.1.2.10@tcp --nid 127.1.2.11@tcp
# a NID of another peer: LNet's -ECHILD
expect del_nid_foreign 234 "" @peer/del_nid_foreign.err -- \
	$u peer del --prim_nid 127.1.2.10@tcp --nid 127.1.2.30@tcp
expect del_not_primary 234 "" @peer/del_not_primary.err -- \
	$u peer del --prim_nid 127.1.2.13@tcp
expect del_unknown 234 "" @peer/del_unknown.err -- \
	$u peer del --prim_nid 127.1.2.99@tcp
expect del_no_prim 234 "" @peer/del_no_prim.err -- $u peer del --nid foo
expect del_non_mr 234 "" @peer/del_non_mr.err -- \
	$u peer del --prim_nid 127.1.2.10@tcp --non_mr
# 17 a list holding the primary deletes the whole peer.
expect del_with_primary 0 "" "" -- $u peer del --prim_nid 127.1.2.10@tcp \
	--nid 127.1.2.13@tcp,127.1.2.10@tcp
expect del_with_primary_gone 234 "" @peer/show_10_gone.err -- \
	$u peer show --nid 127.1.3.11@tcp1
# 18 a locked primary stays without --force; its other NIDs go.
expect add_lock_nids 0 "" "" -- $u peer add --prim_nid 127.1.2.20@tcp \
	--nid 127.1.2.22@tcp
expect del_locked 0 "" "" -- $u peer del --prim_nid 127.1.2.20@tcp
expect show_locked_kept 0 @peer/show_locked_kept.yaml "" -- \
	$u peer show --nid 127.1.2.20@tcp
expect del_locked_force 0 "" "" -- $u peer del --prim_nid 127.1.2.20@tcp --force
expect del_locked_gone 234 "" @peer/show_20_gone.err -- \
	$u peer show --nid 127.1.2.20@tcp
# 19 --lock_prim on del forces (lnetctl's quirk).
expect del_lock_prim 0 "" "" -- $u peer del --prim_nid 127.1.2.21@tcp -l
# 20 a primary NID (and show's and set's --nid) goes to LNet as typed,
# and LNet's kernel parser reads "<?>" as the ANY NID and takes
# 127.0.0.1, which a host name may resolve to (a --nid list is parsed
# by lnetctl, which refuses that address: add_hostname_loopback_number).
expect add_prim_any 234 "" "$(d1 add peer -22 'failed to add primary peer')" \
	-- $u peer add --prim_nid '<?>'
expect del_prim_any 0 "" "" -- $u peer del --prim_nid '<?>'
expect show_any 234 "" "$(d1 show peer -2 'cannot find peer')" -- \
	$u peer show --nid '<?>'
expect set_any 0 "" "" -- $u peer set --nid '<?>' --health 5
expect add_prim_loopback 0 "" "" -- $u peer add --prim_nid 127.0.0.1@tcp
expect show_loopback 0 "*" "" -- $u peer show -v 2 --nid 127.0.0.1@tcp
check show_loopback_prim '^-     primary nid: 127.0.0.1@tcp$'
expect set_loopback 0 "" "" -- $u peer set --nid 127.0.0.1@tcp --health 5
expect show_loopback_health 0 "*" "" -- \
	$u peer show -v 2 --nid 127.0.0.1@tcp
check show_loopback_health_5 '^                  health value: 5$'
expect del_loopback 0 "" "" -- $u peer del --prim_nid 127.0.0.1@tcp
expect del_loopback_gone 234 "" "$(d1 show peer -2 'cannot find peer')" \
	-- $u peer show --nid 127.0.0.1@tcp
expect del_unknown_option 0 @peer/del_help.txt "" -- \
	$u peer del --prim_nid 127.1.2.30@tcp -z
expect list_after 0 @peer/list_after.yaml "" -- $u peer list
expect show_after 0 @peer/show_after.yaml "" -- $u peer show

# --- net del takes peers and routes with it ---------------------------
# LNet's peer table cleanup (lnet_peer_tables_cleanup): every route of
# a gateway with a NI on the net goes; each peer NI on the net goes
# unless its peer has a NI on another local net (then it stays without
# credits, and a primary moves to that NI unless locked); a primary
# that goes takes its peer. NIDs: 127.1.4.0/24 (tcp3), 127.1.5.0/24
# (tcp4), 127.1.9.70@tcp9 (not local).
expect nd_net3 0 "" "" -- $u net add --nid 127.1.4.1@tcp3
expect nd_net4 0 "" "" -- $u net add --nid 127.1.5.1@tcp4
expect nd_peer_a 0 "" "" -- $u peer add --prim_nid 127.1.4.10@tcp3
expect nd_peer_b 0 "" "" -- $u peer add --prim_nid 127.1.4.50@tcp3 \
	--nid 127.1.5.50@tcp4
expect nd_peer_c 0 "" "" -- $u peer add --prim_nid 127.1.4.60@tcp3 \
	--nid 127.1.5.60@tcp4 --lock_prim
expect nd_peer_d 0 "" "" -- $u peer add --prim_nid 127.1.4.70@tcp3 \
	--nid 127.1.9.70@tcp9
expect nd_route_3 0 "" "" -- $u route add --net tcp9 --gateway 127.1.4.5@tcp3
expect nd_route_4 0 "" "" -- $u route add --net tcp8 --gateway 127.1.5.5@tcp4
expect nd_del_net 0 "" "" -- $u net del --net tcp3
expect nd_routes 0 @peer/net_del_routes.yaml "" -- $u route show
expect nd_list 0 @peer/net_del_list.yaml "" -- $u peer list
# b: whole, its primary now the tcp4 NI, the tcp3 NI first still and
# without credits (none off the local nets)
expect nd_show_b 0 @peer/net_del_b.yaml "" -- \
	$u peer show --nid 127.1.5.50@tcp4 -v 1
# c: locked, its primary stays
expect nd_show_c 0 "*" "" -- $u peer show --nid 127.1.5.60@tcp4
check nd_show_c_prim '^-     primary nid: 127.1.4.60@tcp3$'
# The last NI of tcp4 takes the net: b goes (no NI on a local net left),
# c loses its tcp4 NI and keeps its primary, the gateway and its route go.
expect nd_del_ni 0 "" "" -- $u net del --nid 127.1.5.1@tcp4
expect nd_routes_none 0 "" "" -- $u route show
expect nd_list_last 0 @peer/net_del_list_last.yaml "" -- $u peer list
expect nd_show_c_last 0 @peer/net_del_c_last.yaml "" -- \
	$u peer show --nid 127.1.4.60@tcp3
expect nd_del_c 0 "" "" -- $u peer del --prim_nid 127.1.4.60@tcp3 --force
expect nd_after 0 @peer/list_after.yaml "" -- $u peer list

finish
