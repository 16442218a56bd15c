#!/usr/bin/env bash
# ulnetctl selftest (tools/ulnetctl/selftest.c) against three live ulnetds
# on loopback: A and B with two rails each, C with one.
#  - brw write size=64K check=simple from A to B: every operation
#    completes, no check error at B's sink, both of A's rails carry
#    traffic; the rates file has a block per rail with a sample each
#    second and the plot is a PNG (gnuplot);
#  - brw read check=full from A and B to C and to a bare NID, 1:all:
#    both senders read from both targets, no check error;
#  - ping 1:1 with --text prints lst stat's blocks;
#  - a batch file runs two tests at once;
#  - a stream that loses its target mid-run ends with the failures
#    counted and a non-zero exit status;
#  - local:N nodes that selftest runs itself, three rails each, and
#    leaves nothing behind;
#  - bad tests, options and batch files give an error YAML and exit 234.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

PY=/usr/bin/python3
u=$ULNETCTL
two_rails() { # a1 a2
	printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: %s@tcp\n      - nid: %s@tcp\n' "$1" "$2"
}
cli_daemon a "$(two_rails 127.1.41.1 127.1.42.1)"
cli_daemon b "$(two_rails 127.1.41.2 127.1.42.2)"
cli_daemon c 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.41.3@tcp'

# yq FILE EXPR: a Python expression over the YAML document d.
yq() {
	"$PY" - "$1" "$2" <<'EOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print(eval(sys.argv[2]))
EOF
}

# 1. write, checked, with the rates file and the plot.
expect write 0 "*" "" -- $u selftest run --from "$TMP/a.ctl" \
	--to "$TMP/b.ctl" --seconds 3 --concurrency 4 \
	--rates "$TMP/rates.tsv" --plot "$TMP/rails.png" \
	brw write size=64K check=simple
cp "$TMP/out" "$TMP/write.yaml"
yq "$TMP/write.yaml" "d['selftest']['tests'][0]['completed'] > 0 and \
d['selftest']['tests'][0]['failed'] == 0 and \
d['selftest']['tests'][0]['check_errors'] == 0 and \
d['selftest']['tests'][0]['started'] == d['selftest']['tests'][0]['completed']" >"$TMP/ok"
check "write completes every operation" '^True$' "$TMP/ok"
# B's sink checked them all and found nothing wrong.
yq "$TMP/write.yaml" "[n.get('check_errors') for n in d['selftest']['nodes'] if n['node'].endswith('b.ctl')] == [0]" >"$TMP/ok"
check "the sink reports no check error" '^True$' "$TMP/ok"
# Both of A's rails carried at least a fifth of its bytes.
yq "$TMP/write.yaml" "[float(r['share'].rstrip('%')) > 20 for n in d['selftest']['nodes'] if n['node'].endswith('a.ctl') for r in n['rails']]" >"$TMP/ok"
check "both rails of A carry the stream" '^\[True, True\]$' "$TMP/ok"
check "rates file: a block per rail" '^# node .*a\.ctl rail 127\.1\.42\.1@tcp' "$TMP/rates.tsv"
awk '/^# node/ {b++} /^[0-9]/ {n[b]++} END {for (i = 1; i <= b; i++) if (n[i] < 2) exit 1; print b}' \
	"$TMP/rates.tsv" >"$TMP/blocks" || echo 0 >"$TMP/blocks"
check "rates file: 4 rails, each sampled" '^4$' "$TMP/blocks"
if command -v gnuplot >/dev/null; then
	head -c 8 "$TMP/rails.png" | od -An -c | tr -d ' ' >"$TMP/magic"
	check "the plot is a PNG" 'PNG' "$TMP/magic"
else
	echo "gnuplot missing (apt-get install gnuplot-nox): plot not checked"
fi

# 2. read, fully checked, 1:all from two senders to C and to B's bare NID.
expect read 0 "*" "" -- $u selftest run --from "$TMP/a.ctl,$TMP/b.ctl" \
	--to "$TMP/c.ctl,127.1.41.2@tcp" --distribute 1:all --seconds 2 \
	--concurrency 2 brw read size=8K check=full
cp "$TMP/out" "$TMP/read.yaml"
yq "$TMP/read.yaml" "[d['selftest']['tests'][0][k] for k in ('senders', 'failed', 'check_errors')]" >"$TMP/ok"
check "read: two senders, nothing failed or spoiled" '^\[2, 0, 0\]$' "$TMP/ok"
# C served both senders: it sent what they read.
yq "$TMP/read.yaml" "[n['sent MiB/s'] > 0 for n in d['selftest']['nodes'] if n['node'].endswith('c.ctl')]" >"$TMP/ok"
check "read: C served" '^\[True\]$' "$TMP/ok"
"$u" --ctl "$TMP/c.ctl" selftest stat >"$TMP/stat"
check "C's sink counted GETs" '^ +gets: [1-9]' "$TMP/stat"

# 3. ping, lst stat's text.
expect ping 0 "*" "" -- $u selftest run --from "$TMP/a.ctl" \
	--to "$TMP/c.ctl" --seconds 1 --concurrency 8 --text ping
check "text: rates block" '^\[LNet Rates of from\]$'
check "text: received rate" '^\[R\] Avg: [1-9][0-9]* +RPC/s Min: '
check "text: bandwidth block" '^\[LNet Bandwidth of to\]$'
check "text: the test's line" '^    completed [1-9][0-9]*, failed 0, check errors 0, '

# 4. a batch: two groups, two tests at once.
cat >"$TMP/batch.yaml" <<EOF
seconds: 2
groups:
    clients: [ $TMP/a.ctl ]
    servers: [ $TMP/b.ctl, $TMP/c.ctl ]
batch:
    - test: brw write size=16K
      from: clients
      to: servers
      concurrency: 2
      distribute: 1:2
    - test: ping
      from: servers
      to: clients
EOF
expect batch 0 "*" "" -- $u selftest run --batch "$TMP/batch.yaml"
cp "$TMP/out" "$TMP/batch.out"
yq "$TMP/batch.out" "[(t['test'], t['senders'], t['completed'] > 0, t['failed']) for t in d['selftest']['tests']]" >"$TMP/ok"
check "batch: both tests ran" "^\[\('brw write size=16K', 1, True, 0\), \('ping', 2, True, 0\)\]$" "$TMP/ok"

# 5. the target dies mid-run: every operation still ends once, counted
# (a short transaction timeout, so that the lost ones end soon).
cli_daemon d 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.41.4@tcp'
expect short_timeout 0 "" "" -- $u --ctl "$TMP/a.ctl" set transaction_timeout 4
"$u" selftest run --from "$TMP/a.ctl" --to 127.1.41.4@tcp --seconds 4 \
	--concurrency 4 brw write size=16K >"$TMP/out" 2>"$TMP/err" &
st=$!
sleep 2
cli_stop d
rc=0
wait $st || rc=$?
echo "rc=$rc" >"$TMP/rc"
check "lost target: non-zero exit" '^rc=234$' "$TMP/rc"
yq "$TMP/out" "[(x['started'] == x['completed'] + x['failed'], x['completed'] > 0, x['failed'] > 0) for x in d['selftest']['tests']]" >"$TMP/ok"
check "lost target: each operation ended once" '^\[\(True, True, True\)\]$' "$TMP/ok"
check "lost target: the error says so" 'failed, 0 check errors' "$TMP/err"

# 6. selftest's own loopback nodes: no daemon; nothing left behind.
expect local 0 "*" "" -- env TMPDIR="$TMP" $u selftest run --from local:1 \
	--to local:2,local:3 --distribute 1:all --local-rails 3 --seconds 2 \
	--concurrency 4 brw read size=16K check=full
cp "$TMP/out" "$TMP/local.yaml"
yq "$TMP/local.yaml" "[d['selftest']['tests'][0][k] for k in ('completed', 'failed', 'check_errors')][1:]" >"$TMP/ok"
check "local: nothing failed or spoiled" '^\[0, 0\]$' "$TMP/ok"
yq "$TMP/local.yaml" "sorted(r['nid'] for n in d['selftest']['nodes'] if n['node'] == 'local:1' for r in n['rails'])" >"$TMP/ok"
check "local: three rails on 127.2.R.1" "^\['127.2.1.1@tcp', '127.2.2.1@tcp', '127.2.3.1@tcp'\]$" "$TMP/ok"
yq "$TMP/local.yaml" "[n['sent MiB/s'] > 0 for n in d['selftest']['nodes'] if n['node'] in ('local:2', 'local:3')]" >"$TMP/ok"
check "local: both targets served" '^\[True, True\]$' "$TMP/ok"
ls "$TMP" | grep -c '^ulnet-selftest-' >"$TMP/left" || true
check "local: its directory is gone" '^0$' "$TMP/left"

# 7. bad input.
err() { # descr
	printf -- '---\nselftest:\n-     run:\n      errno: -22\n      descr: ! "%s"\n...\n' "$1"
}
expect no_test 234 "" "$(err 'no test given (ping, or brw read|write [size=N] [check=simple|full])')" \
	-- $u selftest run --from "$TMP/a.ctl" --to "$TMP/b.ctl"
expect bad_test 234 "" "$(err "unknown test 'bulk' (ping or brw)")" \
	-- $u selftest run --from "$TMP/a.ctl" --to "$TMP/b.ctl" bulk
expect bad_size 234 "" "$(err "bad size '2M' (1 to 1M, K and M suffixes)")" \
	-- $u selftest run --from "$TMP/a.ctl" --to "$TMP/b.ctl" brw read size=2M
expect nid_sender 234 "" "$(err 'node 127.1.41.1@tcp sends in a test, so it must be a control socket')" \
	-- $u selftest run --from 127.1.41.1@tcp --to "$TMP/b.ctl" ping
expect bad_dist 234 "" "$(err "bad distribution '0:1' (A:B, as 1:1 or 1:all)")" \
	-- $u selftest run --from "$TMP/a.ctl" --to "$TMP/b.ctl" --distribute 0:1 ping
expect bad_local 234 "" "$(err "'local:0': local nodes are local:1 to local:16")" \
	-- $u selftest run --from local:0 --to local:1 ping
expect bad_node 234 "" "$(err "'nowhere' is neither a control socket (a path) nor a NID")" \
	-- $u selftest run --from "$TMP/a.ctl" --to nowhere ping
expect dead_node 234 "" "*" \
	-- $u selftest run --from "$TMP/gone.ctl" --to "$TMP/b.ctl" ping
check "dead node: names it" 'node .*gone\.ctl: cannot connect' "$TMP/err"
printf 'groups:\n    g: [ %s ]\nbatch:\n    - test: ping\n      from: g\n      to: g\n      speed: 3\n' \
	"$TMP/a.ctl" >"$TMP/bad.yaml"
expect bad_key 234 "" "$(err 'line 7, column 7: unknown test key (test, from, to, concurrency, distribute)')" \
	-- $u selftest run --batch "$TMP/bad.yaml"
printf 'groups:\n    g: [ %s ]\nbatch:\n    - test: ping\n      from: g\n      to: h\n' \
	"$TMP/a.ctl" >"$TMP/bad.yaml"
expect bad_group 234 "" "$(err "no group 'h'")" \
	-- $u selftest run --batch "$TMP/bad.yaml"
finish
