#!/usr/bin/env bash
# make demo: two ulnet nodes on this machine, no root needed.
#
#   node A (ulnetd)  127.0.1.1@tcp ==== 127.0.1.2@tcp  node B (ulnetd)
#                    127.0.2.1@tcp ==== 127.0.2.2@tcp
#
# Each node has two tcp NIs ("rails") on its own loopback addresses and
# no peer list: A's first PUT to B waits for discovery (a ping of B whose
# reply lists B's NIDs), after which A knows B as a Multi-Rail peer. The
# demo pings across, runs `ulnetctl selftest` (lnet_selftest's brw write:
# 1 MiB PUTs from A to B for five seconds, checked), shows how the bytes
# spread over the two rails, over time and in total, and what A
# discovered; then it stops both daemons and removes what it made, but
# for the per-rail chart (build/<tree>/demo-rails.png, with gnuplot).
# The offline tools (NID lists, selection dry run, frame decoder) follow.
set -euo pipefail
build=${1:-build/plain}
top=$(cd "$(dirname "$0")/.." && pwd)
ctl="$build/tools/ulnetctl/ulnetctl"
daemon="$build/tools/ulnetd/ulnetd"
seconds=${ULNET_DEMO_SECONDS:-5}
# An unprivileged acceptor port (988 needs root), the same on both nodes:
# each listens on its own addresses.
port=$((20000 + $$ % 20000))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-demo-XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# Show a command as it would be typed, then run it.
show() {
	echo
	echo "\$ $*"
}

node_conf() { # name, my two addresses
	cat >"$tmp/$1.yaml" <<-YAML
	net:
	  - net type: tcp
	    local NI(s):
	      - nid: $2@tcp
	      - nid: $3@tcp
	YAML
}

start_node() { # name
	"$daemon" --config "$tmp/$1.yaml" --ctl "$tmp/$1.ctl" --foreground \
		--port "$port" --accept all --src-port any 2>"$tmp/$1.log" &
	pids+=($!)
	# The socket exists before the NIs listen: wait for the log line
	# ulnetd writes once it runs (a ping sent earlier can be refused).
	for _ in $(seq 200); do
		[ -S "$tmp/$1.ctl" ] &&
			grep -q 'control socket ready' "$tmp/$1.log" && return 0
		sleep 0.05
	done
	echo "ulnetd $1 did not start:" >&2
	cat "$tmp/$1.log" >&2
	exit 1
}

echo "== ulnet demo: two multi-rail LNet nodes over TCP on loopback =="
node_conf A 127.0.1.1 127.0.2.1
node_conf B 127.0.1.2 127.0.2.2
echo
echo "node A's configuration (lnet.conf YAML, as lnetctl import reads it):"
sed 's/^/    /' "$tmp/A.yaml"
start_node A
start_node B
echo
echo "ulnetd A and B are running (acceptor port $port, accept=all because"
echo "without root the source ports are not privileged)."

show "ulnetctl --ctl A.ctl ping 127.0.1.2@tcp"
"$ctl" --ctl "$tmp/A.ctl" ping 127.0.1.2@tcp

png="$(cd "$build" && pwd)/demo-rails.png"
ctl_abs="$(cd "$(dirname "$ctl")" && pwd)/ulnetctl"
plot=()
command -v gnuplot >/dev/null && plot=(--plot "$png")
show "ulnetctl selftest run --from A.ctl --to B.ctl --concurrency 8" \
	"--seconds $seconds --text --rates rails.tsv ${plot[*]:+--plot demo-rails.png}" \
	"brw write size=1M check=simple"
echo "(${seconds} s of 1 MiB PUTs from A to B, 8 in flight, each ACKed and"
echo " checked by B; lst stat's report: [R] received, [W] sent)"
# From the daemons' directory, so that the report names them A.ctl, B.ctl.
(cd "$tmp" && "$ctl_abs" selftest run --from A.ctl --to B.ctl \
	--concurrency 8 --seconds "$seconds" --text --rates rails.tsv \
	"${plot[@]}" brw write size=1M check=simple)
echo
echo "Each rail's MiB/s, sampled every second (rails.tsv):"
awk '/^# node/ {name = $3 " " $5} /^[0-9]/ {printf "    %-22s %5.1f s %9.1f MiB/s sent\n", name, $1, $2}' \
	"$tmp/rails.tsv" | grep '^ *A\.ctl'
if [ ${#plot[@]} -gt 0 ]; then
	echo "The same as a chart: $png"
else
	echo "(install gnuplot-nox for the chart)"
fi
echo
echo "Both rails carried about half of the bytes: the first PUT waited for"
echo "discovery, which found B's two NIDs; selection then alternates the"
echo "local NIs (round robin on equal health, credits and priority) and the"
echo "peer NIs, so one node uses both interfaces toward its peer at once."

show "ulnetctl --ctl A.ctl peer show"
"$ctl" --ctl "$tmp/A.ctl" peer show

show "ulnetctl --ctl B.ctl net show --net tcp -v"
"$ctl" --ctl "$tmp/B.ctl" net show --net tcp -v |
	grep -E 'nid:|status:|send_count|recv_count' || true

echo
echo "ulnetd A's log (one line per event):"
sed -n '1,12p' "$tmp/A.log" | sed 's/^/    /'

echo
echo "== offline tools (no daemon needed) =="
show "ulnetctl debug select --config examples/select-node-c.yaml --dst 10.1.0.10@o2ib --count 4"
"$ctl" debug select --config "$top/examples/select-node-c.yaml" \
	--dst 10.1.0.10@o2ib --count 4 | grep -E 'send:|local ni|peer ni'
show "ulnetctl debug nidlist '192.168.[1-2].[10-20/5]@tcp' 192.168.2.15@tcp"
"$ctl" debug nidlist '192.168.[1-2].[10-20/5]@tcp' 192.168.2.15@tcp || true
show "ulnetctl debug decode tests/vectors/frames.txt | head -24"
# sed reads to the end: head would close the pipe early and, under
# pipefail, a decoder killed by SIGPIPE would fail the demo.
"$ctl" debug decode "$top/tests/vectors/frames.txt" | sed -n '1,24p'
echo
echo "== done: the daemons are stopped and $tmp is removed =="
