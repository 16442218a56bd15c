#!/usr/bin/env bash
# ulnetctl command dispatch follows lnetctl (reference/lnetctl.md §1, §3):
# unknown words exit 255, a noun alone prints its help and exits 234, -h
# exits 1, script mode stops at the first failing command.
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
expect_stdin script_ignore_errors_goes_on 0 'nidlist parsed to: 5.6.7.8@tcp' "*" \
	"ignore_errors
debug nidlist foo
debug nidlist 5.6.7.8@tcp
" -- "$ULNETCTL"

finish
