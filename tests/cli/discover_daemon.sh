#!/usr/bin/env bash
# ulnetctl discover against two live ulnetd on loopback (lnetctl.md §11.2):
# A (127.1.7.1, 127.1.17.1) discovers B by B's second NID and gets one
# Multi-Rail peer holding both of B's NIDs with B's first NID as primary;
# peer show agrees; an unreachable NID lands under "manage:" with exit
# 255; no NID fails as lnetctl does; every target is parsed before any
# is discovered (a bad one: D1, 234, nothing done); host names resolve;
# an unknown option prints getopt's line only; a missing socket is a D1
# error (exit 234).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

conf() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - nid: 127.1.7.%s@tcp\n      - nid: 127.1.17.%s@tcp\n' "$1" "$1"
}
cli_daemon b "$(conf 2)" --cpts 2
cli_daemon a "$(conf 1)" --cpts 2
export ULNET_CTL=$TMP/a.ctl

expect discover_by_second_nid 0 @discover/two_nids.yaml "" -- \
	"$ULNETCTL" discover 127.1.17.2@tcp
expect peer_show_after 0 @discover/peer_show.yaml "" -- \
	"$ULNETCTL" peer show
# Again, and with --force: the same one peer.
expect discover_again_force 0 @discover/two_nids.yaml "" -- \
	"$ULNETCTL" discover --force 127.1.7.2@tcp
expect peer_show_still_one 0 @discover/peer_show.yaml "" -- \
	"$ULNETCTL" peer show
expect discover_unreachable 255 @discover/unreachable.yaml "" -- \
	"$ULNETCTL" discover 127.1.17.2@tcp 127.1.7.9@tcp
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
