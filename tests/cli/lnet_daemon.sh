#!/usr/bin/env bash
# ulnetctl lnet configure / unconfigure, cpt-of-nid, debug recovery and
# debug peer against a live ulnetd (reference/lnetctl.md §5, §14): what
# unconfigure removes, the errors of the commands that need LNet while it
# is down, configure's idempotence, configure --all re-applying the
# daemon's --config file (and failing on a broken one with lnetctl's
# D1 text and 256+errno status), the CPT of NIDs, the recovery queues.
# NIDs: 127.1.1.0/24 and 127.1.6.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
conf='net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.1.1@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.6.1@tcp1'
cli_daemon l "$conf" --cpts 2

# --- cpt-of-nid (engine B) --------------------------------------------
# 1 the sum of the NID's 8 bytes mod 2 CPTs: tcp = 0x00020000,
# tcp1 = 0x00020001, lo = 0x00090000, gni = 0x000d0000.
expect cpt 0 @lnet/cpt_of_nid.yaml "" -- $u cpt-of-nid 127.1.1.1@tcp \
	127.1.1.2@tcp 127.1.6.7@tcp1 127.1.6.8@tcp1 0@lo 10@gni
# 1b LNet's lnet_nid_cpt_hash: kfi hashes its 64-bit NID with hash_long
# (4@kfi: 1, where the byte sum gives 0), an IPv6 NID its address words
# and net with hash_32 (2001:db8::2@tcp: 1; core unit test for the
# arithmetic).
expect cpt_hashed 0 "cpt-of-nid:
- nid: 4@kfi
  cpt: 1
- nid: 2001:db8::2@tcp
  cpt: 1" "" -- $u cpt-of-nid 4@kfi 2001:db8::2@tcp
# 2 no NID: the help and -EINVAL; -h: the help and 1; a bad NID: LNet's
# refusal of the whole request.
expect cpt_none 234 @lnet/cpt_help.txt "" -- $u cpt-of-nid
expect cpt_help 1 @lnet/cpt_help.txt "" -- $u cpt-of-nid -h
expect cpt_bad 234 "" "$(d1 show cpt-of-nid -22 'invalid NID')" -- \
	$u cpt-of-nid 127.1.1.1@tcp foo
# 2b the NIDs go to LNet's kernel as strings, which takes the loopback
# and link-local addresses lnetctl's own parser refuses.
expect cpt_kernel_nids 0 "*" "" -- $u cpt-of-nid 127.0.0.1@tcp ::1@tcp \
	fe80::1@tcp1
check cpt_kernel_nid_lo '^- nid: 127.0.0.1@tcp$'
check cpt_kernel_nid_v6 '^- nid: fe80::1@tcp1$'

# --- debug recovery / debug peer ----------------------------------------
# 3 empty queues print nothing; neither flag: 234, nothing printed; an
# unknown option does nothing.
expect rec_local_empty 0 "" "" -- $u debug recovery --local
expect rec_peer_empty 0 "" "" -- $u debug recovery -p
expect rec_none 234 "" "" -- $u debug recovery
expect rec_unknown 0 "" "*" -- $u debug recovery -x
# 4 a peer NI below full health joins the peer recovery queue only once
# it has been heard from (health.md §5.2): these never were, so the queue
# stays empty (sim/test_health_recovery covers a queued one); the last of
# -l / -p wins.
expect peer_add 0 "" "" -- $u peer add --prim_nid 127.1.1.50@tcp \
	--nid 127.1.1.51@tcp,127.1.6.52@tcp1
expect peer_health 0 "" "" -- $u peer set --nid 127.1.1.51@tcp --health 300
expect peer_health2 0 "" "" -- $u peer set --nid 127.1.6.52@tcp1 --health 0
expect rec_peer 0 "" "" -- $u debug recovery -l --peer
expect rec_local 0 "" "" -- $u debug recovery -p -l
# 5 debug peer: the peer's state goes to the daemon's log.
expect dbg_peer 0 "" "" -- $u debug peer --nid 127.1.1.51@tcp
check dbg_peer_log 'peer 127.1.1.50@tcp: ni 127.1.1.51@tcp health 300' \
	"$TMP/l.log"
expect dbg_peer_none 234 "" "$(d2 debug peer -22 '--nid must be specified')" \
	-- $u debug peer
expect dbg_peer_bad 234 "" \
	"$(d2 debug peer -22 '"badly formatted primary NID: foo"')" -- \
	$u debug peer --nid foo
# LNet's LND answers -ENOENT (no peer) or, off the local nets, -EINVAL.
expect dbg_peer_unknown 254 "" "$(d2 debug peer -2 Error)" -- \
	$u debug peer --nid 127.1.1.99@tcp
expect dbg_peer_remote_net 234 "" "$(d2 debug peer -22 Error)" -- \
	$u debug peer --nid 127.1.1.99@tcp9

# --- lnet unconfigure ---------------------------------------------------
# 6 with a net, a peer, a route and a UDSP rule configured.
expect net_add 0 "" "" -- $u net add --nid 127.1.1.2@tcp
expect route_add 0 "" "" -- $u route add --net tcp7 --gateway 127.1.1.60@tcp
expect udsp_add 0 "" "" -- $u udsp add --src tcp --priority 1
expect unconfigure 0 "" "" -- $u lnet unconfigure
# 7 the commands that need LNet now fail (lnetctl.md §5).
expect down_net_show 234 "" "$(d1 show net -100 'LNet stack down')" -- \
	$u net show
expect down_net_add 234 "" "$(d1 add net -108 'cannot add LNet NI')" -- \
	$u net add --nid 127.1.1.3@tcp
# LNet parses the request before it finds itself down: lo, the LND.
expect down_net_add_lo 234 "" "$(d1 add net -19 'setting @lo not allowed')" \
	-- $u net add --net lo --if eth0
expect down_net_add_o2ib 234 "" "$(d1 add net -22 'LND type not supported')" \
	-- $u net add --net o2ib --if eth0
expect down_net_del_o2ib 234 "" "$(d1 del net -22 'LND type not supported')" \
	-- $u net del --nid 1.2.3.4@o2ib
expect down_net_set_o2ib 234 "" "$(d1 set net -22 'LND type not supported')
$(d2 net set -22 '')" -- $u net set --nid 1.2.3.4@o2ib --health 5
# net del and net set answer as LNet does while down: a whole net or a
# NID is -ESHUTDOWN, an interface finds no net; setting walks no NI.
expect down_net_del 234 "" "$(d1 del net -108 'cannot del network')" -- \
	$u net del --net tcp
expect down_net_del_nid 234 "" "$(d1 del net -108 'cannot del LNet NI')" -- \
	$u net del --nid 127.1.1.2@tcp
expect down_net_del_if 234 "" "$(d1 del net -19 "LNet net doesn't exist")" \
	-- $u net del --net tcp --if eth0
expect down_net_del_lo 234 "" "$(d1 del net -19 'setting @lo not allowed')" \
	-- $u net del --net lo
expect down_net_set 0 "" "" -- $u net set --all --health 0
expect down_net_set_nid 0 "" "" -- $u net set --nid 127.1.1.2@tcp --health 0
expect down_net_set_lo 234 "" "$(d1 set net -19 'setting @lo not allowed')
$(d2 net set -22 '')" -- $u net set --nid 0@lo --health 0
expect down_net_set_cpp 0 "" "" -- $u net set --conns-per-peer 2
expect down_peer_show 234 "" "$(d1 show peer -100 'Network is down')" -- \
	$u peer show
expect down_cpt 234 "" "$(d1 show cpt-of-nid -100 'Network is down')" -- \
	$u cpt-of-nid 127.1.1.1@tcp
expect down_dbg_peer 156 "" "$(d2 debug peer -100 Error)" -- \
	$u debug peer --nid 127.1.1.50@tcp
# 8 unconfiguring again succeeds; an unknown option does nothing.
expect unconfigure_again 0 "" "" -- $u lnet unconfigure
expect configure_unknown 0 "" "configure: unrecognized option '--bogus'" -- \
	$u lnet configure --bogus
# getopt speaks only for a single argument, as lnetctl's check_cmd().
expect configure_x 0 "" "configure: invalid option -- 'x'" -- \
	$u lnet configure -x
expect configure_x_all 0 "" "" -- $u lnet configure -x --all
expect still_down 234 "" "$(d1 show net -100 'LNet stack down')" -- \
	$u net show

# --- lnet configure -----------------------------------------------------
# 9 plain configure: only 0@lo; nothing that was configured came back.
expect configure 0 "" "" -- $u lnet configure
expect lo_only 0 @lnet/show_lo.yaml "" -- $u net show
# the net set while down changed nothing: 0@lo is at full health.
expect lo_health 0 "*" "" -- $u net show -v 2
check lo_health_1000 '^                  health value: 1000$'
expect no_peers 0 "" "" -- $u peer show
expect no_routes 0 "" "" -- $u route show
expect no_udsp 0 "" "" -- $u udsp show
expect no_recovery 0 "" "" -- $u debug recovery --peer
# 10 configure again (even --all): already up, nothing changes.
expect configure_again 0 "" "" -- $u lnet configure
expect configure_all_up 0 "" "" -- $u lnet configure --all
expect lo_only_again 0 @lnet/show_lo.yaml "" -- $u net show
# 11 configure --all after unconfigure: the daemon's --config again.
expect unconfigure2 0 "" "" -- $u lnet unconfigure
expect configure_all 0 "" "" -- $u lnet configure -a --large
expect conf_nets 0 @lnet/show_conf.yaml "" -- $u net show
# 12 a --config file that no longer applies: D1 "configure: - lnet:",
# status 256+errno, and LNet stays down with nothing half applied.
printf '%s\n      - nid: 127.1.6.1@tcp1\n' "$conf" >"$TMP/l.yaml"
expect unconfigure3 0 "" "" -- $u lnet unconfigure
expect configure_dup 239 "" "$(d1 configure lnet -17 \
	'LNet configure error: line 5: cannot add LNet NI')" \
	-- $u lnet configure --all
expect dup_down 234 "" "$(d1 show net -100 'LNet stack down')" -- \
	$u net show
rm -f "$TMP/l.yaml"
expect configure_missing 254 "" "*" -- $u lnet configure --all
check configure_missing_err \
	'descr: ! "LNet configure error: cannot open .*l.yaml.: No such file' \
	"$TMP/err"
printf '%s\n' "$conf" >"$TMP/l.yaml"
expect configure_all_back 0 "" "" -- $u lnet configure --all
expect conf_nets_back 0 @lnet/show_conf.yaml "" -- $u net show
# 13 help.
expect configure_help 1 "*" "" -- $u lnet configure -h
check configure_help_all '^	--all: ' "$TMP/out"
check configure_help_large '^	--large: ' "$TMP/out"

finish
