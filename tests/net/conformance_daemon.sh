#!/usr/bin/env bash
# Kernel-peer conformance (issue 16): tests/net/kpeer.py plays a kernel
# socklnd node against a running ulnetd on loopback (no root) and checks
# ulnetd's bytes and reactions against what socklnd_cb.c and socklnd.c
# do: version negotiation (V2 and an unknown version), passive set-up of
# each connection type, a ping answered both ways, zero-copy ACK request
# and reply, keepalives both ways, no dial-back to a peer whose
# connections carry, a peer restart, a protocol error closing the
# siblings, active set-up of CONTROL, BULK_IN and BULK_OUT, and a
# connection race lost by the lower NID. What only a kernel node can
# show is listed in README.md ("Kernel peers").
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || ul_skip "python3 is not installed"
ul_setup conformance
o=$ul_octet
printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.%s.1.2@tcp\n' \
	"$o" >"$tmp/u.yaml"
ul_daemon_start u --port "$ul_port" --accept all --src-port any \
	--param ksocklnd.keepalive=2
ULNET_CTL=$tmp/u.ctl ULNETCTL=$ULNETCTL timeout 300 \
	python3 "$(dirname "$0")/kpeer.py" "127.$o.1.2" "$ul_port" \
	>"$tmp/kpeer.out" 2>"$tmp/kpeer.err" || {
	cat "$tmp/kpeer.out"
	ul_fail "kernel-peer conformance: $(tail -1 "$tmp/kpeer.out")"
}
cat "$tmp/kpeer.out"
grep -q 'Sanitizer' "$tmp/u.log" && ul_fail "a sanitizer report in ulnetd's log"
echo "PASS"
