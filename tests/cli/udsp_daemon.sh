#!/usr/bin/env bash
# ulnetctl udsp add / del / show against a live ulnetd (reference/
# lnetctl.md §12, udsp.md §7): rules with src, dst, rte and priority,
# insertion at --idx (later rules shift), show and show --idx (engine C),
# the argument errors on stdout (234), the D2 errors of add (-22, 234),
# the positive-errno quirk of a refused add, del's errors (under "add",
# -1, 255), --idx -1 and --all, the unknown-option quirks, and a priority
# rule visible in net show -v 4; lnetctl's exact parse errors, a
# multi-range net number refused by LNet (22), a priority wrapping to
# u32, lists of single values shown with brackets, and show while LNet is
# down (-100, 156). NIDs: 127.1.4.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon u 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.4.1@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.4.11@tcp1' --cpts 2

expect show_none 0 "" "" -- $u udsp show

# --- add, insertion, show ----------------------------------------------------
expect add_src_prio 0 "" "" -- $u udsp add --src tcp --priority 1
expect add_dst_range 0 "" "" -- $u udsp add --dst '127.1.4.[20-29]@tcp'
expect add_dst_rte 0 "" "" -- $u udsp add -d 127.1.4.30@tcp -r 127.1.4.40@tcp1
expect add_pair 0 "" "" -- $u udsp add --src 127.1.4.11@tcp1 --dst tcp1
# inserted at 1: the rules from 1 on move down one
expect add_at_idx 0 "" "" -- $u udsp add --src tcp1 --prio 0x5 --idx 1
# an index past the end appends
expect add_idx_far 0 "" "" -- $u udsp add --dst tcp --pri 7 -i 99
expect show_all 0 @udsp/show_all.yaml "" -- $u udsp show
expect show_idx 0 @udsp/show_idx1.yaml "" -- $u udsp show --idx 1
expect show_idx_short 0 @udsp/show_idx1.yaml "" -- $u udsp show -i 1
expect show_idx_minus 0 @udsp/show_all.yaml "" -- $u udsp show --idx -1
expect show_idx_past 0 "" "" -- $u udsp show --idx 9
expect show_bad_idx 234 'Invalid index "x"' "" -- $u udsp show --idx x
expect show_idx_low 234 'Invalid index "-2"' "" -- $u udsp show --idx -2
# Quirk: an unknown option prints net show's help, exit 0
expect show_bad_opt 0 "*" "*" -- $u udsp show --bogus
check show_bad_opt '^net show: '
# The tcp1 priority rule reaches the tcp1 NI: net show -v 4.
expect net_show_udsp 0 "*" "" -- $u net show -v 4 --net tcp1
check net_show_udsp "^ +net priority: 5$"

# --- add errors ----------------------------------------------------------------
expect add_nothing 0 "*" "" -- $u udsp add
check add_nothing '^udsp add: '
expect add_prio_only 0 "*" "" -- $u udsp add --priority 3
check add_prio_only '^udsp add: '
expect add_bad_opt 0 "*" "*" -- $u udsp add --src tcp --bogus
check add_bad_opt '^udsp add: '
expect add_help 1 "*" "" -- $u udsp add -h
check add_help '^	--src: '
expect add_src_rte 234 "" \
	"$(d2 add udsp -22 '"src and rte cannot be combined"')" -- \
	$u udsp add --src tcp --rte 127.1.4.40@tcp1
expect add_all_three 234 "" \
	"$(d2 add udsp -22 '"The combination of src, dst and rte is not supported"')" \
	-- $u udsp add --src tcp --dst tcp1 --rte 127.1.4.40@tcp1
# lnetctl names the parameter and nothing more (§12.1)
expect add_bad_src 234 "" \
	"$(d2 add udsp -22 '"failed to parse src parameter"')" -- \
	$u udsp add --src 'bad[net'
expect add_bad_src_type 234 "" \
	"$(d2 add udsp -22 '"failed to parse src parameter"')" -- \
	$u udsp add --src foo
expect add_bad_dst 234 "" \
	"$(d2 add udsp -22 '"failed to parse dst parameter"')" -- \
	$u udsp add --dst '*@tcp'
expect add_bad_rte 234 "" \
	"$(d2 add udsp -22 '"failed to parse rte parameter"')" -- \
	$u udsp add --dst tcp --rte 1.2.3@tcp
# udsp.md §2.2, scenario 24: parsed here, refused by LNet (EINVAL), so
# the positive-errno quirk applies.
expect add_net_ranges 22 "" \
	"$(d2 add udsp 22 '"cannot add udsp: Invalid argument"')" -- \
	$u udsp add --src 'o2ib[0,1]' --priority 1
expect add_bad_prio 234 'Invalid priority "x"' "" -- \
	$u udsp add --src tcp --priority x
expect add_neg_prio 234 'Invalid priority "-1"' "" -- \
	$u udsp add --src tcp --priority -1
expect add_neg_idx 234 'Invalid index "-1"' "" -- \
	$u udsp add --src tcp --idx -1
# Quirk: a refused add exits with the positive errno.
expect add_dup 114 "" \
	"$(d2 add udsp 114 '"cannot add udsp: Operation already in progress"')" -- \
	$u udsp add --src tcp --priority 1
expect show_unchanged 0 @udsp/show_all.yaml "" -- $u udsp show
# udsp.md §1.2: the priority is a u32, 2^32 wraps to 0 (the NI's nid
# priority shows it).
expect add_prio_wrap 0 "" "" -- \
	$u udsp add --src 127.1.4.1@tcp --priority 4294967296
expect show_prio_wrap 0 "*" "" -- $u udsp show --idx 6
check show_prio_wrap '^          priority: 0$'
expect net_show_prio_wrap 0 "*" "" -- $u net show -v 4 --net tcp
check net_show_prio_wrap "^ +nid priority: 0$"
# A list of single values prints with its brackets (LNet prints
# 10.0.1.3.5@o2ib, a display defect: lnetctl-differences.md).
expect add_single_values 0 "" "" -- \
	$u udsp add --src '10.0.[1,3].5@o2ib' --priority 1
expect show_single_values 0 "*" "" -- $u udsp show --idx 7
check show_single_values '^      src: 10\.0\.\[1,3\]\.5@o2ib$'
expect del_single_values 0 "" "" -- $u udsp del --idx 7
expect del_prio_wrap 0 "" "" -- $u udsp del --idx 6
expect show_back 0 @udsp/show_all.yaml "" -- $u udsp show

# --- del -----------------------------------------------------------------------
expect del_neither 234 "Must specify --idx or --all" "" -- $u udsp del
expect del_both 234 "Cannot combine --all with --idx" "" -- \
	$u udsp del --all --idx 0
expect del_bad_idx 234 'Invalid index "1x"' "" -- $u udsp del --idx 1x
expect del_bad_opt 0 "*" "*" -- $u udsp del --bogus
check del_bad_opt '^udsp del: '
expect del_unknown 255 "" \
	"$(d2 add udsp -1 '"cannot del udsp: No such file or directory"')" -- \
	$u udsp del --idx 9
# deleting 1 moves the later rules up
expect del_idx1 0 "" "" -- $u udsp del --idx 1
expect show_after_del 0 @udsp/show_after_del.yaml "" -- $u udsp show
expect net_show_reverted 0 "*" "" -- $u net show -v 4 --net tcp1
check net_show_reverted "^ +net priority: -1$"
expect del_minus_one 0 "" "" -- $u udsp del --idx -1
expect show_empty 0 "" "" -- $u udsp show
expect add_again 0 "" "" -- $u udsp add -s tcp -p 2
expect del_all 0 "" "" -- $u udsp del -a
expect show_empty2 0 "" "" -- $u udsp show
expect del_empty 255 "" \
	"$(d2 add udsp -1 '"cannot del udsp: No such file or directory"')" -- \
	$u udsp del --idx 0

# --- a router rule: the peer NI's preferred gateways (udsp.md §6, scenario
# 18), under "udsp info" in peer show -v 4 only --------------------------------
expect rtr_route 0 "" "" -- $u route add --net tcp9 --gateway 127.1.4.50@tcp
expect rtr_peer 0 "" "" -- $u peer add --prim_nid 127.1.49.1@tcp9
expect rtr_rule 0 "" "" -- \
	$u udsp add --dst 127.1.49.1@tcp9 --rte 127.1.4.50@tcp
expect rtr_show 0 "*" "" -- $u peer show -v 4 --nid 127.1.49.1@tcp9
# the block from "udsp info:" up to the peer NI's next field
awk '/udsp info:/ { p = 1 } p && /^ +state:/ { exit } p' "$TMP/out" \
	>"$TMP/udsp_info"
if diff -u "$EXPECTED/udsp/pref_rtr_udsp_info.txt" "$TMP/udsp_info"; then
	passed=$((passed + 1))
else
	echo "FAIL rtr_show: udsp info differs"
	failed=$((failed + 1))
fi
expect rtr_show_v3 0 "*" "" -- $u peer show -v 3 --nid 127.1.49.1@tcp9
if grep -q 'Preferred gateway NIDs' "$TMP/out"; then
	echo "FAIL rtr_show_v3: gateways below -v 4"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
expect rtr_del 0 "" "" -- $u udsp del --all
expect rtr_show_none 0 "*" "" -- $u peer show -v 4 --nid 127.1.49.1@tcp9
if grep -q 'Preferred gateway NIDs' "$TMP/out"; then
	echo "FAIL rtr_show_none: the list outlived its rule"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

# --- LNet down: the size query fails (show -errno, 156) -----------------------
expect down 0 "" "" -- $u lnet unconfigure
expect show_down 156 "" \
	"$(d2 show udsp -100 '"cannot get udsp: Network is down"')" -- \
	$u udsp show
expect up 0 "" "" -- $u lnet configure

# --- no daemon -----------------------------------------------------------------
expect show_no_daemon 254 "" "*" -- $u --ctl "$TMP/none.ctl" udsp show
grep -q '^show:$' "$TMP/err" && grep -q '^    - udsp:$' "$TMP/err" ||
	{ echo "FAIL show_no_daemon: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
finish
