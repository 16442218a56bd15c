#!/usr/bin/env bash
# ulnetctl net add / del / set against a live ulnetd (reference/lnetctl.md
# §6.1, §6.2, §6.4, §14.1): every option with its short letter or an
# abbreviation, the server's errors (D1) and lnetctl's own (D2, stdout
# texts), exit codes, the quirks (unknown option: help and exit 0; the
# net's tunables fixed by its first NI; net set --conns-per-peer only
# without --nid and with ToS 0), and net show -v 0/1/2 after each change.
# NIDs: 127.1.0.0/16, NIs without an interface (a loopback interface is
# never LNet's); the cases that need real interfaces are in
# net_netns.sh.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon n 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.1.1@tcp' --cpts 2

# --- help -----------------------------------------------------------
# 1 every option of net add / del / set is in its help, as "\t--opt: ".
expect add_help 1 "*" "" -- $u net add -h
for o in net if nid ip2net peer-timeout peer-credits peer-buffer-credits \
	credits cpt conns-per-peer tos skip-mr-route-setup auth-key \
	traffic-class; do
	check "add_help_$o" "^	--$o: "
done
expect del_help 1 "*" "" -- $u net del --help
for o in net if nid; do check "del_help_$o" "^	--$o: "; done
expect set_help 1 "*" "" -- $u net set -h
for o in nid all health conns-per-peer net lnd-timeout; do
	check "set_help_$o" "^	--$o: "
done

# 1b getopt's own diagnostics only for a verb's single argument, as
# lnetctl's check_cmd() leaves them (the help follows, exit 0).
expect add_h_quiet 0 "*" "" -- $u net add --net tcp -h
check add_h_quiet_help '^net add: '
expect add_sole_bogus 0 "*" "add: unrecognized option '--bogus'" -- \
	$u net add --bogus
expect add_ambiguous_quiet 0 "*" "" -- $u net add --pe 5 --net tcp4 \
	--nid 127.1.8.1@tcp4
expect del_sole_x 0 "*" "del: invalid option -- 'x'" -- $u net del -x
expect show_sole_bogus 0 "*" "show: unrecognized option '--bogus'" -- \
	$u net show --bogus
expect show_bogus_quiet 0 "*" "" -- $u net show --net tcp --bogus
check show_bogus_help '^net show: '
expect no_tcp4 234 "" "*" -- $u net show --net tcp4

# --- net add: good input --------------------------------------------
# 2 two NIs by NID on the configured net: the net keeps its tunables
# (the first NI's), whatever this request says.
expect add_nids 0 "" "" -- $u net add --nid 127.1.1.2@tcp,127.1.1.3@tcp \
	--peer-credits 4
# 3 a new net with every tunable (short letters), --cpt for the NIs
# without their own, the kfi-only options ignored, -k (which takes a
# value, as lnetctl's) accepted; peer_credits 300 is lowered to credits
# 200.
expect add_tunables 0 "" "" -- $u net add --nid 127.1.6.1@tcp1 -t 60 \
	-c 300 -b 4 -r 200 -m 3 --tos 5 -s '[1]' -k1 -a 7 -T tc1
# 4 a second NI on it (abbreviated options): the net's tunables stay;
# conns_per_peer, tos and CPT are the NI's own; an unparsable --cpt is
# ignored; a negative --conns-per-peer too.
expect add_second 0 "" "" -- $u net add --nid 127.1.6.2@tcp1 --peer-cr 2 \
	--cpt '[0' --conns -4
# 5 an NI by NID with a CPT list; an NI without an interface has one
# connection per peer (no link speed to derive more from).
expect add_cpt_nid 0 "" "" -- $u net add --nid 127.1.7.1@tcp5 --cpt '[0]'
expect show_v0 0 @net/show_v0.yaml "" -- $u net show
expect show_v1 0 @net/show_v1.yaml "" -- $u net show -v --net tcp1
expect show_v2 0 @net/show_v2.yaml "" -- $u net show --net tcp5 -v 2

# --- net add: server errors (D1 add/net, exit 234) ---------------------
# 6 the errors table of lnetctl.md §6.1.
expect add_exists 234 "" "$(d1 add net -17 'cannot add LNet NI')" -- \
	$u net add --nid 127.1.1.2@tcp
# a loopback interface is never LNet's (it does not enumerate it).
expect add_if_lo 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --net tcp5 --if lo
expect add_if_lo_cpt 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --net tcp5 --if 'lo[1]'
expect add_bad_net 234 "" "$(d1 add net -2 'cannot parse net')" -- \
	$u net add --net foo --if lo
expect add_lo 234 "" "$(d1 add net -19 'setting @lo not allowed')" -- \
	$u net add --net lo --if lo
expect add_lo_nid 234 "" "$(d1 add net -19 'setting @lo not allowed')" -- \
	$u net add --nid 0@lo
expect add_no_if 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --net tcp6 --if nosuch0
expect add_cpt 234 "" "$(d1 add net -34 'invalid CPT value')" -- \
	$u net add --net tcp6 --if lo --cpt '[0,2]'
expect add_if_cpt 234 "" "$(d1 add net -34 'invalid CPT value')" -- \
	$u net add --net tcp6 --if 'lo[3]'
# 6b a known LND ulnet does not have: LNet cannot load its module
# (lnet_load_lnd: -EINVAL), for net add, del and set alike, before it
# looks at the interface or the NID (lnet_genl_parse_local_ni).
lnd_err=$(d1 add net -22 'LND type not supported')
expect add_o2ib_if 234 "" "$lnd_err" -- $u net add --net o2ib --if nosuch0
expect add_o2ib_nid 234 "" "$lnd_err" -- $u net add --nid 1.2.3.4@o2ib
expect add_kfi 234 "" "$lnd_err" -- $u net add --nid 5@kfi
lnd_err=$(d1 del net -22 'LND type not supported')
expect del_o2ib_if 234 "" "$lnd_err" -- $u net del --net o2ib --if nosuch0
expect del_o2ib_nid 234 "" "$lnd_err" -- $u net del --nid 1.2.3.4@o2ib
# a net without NI entries is not parsed for its LND: no such net.
expect del_o2ib_net 234 "" "$(d1 del net -22 'cannot del network')" -- \
	$u net del --net o2ib
expect set_o2ib 234 "" "$(d1 set net -22 'LND type not supported')
$(d2 net set -22 '')" -- $u net set --nid 1.2.3.4@o2ib --health 5
expect set_o2ib_cpp 234 "" "$(d1 set net -22 'LND type not supported')
$(d2 net set -22 '')" -- $u net set --nid 10@gni --conns-per-peer 2
# 7 a net reached through a route cannot get a local NI.
expect route_add 0 "" "" -- $u route add --net tcp7 --gateway 127.1.1.60@tcp
expect add_routed 234 "" "$(d1 add net -87 'cannot add LNet NI')" -- \
	$u net add --nid 127.1.6.9@tcp7
expect route_del 0 "" "" -- $u route del --net tcp7 --gateway 127.1.1.60@tcp

# --- net add: lnetctl's own checks ------------------------------------
# 8 D2 "ni: - add:" and the stdout texts; nothing configured.
cpp_err=$(d2 ni add -1 'invalid conns-per-peer value (valid range 0-127)')
expect add_cpp_big 255 "" "$cpp_err" -- $u net add --nid 127.1.6.5@tcp1 -m 128
expect add_cpp_bad 255 "" "$cpp_err" -- $u net add --nid 127.1.6.5@tcp1 -m x
expect add_tos_big 234 "" "$(d2 ni add -1 'Invalid ToS argument')" -- \
	$u net add --nid 127.1.6.5@tcp1 --tos 256
expect add_tos_low 234 "" "$(d2 ni add -1 'Invalid ToS argument')" -- \
	$u net add --nid 127.1.6.5@tcp1 --tos -2
expect add_tclass 234 "" "$(d2 ni add -1 'Invalid traffic-class argument')" \
	-- $u net add --nid 127.1.6.5@tcp1 --traffic-class ''
expect add_no_net 234 "missing mandatory parameters in NI config: 'network'" \
	"" -- $u net add --if lo
expect add_no_if_opt 234 "creating a local NI needs at least one interface" \
	"" -- $u net add --net tcp6
expect add_net_nid 234 "--net is invalid with --nid option" "" -- \
	$u net add --nid 127.1.6.5@tcp1 --net tcp1
expect add_bad_nids 234 "" "$(d2 ni add -1 'bad NID list')" -- \
	$u net add --nid 127.1.6.5@tcp1,foo@tcp1
expect add_bad_ifs 234 "" "$(d2 ni add -1 'bad interface list')" -- \
	$u net add --net tcp6 --if 'lo[0'
# a bad CPT expression after an interface: lnetctl's own refusal.
bad_ifs=$(d2 ni add -1 'bad interface list')
expect add_bad_cpt_x 234 "" "$bad_ifs" -- $u net add --net tcp2 --if 'eth2[x]'
expect add_bad_cpt_empty 234 "" "$bad_ifs" -- \
	$u net add --net tcp2 --if 'eth0,eth1[]'
expect add_bad_cpt_open 234 "" "$bad_ifs" -- \
	$u net add --net tcp2 --if 'eth1[0-]'
# lists are checked as getopt reads them, before the missing net.
expect add_bad_ifs_first 234 "" "$bad_ifs" -- $u net add --if 'eth2['
expect add_bad_ifs_second 234 "" "$bad_ifs" -- \
	$u net add --net tcp2 --if eth0 --if 'eth1[0-]'
# -k takes a value as in lnetctl: here it swallows --if.
expect add_k_value 234 "creating a local NI needs at least one interface" \
	"" -- $u net add --net tcp4 -k --if eth2
# a --nid without '@' names no net (lnetctl takes the net from the '@').
expect add_nid_no_at 234 \
	"missing mandatory parameters in NI config: 'network'" "" -- \
	$u net add --nid 127.1.8.9
expect add_nid_no_at_if 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --nid 127.1.8.9@tcp8,127.1.8.10
# --ip2net with a net of the request's own: the rule is not sent; with
# no NI that is nothing to do.
expect add_ip2net_net 0 "" "" -- $u net add --ip2net 'tcp6 127.*.*.*' \
	--net tcp6
expect no_tcp6 234 "" "*" -- $u net show --net tcp6
# 9 an unknown option: the help, exit 0, nothing added.
expect add_unknown 0 "*" "*" -- $u net add --nid 127.1.6.5@tcp1 --bogus
check add_unknown_help '^net add: '
# 10 --ip2net: a rule no local address matches; loopback addresses are
# never matched (LNet does not enumerate loopback interfaces); a rule
# without an address pattern matches nothing; a bad pattern is -EINVAL.
expect add_ip2net_none 234 "" "$(d1 add net -2 'cannot setup ip2nets')" -- \
	$u net add --ip2net 'tcp6 10.255.255.254'
expect add_ip2net_lo 234 "" "$(d1 add net -2 'cannot setup ip2nets')" -- \
	$u net add --ip2net 'tcp6(lo) 127.0.0.1'
expect add_ip2net_bare 234 "" "$(d1 add net -2 'cannot setup ip2nets')" -- \
	$u net add --ip2net 'tcp6; tcp7()'
expect add_ip2net_bad 234 "" "$(d1 add net -22 'cannot setup ip2nets')" -- \
	$u net add --ip2net 'tcp6 10.0.0.300'
expect show_unchanged 0 @net/show_v0.yaml "" -- $u net show
# 10b several NIs: added one at a time; the ones before a failure stay.
expect add_partial 234 "" "$(d1 add net -17 'cannot add LNet NI')" -- \
	$u net add --nid 127.1.9.1@tcp9,127.1.9.1@tcp9
expect show_partial 0 "*" "" -- $u net show --net tcp9
check show_partial_nid 'nid: 127.1.9.1@tcp9$'
# a repeated --nid adds to the list, as a repeated --if does.
expect add_repeat 0 "" "" -- $u net add --nid 127.1.9.2@tcp9 \
	--nid 127.1.9.3@tcp9
expect show_repeat 0 "*" "" -- $u net show --net tcp9
check show_repeat_2 'nid: 127.1.9.2@tcp9$'
check show_repeat_3 'nid: 127.1.9.3@tcp9$'
expect del_repeat 0 "" "" -- $u net del --nid 127.1.9.1@tcp9 \
	--nid 127.1.9.2@tcp9,127.1.9.3@tcp9
expect no_tcp9 234 "" "*" -- $u net show --net tcp9

# --- net del ----------------------------------------------------------
# 11 the errors table of lnetctl.md §6.2.
expect del_no_net 234 "" "$(d1 del net -22 'cannot del network')" -- \
	$u net del --net tcp9
expect del_lo 234 "" "$(d1 del net -19 'setting @lo not allowed')" -- \
	$u net del --net lo
expect del_if_no_net 234 "" "$(d1 del net -19 "LNet net doesn't exist")" -- \
	$u net del --net tcp9 --if lo
expect del_if_missing 234 "" "$(d1 del net -19 'cannot del LNet NI')" -- \
	$u net del --net tcp --if lo
expect del_nid_missing 234 "" "$(d1 del net -2 'cannot del LNet NI')" -- \
	$u net del --nid 127.1.1.9@tcp
expect del_bad_nids 234 "" "$(d2 ni del -1 'bad NID list')" -- \
	$u net del --nid foo@tcp
expect del_nid_no_at 234 \
	"missing mandatory parameters in NI config: 'network'" "" -- \
	$u net del --nid 127.1.1.3
expect del_unknown_net 234 "" "$(d1 del net -22 'cannot del network')" -- \
	$u net del --net foo
expect del_unknown_net_if 234 "" "$(d1 del net -19 "LNet net doesn't exist")" \
	-- $u net del --net foo --if eth0
expect del_nid_lo 234 "" "$(d1 del net -19 'setting @lo not allowed')" -- \
	$u net del --nid 0@lo
expect del_no_opt 234 "missing mandatory parameters in NI config: 'network'" \
	"" -- $u net del
expect del_net_nid 234 "--net is invalid with --nid option" "" -- \
	$u net del --nid 127.1.1.3@tcp --net tcp
expect del_unknown 0 "*" "*" -- $u net del --net tcp --bogus
check del_unknown_help '^net del: '
# 12 by NID, by NID again (the net's last NI: the net goes), a whole net.
expect del_nid 0 "" "" -- $u net del --nid 127.1.1.3@tcp
expect del_nid_last 0 "" "" -- $u net del --nid 127.1.7.1@tcp5
expect del_net 0 "" "" -- $u net del --net tcp1
expect show_after_del 0 @net/show_after_del.yaml "" -- $u net show
# 13 net show -v N: the level is the netlink header's 8-bit version.
same_out() { # name file: the last stdout is the file's text
	if cmp -s "$2" "$TMP/out"; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: stdout differs:"
		diff -u "$2" "$TMP/out"
		failed=$((failed + 1))
	fi
}
expect show_v0_ref 0 "*" "" -- $u net show --net tcp -v 0
cp "$TMP/out" "$TMP/v0"
expect show_v1_ref 0 "*" "" -- $u net show --net tcp -v 1
cp "$TMP/out" "$TMP/v1"
expect show_v256 0 "*" "" -- $u net show --net tcp -v 256
same_out show_v256_level "$TMP/v0"
expect show_v257 0 "*" "" -- $u net show --net tcp -v 257
same_out show_v257_level "$TMP/v1"
expect show_v2_32 0 "*" "" -- $u net show --net tcp -v 4294967296
same_out show_v2_32_level "$TMP/v0"

# The recovery pings the health section (14) starts run on real time and
# count in the NIs' statistics, so a full `net show -v` compares with
# every statistics number masked: mask FILE prints it so.
mask() {
	sed -E 's/^( +[a-z_]+_(count|samples|nsec)): [0-9]+$/\1: N/' "$1"
}
same_masked() { # name expected-file
	if diff -u <(mask "$2") <(mask "$TMP/out") >"$TMP/diff"; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: stdout differs (statistics masked):"
		cat "$TMP/diff"
		failed=$((failed + 1))
	fi
}

# --- net set ----------------------------------------------------------
# 14 health: one NI; status down at 0, up again at 1000; the local
# recovery queue lists the NIs below 1000.
expect set_health 0 "" "" -- $u net set --nid 127.1.1.2@tcp --health 500
expect show_health 0 "*" "" -- $u net show -v 2
check show_health_500 '^                  health value: 500$'
expect recovery 0 @net/recovery_local.yaml "" -- $u debug recovery --local
expect set_health_0 0 "" "" -- $u net set -n 127.1.1.2@tcp -t 0
expect show_down 0 @net/show_down.yaml "" -- $u net show
expect set_health_all 0 "" "" -- $u net set --all --health 1000
expect show_up 0 @net/show_up.yaml "" -- $u net show
expect recovery_empty 0 "" "" -- $u debug recovery -l
# 14b only exactly 0 and exactly 1000 change the status; a negative value
# is not sent at all (a no-op); a value above 1000 is kept as given.
expect set_health_0b 0 "" "" -- $u net set -n 127.1.1.2@tcp -t 0
expect set_health_neg 0 "" "" -- $u net set --all --health -5
expect set_health_big 0 "" "" -- $u net set -n 127.1.1.2@tcp -t 2000
expect show_big 0 "*" "" -- $u net show -v 2 --net tcp
check show_big_2000 '^                  health value: 2000$'
check show_neg_1000 '^                  health value: 1000$'
expect show_big_down 0 "net:
-     net type: tcp
      local NI(s):
      -     nid: 127.1.1.1@tcp
            status: up
      -     nid: 127.1.1.2@tcp
            status: down" "" -- $u net show --net tcp
expect set_health_999 0 "" "" -- $u net set -n 127.1.1.2@tcp -t 999
expect show_999 0 "*" "" -- $u net show --net tcp
check show_999_down '^            status: down$'
expect set_health_up 0 "" "" -- $u net set -n 127.1.1.2@tcp -t 1000
expect show_up_again 0 @net/show_up.yaml "" -- $u net show
# 14c a NID on lo is refused before anything (D1, then the D2 entry);
# a NID without '@' is refused by lnetctl; one LNet cannot parse, by LNet.
set_d2=$(d2 net set -22 '')
expect set_nid_lo 234 "" "$(d1 set net -19 'setting @lo not allowed')
$set_d2" -- $u net set --nid 0@lo --health 0
expect set_nid_lo_neg 234 "" "$(d1 set net -19 'setting @lo not allowed')
$set_d2" -- $u net set --nid 0@lo --health -3
expect set_nid_no_at 234 "" "$set_d2" -- $u net set --nid 127.1.1.2 -t 5
expect set_nid_unparsable 234 "" "$(d1 set net -22 'unsupported NID')
$set_d2" -- $u net set --nid foo@tcp --health 5
expect show_still_up 0 @net/show_up.yaml "" -- $u net show
# 14d a net LNet cannot name (LNET_NET_ANY) selects every NI, 0@lo too,
# whose status stays up; lo joins the local recovery queue.
expect set_nid_any 0 "" "" -- $u net set --nid 127.1.1.2@foo --health 0
expect show_lo_0 0 "*" "" -- $u net show -v 2 --net lo
check show_lo_health '^                  health value: 0$'
check show_lo_up '^            status: up$'
expect recovery_lo 0 "*" "" -- $u debug recovery --local
check recovery_lo_nid '^      nid-0: 0@lo$'
expect set_health_all_back 0 "" "" -- $u net set --all --health 1000
expect show_up_back 0 @net/show_up.yaml "" -- $u net show
# 15 no --nid nor --all: every NI, 0@lo too; an unknown NID is silently
# accepted.
expect set_health_none 0 "" "" -- $u net set --health 700
expect recovery_both 0 @net/recovery_both.yaml "" -- $u debug recovery -l
expect set_health_unknown 0 "" "" -- $u net set --nid 127.1.1.99@tcp -t 1000
expect set_health_back 0 "" "" -- $u net set --health 1000
# 16 conns-per-peer: ignored with --nid; -1 is lnetctl's "not given";
# any other value below 1 sends only the LND tunables' ToS 0; with
# --all every NI takes a count, and its ToS becomes 0.
expect set_cpp_nid 0 "" "" -- $u net set --nid 127.1.1.2@tcp -m 6
expect set_cpp_unset 0 "" "" -- $u net set --all -m -1
expect show_cpp_unset 0 "*" "" -- $u net show -v --net tcp
check show_cpp_unset_tos '^                  tos: -1$'
check show_cpp_unset_cpp '^                  conns_per_peer: 1$'
expect set_cpp_neg 0 "" "" -- $u net set --all -m -3
expect show_cpp_neg 0 "*" "" -- $u net show -v --net tcp
check show_cpp_neg_tos '^                  tos: 0$'
check show_cpp_neg_cpp '^                  conns_per_peer: 1$'
expect set_cpp_0 0 "" "" -- $u net set -m 0
expect show_cpp_0 0 "*" "" -- $u net show -v --net tcp
check show_cpp_0_cpp '^                  conns_per_peer: 1$'
expect set_cpp_all 0 "" "" -- $u net set --all --conns-per-peer 4
# 17 the LND timeout of socklnd's nets.
expect set_timeout 0 "" "" -- $u net set --net tcp --lnd-timeout 7
expect show_set 0 "*" "" -- $u net show -v
same_masked show_set_yaml "$(dirname "$0")/expected/net/show_set.yaml"
# 0: socklnd follows LNet's lnd_timeout, (transaction_timeout - 1) /
# (retry_count + 1), also when those change later: (31 - 1) / 3 = 10.
expect set_timeout_0 0 "" "" -- $u net set --net tcp --lnd-timeout 0
expect set_tt 0 "" "" -- $u set transaction_timeout 31
expect show_follows 0 "*" "" -- $u net show -v
check timeout_follows '^                  timeout: 10$'
expect set_tt_back 0 "" "" -- $u set transaction_timeout 150
expect set_timeout_back 0 "" "" -- $u net set --net tcp --lnd-timeout 7
# 18 the errors of lnetctl.md §6.4.
expect set_cpp_big 255 "" \
	"$(d2 net set -1 'invalid conns-per-peer value (valid range 0-127)')" \
	-- $u net set --all -m 128
expect set_all_nid 234 "" "$(d2 net set -22 '')" -- \
	$u net set --all --nid 127.1.1.2@tcp --health 3
expect set_bad_nid 234 "" "$(d2 net set -22 '')" -- \
	$u net set --nid foo --health 3
expect set_state 0 "" "" -- $u net set --all --state 1
expect set_bad_net 234 "" "$(d2 net set -22 '"Invalid network type: foo"')" \
	-- $u net set --net foo -l 3
expect set_timeout_neg 234 "" \
	"$(d2 net set -22 "\"Invalid LND timeout value '-1', must be >= 0\"")" \
	-- $u net set --net tcp --lnd-timeout -1
# lnetctl builds these texts in err_str[LNET_MAX_STR_LEN]: cut at 127
# characters, the closing quote gone.
long=$(printf 'a%.0s' $(seq 300))
cut127() { printf '%s' "${1:0:127}"; }
expect set_timeout_long 234 "" "$(d2 net set -22 "$(cut127 \
	"\"Invalid LND timeout value '-1$long', must be >= 0\"")")" -- \
	$u net set --net tcp --lnd-timeout "-1$long"
expect set_net_long 234 "" "$(d2 net set -22 "$(cut127 \
	"\"Invalid network type: x$long\"")")" -- \
	$u net set --net "x$long" --lnd-timeout 1
expect set_timeout_no_net 234 "" \
	"$(d2 net set -22 '"Specified --lnd-timeout without --net option"')" \
	-- $u net set -l 3
lo_err="$(d2 set lnd_timeout -22 '"Failed to set LND timeout for net lo"')
$(d2 net set -22 '')"
expect set_timeout_lo 234 "" "$lo_err" -- $u net set -i lo -l 3
# getopt's diagnostic first when the option is the only argument.
set_opt_err=$(d2 net set -22 '"Invalid option or missing argument"')
expect set_unknown 234 "" "set: unrecognized option '--bogus'
$set_opt_err" -- $u net set --bogus
expect set_unknown_quiet 234 "" "$set_opt_err" -- $u net set --all --bogus
expect set_no_arg 234 "" "set: option '--health' requires an argument
$set_opt_err" -- $u net set --health
expect set_no_arg_quiet 234 "" "$set_opt_err" -- $u net set --all --health
expect show_set_again 0 "*" "" -- $u net show -v
same_masked show_set_again_yaml "$(dirname "$0")/expected/net/show_set.yaml"

# --- an NI that asks for other tunables than its net's ---------------------
# 18b LNet keeps the net's and logs "All tunables of NIs of a net should
# be the same" (lnet_startup_lndnet, sanity-lnet 170): it compares what
# the request asked for with what the net has, peer credits that the
# first NI lowered to its credits included.
warn='All tunables of NIs of a net should be the same'
nwarn() { grep -c "$warn" "$TMP/n.log" || true; }
w0=$(nwarn)
expect tun_first 0 "" "" -- $u net add --nid 127.1.9.1@tcp9 -c 300 -r 200
expect tun_same 0 "" "" -- $u net add --nid 127.1.9.2@tcp9 -c 200 -r 200
[ "$(nwarn)" = "$w0" ] && passed=$((passed + 1)) ||
	{ echo "FAIL tun_same_quiet: $(nwarn) warnings, not $w0"; failed=$((failed + 1)); }
expect tun_other 0 "" "" -- $u net add --nid 127.1.9.3@tcp9 -t 181
expect tun_unlowered 0 "" "" -- $u net add --nid 127.1.9.4@tcp9 -c 300 -r 200
[ "$(nwarn)" = "$((w0 + 2))" ] && passed=$((passed + 1)) ||
	{ echo "FAIL tun_warned: $(nwarn) warnings, not $((w0 + 2))"; failed=$((failed + 1)); }
expect tun_kept 0 "*" "" -- $u net show -v --net tcp9
check tun_kept_credits '^ +peer_credits: 200$'
check tun_kept_timeout '^ +peer_timeout: 180$'
expect tun_del 0 "" "" -- $u net del --net tcp9

# --- the NI limit ---------------------------------------------------------
# 19 past lnet_interfaces_max the request fails (its earlier NIs stay).
expect set_max 0 "" "" -- $u set max_interfaces 16
expect add_too_many 234 "" \
	"$(d1 add net -28 'too many NIs, check lnet_interfaces_max')" -- \
	$u net add --nid "$(seq -s, -f '127.1.6.%g@tcp2' 10 30)"

finish
