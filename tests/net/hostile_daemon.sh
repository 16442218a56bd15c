#!/usr/bin/env bash
# A running ulnetd under hostile raw TCP clients, on loopback (no root):
#
#   ulnetd n1  127.<o>.1.1@tcp --\
#   ulnetd n3  127.<o>.1.3@tcp ---+--> ulnetd n2  127.<o>.1.2@tcp, port <p>
#   hostile.py (claims 127.<o>.9.1@tcp) --/      (the target)
#
# Checked, as an operator of n2 would see it:
#  1. 30 slow clients at once (10 silent, 10 sending half a hello then
#     nothing, 10 trickling one byte a second) are each disconnected by
#     the 5 s handshake bound, one "timed out" log line each, while a
#     node n2 has never met (n3) pings n2 through a new handshake and n1
#     pings it too;
#  2. 200 fast bad clients (bad magic, hello without acceptor request,
#     bad acceptor version, a NID that is not n2's, a hello with 1000
#     legacy IPs, a reset half-way, and after a real handshake: payload
#     length 0xfffffff0 and 1 MiB + 1, bad ksock type, bad LNet type) are
#     each disconnected at once with the answer wire.md prescribes and
#     one log line naming why;
#  3. afterwards n2 still answers pings, its NI is up, it holds as many
#     file descriptors as before and its RSS grew by less than 4 MiB
#     (not judged under ASan, whose quarantine keeps freed memory);
#  4. SIGTERM stops n2 with status 0 (under ASan: no leak at exit).
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || ul_skip "python3 is not installed"
command -v ss >/dev/null || ul_skip "ss (iproute2) is not installed"
ul_setup hostile
o=$ul_octet
port=$ul_port
hostile=$(dirname "$0")/hostile.py
for n in 1 2 3; do
	cat >"$tmp/n$n.yaml" <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - nid: 127.$o.1.$n@tcp
	YAML
done
for n in n2 n1 n3; do
	ul_daemon_start "$n" --port "$port" --accept all --src-port any
done
pid2=${ul_pid[n2]}
ping_n2() { # from
	"$ULNETCTL" --ctl "$tmp/$1.ctl" ping "127.$o.1.2@tcp" >"$tmp/ping.out" \
		2>"$tmp/ping.err" || ul_fail "ping from $1 to n2 failed"
	grep -q "primary nid: 127.$o.1.2@tcp" "$tmp/ping.out" ||
		ul_fail "ping from $1 does not name n2"
}
# n2's sockets toward the hostile clients (they connect from 127.0.0.1).
hostile_sockets() {
	ss -Htanp state all "( sport = :$port )" dst 127.0.0.1 |
		grep "pid=$pid2," || true
}
no_hostile_sockets() { [ -z "$(hostile_sockets)" ]; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid2/status"; }
nfds() { find "/proc/$pid2/fd" -mindepth 1 | wc -l; }
logged() { grep -c -- "$1" "$tmp/n2.log" || true; }
hostile() { # mode, args...
	python3 "$hostile" "127.$o.1.2" "$port" "127.$o.1.2" "127.$o.9.1" "$@"
}

ping_n2 n1
# Warm up (the allocator, the fake peer's entry), then take the baseline.
hostile fast 30 >"$tmp/warm.out" || ul_fail "warm-up clients"
rss0=$(rss)
timed0=$(logged 'timed out')

# 1. Slow clients, all at once, while n3 and n1 ping.
hostile slow 10 "$tmp/slow.ready" >"$tmp/slow.out" 2>"$tmp/slow.err" &
slow_pid=$!
ul_track "$slow_pid"
ul_wait_for 200 test -e "$tmp/slow.ready" ||
	ul_fail "the slow clients could not all connect"
# (The socket check below must see them while they are there.)
[ "$(hostile_sockets | wc -l)" -ge 30 ] ||
	ul_fail "ss shows $(hostile_sockets | wc -l) of n2's sockets to 30 clients"
ping_n2 n3
grep -q "conn to 127.$o.1.3@tcp up" "$tmp/n2.log" ||
	ul_fail "n3's ping did not make a new connection"
ping_n2 n1
wait "$slow_pid" ||
	ul_fail "a slow client was not disconnected: $(cat "$tmp/slow.err")"
timed=$(($(logged 'timed out') - timed0))
[ "$timed" = 30 ] || ul_fail "$timed 'timed out' lines for 30 slow clients"
ul_wait_for 50 no_hostile_sockets ||
	ul_fail "n2 still holds sockets of slow clients: $(hostile_sockets)"
echo "30 slow clients disconnected by the handshake bound; pings went on"
fds0=$(nfds)

# 2. Fast bad clients: 200, 20 of each kind.
declare -A before
reasons=('bad acceptor magic' 'hello without acceptor request'
	'unknown acceptor version' 'the requested NID is not an NI here'
	'nips 1000 > 16' 'payload_length 4294967280 > LNET_MTU'
	'payload_length 1048577 > LNET_MTU' 'bad type 0x12345678'
	'bad type 77,')
for r in "${reasons[@]}"; do before[$r]=$(logged "$r"); done
hostile fast 200 >"$tmp/fast.out" 2>"$tmp/fast.err" ||
	ul_fail "a bad client was not treated as expected: $(cat "$tmp/fast.err")"
for r in "${reasons[@]}"; do
	n=$(($(logged "$r") - ${before[$r]}))
	[ "$n" = 20 ] || ul_fail "$n log lines '$r' for 20 such clients"
done
echo "200 bad clients disconnected at once, one log line each"

# 3. n2 is unharmed.
ping_n2 n1
ping_n2 n3
"$ULNETCTL" --ctl "$tmp/n2.ctl" net show --net tcp >"$tmp/net.out" ||
	ul_fail "net show on n2"
grep -q 'status: up' "$tmp/net.out" || ul_fail "n2's NI is not up"
ul_wait_for 50 no_hostile_sockets ||
	ul_fail "n2 still holds sockets of bad clients: $(hostile_sockets)"
fds_back() { [ "$(nfds)" -le "$fds0" ]; }
ul_wait_for 50 fds_back ||
	ul_fail "n2 holds $(nfds) file descriptors, $fds0 before the clients"
rss1=$(rss)
echo "n2 RSS: ${rss0} kB before, ${rss1} kB after 230 hostile clients"
if ul_asan; then
	echo "ulnetd built with ASan (its quarantine holds freed memory):" \
		"RSS not judged; LeakSanitizer judges at exit"
else
	[ $((rss1 - rss0)) -lt 4096 ] || ul_fail "n2's RSS grew by $((rss1 - rss0)) kB"
fi
# 4. n2 stops cleanly (under sanitizers: no leak, no error at exit).
kill -TERM "$pid2"
rc=0
wait "$pid2" || rc=$?
[ "$rc" = 0 ] || ul_fail "n2 exited $rc on SIGTERM"
grep -q 'Sanitizer' "$tmp/n2.log" && ul_fail "a sanitizer report in n2's log"
echo "PASS"
