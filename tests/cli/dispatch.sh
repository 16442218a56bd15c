#!/usr/bin/env bash
# ulnetctl command dispatch follows lnetctl and its command parser
# (reference/lnetctl.md §1, §3): unknown words exit 255, a noun alone prints
# its help and exits 234, -h or a shortened --help alone exits 1 (and runs
# nothing), the built-ins at every level, help WORDS on stderr, the
# four-column command list, script mode (first word shortened, unknown and
# ambiguous words, quit, the first failure stops the run or, after
# ignore_errors, is still the status).
. "$(dirname "$0")/lib.bash"

debug_help='debug recovery: list the NIs on a recovery queue
	--local: local NIs
	--peer: peer NIs

debug peer: write a peer'"'"'s state to the daemon'"'"'s log
	--nid: a NID of the peer

debug nidlist: debug nidlist parsing
	<nidlist>: the nidlist to parse, e.g. "192.168.1.[1-10]@tcp *@o2ib"
	<nid>: optional NID to match against the list

debug decode: decode socklnd frames given as hex and print their fields as YAML
	<file>: hex dumps, frames separated by blank lines (default or "-": stdin)

debug select: dry run of pathway selection on an lnet.conf, no network
	--config: the lnet.conf (YAML) to load
	--dst: destination NID
	--src: source NID to pin (default: LNet chooses)
	--rtr: previous hop to reuse, as for a response
	--count: number of successive sends (default 1)
	--type: put, get, ack or reply (default put)
	--md-numa: NUMA node of the message buffer (default any)
	--forward: forward, as a router, a message from this NID
	--explain: show every step of the selection
'

expect unknown_command 255 "" \
	"ulnetctl: 'frobnicate' is not a valid command. See 'ulnetctl --list-commands'." -- \
	"$ULNETCTL" frobnicate
expect unknown_subcommand 255 "" \
	"ulnetctl: 'nidlists' is not a valid command. See 'ulnetctl --list-commands'." -- \
	"$ULNETCTL" debug nidlists
expect noun_without_verb 234 "$debug_help" "" -- "$ULNETCTL" debug
expect noun_help 1 "$debug_help" "" -- "$ULNETCTL" debug --help
expect verb_help 1 'debug nidlist: debug nidlist parsing
	<nidlist>: the nidlist to parse, e.g. "192.168.1.[1-10]@tcp *@o2ib"
	<nid>: optional NID to match against the list
' "" -- "$ULNETCTL" debug nidlist -h
expect version 0 "ulnetctl 0.1.0" "" -- "$ULNETCTL" --version
# --help may be shortened down to --h (getopt), as the only argument;
# nothing runs then (a socket that does not exist would fail the command).
for h in --h --he --hel --help; do
	expect "verb_help$h" 1 "*" "" -- "$ULNETCTL" --ctl "$TMP/none" \
		lnet unconfigure "$h"
	check "verb_help$h" '^lnet unconfigure: '
	expect "noun_help$h" 1 "$debug_help" "" -- "$ULNETCTL" debug "$h"
done
# With another argument it is no help: the verb runs (and fails here).
expect not_help_with_more 234 "*" "*" -- "$ULNETCTL" debug nidlist --he 1@tcp
expect quit 0 "" "" -- "$ULNETCTL" quit
expect exit 0 "" "" -- "$ULNETCTL" exit
expect noun_version 0 "ulnetctl 0.1.0" "" -- "$ULNETCTL" debug version
expect help_alone 0 "usage: ulnetctl [--ctl SOCKET] [COMMAND] [OPTIONS]... [ARGS]
Without any parameters, interactive mode is invoked
Try 'ulnetctl help <COMMAND>', or 'ulnetctl --list-commands' for a list of commands." \
	"" -- "$ULNETCTL" help
expect help_noun 0 "" "net: net {add | del | show | set | help}" -- \
	"$ULNETCTL" help net
expect help_shortened 0 "" "routi: routing {show | help}" -- \
	"$ULNETCTL" help routi
expect help_ambiguous 0 "" "Ambiguous command 'ro'
Options: route routing " -- "$ULNETCTL" help ro
expect help_unknown 0 "" \
	"ulnetctl: 'foo' is not a valid command. See 'ulnetctl --list-commands'." \
	-- "$ULNETCTL" help foo
expect list_commands 0 @cmd/list-commands.txt "" -- "$ULNETCTL" --list-commands

# Script mode: commands from stdin; the first failure ends the run.
expect_stdin script_stops_at_first_failure 234 'nidlist parsed to: 1.2.3.4@tcp' \
	"*" "debug nidlist 1.2.3.4@tcp
debug nidlist foo
debug nidlist 5.6.7.8@tcp
" -- "$ULNETCTL"
if head -1 "$TMP/err" | grep -qx 'Unable to parse nidlist from: foo'; then
	passed=$((passed + 1))
else
	echo "FAIL script_stops_at_first_failure: stderr:"; cat "$TMP/err"
	failed=$((failed + 1))
fi
# ignore_errors: the rest runs, the first failure is still the status.
expect_stdin script_ignore_errors_goes_on 234 'nidlist parsed to: 5.6.7.8@tcp' "*" \
	"ignore_errors
debug nidlist foo
debug nidlist 5.6.7.8@tcp
" -- "$ULNETCTL"
# The first word may be shortened; an unknown word prints the usage and
# an ambiguous one its candidates, neither failing; quit ends the run.
# Shortened words resolve among lnetctl's commands, as in lnetctl: "se"
# is ambiguous (set, service-id, setup-*), "pe" is peer (ulnet's own perf
# must be written whole), and a command ulnet has not is not valid.
expect_stdin script_lnetctl_words 0 "" "Ambiguous command 'se discovery 0'
Options: set service-id setup-mrrouting setup-sysctl " "   se discovery 0
" -- "$ULNETCTL"
expect_stdin script_pe_is_peer 234 "" "*" "pe show
" -- "$ULNETCTL" --ctl "$TMP/none"
grep -q '^-     peer:$' "$TMP/err" && passed=$((passed + 1)) ||
	{ echo "FAIL script_pe_is_peer: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
expect_stdin script_not_ulnets 255 "" \
	"ulnetctl: 'service-id' is not a valid command. See 'ulnetctl --list-commands'." \
	"serv
" -- "$ULNETCTL"
expect_stdin script_words 0 "nidlist parsed to: 1.2.3.4@tcp
usage: ulnetctl [--ctl SOCKET] [COMMAND] [OPTIONS]... [ARGS]
Without any parameters, interactive mode is invoked
Try 'ulnetctl help <COMMAND>', or 'ulnetctl --list-commands' for a list of commands.
nidlist parsed to: 5.6.7.8@tcp" "Ambiguous command 'ro show'
Options: route routing " "DEB nidlist 1.2.3.4@tcp
frobnicate
ro show
de nidlist 5.6.7.8@tcp
q
debug nidlist 9.9.9.9@tcp
" -- "$ULNETCTL"
# A line keeps its first 512 words and drops the rest (lnetctl's
# line2args()); the run goes on. "help" joins its words, so the message
# shows how many were kept: 511 after "help", not the 512th "b".
many="help$(printf ' a%.0s' $(seq 511)) b c"
expect_stdin script_long_line 0 "*" \
	"ulnetctl: '$(printf 'a%.0s' $(seq 511))' is not a valid command. See 'ulnetctl --list-commands'." \
	"$many
version
" -- "$ULNETCTL"
check script_long_line_goes_on '^ulnetctl [0-9]'

finish
