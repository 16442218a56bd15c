#!/usr/bin/env bash
# Who may use the control socket (ulnetd --ctl-group, proto.h
# "Transport"): by default the socket is mode 0600 and another user is
# refused with error YAML; with --ctl-group G it is mode 0660 with group
# G and a member of G (not the owner) is served. Bad groups, --cpts,
# --debug and --param values stop ulnetd with a message; --debug +net
# adds per-message lines; --param sets a module
# parameter (routing starts at once with both router waits at 0). The
# cross-user part needs root (setpriv to uid/gid 65534) and is skipped
# without it, with a line.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

check() { # name, command...
	local name=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		cat "$TMP/out"
		failed=$((failed + 1))
	fi
}

cli_daemon plain "" --cpts 1
check plain_mode_0600 test "$(stat -c %a "$TMP/plain.ctl")" = 600
cli_stop plain

gid=$(id -g)
cli_daemon grp "" --ctl-group "$gid"
check group_mode_0660 test "$(stat -c %a "$TMP/grp.ctl")" = 660
check group_owner test "$(stat -c %g "$TMP/grp.ctl")" = "$gid"
expect owner_still_served 0 "" "" -- "$ULNETCTL" --ctl "$TMP/grp.ctl" \
	peer show

expect bad_group 2 "" "ulnetd: --ctl-group 'no-such-group-x': no such group" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --ctl-group no-such-group-x
expect bad_cpts 2 "" "ulnetd: bad --cpts '0': 1 to 64" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --cpts 0
expect bad_param_name 2 "" \
	"ulnetd: --param 'retry_count': not a module parameter ulnet models (see --help)" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --param retry_count=1
# LNet's parameters are ints (param_set_int): beyond one is refused.
expect bad_param_value 2 "" \
	"ulnetd: --param router_ping_timeout: 2147483648 is out of range" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --param router_ping_timeout=2147483648
expect bad_param_low 2 "" \
	"ulnetd: --param lock_prim_nid: -2147483649 is out of range" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --param lock_prim_nid=-2147483649
expect bad_param_form 2 "" "ulnetd: bad --param 'lock_prim_nid': NAME=VALUE" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --param lock_prim_nid
expect bad_debug 2 "" \
	"ulnetd: bad --debug '+net,+nett': unknown mask 'nett' (net, neterror, console, warning, error, info, all)" \
	-- "$ULNETD" --ctl "$TMP/x.ctl" --debug +net,+nett
check no_socket_left test ! -e "$TMP/x.ctl"
# --debug +net adds one line per message to the default lines; without
# it a ping logs none.
net="net:
  - net type: tcp
    local NI(s):
      - nid: 127.0.9.1@tcp"
for d in dflt dbg; do
	if [ $d = dbg ]; then
		cli_daemon $d "$net" --debug +net
	else
		cli_daemon $d "$net"
	fi
	expect ${d}_ping 0 "*" "" -- "$ULNETCTL" --ctl "$TMP/$d.ctl" \
		ping 127.0.9.1@tcp
	cli_stop $d
done
check debug_net_logs_messages grep -q '^.*net: tx GET to 127.0.9.1@tcp' \
	"$TMP/dbg.log"
check debug_default_logs_info grep -q 'control socket ready' "$TMP/dbg.log"
check default_no_message_lines \
	bash -c "! grep -q 'net: tx ' '$TMP/dflt.log'"
# Module parameters: routing starts at once with both waits at 0.
cli_daemon fast "" --param alive_router_check_interval=0 \
	--param router_ping_timeout=0
expect fast_routing_on 0 "" "" -- "$ULNETCTL" --ctl "$TMP/fast.ctl" set routing 1
expect fast_routing_show 0 "*" "" -- "$ULNETCTL" --ctl "$TMP/fast.ctl" \
	routing show
cp "$TMP/out" "$TMP/routing"
check fast_routing_enabled grep -q '^    - enable: 1$' "$TMP/routing"
cli_stop fast
# Negative values are ints like any other: the wait is their sum, 0 here.
cli_daemon neg "" --param alive_router_check_interval=5 \
	--param router_ping_timeout=-5 --param lock_prim_nid=-3
expect neg_routing_on 0 "" "" -- "$ULNETCTL" --ctl "$TMP/neg.ctl" set routing 1
expect neg_routing_show 0 "*" "" -- "$ULNETCTL" --ctl "$TMP/neg.ctl" \
	routing show
cp "$TMP/out" "$TMP/routing"
check neg_routing_enabled grep -q '^    - enable: 1$' "$TMP/routing"
cli_stop neg
# --help's usage lines name every option.
"$ULNETD" --help >"$TMP/help" 2>&1
sed -n '/^usage:/,/^  --/p' "$TMP/help" | sed '$d' >"$TMP/usage"
for o in config ctl ctl-group foreground port accept src-port cpts param \
	help; do
	check "usage_$o" grep -q -- "\[--$o[] =]" "$TMP/usage"
	check "help_$o" grep -q -- "^  --$o" "$TMP/help"
done

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	getent group 65534 >/dev/null; then
	chmod 755 "$TMP"
	as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	cli_daemon mine ""
	expect other_user_refused 234 "" "*" -- \
		"${as_nobody[@]}" "$ULNETCTL" --ctl "$TMP/mine.ctl" peer show
	check refusal_says_why grep -q 'permission denied\|Permission denied' \
		"$TMP/err"
	cli_daemon shared "" --ctl-group 65534
	expect group_member_served 0 "" "" -- \
		"${as_nobody[@]}" "$ULNETCTL" --ctl "$TMP/shared.ctl" peer show
else
	echo "skipped the cross-user part: needs root, setpriv and group 65534"
fi
finish
