#!/usr/bin/env bash
# ulnetctl ping against two live ulnetd on loopback (lnetctl.md §4.3,
# §11.1): A (127.1.13.1, 127.1.23.1) pings B (127.1.13.2, 127.1.23.2).
#  - "primary nid" and "Multi-Rail" are A's peer record for the target
#    after the ping (lnet_ping_show_dump), not the reply's: a first ping
#    leaves a non-MR peer; after discover, B's second NID prints B's
#    primary and true; 0@lo and A's own NID print themselves and false.
#  - answers in argument order, then the failures under "manage:", 255;
#  - host names are resolved (localhost is 127.0.0.1, where nothing
#    listens), "1@tcp" is no host name;
#  - every target is parsed before anything is sent: a bad one is a D1
#    error (234) and nothing is pinged; more than 1024 NIDs are fine, the
#    2^20 safety cap is not;
#  - an unknown option prints only getopt's line; -h the usage (0);
#  - LNet down: one D1 "Network is down" (234); no daemon: D1, 234.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

conf() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - nid: 127.1.13.%s@tcp\n      - nid: 127.1.23.%s@tcp\n' \
		"$1" "$1"
}
cli_daemon b "$(conf 2)"
cli_daemon a "$(conf 1)"
export ULNET_CTL=$TMP/a.ctl
u=$ULNETCTL

# ping_out PRIMARY MR NID...: one answered target, as lnetctl prints it.
ping_out() {
	local primary=$1 mr=$2 nid
	shift 2
	printf -- '- primary nid: %s\n  Multi-Rail: %s\n  peer_ni:\n' \
		"$primary" "$mr"
	for nid; do printf '  - nid: %s\n' "$nid"; done
}
b_nis=(127.1.13.2@tcp 127.1.23.2@tcp)
a_nis=(127.1.13.1@tcp 127.1.23.1@tcp)

# --- primary nid and Multi-Rail from the peer record -----------------------
expect ping_first 0 \
	"$(printf 'ping:\n'; ping_out 127.1.13.2@tcp false "${b_nis[@]}")" "" \
	-- $u ping 127.1.13.2@tcp
expect peer_after_ping 0 "*" "" -- $u peer show --nid 127.1.13.2@tcp
check peer_after_ping '^      Multi-Rail: false$'
expect discover_b 0 "*" "" -- $u discover 127.1.13.2@tcp
expect ping_second_nid 0 \
	"$(printf 'ping:\n'; ping_out 127.1.13.2@tcp true "${b_nis[@]}")" "" \
	-- $u ping 127.1.23.2@tcp
expect ping_lo 0 "$(printf 'ping:\n'; ping_out 0@lo false "${a_nis[@]}")" \
	"" -- $u ping 0@lo
expect ping_self 0 \
	"$(printf 'ping:\n'; ping_out 127.1.13.1@tcp false "${a_nis[@]}")" "" \
	-- $u ping 127.1.13.1@tcp

# --- answers first, then the failures ---------------------------------------
expect ping_some_fail 255 \
	"$(printf 'ping:\n'
	   ping_out 127.1.13.2@tcp true "${b_nis[@]}"
	   ping_out 127.1.13.2@tcp true "${b_nis[@]}"
	   printf 'manage:\n- ping:\n  errno: -111\n'
	   printf "  descr: ! 'failed to ping 127.1.13.9@tcp: Connection refused'")" \
	"" -- $u ping 127.1.13.2@tcp,127.1.13.9@tcp 127.1.23.2@tcp

# --- host names --------------------------------------------------------------
expect ping_localhost 255 \
	"$(printf 'manage:\n- ping:\n  errno: -111\n'
	   printf "  descr: ! 'failed to ping 127.0.0.1@tcp: Connection refused'")" \
	"" -- $u ping localhost@tcp
expect ping_number_no_host 234 "" \
	"$(d1 manage ping -22 '\"Unable to parse nidlist: invalid NID in nidstr\"')" \
	-- $u ping 1@tcp

# --- every target parsed first ----------------------------------------------
expect ping_bad_last 234 "" \
	"$(d1 manage ping -22 '\"Unable to parse nidlist: no valid NIDs in string\"')" \
	-- $u ping 127.1.13.7@tcp foo
expect peer_not_pinged 234 "" "*" -- $u peer show --nid 127.1.13.7@tcp
expect ping_asterisk 234 "" \
	"$(d1 manage ping -22 'asterisk not allowed in nidstring')" \
	-- $u ping '*@tcp'
# 2048 NIDs parse (lnetctl has no limit); the error is the last target's
expect ping_many 234 "" \
	"$(d1 manage ping -22 '\"Unable to parse nidlist: range is wrong order\"')" \
	-- $u ping '10.2.[0-7].[0-255]@tcp' '10.3.0.[2-1]@tcp'
expect ping_cap 234 "" \
	"$(d1 manage ping -7 'Unable to parse nidlist: specifies more NIDs than allowed')" \
	-- $u ping '10.[0-16].[0-255].[0-255]@tcp'

# --- options -------------------------------------------------------------------
expect ping_unknown_option 0 "" "ping: unrecognized option '--foo'" \
	-- $u ping --foo 127.1.13.2@tcp
expect ping_help 0 "*" "" -- $u ping -h
check ping_help '^	 --source: source nid$'

# --- LNet down, no daemon ------------------------------------------------------
expect down 0 "" "" -- $u lnet unconfigure
expect ping_down 234 "" "$(d1 manage ping -100 'Network is down')" \
	-- $u ping 127.1.13.2@tcp 127.1.23.2@tcp
expect up 0 "" "" -- $u lnet configure
expect ping_no_daemon 234 "" "*" -- $u --ctl "$TMP/none.ctl" ping 127.1.13.2@tcp
check ping_no_daemon '^manage:$' "$TMP/err"
check ping_no_daemon_ping '^-     ping:$' "$TMP/err"
finish
