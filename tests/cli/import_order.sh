#!/usr/bin/env bash
# ulnetctl import applying a file as lnetctl does (reference/lnetctl.md
# §16, §17; udsp.md §7.2), against a live ulnetd. NIDs 127.1.8.0/24.
#  1. sections in document order, what precedes a failure stays: a global
#     value LNet refuses (silent), a bad Multi-Rail word (the peer's D1), a
#     block LNet refuses (its D1, then lnetctl's "Failed to configure NI"),
#     a "net type: lo" block;
#  2. what lnetctl accepts: any routing enable, discovery and
#     drop_asym_route non-zero, buffers -1, unknown keys, keys after a
#     streamed section, a key given twice;
#  3. routing and buffers in file order (buffers before routing are not
#     kept, §8.4);
#  4. UDSP rules as the netlink import submits them, --del from the
#     highest index;
#  5. --old-api: gateway ranges, existing routes tolerated, Multi-Rail
#     words, an unknown section, seq_no, the setters' and the peer's
#     words;
#  6. a directory, a file of several documents (each applied in turn),
#     and a backup of a node without routing, which imports without a
#     word;
#  7. ulnetd --config applies a file exactly as import does, and says
#     why it does not start where lnetctl's import fails without a word.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"
# Routing starts and stops at once (LNet waits alive_router_check_interval
# + router_ping_timeout), so a file's routing state is what a backup says.
fast=(--param alive_router_check_interval=0 --param router_ping_timeout=0)

u=$ULNETCTL
net8='net:
    - net type: tcp
      local NI(s):
        - nid: 127.1.8.1@tcp'
file() { # name, text
	printf '%s\n' "$2" >"$TMP/$1.yaml"
}
nets() { # the nets of net show, one line
	"$u" net show | awk '/net type:/ { print $NF }' | tr '\n' ' '
}
check_nets() { # name, nets
	local got
	got=$(nets)
	if [ "$got" = "$2" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: nets '$got', want '$2'"
		failed=$((failed + 1))
	fi
}

# --- 1 document order ---------------------------------------------------
cli_daemon a "" --cpts 2 "${fast[@]}"
file g "$net8
global:
    response_tracking: 10"
expect refused_setter_silent 234 "" "" -- "$u" import "$TMP/g.yaml"
check_nets net_before_setter_stays "lo tcp "
expect del_g 0 "" "" -- "$u" import --del "$TMP/g.yaml"
file mr "$net8
peer:
    - primary nid: 127.1.8.20@tcp
    - primary nid: 127.1.8.21@tcp
      Multi-Rail: Foobar"
expect bad_mr_after_net 234 "" "$(d1 add peer -22 'invalid MR flag param')" \
	-- "$u" import "$TMP/mr.yaml"
check_nets net_before_peer_stays "lo tcp "
"$u" peer list >"$TMP/out" 2>&1
check peer_before_bad_one_stays '127.1.8.20@tcp'
expect del_mr 234 "" "*" -- "$u" import --del "$TMP/mr.yaml"
file cpp 'net:
    - net type: tcp1
      local NI(s):
        - nid: 127.1.8.2@tcp1
    - net type: tcp2
      local NI(s):
        - nid: 127.1.8.3@tcp2
          lnd tunables:
              conns_per_peer: 200
    - net type: lo'
expect block_refused 234 "" "$(d1 add net -34 'failed to parse lnd tunables')
$(d1 add import -22 "Failed to configure NI on net 'tcp2' rc = -22")" \
	-- "$u" import "$TMP/cpp.yaml"
check_nets block_before_refused_stays "lo tcp1 "
file lo 'net:
    - net type: tcp4
      local NI(s):
        - nid: 127.1.8.5@tcp4
    - net type: lo'
expect lo_block_refused 234 "" "$(d1 add net -19 'setting @lo not allowed')
$(d1 add import -22 "Failed to configure NI on net 'lo' rc = -22")" \
	-- "$u" import "$TMP/lo.yaml"
check_nets block_before_lo_stays "lo tcp1 tcp4 "
cli_stop a

# --- 2 what lnetctl accepts ---------------------------------------------
cli_daemon b "" --cpts 2 "${fast[@]}"
file accept "$net8
    - net type: tcp3
      foo: bar
      local NI(s):
        - nid: 127.1.8.4@tcp3
          foo: bar
          tunables:
              peer_credits: 4
              peer_credits: 16
routing:
    enable: 1
buffers:
    tiny: 4096
    small: -1
peer:
    - primary nid: 127.1.8.30@tcp
      foo: bar
foo: bar
discovery: 0
global:
    discovery: 2
    drop_asym_route: 5
    retry_count: 1
    retry_count: 3"
expect accepted 0 "" "*" -- "$u" import "$TMP/accept.yaml"
"$u" global show >"$TMP/out"
check discovery_non_zero '^    discovery: 1$'
check drop_asym_non_zero '^    drop_asym_route: 1$'
check key_twice_last_wins '^    retry_count: 3$'
"$u" net show --net tcp3 -v >"$TMP/out"
check tunable_twice_last_wins 'peer_credits: 16$'
"$u" export --backup >"$TMP/out"
check buffers_minus_one_unchanged '^    small: 16384$'
check buffers_kept '^    tiny: 4096$'
file r2 'routing:
    enable: 2'
expect routing_2_disables 0 "" "" -- "$u" import "$TMP/r2.yaml"
"$u" routing show >"$TMP/out"
check routing_disabled 'enable: 0'
cli_stop b

# --- 3 routing and buffers in file order --------------------------------
cli_daemon c "" --cpts 2 "${fast[@]}"
file rb 'buffers:
    tiny: 4096
    small: 20000
routing:
    enable: 1'
expect buffers_first 0 "" "*" -- "$u" import "$TMP/rb.yaml"
"$u" export --backup >"$TMP/out"
check buffers_before_routing_not_kept '^    tiny: 2048$'
cli_stop c

# --- 4 UDSP -----------------------------------------------------------
cli_daemon d "" --cpts 2 "${fast[@]}"
file u1 'udsp:
    - idx: 0
      src: tcp
      dst: tcp1
    - src: tcp2
      action:
          priority: 3
    - idx: 1
      dst: tcp3'
expect udsp_stream 0 "" "" -- "$u" import "$TMP/u1.yaml"
expect udsp_stream_show 0 @io/udsp_stream.yaml "" -- "$u" udsp show
"$u" udsp del --all
"$u" udsp add --src tcp --priority 1
"$u" udsp add --dst tcp1 --priority 2
"$u" udsp add --src tcp2 --priority 3
file u2 'udsp:
    - idx: 2
      src: tcp
    - idx: 0
      src: tcp2'
expect udsp_del_highest_first 0 "" "" -- "$u" import --del "$TMP/u2.yaml"
expect udsp_del_left 0 @io/udsp_del_left.yaml "" -- "$u" udsp show
# a rule that is not there: lnetctl fails without a word, status -1
expect udsp_del_missing 255 "" "" -- "$u" import --del "$TMP/u2.yaml"
cli_stop d

# --- 5 --old-api ----------------------------------------------------------
cli_daemon e "$net8" --cpts 2 "${fast[@]}"
file old 'route:
    - net: tcp9
      gateway: 127.1.8.[10-11]@tcp
    - net: tcp9
      gateway: 127.1.8.10@tcp
peer:
    - primary nid: 127.1.8.40@tcp
      Multi-Rail: true'
expect old_api_ranges 0 "" "" -- "$u" import --old-api "$TMP/old.yaml"
expect old_api_routes 0 @io/old_api_routes.yaml "" -- "$u" route show
file oldmr 'peer:
    - primary nid: 127.1.8.41@tcp
      Multi-Rail: yes'
expect old_api_mr_word 234 "" "$(d2 peer add -22 \
	"Multi-Rail must be set to 'True' or 'False' found 'yes'")" \
	-- "$u" import --old-api "$TMP/oldmr.yaml"
file oldkey 'foobar: 1'
expect old_api_unknown 234 "" "$(d2 yaml helper -22 \
	"call back for 'foobar' not found")" \
	-- "$u" import --old-api "$TMP/oldkey.yaml"
file oldseq 'route:
    - net: tcp8
      gateway: 127.1.8.12@tcp
      hop: 300
      seq_no: 7'
expect old_api_seq_no 222 "" @io/old_api_seq_no.err \
	-- "$u" import --old-api "$TMP/oldseq.yaml"
# The legacy setters' words and the block's seq_no on each (lnetctl.md
# §9): LNet's refusal -61, lnetctl's own check -22; the status the last.
file oldglobal 'global:
    seq_no: 4
    retry_count: 999
    response_tracking: 10'
expect old_api_global 234 "" @io/old_api_global.err \
	-- "$u" import --old-api "$TMP/oldglobal.yaml"
file oldprim 'peer:
    - primary nid: foo
      seq_no: 7'
expect old_api_bad_primary 234 "" @io/old_api_bad_primary.err \
	-- "$u" import --old-api "$TMP/oldprim.yaml"
cli_stop e

# --- 6 a directory; several documents; a quiet backup ---------------------
cli_daemon f "" --cpts 2 "${fast[@]}"
expect directory 234 "" "$(d1 add import -21 "cannot read '$TMP': Is a directory")" \
	-- "$u" import "$TMP"
# Every document, in order, as lnetctl's netlink import reads them.
file docs '---
global:
    retry_count: 1
---
global:
    retry_count: 0
    max_interfaces: 200'
expect documents 0 "" "" -- "$u" import "$TMP/docs.yaml"
"$u" global show >"$TMP/out"
check documents_retry_count '^    retry_count: 0$'
check documents_max_interfaces '^    max_interfaces: 200$'
expect documents_reset 0 "" "" -- "$u" set max_interfaces 4096
file q "$net8
peer:
    - primary nid: 127.1.8.50@tcp
global:
    retry_count: 3"
expect quiet_setup 0 "" "" -- "$u" import "$TMP/q.yaml"
"$u" export --backup >"$TMP/q_backup.yaml"
cli_stop f
cli_daemon g "" --cpts 2 "${fast[@]}"
expect backup_imports_quietly 0 "" "" -- "$u" import "$TMP/q_backup.yaml"
"$u" export --backup >"$TMP/out"
if diff -u "$TMP/q_backup.yaml" "$TMP/out" >"$TMP/diff"; then
	passed=$((passed + 1))
else
	echo "FAIL quiet_backup_round_trip:"; cat "$TMP/diff"
	failed=$((failed + 1))
fi
cli_stop g

# --- 7 ulnetd --config as import -------------------------------------------
cli_daemon h "$(cat "$EXPECTED/io/lnet.conf")" --cpts 2 "${fast[@]}"
expect config_as_import 0 @io/backup.yaml "" -- "$u" export --backup
check config_notes_with_lines 'h.yaml line [0-9]+ column [0-9]+: buffers: counts are kept' \
	"$TMP/h.log"
cli_stop h
# A file lnetctl's import refuses without a word (§16 Quirk, §17.3) still
# stops ulnetd with the reason and the line, in its log and its message.
config_fails() { # name, yaml text, reason (a regex)
	printf '%s\n' "$2" >"$TMP/$1.yaml"
	if "$ULNETD" --config "$TMP/$1.yaml" --ctl "$TMP/$1.ctl" --foreground \
		--port "$cli_port" --accept all --src-port any >"$TMP/$1.log" 2>&1; then
		echo "FAIL $1: ulnetd started"; failed=$((failed + 1))
		return
	fi
	check "$1_log" "error: $TMP/$1.yaml line 2: .*$3" "$TMP/$1.log"
	check "$1_message" "^ulnetd: cannot configure: line 2: .*$3" "$TMP/$1.log"
}
config_fails config_global 'global:
    response_tracking: 10' 'response_tracking: .*Valid values are: 0, 1, 2, or 3'
config_fails config_udsp 'udsp:
    - idx: 0
      src: tcp
      priority: 0' 'priority 0 gives no action'
config_fails config_setter 'global:
    retry_count: 999' 'retry_count: 999 must not exceed transaction_timeout'
finish
