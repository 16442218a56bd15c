#!/usr/bin/env bash
# ulnetd as a systemd service (dist/ulnetd.service.in):
#  - the unit, configured for this build's ulnetd, passes
#    `systemd-analyze verify` (man pages aside: they are not installed
#    here) and says Type=notify, RuntimeDirectory=ulnet and the
#    hardening it promises;
#  - ulnetd run as the service manager runs it (NOTIFY_SOCKET set) sends
#    READY=1 once its control socket takes commands (ulnetctl net show
#    answers right after it, no wait) and STOPPING=1 on SIGTERM. A small
#    python3 listener stands in for systemd.
# Skips (77) without systemd-analyze; the notify part needs an ulnetd
# built with libsystemd (scripts/bootstrap.sh installs libsystemd-dev).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"
: "${ULNET_BUILD:?ULNET_BUILD must name the build tree}"

unit="$ULNET_BUILD/tools/ulnetd/verify/ulnetd.service"
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze not found (apt-get install systemd)"
	exit 77
fi

if out=$(systemd-analyze verify --man=no "$unit" 2>&1) && [ -z "$out" ]; then
	passed=$((passed + 1))
else
	echo "FAIL verify: systemd-analyze verify says:"
	echo "$out"
	failed=$((failed + 1))
fi
for line in '^Type=notify$' '^RuntimeDirectory=ulnet$' \
	'^ExecStart=.*/ulnetd --foreground \$ULNETD_OPTS$' \
	'^NoNewPrivileges=yes$' '^ProtectSystem=strict$' \
	'^RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK$' \
	'^CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_NET_ADMIN CAP_CHOWN$'; do
	check "unit $line" "$line" "$unit"
done

if ! ldd "$ULNETD" | grep -q libsystemd; then
	echo "SKIP notify: this ulnetd was built without libsystemd"
	echo "service: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

# The service manager's side: collect what ulnetd says, in order, until
# STOPPING=1 (or 60 s). It answers on fd 3 when READY=1 came.
notify="$TMP/notify"
python3 - "$notify" >"$TMP/notes" 2>&1 3>"$TMP/ready" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
ready = os.fdopen(3, "w")
while True:
    try:
        msg = s.recv(4096).decode()
    except socket.timeout:
        print("TIMEOUT", flush=True)
        break
    print(msg.replace("\n", " | "), flush=True)
    if "READY=1" in msg:
        ready.write("ready\n")
        ready.flush()
    if "STOPPING=1" in msg:
        break
EOF
listener=$!
for _ in $(seq 100); do [ -S "$notify" ] && break; sleep 0.1; done

printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.1.9.1@tcp\n' \
	>"$TMP/svc.yaml"
NOTIFY_SOCKET="$notify" "$ULNETD" --foreground --config "$TMP/svc.yaml" \
	--ctl "$TMP/svc.ctl" --port "$cli_port" --accept all --src-port any \
	2>"$TMP/svc.log" &
cli_pids[svc]=$!
# READY=1 is the event waited for (not a time: 60 s at most).
for _ in $(seq 600); do
	grep -q ready "$TMP/ready" && break
	kill -0 "${cli_pids[svc]}" 2>/dev/null || break
	sleep 0.1
done
check ready_sent '^READY=1 \| STATUS=running; control socket ready$' "$TMP/notes"
# Ready means ready: the control socket answers at once.
expect ready_means_ready 0 "*" "" -- "$ULNETCTL" --ctl "$TMP/svc.ctl" net show
check ready_net '127\.1\.9\.1@tcp'
cli_stop svc
wait "$listener" 2>/dev/null || true
check stopping_sent '^STOPPING=1$' "$TMP/notes"
if grep -q TIMEOUT "$TMP/notes"; then
	echo "FAIL: the listener timed out:"
	cat "$TMP/notes" "$TMP/svc.log"
	failed=$((failed + 1))
fi

echo "service: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
