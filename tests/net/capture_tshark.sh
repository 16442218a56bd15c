#!/usr/bin/env bash
# A capture of ulnet's traffic, decoded by Wireshark's LNet dissector
# (needs root to capture and tshark; exits 77, "skipped", otherwise):
#
#   ulnetd A  127.0.1.1@tcp, 127.0.2.1@tcp  --- lo, port 988 ---
#   ulnetd B  127.0.1.2@tcp, 127.0.2.2@tcp
#
# A pings B and sends a short stream of 64-byte PUTs to B's perf sink;
# tshark, reading the capture on its own, must show: the ping as a GET to
# portal 0 with match bits 0x8000000000000000 and its REPLY carrying B's
# ping info (16 + 3 * 16 = 64 bytes: 0@lo and two NIs); the PUTs to
# portal 62 with the perf match bits and 64-byte payloads, and their ACKs
# with mlength 64; the right NIDs on both sides.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root to capture on lo and to bind port 988"
	exit 77
fi
if ! command -v tshark >/dev/null; then
	echo "skipped: tshark is not installed"
	exit 77
fi
: "${ULNETD:?}" "${ULNETCTL:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-capture-XXXXXX")
pids=()
cap_pid=
cleanup() {
	local p
	[ -n "$cap_pid" ] && kill "$cap_pid" 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}" $cap_pid; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	head -40 "$tmp/fields.txt" 2>/dev/null || true
	exit 1
}

# Another test may hold port 988 on these addresses: use our own.
o=$(($$ % 200 + 20))
conf() { # my octet, peer's octet
	cat <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - nid: 127.$o.1.$1@tcp
	      - nid: 127.$o.2.$1@tcp
	peer:
	  - primary nid: 127.$o.1.$2@tcp
	    Multi-Rail: True
	    peer ni:
	      - nid: 127.$o.1.$2@tcp
	      - nid: 127.$o.2.$2@tcp
	YAML
}
conf 1 2 >"$tmp/a.yaml"
conf 2 1 >"$tmp/b.yaml"

tshark -n -i lo -f "tcp port 988 and net 127.$o.0.0/16" -w "$tmp/cap.pcap" \
	2>"$tmp/tshark.log" &
cap_pid=$!
for _ in $(seq 100); do
	grep -q 'Capturing on' "$tmp/tshark.log" && break
	sleep 0.1
done

for n in a b; do
	"$ULNETD" --config "$tmp/$n.yaml" --ctl "$tmp/$n.ctl" --foreground \
		--port 988 2>"$tmp/$n.log" &
	pids+=($!)
	for _ in $(seq 100); do
		[ -S "$tmp/$n.ctl" ] && break
		sleep 0.05
	done
done
"$ULNETCTL" --ctl "$tmp/a.ctl" ping "127.$o.1.2@tcp" >/dev/null || fail "ping"
"$ULNETCTL" --ctl "$tmp/a.ctl" perf put "127.$o.1.2@tcp" --size 64 \
	--seconds 1 --inflight 1 >"$tmp/perf.yaml" || fail "perf put"
sleep 1
kill "$cap_pid"
wait "$cap_pid" 2>/dev/null || true
cap_pid=

tshark -n -r "$tmp/cap.pcap" -Y lnet -T fields -E separator=' ' \
	-E occurrence=a -E aggregator=, \
	-e lnet.msg_type -e lnet.nid.addr -e lnet.ptl_index \
	-e lnet.msg_dst_match_bits -e lnet.payload_length -e lnet.msg_length \
	>"$tmp/fields.txt" 2>/dev/null || fail "tshark could not read the capture"
[ -s "$tmp/fields.txt" ] || fail "tshark decoded no LNet message"

A1=127.$o.1.1 B1=127.$o.1.2
# msg_type nids(dest,src) portal match_bits payload_length [msg_length]
grep -Eq "^2 $B1,$A1 0 0x8000000000000000 0( |$)" "$tmp/fields.txt" ||
	fail "no ping GET from $A1 to $B1 on portal 0"
grep -Eq "^3 $A1,$B1 +64( |$)" "$tmp/fields.txt" ||
	fail "no 64-byte ping REPLY from $B1 to $A1"
grep -Eq "^1 127\.$o\.[12]\.2,127\.$o\.[12]\.1 62 0x554c504552460000 64( |$)" \
	"$tmp/fields.txt" || fail "no 64-byte perf PUT on portal 62"
grep -Eq "^0 127\.$o\.[12]\.1,127\.$o\.[12]\.2 +0x554c504552460000 0 64$" \
	"$tmp/fields.txt" || fail "no ACK with mlength 64"
for t in 0 1 2 3; do grep -m1 "^$t " "$tmp/fields.txt"; done
echo "tshark decoded $(wc -l <"$tmp/fields.txt") LNet messages with the intended fields"
echo "PASS"
