#!/usr/bin/env bash
# import and export against live ulnetd (reference/lnetctl.md §15-§17):
#  1. the complete lnet.conf of §17.4 (this host's stand-ins, see the
#     file) imports into an empty node, and `export --backup` prints the
#     §15 layout (expected/io/backup.yaml);
#  2. that backup imported into a fresh node exports byte-identically;
#  3. import --del removes the nets, routes, peers and UDSP rules again;
#  4. bad files fail as lnetctl's do: an unopenable file (D2 yaml/builder,
#     exit 254), an invalid key, an empty value, a non-integer, a bad
#     Multi-Rail word, a bad CPT — each with nothing applied;
#  5. import --exec runs the ping section; a full export parses as YAML.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

conf=$EXPECTED/io/lnet.conf

cli_daemon a "" --cpts 2
expect import_full 0 "" "*" -- "$ULNETCTL" import "$conf"
expect export_backup 0 @io/backup.yaml "" -- "$ULNETCTL" export --backup
cp "$TMP/out" "$TMP/a.yaml"
# The full export is YAML that loads and names every net.
"$ULNETCTL" export >"$TMP/out" 2>"$TMP/err" || true
if python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1]));
nets = [n["net type"] for n in d["net"]]
assert nets == ["lo", "tcp", "tcp1", "tcp2"], nets' "$TMP/out" 2>"$TMP/py"; then
	passed=$((passed + 1))
else
	echo "FAIL export_full_loads:"; cat "$TMP/py" "$TMP/out"
	failed=$((failed + 1))
fi
cli_stop a

cli_daemon b "" --cpts 2
expect import_backup 0 "" "*" -- "$ULNETCTL" import "$TMP/a.yaml"
expect export_again_identical 0 @io/backup.yaml "" -- \
	"$ULNETCTL" export --backup
expect import_del 0 "" "*" -- "$ULNETCTL" import --del "$TMP/a.yaml"
expect after_del 0 @io/after_del.yaml "" -- "$ULNETCTL" export --backup
cli_stop b

cli_daemon c "" --cpts 2
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
# Nothing of the bad files was applied.
expect nothing_applied 0 @io/empty.yaml "" -- "$ULNETCTL" export --backup
printf 'net:\n    - net type: tcp\n      local NI(s):\n        - nid: 127.1.5.40@tcp\n' \
	>"$TMP/one.yaml"
expect import_one 0 "" "" -- "$ULNETCTL" import "$TMP/one.yaml"
printf 'ping:\n    nids:\n        0: 127.1.5.40@tcp\n' >"$TMP/exec.yaml"
expect import_exec_ping 0 "" "" -- "$ULNETCTL" import --exec "$TMP/exec.yaml"
"$ULNETCTL" import -h >"$TMP/out" || true
if grep -q -- '--exec:' "$TMP/out" && grep -q -- '--del:' "$TMP/out"; then
	passed=$((passed + 1))
else
	echo "FAIL import_help"; cat "$TMP/out"; failed=$((failed + 1))
fi
finish
