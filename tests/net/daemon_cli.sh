#!/usr/bin/env bash
# ulnetd and ulnetctl as an operator meets them, on loopback (no root):
#
#   ulnetd n1  127.<o>.1.1@tcp  <-- port <p> -->  127.<o>.1.2@tcp  ulnetd n2
#              $tmp/n1.ctl                         $tmp/n2.ctl
#   fake "daemons": $tmp/junk.ctl (answers garbage),
#                   $tmp/mute.ctl (never answers)
#
#  1. ping across names n2's NIDs; net show and peer show at verbose
#     levels 0 to 2 are YAML that loads and names the right NIDs and
#     statuses, and count the ping on the local and the peer NI; --net
#     and --nid filter; an unknown peer, an unknown net
#     and an unreachable NID fail with lnetctl's errno YAML and exit codes;
#  2. the control socket is mode 0600; a second ulnetd on a live socket
#     exits non-zero, says the socket is in use, and leaves the first one
#     working;
#  3. ulnetctl against a missing socket, a killed daemon (stale socket),
#     a "daemon" that answers garbage and one that never answers exits
#     non-zero with error YAML on stderr; a new ulnetd takes a stale
#     socket path over;
#  4. ulnetd with a bad configuration (missing file, YAML syntax, bad NID,
#     unknown interface, an address and port already taken) or a bad
#     option exits non-zero, names the problem, and leaves no socket;
#  5. SIGTERM (and SIGINT) stop ulnetd with status 0, a "stopped" log
#     line, and the socket file removed.
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_setup daemon
o=$ul_octet
port=$ul_port
A=127.$o.1.1@tcp
B=127.$o.1.2@tcp
for n in 1 2; do
	cat >"$tmp/n$n.yaml" <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - nid: 127.$o.1.$n@tcp
	YAML
done
opts=(--port "$port" --accept all --src-port any)
ul_daemon_start n1 "${opts[@]}"
ul_daemon_start n2 "${opts[@]}"

# ctl SOCKET-NAME ARGS...: output in $tmp/ctl.out, errors in $tmp/ctl.err,
# the exit status in $rc.
ctl() {
	local s=$1
	shift
	rc=0
	"$ULNETCTL" --ctl "$tmp/$s.ctl" "$@" >"$tmp/ctl.out" 2>"$tmp/ctl.err" ||
		rc=$?
}
has() { grep -q -- "$2" "$tmp/ctl.$1"; }
# The last call failed with lnetctl's error YAML carrying errno $2 in
# stream $1 (out or err), and exit status $3 if given.
failed_with() { # out|err, errno, [status]
	[ "$rc" != 0 ] || ul_fail "${what}: succeeded"
	[ -z "${3:-}" ] || [ "$rc" = "$3" ] || ul_fail "${what}: exit $rc, not $3"
	ul_yaml_ok "$tmp/ctl.$1" "$what ($1)"
	has "$1" "errno: $2\$" || ul_fail "${what}: no 'errno: $2'"
	has "$1" 'descr: ' || ul_fail "${what}: no descr"
}

# 1. Ping and show.
what="ping $B"
ctl n1 ping "$B"
[ "$rc" = 0 ] || ul_fail "$what: exit $rc"
ul_yaml_ok "$tmp/ctl.out" "$what"
has out "^- primary nid: $B\$" || ul_fail "$what: no primary nid $B"
has out "^  - nid: $B\$" || ul_fail "$what: peer_ni does not list $B"
has out '0@lo' && ul_fail "$what: lists 0@lo"
for v in 0 1 2; do
	what="net show -v $v"
	ctl n1 net show -v "$v"
	[ "$rc" = 0 ] || ul_fail "$what: exit $rc"
	ul_yaml_ok "$tmp/ctl.out" "$what"
	has out "nid: $A\$" || ul_fail "$what: does not list $A"
	has out 'nid: 0@lo$' || ul_fail "$what: does not list 0@lo"
	[ "$(grep -c 'status: up$' "$tmp/ctl.out")" = 2 ] ||
		ul_fail "$what: not two NIs 'status: up'"
	has out 'status: down' && ul_fail "$what: an NI is down"
	if [ "$v" -ge 1 ]; then
		has out '^ *statistics:$' || ul_fail "$what: no statistics"
	else
		has out 'statistics' && ul_fail "$what: statistics at -v 0"
	fi
	what="peer show -v $v"
	ctl n1 peer show -v "$v"
	[ "$rc" = 0 ] || ul_fail "$what: exit $rc"
	ul_yaml_ok "$tmp/ctl.out" "$what"
	has out "primary nid: $B\$" || ul_fail "$what: does not list $B"
	has out "^ *- *nid: $B\$" || ul_fail "$what: no peer ni $B"
done
what="net show -v 2"
ctl n1 net show -v 2
has out 'send_count: [1-9]' || ul_fail "$what: the ping is not counted"
has out 'health value: 1000$' || ul_fail "$what: no health value"
# The ping went to B's NI: its statistics count the GET out and the
# REPLY in, as the local NI's do.
what="peer show --nid $B -v 2"
ctl n1 peer show --nid "$B" -v 2
awk '$1 == "send_count:" { s = $2 } $1 == "recv_count:" { r = $2 }
	END { exit !(s >= 1 && r >= 1) }' "$tmp/ctl.out" ||
	ul_fail "$what: the ping is not counted on the peer NI"
has out '^ *get: [1-9]' || ul_fail "$what: no GET in sent_stats"
what="net show --net tcp"
ctl n1 net show --net tcp
has out "nid: $A\$" || ul_fail "$what: does not list $A"
has out '0@lo' && ul_fail "$what: lists 0@lo"
what="peer show --nid $B"
ctl n1 peer show --nid "$B"
[ "$rc" = 0 ] && has out "primary nid: $B\$" || ul_fail "$what"
what="peer show --nid 127.$o.1.7@tcp (unknown)"
ctl n1 peer show --nid "127.$o.1.7@tcp"
failed_with err -2 234
what="net show --net tcp9 (no such net)"
ctl n1 net show --net tcp9
failed_with err -3 234
what="ping 127.$o.1.9@tcp (nobody there)"
ctl n1 ping "127.$o.1.9@tcp"
failed_with out -111 255
has out "failed to ping 127.$o.1.9@tcp" || ul_fail "$what: descr"
what="ping bogus (not a NID)"
ctl n1 ping bogus
failed_with err -22 234
echo "ping, net show, peer show: YAML with the right NIDs and statuses"

# 1b. A perf stream to ourselves (0@lo) ends after its duration, and the
# daemon answers other clients meanwhile (it once held the loop thread).
what="perf put 0@lo"
"$ULNETCTL" --ctl "$tmp/n1.ctl" perf put 0@lo --seconds 2 --size 4K \
	>"$tmp/perf.out" 2>&1 &
perf_pid=$!
sleep 0.5
ctl n1 net show
[ "$rc" = 0 ] || ul_fail "$what: net show during the stream: exit $rc"
rc=0
wait "$perf_pid" || rc=$?
[ "$rc" = 0 ] || ul_fail "$what: exit $rc: $(cat "$tmp/perf.out")"
grep -q '^    puts: [1-9]' "$tmp/perf.out" || ul_fail "$what: no PUTs counted"
# Every PUT started ended once, ACKed or failed.
started=$(awk '/^    started: / { print $2 }' "$tmp/perf.out")
completed=$(awk '/^    completed: / { print $2 }' "$tmp/perf.out")
failed=$(awk '/^    failed: / { print $2 }' "$tmp/perf.out")
[ -n "$started" ] && [ "$started" = "$((completed + failed))" ] ||
	ul_fail "$what: started ${started:-?} != completed $completed + failed $failed"
echo "perf put 0@lo: ends, started = completed + failed, the daemon answers meanwhile"

# 2. The socket's mode; a second ulnetd on a live socket.
mode=$(stat -c %a "$tmp/n1.ctl")
[ "$mode" = 600 ] || ul_fail "control socket mode $mode, not 600"
cp "$tmp/n2.yaml" "$tmp/dup.yaml"
rc=0
timeout 30 "$ULNETD" --config "$tmp/dup.yaml" --ctl "$tmp/n1.ctl" \
	--foreground --port "$((port + 1))" --accept all 2>"$tmp/dup.log" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
	ul_fail "a second ulnetd on n1's live socket: exit $rc"
grep -q "control socket $tmp/n1.ctl: address already in use" "$tmp/dup.log" ||
	ul_fail "the second ulnetd does not say the control socket is in use"
what="net show on n1 after the second ulnetd"
ctl n1 net show
[ "$rc" = 0 ] && has out "nid: $A\$" || ul_fail "$what"
echo "socket mode 0600; a second ulnetd leaves a live socket alone"

# 3. Nobody, a dead daemon, garbage, silence.
python3 - "$tmp/mute.ctl" <<-'PY' &
	import socket, sys, time
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.bind(sys.argv[1]); s.listen(4)
	c, _ = s.accept()
	time.sleep(120)
	PY
ul_track $!
ul_wait_for 100 test -S "$tmp/mute.ctl" || ul_fail "no mute server"
rc=0
"$ULNETCTL" --ctl "$tmp/mute.ctl" net show >"$tmp/mute.out" 2>"$tmp/mute.err" &
mute_pid=$!
ul_track "$mute_pid"

what="net show on a missing socket"
ctl none net show
failed_with err -2
has err 'is ulnetd running' || ul_fail "$what: no hint"

{ kill -9 "${ul_pid[n2]}" && wait "${ul_pid[n2]}"; } 2>/dev/null || true
[ -S "$tmp/n2.ctl" ] || ul_fail "expected a stale socket after kill -9"
what="peer show on a killed daemon"
ctl n2 peer show
failed_with err -111
ul_daemon_start n2 "${opts[@]}"
what="net show on the new n2 (stale path taken over)"
ctl n2 net show
[ "$rc" = 0 ] && has out "nid: $B\$" || ul_fail "$what"

python3 - "$tmp/junk.ctl" <<-'PY' &
	import os, socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.bind(sys.argv[1]); s.listen(4)
	for _ in range(2):
	    c, _ = s.accept()
	    c.recv(4096)
	    c.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello" + os.urandom(64))
	    c.close()
	PY
ul_track $!
ul_wait_for 100 test -S "$tmp/junk.ctl" || ul_fail "no junk server"
what="net show against garbage"
ctl junk net show
failed_with err -71
what="ping against garbage"
ctl junk ping "$B"
[ "$rc" != 0 ] || ul_fail "$what: succeeded"
ul_yaml_ok "$tmp/ctl.out" "$what (out)"
ul_yaml_ok "$tmp/ctl.err" "$what (err)"
grep -q 'errno: -' "$tmp/ctl.out" "$tmp/ctl.err" || ul_fail "$what: no errno"

# The mute server's client gives up after ulnetctl's 30 s bound.
rc=0
wait "$mute_pid" || rc=$?
[ "$rc" != 0 ] || ul_fail "net show against a mute server succeeded"
cp "$tmp/mute.err" "$tmp/ctl.err"
what="net show against a mute server"
failed_with err -110
ul_yaml_check_all
echo "missing, dead, garbage and mute servers: non-zero exits with errno YAML"

# 4. Bad configurations and options.
bad_conf() { # name, expected text in the message
	rc=0
	timeout 30 "$ULNETD" --config "$tmp/$1.yaml" --ctl "$tmp/$1.ctl" \
		--foreground "${opts[@]}" 2>"$tmp/$1.log" || rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || ul_fail "ulnetd with $1: exit $rc"
	grep -q -- "$2" "$tmp/$1.log" || ul_fail "ulnetd with $1 does not say '$2'"
	# a failed start frees what it made (under ASan: no leak report)
	! grep -q Sanitizer "$tmp/$1.log" || ul_fail "ulnetd with $1: a sanitizer report"
	[ ! -e "$tmp/$1.ctl" ] || ul_fail "ulnetd with $1 left its socket"
}
printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: bogus@tcp\n' \
	>"$tmp/badnid.yaml"
bad_conf badnid bogus
bad_conf missing "cannot open '$tmp/missing.yaml'"
printf 'net: [\n  - {' >"$tmp/syntax.yaml"
bad_conf syntax 'line 2'
cat >"$tmp/noif.yaml" <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - interfaces:
	          0: nosuch$$
	YAML
bad_conf noif "nosuch$$"
cp "$tmp/n1.yaml" "$tmp/port.yaml" # n1's NID and port: n1 is still up
bad_conf port 'socklnd NI .*@tcp: cannot listen on .*: Address already in use: another process listens there'
grep -q 'unknown error' "$tmp/port.log" && ul_fail "ulnetd says 'unknown error'"
# The LNet port without the privilege to bind it: the message says what
# an unprivileged ulnetd means for kernel peers (root runs it as nobody).
priv_dir=$(mktemp -d /tmp/ulnet-priv-XXXXXX)
ul_cleanup_extra() { rm -rf "$priv_dir"; }
chmod 755 "$priv_dir"
printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.%s.1.7@tcp\n' \
	"$ul_octet" >"$priv_dir/n.yaml"
chmod 644 "$priv_dir/n.yaml"
chmod 777 "$priv_dir"
unpriv=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null &&
		unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups
			--inh-caps=-all --bounding-set=-all)
fi
if [ "$(id -u)" != 0 ] || [ ${#unpriv[@]} -gt 0 ]; then
	rc=0
	timeout 30 "${unpriv[@]}" "$ULNETD" --config "$priv_dir/n.yaml" \
		--ctl "$priv_dir/n.ctl" --foreground --port 988 \
		2>"$tmp/priv.log" || rc=$?
	[ "$rc" = 1 ] || ul_fail "unprivileged ulnetd on port 988: exit $rc"
	grep -q "needs root or CAP_NET_BIND_SERVICE.*kernel LNet nodes cannot reach it" \
		"$tmp/priv.log" || ul_fail "unprivileged ulnetd on port 988: no hint"
else
	echo "setpriv missing: the unprivileged bind is not tried"
fi
rc=0
"$ULNETD" --port 0 --ctl "$tmp/opt.ctl" --foreground 2>"$tmp/opt.log" || rc=$?
[ "$rc" = 2 ] || ul_fail "ulnetd --port 0: exit $rc, not 2"
grep -q "bad port '0'" "$tmp/opt.log" || ul_fail "ulnetd --port 0: no message"
echo "bad configurations and options: non-zero exits that name the problem"

# 5. SIGTERM and SIGINT.
for sig in TERM INT; do
	[ "$sig" = TERM ] && n=n1 || n=n2
	pid=${ul_pid[$n]}
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || ul_fail "ulnetd $n exited $rc on SIG$sig"
	[ ! -e "$tmp/$n.ctl" ] || ul_fail "$n's socket file left after SIG$sig"
	grep -q 'console: stopped$' "$tmp/$n.log" || ul_fail "no 'stopped' in $n's log"
done
echo "SIGTERM and SIGINT: exit 0, socket removed"
echo "PASS"
