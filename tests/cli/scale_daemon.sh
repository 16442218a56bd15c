#!/usr/bin/env bash
# A configuration the size of a real server's: 5,000 configured peers of
# two NIDs each (more items than one YAML sequence could hold before, and
# a `peer show -v 4` of 17 MB, which ulnetctl asks in two pages of
# 16 MiB: every peer once, none missed, the last one there).
# import takes the file, every show answers in full, and export --backup
# started again as another ulnetd's --config exports the same bytes; an
# import stopped for longer than the server's idle timeout carries on.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

npeers=5000
conf='net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.12.1@tcp'
{
	echo "peer:"
	for ((i = 0; i < npeers; i++)); do
		a=$((i / 250)) b=$((i % 250 + 1))
		printf '    - primary nid: 10.%d.%d.1@tcp\n' "$a" "$b"
		printf '      Multi-Rail: True\n      peer ni:\n'
		printf '        - nid: 10.%d.%d.1@tcp\n' "$a" "$b"
		printf '        - nid: 10.%d.%d.2@tcp\n' "$a" "$b"
	done
} >"$TMP/peers.yaml"

cli_daemon a "$conf" --cpts 2
expect import_5000_peers 0 "" "" -- "$ULNETCTL" import "$TMP/peers.yaml"

# Counts of what a full show lists (stdout is kept aside: it is large).
count() { # name want regex
	local got
	got=$(grep -cE "$3" "$TMP/show")
	if [ "$got" = "$2" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: $got lines match '$3', want $2"
		failed=$((failed + 1))
	fi
}
for v in 0 4; do
	rc=0
	"$ULNETCTL" peer show -v "$v" >"$TMP/show" 2>"$TMP/err" || rc=$?
	check_result "peer_show_v$v" 0 "*" "" "$rc"
	count "peer_show_v${v}_peers" "$npeers" '^-? +primary nid: 10\.'
	count "peer_show_v${v}_nis" $((2 * npeers)) '^ +- +nid: 10\.'
done
count peer_show_v4_last_peer 1 'primary nid: 10\.19\.250\.1@tcp$'
rc=0
"$ULNETCTL" peer list >"$TMP/show" 2>"$TMP/err" || rc=$?
check_result peer_list 0 "*" "" "$rc"
count peer_list_peers "$npeers" 'nid: 10\.[0-9.]+\.1@tcp$'

rc=0
"$ULNETCTL" export --backup >"$TMP/backup.yaml" 2>"$TMP/err" || rc=$?
check_result export_backup 0 "*" "" "$rc"
cli_stop a
cli_daemon b "$(cat "$TMP/backup.yaml")" --cpts 2
rc=0
"$ULNETCTL" export --backup >"$TMP/backup2.yaml" 2>"$TMP/err" || rc=$?
check_result export_again 0 "*" "" "$rc"
if cmp -s "$TMP/backup.yaml" "$TMP/backup2.yaml"; then
	passed=$((passed + 1))
else
	echo "FAIL backup_round_trip: the exports differ:"
	diff "$TMP/backup.yaml" "$TMP/backup2.yaml" | head -20
	failed=$((failed + 1))
fi

# import keeps one connection for all its requests. Stopped mid-import
# for longer than the server waits on an idle client (5 s), it finds the
# connection closed at its next request and sends that request again on
# a new one: every peer arrives, none twice, exit 0. (--old-api sends a
# request a peer, so the stop lands mid-way; the default import sends
# the 5,000 in five batches, too fast to stop, and retries the same way.)
cli_stop b
cli_daemon c "$conf"
"$ULNETCTL" import --old-api "$TMP/peers.yaml" >"$TMP/out" 2>"$TMP/err" &
imp=$!
for _ in $(seq 500); do
	"$ULNETCTL" peer list 2>/dev/null | grep -q 'nid: 10\.' && break
	sleep 0.01
done
kill -STOP "$imp"
"$ULNETCTL" peer list >"$TMP/show" 2>&1 || true
have=$(grep -cE 'nid: 10\.[0-9.]+\.1@tcp$' "$TMP/show" || true)
if [ "$have" -gt 0 ] && [ "$have" -lt "$npeers" ]; then
	passed=$((passed + 1))
else
	echo "FAIL import_stopped_midway: $have of $npeers peers at the stop"
	failed=$((failed + 1))
fi
for _ in $(seq 100); do
	grep -q 'no whole request after 5000 ms, closing' "$TMP/c.log" && break
	sleep 0.1
done
kill -CONT "$imp"
rc=0
wait "$imp" || rc=$?
check_result import_stopped_5s 0 "" "" "$rc"
check import_stopped_idle_closed 'no whole request after 5000 ms, closing' "$TMP/c.log"
rc=0
"$ULNETCTL" peer list >"$TMP/show" 2>"$TMP/err" || rc=$?
check_result peer_list_after_stop 0 "*" "" "$rc"
count import_stopped_all_peers "$npeers" 'nid: 10\.[0-9.]+\.1@tcp$'
finish
