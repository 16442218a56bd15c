#!/usr/bin/env bash
# make demo: what ulnet can show today, with no root and no network.
# It grows with the project; for now it is the offline half of ulnetctl:
# the nidlist parser and the socklnd frame decoder, run on the wire
# vectors that were checked against Wireshark's LNet dissector.
set -euo pipefail
build=${1:-build/plain}
top=$(cd "$(dirname "$0")/.." && pwd)
ctl="$build/tools/ulnetctl/ulnetctl"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-demo-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Show the command as it would be typed (quoted where the shell needs it),
# then run it.
run() {
	local shown="" a
	for a in "$@"; do
		case $a in
		*[][*?\ ]*) shown+=" '$a'" ;;
		*) shown+=" $a" ;;
		esac
	done
	echo
	echo "\$ ulnetctl$shown"
	"$ctl" "$@" || echo "(exit status $?)"
}

echo "== ulnet demo =="
echo "ulnet is LNet in user space. This build has the NID library, nidlists,"
echo "the socklnd wire codec, and LNet's pathway selection with UDSP rules;"
echo "the runtime (real multi-rail nodes) is not built yet, so this demo shows"
echo "the offline tools."

echo
echo "-- nidlists: LNet's syntax for ranges of NIDs (ip2nets, fault rules)"
run debug nidlist '192.168.[1-2].[10-20/5]@tcp 10.0.0.*@o2ib1'
run debug nidlist '192.168.[1-2].[10-20/5]@tcp' 192.168.2.15@tcp
run debug nidlist '192.168.[1-2].[10-20/5]@tcp' 192.168.2.16@tcp
run debug nidlist '[1-100]@gni *@tcp' 57@gni
run debug nidlist '10.0.0.[1-5/0]@tcp'

echo
echo "-- pathway selection, dry run: node C of selection.md sends 4 PUTs to a"
echo "   Multi-Rail peer (two o2ib NIs, one tcp NI on each side): the sends"
echo "   rotate over the nets, then over the NIs of each net"
echo
echo "\$ ulnetctl debug select --config examples/select-node-c.yaml --dst 10.1.0.10@o2ib --count 4"
"$ctl" debug select --config "$top/examples/select-node-c.yaml" \
	--dst 10.1.0.10@o2ib --count 4 | grep -E 'send:|local ni|peer ni'
echo
echo "   the same with a UDSP rule \"prefer tcp\" (udsp add --src tcp --priority 0):"
{ cat "$top/examples/select-node-c.yaml"
  printf 'udsp:\n  - idx: 0\n    src: tcp\n    action:\n      priority: 0\n'; } >"$tmp/udsp.yaml"
"$ctl" debug select --config "$tmp/udsp.yaml" --dst 10.1.0.10@o2ib --count 2 |
	grep -E 'send:|local ni|peer ni'
echo
echo "   and why the first send went where it did (--explain, local NI step):"
"$ctl" debug select --config "$top/examples/select-node-c.yaml" \
	--dst 10.1.0.10@o2ib --explain | sed -n '/step: local ni/,/step: peer ni/p' | head -24

echo
echo "-- the socklnd wire: the first connection of the test vectors, decoded"
echo "   (acceptor request, V3 hellos, PUT/ACK, GET/REPLY, ping, push)"
echo
echo "\$ ulnetctl debug decode tests/vectors/frames.txt | head -60"
"$ctl" debug decode "$top/tests/vectors/frames.txt" >"$tmp/decoded.yaml"
head -60 "$tmp/decoded.yaml"
echo "... ($(wc -l <"$tmp/decoded.yaml") lines in all)"

echo
echo "-- a corrupt frame is refused with the reason (ksock type 0xc2):"
printf 'c2 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n' >"$tmp/bad.hex"
run debug decode "$tmp/bad.hex"
echo
echo "== done: 'make check' runs the tests; README.md says what comes next =="
