#!/usr/bin/env bash
# ulnetctl debug nidlist prints what lnetctl debug nidlist prints
# (reference/lnetctl.md §14.3). The expected texts in the first block are
# LNet's own answers for the same arguments; the second block is where
# ulnet departs on purpose (docs/design-notes.md says why).
. "$(dirname "$0")/lib.bash"

# n NAME NIDLIST [NID] -- expected stdout lines follow on stdin
same() {
	local name=$1 want
	shift
	want=$(cat)
	expect "$name" 0 "$want" "" -- "$ULNETCTL" debug nidlist "$@"
}

# --- Same as LNet -------------------------------------------------------
same stepped_range '192.168.0.[2-20/2]@tcp' <<'E'
nidlist parsed to: 192.168.0.[2-20/2]@tcp
E
same stepped_range_match '192.168.0.[2-20/2]@tcp' 192.168.0.4@tcp <<'E'
nidlist parsed to: 192.168.0.[2-20/2]@tcp
192.168.0.4@tcp matches nidlist 192.168.0.[2-20/2]@tcp
E
same stepped_range_off_step '192.168.0.[2-20/2]@tcp' 192.168.0.5@tcp <<'E'
nidlist parsed to: 192.168.0.[2-20/2]@tcp
192.168.0.5@tcp does not match nidlist 192.168.0.[2-20/2]@tcp
E
same all_of_net '*@tcp' 1.2.3.4@tcp <<'E'
nidlist parsed to: *@tcp
1.2.3.4@tcp matches nidlist *@tcp
E
same all_of_net_other_net '*@tcp' 1.2.3.4@o2ib <<'E'
nidlist parsed to: *@tcp
1.2.3.4@o2ib does not match nidlist *@tcp
E
same grouped_by_net '1.1.1.1@tcp 2.2.2.2@o2ib 3.3.3.3@tcp' <<'E'
nidlist parsed to: 1.1.1.1@tcp 3.3.3.3@tcp 2.2.2.2@o2ib
E
same comma_list_in_brackets '10.0.[1,3].5@o2ib' 10.0.3.5@o2ib <<'E'
nidlist parsed to: 10.0.[1,3].5@o2ib
10.0.3.5@o2ib matches nidlist 10.0.[1,3].5@o2ib
E
same numeric_net '[1-5,7]@gni' 7@gni <<'E'
nidlist parsed to: [1-5,7]@gni
7@gni matches nidlist [1-5,7]@gni
E
same loopback_nid '0@lo' 0@lo <<'E'
nidlist parsed to: 0@lo
0@lo matches nidlist 0@lo
E
same ipv4_netmask '1.2.3.0/24@tcp' 1.2.3.77@tcp <<'E'
nidlist parsed to: 1.2.3.0/24@tcp
1.2.3.77@tcp matches nidlist 1.2.3.0/24@tcp
E
same ipv6_netmask '2001:db8::/32@tcp' 2001:db8::5@tcp <<'E'
nidlist parsed to: 2001:db8::/32@tcp
2001:db8::5@tcp matches nidlist 2001:db8::/32@tcp
E
same ipv6_nid '2001:db8::1@tcp' <<'E'
nidlist parsed to: 2001:db8::1@tcp
E
same net_number_in_hex '1.2.3.4@tcp0x1' <<'E'
nidlist parsed to: 1.2.3.4@tcp1
E
same octal_octet '010.0.0.1@tcp' <<'E'
nidlist parsed to: 8.0.0.1@tcp
E
same hex_number '0x10@kfi' <<'E'
nidlist parsed to: 16@kfi
E
same netmasks_print_first '5.5.5.5@tcp 1.2.3.0/24@tcp' <<'E'
nidlist parsed to: 1.2.3.0/24@tcp 5.5.5.5@tcp
E
same duplicates_kept '1.2.3.4@tcp 1.2.3.4@tcp' <<'E'
nidlist parsed to: 1.2.3.4@tcp 1.2.3.4@tcp
E

# Failures: lnetctl's lines and status 234; ulnet adds a reason line.
fails() {
	local name=$1
	shift
	expect "$name" 234 "" "*" -- "$ULNETCTL" debug nidlist "$@"
	if grep -qxF "Unable to parse nidlist from: $1" "$TMP/err" &&
		grep -q '^reason: ' "$TMP/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL $name: stderr:"
		cat "$TMP/err"
		failed=$((failed + 1))
	fi
}
fails no_at '1.2.3.4'
fails unknown_net 'x@foo'
fails three_octets '1.2.3@tcp'
fails lo_with_ipv4 '1.2.3.4@lo1'
fails netmask_on_o2ib '1.2.3.0/24@o2ib'
fails ipv6_loopback '::1@tcp'
fails empty ''

expect bad_match_nid 234 "nidlist parsed to: 1.2.3.4@tcp" \
	"Invalid nid for matching foo" -- "$ULNETCTL" debug nidlist 1.2.3.4@tcp foo
expect bad_match_nid_address 234 "nidlist parsed to: 1.2.3.4@tcp" \
	"Invalid nid for matching 1@tcp" -- "$ULNETCTL" debug nidlist 1.2.3.4@tcp 1@tcp
expect missing_argument 234 "" "Missing nidlist argument" -- \
	"$ULNETCTL" debug nidlist
expect too_many_arguments 234 "" "Too many arguments" -- \
	"$ULNETCTL" debug nidlist a b c

# --- Departures from LNet -------------------------------------------------
# lnetctl cuts the canonical form to the length of the input
# ("nidlist parsed to: [0-255].[0-"); ulnet prints it whole. The match line
# quotes the input as typed, as lnetctl's does.
same match_line_quotes_input_not_truncated '10.0.0.*@tcp' 10.0.0.9@tcp <<'E'
nidlist parsed to: 10.0.0.[0-255]@tcp
10.0.0.9@tcp matches nidlist 10.0.0.*@tcp
E
same canonical_form_not_truncated '*.*.*.*@tcp' <<'E'
nidlist parsed to: [0-255].[0-255].[0-255].[0-255]@tcp
E
same wildcard_numeric '[*]@gni' <<'E'
nidlist parsed to: [0-4294967295]@gni
E
# lnetctl aborts on an assertion here; ulnet folds the NID into "*".
same all_of_net_absorbs_nids '1.2.3.4@tcp *@tcp' <<'E'
nidlist parsed to: *@tcp
E
# A stride of 0 is stored by LNet and divides by zero when matching;
# a malformed stride is stored as 0. ulnet refuses both.
fails zero_stride '[1-5/0]@gni'
fails malformed_stride '1.2.3.[1-5/x]@tcp'
# LNet folds a net number above 65535 into the LND type.
fails net_number_overflow '1.2.3.4@tcp65536'
# An IPv4 range never matches an IPv6 NID (LNet compares its first word).
same ipv4_range_never_matches_ipv6 '32.1.13.184@tcp' 2001:db8::1@tcp <<'E'
nidlist parsed to: 32.1.13.184@tcp
2001:db8::1@tcp does not match nidlist 32.1.13.184@tcp
E

finish
