#!/usr/bin/env bash
# Bench (figures, not verdicts): one ulnetd holding many peers (default
# 100,000, 4 NIDs each: two on tcp, two on tcp1), driven the way an
# operator drives it, through ulnetctl over the control socket. Prints:
#   - the import of the peers (lnetctl import of a peer: section) and the
#     daemon's resident memory per peer (VmRSS after minus before);
#   - `peer show` and `peer show -v` (the whole list, printed);
#   - one UDSP rule that reaches every peer NI (`udsp add --dst tcp1
#     --priority 1`: applied to every peer NI at once) and its deletion;
#   - `export --backup` of the whole configuration, and its import into a
#     second, fresh ulnetd (the backup restored).
# Goals (issue 15): <= 1 KiB per peer, peer show <= 2 s, one rule applied
# <= 200 ms, backup and import <= 5 s each. Times are the wall time of
# the ulnetctl command as the operator waits for it.
#
#   scripts/bench_peers.sh [BUILD_DIR] [NPEERS]
set -euo pipefail
build=${1:-build/bench}
npeers=${2:-100000}
ulnetd="$build/tools/ulnetd/ulnetd"
ulnetctl="$build/tools/ulnetctl/ulnetctl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-bench-peers-XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
port=$((43000 + $$ % 10000))

# node N: its own NIs on tcp and tcp1, its control socket ctlN
start_node() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n      - nid: 127.1.41.%s@tcp\n  - net type: tcp1\n    local NI(s):\n      - nid: 127.1.42.%s@tcp1\n' \
		"$1" "$1" >"$tmp/node$1.yaml"
	"$ulnetd" --foreground --config "$tmp/node$1.yaml" --ctl "$tmp/ctl$1" \
		--port "$((port + $1))" --accept all --src-port any \
		2>"$tmp/log$1" &
	pids+=($!)
	for _ in $(seq 100); do [ -S "$tmp/ctl$1" ] && break; sleep 0.1; done
	[ -S "$tmp/ctl$1" ] || { echo "bench_peers: ulnetd $1 did not start" >&2; cat "$tmp/log$1" >&2; exit 1; }
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# seconds (3 decimals) that "$@" took, its output to $tmp/out
timed() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >"$tmp/out" 2>"$tmp/err" || {
		echo "bench_peers: failed: $*" >&2
		head -5 "$tmp/err" "$tmp/out" >&2
		exit 1
	}
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000000))" | awk '{printf "%.3f", $1 / 1000}'
}
goal() { # figure limit: "met" or "MISSED"
	awk -v f="$1" -v l="$2" 'BEGIN { print (f <= l) ? "met" : "MISSED" }'
}

{
	echo "peer:"
	for ((i = 0; i < npeers; i++)); do
		a=$((i / 250 % 250)) b=$((i % 250 + 1)) c=$((i / 62500 + 1))
		printf '    - primary nid: 10.%d.%d.%d@tcp\n' "$a" "$b" "$c"
		printf '      Multi-Rail: True\n      peer ni:\n'
		printf '        - nid: 10.%d.%d.%d@tcp\n' "$a" "$b" "$c"
		printf '        - nid: 10.%d.%d.%d@tcp\n' "$a" "$b" "$((c + 10))"
		printf '        - nid: 10.%d.%d.%d@tcp1\n' "$a" "$b" "$c"
		printf '        - nid: 10.%d.%d.%d@tcp1\n' "$a" "$b" "$((c + 10))"
	done
} >"$tmp/peers.yaml"

echo "bench_peers: $npeers peers of 4 NIDs (2 on tcp, 2 on tcp1) on one ulnetd ($build)"
start_node 1
p1=${pids[0]}
rss0=$(rss_kb "$p1")
t_import=$(timed "$ulnetctl" --ctl "$tmp/ctl1" import "$tmp/peers.yaml")
rss1=$(rss_kb "$p1")
per_peer=$(((rss1 - rss0) * 1024 / npeers))
t_show=$(timed "$ulnetctl" --ctl "$tmp/ctl1" peer show)
nprim=$(grep -c 'primary nid:' "$tmp/out" || true)
# -v goes in pages (ctl/proto.h, CURSOR); an ulnetd that refuses it
# ("reply too large": one reply) is said and the bench goes on
if t_show_v=$(timed "$ulnetctl" --ctl "$tmp/ctl1" peer show -v 2>/dev/null); then
	show_v_note="($(grep -c 'primary nid:' "$tmp/out" || true) peers, $(wc -c <"$tmp/out") bytes)"
else
	t_show_v="-" show_v_note="refused: $(grep -o 'descr: .*' "$tmp/out" "$tmp/err" | head -1 | sed 's/.*descr: //')"
fi
t_rule=$(timed "$ulnetctl" --ctl "$tmp/ctl1" udsp add --dst tcp1 --priority 1)
"$ulnetctl" --ctl "$tmp/ctl1" peer show -v 4 --nid 10.0.1.1@tcp >"$tmp/one"
rule_seen=$(grep -c 'net priority: 1$' "$tmp/one" || true)
t_rule_del=$(timed "$ulnetctl" --ctl "$tmp/ctl1" udsp del --idx 0)
t_backup=$(timed "$ulnetctl" --ctl "$tmp/ctl1" export --backup)
cp "$tmp/out" "$tmp/backup.yaml"
backup_peers=$(grep -c 'primary nid:' "$tmp/backup.yaml" || true)
start_node 2
t_restore=$(timed "$ulnetctl" --ctl "$tmp/ctl2" import "$tmp/backup.yaml")
"$ulnetctl" --ctl "$tmp/ctl2" peer show >"$tmp/show2"
restored=$(grep -c 'primary nid:' "$tmp/show2" || true)

printf '  %-44s %10s  %s\n' "" "figure" "goal"
printf '  %-44s %8s s\n' "import of the peers (ulnetctl import)" "$t_import"
printf '  %-44s %8s B  <= 1024 B: %s (RSS %s -> %s kB)\n' "memory per peer (VmRSS growth / peers)" \
	"$per_peer" "$(goal "$per_peer" 1024)" "$rss0" "$rss1"
printf '  %-44s %8s s  <= 2 s: %s (%s peers listed)\n' "peer show" "$t_show" "$(goal "$t_show" 2)" "$nprim"
printf '  %-44s %8s s  %s\n' "peer show -v" "$t_show_v" "$show_v_note"
printf '  %-44s %8s s  <= 0.2 s: %s (peer NIs of 10.0.1.1@tcp with net priority 1: %s of 2)\n' \
	"udsp add --dst tcp1 --priority 1" "$t_rule" "$(goal "$t_rule" 0.2)" "$rule_seen"
printf '  %-44s %8s s\n' "udsp del --idx 0" "$t_rule_del"
printf '  %-44s %8s s  <= 5 s: %s (%s peers, %s bytes)\n' "export --backup" "$t_backup" \
	"$(goal "$t_backup" 5)" "$backup_peers" "$(wc -c <"$tmp/backup.yaml")"
printf '  %-44s %8s s  <= 5 s: %s (%s peers back)\n' "import of the backup, fresh ulnetd" "$t_restore" \
	"$(goal "$t_restore" 5)" "$restored"
