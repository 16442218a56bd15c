#!/usr/bin/env bash
# import and export against live ulnetd (reference/lnetctl.md §15-§17):
#  1. the complete lnet.conf of §17.4 (this host's stand-ins, see the
#     file) imports into an empty node, and `export --backup` prints the
#     §15 layout (expected/io/backup.yaml), the tcp NIs on the union of
#     their CPTs as lnetctl's netlink import binds them (--old-api: each
#     its own);
#  2. that backup imported into a fresh node exports byte-identically;
#  3. import --del removes the nets, routes, peers and UDSP rules again;
#  4. no daemon at the socket fails every file naming the socket (a global
#     or udsp file too); bad files fail as lnetctl's do: an unopenable
#     file (D2 yaml/builder, exit 254), an invalid key, an empty value, a
#     non-integer, a bad Multi-Rail word, a bad CPT — each with nothing
#     applied;
#  5. import --exec runs the ping section; a full export parses as YAML;
#     an export while LNet is down reports as lnetctl's does;
#  6. help texts, option quirks, stdin, tunables warnings, --show,
#     export FILE, --old-api's error tree.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"
# Routing starts and stops at once (LNet waits alive_router_check_interval
# + router_ping_timeout), so a file's routing state is what a backup says.
fast=(--param alive_router_check_interval=0 --param router_ping_timeout=0)

conf=$EXPECTED/io/lnet.conf

cli_daemon a "" --cpts 2 "${fast[@]}"
# What ulnet keeps but does not act on is said, with its line (§17.4's
# routing and buffers); the rest of the file goes without a word.
expect import_full 0 "" @io/full_notes.err -- "$ULNETCTL" import "$conf"
expect export_backup 0 @io/backup.yaml "" -- "$ULNETCTL" export --backup
cp "$TMP/out" "$TMP/a.yaml"
# The full export is YAML that loads and names every net.
"$ULNETCTL" export >"$TMP/out" 2>"$TMP/err" || true
if python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1]));
nets = [n["net type"] for n in d["net"]]
assert nets == ["lo", "tcp", "tcp1"], nets' "$TMP/out" 2>"$TMP/py"; then
	passed=$((passed + 1))
else
	echo "FAIL export_full_loads:"; cat "$TMP/py" "$TMP/out"
	failed=$((failed + 1))
fi
cli_stop a

cli_daemon b "" --cpts 2 "${fast[@]}"
expect import_backup 0 "" @io/backup_notes.err -- "$ULNETCTL" import "$TMP/a.yaml"
expect export_again_identical 0 @io/backup.yaml "" -- \
	"$ULNETCTL" export --backup
# --del goes in document order as lnetctl's does, and deleting a net
# takes its peers and the routes through them with it (LNet's peer table
# cleanup), so a later route or peer section would find nothing to
# delete (-2): the nets go last here.
awk '/^[a-z]/ { is_net = /^net:/ }
	is_net { nets = nets $0 "\n"; next }
	{ print }
	END { printf "%s", nets }' "$TMP/a.yaml" >"$TMP/a_del.yaml"
expect import_del 0 "" "*" -- "$ULNETCTL" import --del "$TMP/a_del.yaml"
expect after_del 0 @io/after_del.yaml "" -- "$ULNETCTL" export --backup
# lnetctl's --del of "routing" sends the file's enable as --add does (§16
# table): only a file saying enable 0 turns routing off (2, stopping,
# for 110 s, after 3, starting); the pools stay (as LNet's), so routing
# and buffers stay in the backup.
printf 'routing:\n    enable: 0\n' >"$TMP/routing0.yaml"
expect import_del_routing0 0 "" "" -- "$ULNETCTL" import -d "$TMP/routing0.yaml"
expect after_routing0 0 @io/after_routing0.yaml "" -- "$ULNETCTL" export --backup
cli_stop b

# --old-api keeps each NI's own CPT (§17.4: [0] and [1]; the netlink
# import above binds both to the union [0,1]).
cli_daemon e "" --cpts 2 "${fast[@]}"
expect import_old_api 0 "" "*" -- "$ULNETCTL" import --old-api "$conf"
expect export_old_api 0 @io/backup_old_api.yaml "" -- "$ULNETCTL" export --backup
cli_stop e

# A peer section goes in batches (proto.h, BATCH): a peer LNet refuses
# in the middle (it names the first peer's second NI) is that peer's
# error, exit 234, as with one request a peer; the peer before it stays,
# the one after it is never added.
cli_daemon f 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.5.80@tcp' "${fast[@]}"
cat >"$TMP/shared_ni.yaml" <<'EOF'
peer:
    - primary nid: 10.201.0.1@tcp
      peer ni:
        - nid: 10.201.0.1@tcp
        - nid: 10.201.0.2@tcp
    - primary nid: 10.201.0.3@tcp
      peer ni:
        - nid: 10.201.0.3@tcp
        - nid: 10.201.0.2@tcp
    - primary nid: 10.201.0.5@tcp
EOF
expect batch_refused 234 "" "$(d1 add peer -17 'failed to add peer')" -- \
	"$ULNETCTL" import "$TMP/shared_ni.yaml"
expect batch_before_kept 0 "*" "" -- "$ULNETCTL" peer show --nid 10.201.0.1@tcp
expect batch_after_absent 234 "" "$(d1 show peer -2 'cannot find peer')" -- \
	"$ULNETCTL" peer show --nid 10.201.0.5@tcp
cli_stop f

# No daemon at the socket is no LNet refusal: a file of global values
# only (which LNet would refuse without a word) or of UDSP rules only
# (whose refusals lnetctl skips) fails with the error naming the socket,
# as a file with a peer does; --old-api too.
nosock=$TMP/nosuch.ctl
nosock_err="cannot connect to ulnetd at $nosock: No such file or directory (is ulnetd running? see --ctl)"
printf 'global:\n    retry_count: 3\n' >"$TMP/g_only.yaml"
printf 'udsp:\n  - idx: 0\n    src: tcp\n    priority: 3\n' >"$TMP/u_only.yaml"
expect no_daemon_global 234 "" "$(d1 add global -2 "$nosock_err")" -- \
	"$ULNETCTL" --ctl "$nosock" import "$TMP/g_only.yaml"
expect no_daemon_udsp 234 "" "$(d1 add udsp -2 "$nosock_err")" -- \
	"$ULNETCTL" --ctl "$nosock" import "$TMP/u_only.yaml"
expect no_daemon_udsp_del 234 "" "$(d1 del udsp -2 "$nosock_err")" -- \
	"$ULNETCTL" --ctl "$nosock" import --del "$TMP/u_only.yaml"
expect no_daemon_global_old 234 "" "$(d2 add global -2 "$nosock_err")" -- \
	"$ULNETCTL" --ctl "$nosock" import --old-api "$TMP/g_only.yaml"

cli_daemon c "" --cpts 2 "${fast[@]}"
expect missing_file 254 "" "*" -- "$ULNETCTL" import "$TMP/none.yaml"
if grep -qx "          descr: cannot open '$TMP/none.yaml': No such file or directory" \
	"$TMP/err" && head -2 "$TMP/err" | grep -q '^    - builder:$'; then
	passed=$((passed + 1))
else
	echo "FAIL missing_file_yaml:"; cat "$TMP/err"; failed=$((failed + 1))
fi
bad() { # name, yaml text, expected stderr file
	printf '%s\n' "$2" >"$TMP/$1.yaml"
	expect "$1" 234 "" "@io/$3" -- "$ULNETCTL" import "$TMP/$1.yaml"
}
bad invalid_key 'foobar: 1' invalid_key.err
bad no_value 'global:
    retry_count:' no_value.err
bad invalid_value 'global:
    retry_count: abc' invalid_value.err
bad bad_mr 'peer:
    - primary nid: 127.1.5.30@tcp
      Multi-Rail: Foobar' bad_mr.err
bad bad_cpt 'net:
    - net type: tcp
      local NI(s):
        - nid: 127.1.5.3@tcp
          CPT: "[1-0]"' bad_cpt.err
# lnetctl's fixed words after the place (§16); an empty CPT list is its
# -ENODATA, errno and status.
printf 'net:\n    - net type: foo\n' >"$TMP/bad_net.yaml"
expect bad_net 234 "" "$(d1 add import -22 \
	"line 2, column 17: net[0].net type: Invalid network ID 'foo'")" -- \
	"$ULNETCTL" import "$TMP/bad_net.yaml"
printf 'net:\n    - net type: tcp\n      CPT: []\n' >"$TMP/no_cpt.yaml"
expect missing_cpt 195 "" "$(d1 add import -61 \
	"line 3, column 12: net[0].CPT: Missing CPT configuration")" -- \
	"$ULNETCTL" import "$TMP/no_cpt.yaml"
printf 'ip2nets:\n    - net-spec: tcp\n      local NI(s): []\n' >"$TMP/ip_ni.yaml"
expect ip2nets_local_nis 234 "" "$(d1 add import -22 \
	"line 3, column 7: ip2nets[0].local NI(s): local NI(s)' not valid for ip2nets")" -- \
	"$ULNETCTL" import "$TMP/ip_ni.yaml"
# Nothing of the bad files was applied.
expect nothing_applied 0 @io/empty.yaml "" -- "$ULNETCTL" export --backup
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: 127.1.5.40@tcp\n' \
	>"$TMP/one.yaml"
expect import_one 0 "" "" -- "$ULNETCTL" import "$TMP/one.yaml"
printf 'ping:\n    nids:\n        0: 127.1.5.40@tcp\n' >"$TMP/exec.yaml"
expect import_exec_ping 0 "" "" -- "$ULNETCTL" import --exec "$TMP/exec.yaml"
# A flow list, a timeout in ms, a discover section; results not printed.
printf 'ping:\n    timeout: 2000\n    nids: [127.1.5.40@tcp]\ndiscover:\n    nids:\n        0: 127.1.5.40@tcp\n' \
	>"$TMP/exec2.yaml"
expect import_exec_discover 0 "" "" -- "$ULNETCTL" import -e "$TMP/exec2.yaml"
# A target nobody answers for: the failure is printed, exit 234.
printf 'ping:\n    timeout: 500\n    nids:\n        0: 127.1.5.99@tcp\n' >"$TMP/exec3.yaml"
expect import_exec_fail 234 "" @io/exec_fail.err -- "$ULNETCTL" import -e "$TMP/exec3.yaml"
expect import_help 0 @io/import_help.txt "" -- "$ULNETCTL" import -h
expect export_help 0 @io/export_help.txt \
	"export: unrecognized option '--foo'" -- "$ULNETCTL" export --foo
# lnetctl: an unknown option is getopt's complaint only, exit 0.
expect import_unknown_opt 0 "" "*" -- "$ULNETCTL" import --foo "$TMP/one.yaml"
# lnetctl takes the third word as the file next to options: "-a -d"
# opens "-d".
expect import_third_word 254 "" @io/third_word.err -- \
	"$ULNETCTL" import -a -d
cli_stop c

cli_daemon d "" --cpts 2 "${fast[@]}"
# While LNet is down: the netlink sections' D1 on stderr, the routing and
# udsp errors of lnetctl's cYAML functions into the output (§15), exit 0.
"$ULNETCTL" lnet unconfigure
expect export_down 0 @io/export_down.yaml @io/export_down.err -- \
	"$ULNETCTL" export --backup
"$ULNETCTL" lnet configure
# From stdin; unknown tunables keys in lnetctl's words; the state an
# export prints ("status") skipped without a word, as lnetctl does.
cat >"$TMP/warn.yaml" <<'EOF'
net:
    - net type: tcp
      local NI(s):
        - nid: 127.1.5.60@tcp
          tunables:
              foo: 1
          lnd tunables:
              bar: 2
          status: up
peer:
    - primary nid: 127.1.5.61@tcp
      Multi-Rail: False
global:
    retry_count: 2
EOF
expect_stdin import_stdin_warnings 0 "" @io/warnings.err "$(cat "$TMP/warn.yaml")" \
	-- "$ULNETCTL" import
# --show: each net block's net at full verbosity, each peer; global
# prints nothing.
expect import_show 0 @io/show.yaml "*" -- "$ULNETCTL" import --show "$TMP/warn.yaml"
# export FILE writes the file; an uncreatable FILE fails as lnetctl (-1).
expect export_file 0 "" "" -- "$ULNETCTL" export --backup "$TMP/e.yaml"
expect export_file_content 0 @io/one_peer.yaml "" -- cat "$TMP/e.yaml"
expect export_bad_file 255 "" "*" -- "$ULNETCTL" export "$TMP/no/such/x"
# The net goes first and takes its peer: the peer section then fails
# as LNet's does.
expect import_del_stdin 234 "" "Ignoring unrecognized key 'foo' for 'tunables'
Ignoring unrecognized key 'bar' for 'lnd tunables'
$(d1 del peer -2 'failed to del primary peer')" -- \
	"$ULNETCTL" import --del "$TMP/warn.yaml"
expect empty_again 0 @io/empty.yaml "" -- "$ULNETCTL" export --backup

# --old-api: every item attempted, the failures in one D2 tree, the
# status the last failure's; the legacy parser creates the peer
# Multi-Rail whatever the file says.
cat >"$TMP/old.yaml" <<'EOF'
net:
    - net type: tcp
      local NI(s):
        - nid: 127.1.5.70@tcp
    - net type: tcp
      local NI(s):
        - nid: 127.1.5.70@tcp
peer:
    - primary nid: 127.1.5.71@tcp
      Multi-Rail: False
udsp:
    - idx: 0
      src: tcp
      action:
          priority: 1
EOF
expect old_api_add 239 "" @io/old_api_add.err -- \
	"$ULNETCTL" import --old-api "$TMP/old.yaml"
expect old_api_state 0 @io/old_api_state.yaml "" -- "$ULNETCTL" export -b
# Two options next to a file: lnetctl reads stdin. The legacy path's
# status is its last failure's errno (-17 above, -2 here); the peer is
# gone with its net before its own deletion is tried.
expect_stdin old_api_del 254 "" @io/old_api_del.err "$(cat "$TMP/old.yaml")" \
	-- "$ULNETCTL" import --old-api --del "$TMP/old.yaml"
expect old_api_empty 0 @io/empty.yaml "" -- "$ULNETCTL" export --backup

# §17.2 resolution before anything is sent: a missing interface, ip2nets
# rules that match nothing.
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - interfaces:\n              0: nosuch0\n' \
	>"$TMP/noif.yaml"
# lnetctl returns the resolution's -ENOMSG: exit 214.
expect no_interface 214 "" @io/no_interface.err -- "$ULNETCTL" import "$TMP/noif.yaml"
expect no_interface_del 214 "" @io/no_interface_del.err -- \
	"$ULNETCTL" import --del "$TMP/noif.yaml"
printf 'ip2nets:\n    - net-spec: tcp4\n      interfaces:\n          0: lo\n      ip-range:\n          0: 10.*.*.*\n' \
	>"$TMP/ip_none.yaml"
expect ip2nets_none 234 "" @io/ip2nets_none.err -- "$ULNETCTL" import "$TMP/ip_none.yaml"
# (A second rule for a net already configured needs a real interface:
# net_netns.sh.)
# UDSP (§17.3 Quirk): the last priority carries over; priority 0 is
# refused without a word.
printf 'udsp:\n    - idx: 0\n      src: tcp\n      action:\n          priority: 3\n    - idx: 1\n      dst: tcp1\n' \
	>"$TMP/u1.yaml"
expect udsp_carry 0 "" "" -- "$ULNETCTL" import "$TMP/u1.yaml"
expect udsp_carry_show 0 @io/udsp_carry.yaml "" -- "$ULNETCTL" udsp show
printf 'udsp:\n    - idx: 0\n      src: tcp2\n      action:\n          priority: 0\n' \
	>"$TMP/u0.yaml"
expect udsp_prio0 234 "" "" -- "$ULNETCTL" import "$TMP/u0.yaml"
expect udsp_del 0 "" "" -- "$ULNETCTL" import --del "$TMP/u1.yaml"
expect final_empty 0 @io/empty.yaml "" -- "$ULNETCTL" export --backup
finish
