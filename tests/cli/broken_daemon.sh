#!/usr/bin/env bash
# Every command that talks to the instance, against no daemon (missing
# socket), a killed one (stale socket file), and a "daemon" that answers
# garbage: each exits non-zero, prints nothing on stdout, and says on
# stderr, in error YAML, what went wrong (errno and the socket).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

cmds=(
	"net show" "net add --nid 127.1.10.1@tcp"
	"net del --net tcp" "net set --all --health 500"
	"peer show" "peer list" "peer add --prim_nid 127.1.10.2@tcp"
	"peer del --prim_nid 127.1.10.2@tcp" "peer set --all --health 1"
	"route show" "route add --net tcp9 --gateway 127.1.10.3@tcp"
	"route del --net tcp9 --gateway 127.1.10.3@tcp" "routing show"
	"set discovery 0" "global show" "stats show" "stats reset"
	"udsp show" "udsp add --src tcp --priority 1" "udsp del --all"
	"fault drop show" "fault drop add -s * -d * -r 1"
	"fault delay reset" "lnet configure" "lnet unconfigure"
	"debug recovery --local" "cpt-of-nid 127.1.10.4@tcp"
	"ping 127.1.10.5@tcp" "discover 127.1.10.5@tcp" "export"
	# files LNet would refuse without a word: no daemon is still said
	"import $TMP/global.yaml" "import $TMP/udsp.yaml"
	"import --old-api $TMP/global.yaml"
)
printf 'global:\n    retry_count: 3\n' >"$TMP/global.yaml"
printf 'udsp:\n  - idx: 0\n    src: tcp\n    priority: 3\n' >"$TMP/udsp.yaml"

# try LABEL SOCKET: every command fails cleanly against SOCKET.
try() {
	local label=$1 sock=$2 c rc
	set -f # the commands' "*" are NIDs, not globs
	for c in "${cmds[@]}"; do
		rc=0
		# shellcheck disable=SC2086 # the words of the command
		timeout 60 "$ULNETCTL" --ctl "$sock" $c >"$TMP/out" 2>"$TMP/err" ||
			rc=$?
		if [ "$c" = export ]; then
			# lnetctl's export always exits 0 and reports per section
			[ "$rc" = 0 ] && [ -s "$TMP/err" ] && grep -q "$sock" "$TMP/err"
		elif [ "${c#fault}" != "$c" ]; then
			# lnetctl's fault commands say "failed to ..." on stdout
			[ "$rc" != 0 ] && [ "$rc" != 124 ] &&
				grep -q '^failed to ' "$TMP/out" &&
				grep -q 'errno: -' "$TMP/err"
		else
			[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ ! -s "$TMP/out" ] &&
				[ -s "$TMP/err" ] && grep -q 'errno: -' "$TMP/err" &&
				grep -q "$sock\|ulnetd" "$TMP/err"
		fi
		if [ $? = 0 ]; then
			passed=$((passed + 1))
		else
			echo "FAIL $label: '$c': exit $rc"
			echo "-- stdout:"; cat "$TMP/out"
			echo "-- stderr:"; cat "$TMP/err"
			failed=$((failed + 1))
		fi
	done
	set +f
}

try missing "$TMP/missing.ctl"

cli_daemon dead ""
kill -KILL "${cli_pids[dead]}"
wait "${cli_pids[dead]}" 2>/dev/null || true
unset "cli_pids[dead]"
try killed "$TMP/dead.ctl"

python3 - "$TMP/junk.ctl" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(64)
while True:
    c, _ = s.accept()
    try:
        c.recv(65536)
        c.sendall(b"ULCT\x01\x00garbage that is not a reply" + os.urandom(64))
    except OSError:
        pass
    c.close()
PY
junk=$!
cli_pids[junk]=$junk
for _ in $(seq 100); do [ -S "$TMP/junk.ctl" ] && break; sleep 0.1; done
try garbage "$TMP/junk.ctl"
finish
