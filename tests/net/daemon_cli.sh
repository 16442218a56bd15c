#!/usr/bin/env bash
# ulnetd and ulnetctl as an operator meets them, on loopback (no root):
#
#   ulnetd A  127.<o>.1.1@tcp  ---- 127.<o>.1.2@tcp  ulnetd B
#
# - ping across names B's NIDs; net show and peer show list the NIs and
#   the peer at verbose levels 0 to 2;
# - the control socket is mode 0600; SIGTERM stops ulnetd with status 0
#   and removes the socket file;
# - ulnetctl against a missing socket, a killed daemon (stale socket) and
#   a "daemon" that answers garbage exits non-zero with error YAML;
# - ulnetd with a bad configuration exits non-zero and says why.
set -euo pipefail
: "${ULNETD:?}" "${ULNETCTL:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-daemon-XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	for f in "$tmp"/*.log "$tmp"/out "$tmp"/err; do
		[ -f "$f" ] && { echo "== $f"; tail -15 "$f"; }
	done
	exit 1
}
o=$(($$ % 200 + 20))
port=$((20000 + $$ % 20000))
for n in 1 2; do
	cat >"$tmp/n$n.yaml" <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - nid: 127.$o.1.$n@tcp
	YAML
done
start() { # name
	"$ULNETD" --config "$tmp/$1.yaml" --ctl "$tmp/$1.ctl" --foreground \
		--port "$port" --accept all --src-port any 2>"$tmp/$1.log" &
	pids+=($!)
	for _ in $(seq 100); do
		[ -S "$tmp/$1.ctl" ] && return 0
		sleep 0.05
	done
	fail "ulnetd $1 did not start"
}
start n1
start n2
ctl() { "$ULNETCTL" --ctl "$tmp/n1.ctl" "$@" >"$tmp/out" 2>"$tmp/err"; }

ctl ping "127.$o.1.2@tcp" || fail "ping across"
grep -q "primary nid: 127.$o.1.2@tcp" "$tmp/out" || fail "ping names the primary"
for v in 0 1 2; do
	ctl net show -v "$v" || fail "net show -v $v"
	grep -q "nid: 127.$o.1.1@tcp" "$tmp/out" || fail "net show -v $v lists our NI"
	grep -q "status: up" "$tmp/out" || fail "net show -v $v: status up"
	ctl peer show -v "$v" || fail "peer show -v $v"
	grep -q "primary nid: 127.$o.1.2@tcp" "$tmp/out" || fail "peer show -v $v lists the peer"
done
ctl net show -v 2 && grep -q 'send_count: [1-9]' "$tmp/out" || fail "net show -v 2 counts the ping"

mode=$(stat -c %a "$tmp/n1.ctl")
[ "$mode" = 600 ] || fail "control socket mode $mode, not 600"

# A missing socket.
if "$ULNETCTL" --ctl "$tmp/none.ctl" net show >"$tmp/out" 2>"$tmp/err"; then
	fail "net show on a missing socket succeeded"
fi
grep -q 'errno:' "$tmp/err" || fail "no error YAML for a missing socket"

# A killed daemon leaves its socket file behind.
kill -9 "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true
[ -S "$tmp/n2.ctl" ] || fail "expected a stale socket"
if "$ULNETCTL" --ctl "$tmp/n2.ctl" peer show >"$tmp/out" 2>"$tmp/err"; then
	fail "peer show on a dead daemon succeeded"
fi
grep -q 'errno:' "$tmp/err" || fail "no error YAML for a dead daemon"
# ... and a new ulnetd takes the stale path over.
start n2

# A "daemon" that answers garbage.
python3 - "$tmp/junk.ctl" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4)
for _ in range(2):
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello" + os.urandom(64))
    c.close()
PY
pids+=($!)
for _ in $(seq 100); do [ -S "$tmp/junk.ctl" ] && break; sleep 0.05; done
if "$ULNETCTL" --ctl "$tmp/junk.ctl" net show >"$tmp/out" 2>"$tmp/err"; then
	fail "net show against garbage succeeded"
fi
grep -q 'errno:' "$tmp/err" || fail "no error YAML for a garbage answer"
if "$ULNETCTL" --ctl "$tmp/junk.ctl" ping "127.$o.1.2@tcp" >"$tmp/out" 2>"$tmp/err"; then
	fail "ping against garbage succeeded"
fi

# A bad configuration.
printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: bogus@tcp\n' >"$tmp/bad.yaml"
if "$ULNETD" --config "$tmp/bad.yaml" --ctl "$tmp/bad.ctl" --foreground \
	--port "$port" 2>"$tmp/bad.log"; then
	fail "ulnetd started with a bad configuration"
fi
grep -qi 'bogus' "$tmp/bad.log" || fail "ulnetd does not name the bad value"
[ ! -e "$tmp/bad.ctl" ] || fail "a failed ulnetd left its socket"

# SIGTERM: exit 0, socket removed.
kill -TERM "${pids[0]}"
rc=0
wait "${pids[0]}" || rc=$?
[ "$rc" = 0 ] || fail "ulnetd exited $rc on SIGTERM"
[ ! -e "$tmp/n1.ctl" ] || fail "socket file left after SIGTERM"
grep -q 'stopped' "$tmp/n1.log" || fail "no 'stopped' line in the log"
echo "PASS"
