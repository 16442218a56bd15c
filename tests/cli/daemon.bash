# Sourced by the tests/cli/*.sh scripts that run ulnetctl against a live
# ulnetd (not a test itself). Source lib.bash first. On loopback, no root:
#
#   cli_daemon NAME [CONFIG-YAML [ulnetd options...]]
#	starts ulnetd NAME with that lnet.conf (default: no nets; the word
#	--no-config: no --config at all, so ulnetd's default net), socket
#	$TMP/NAME.ctl, log $TMP/NAME.log, a port of its own, and waits until
#	it is ready; $ULNET_CTL then points at it (ulnetctl's default).
#   cli_stop NAME   SIGTERM, wait, KILL after 10 s.
#
# Every daemon started is stopped when the script exits, also on failure,
# before lib.bash's temporary directory goes. The NIDs are fixed
# (127.1.x.y, so expected files are plain text). All daemons of a script
# share one port (socklnd connects to a peer's NID at the node's own
# port; each daemon binds its own NIDs' addresses), taken from the PID so
# that concurrent scripts do not meet.
: "${ULNETD:?ULNETD must name the ulnetd binary}"

declare -A cli_pids=()
cli_port=$((20000 + $$ % 20000))

cli_stop() { # name
	local p=${cli_pids[$1]:-} _
	[ -n "$p" ] || return 0
	kill -TERM "$p" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	unset "cli_pids[$1]"
}

cli_cleanup() {
	local n
	for n in "${!cli_pids[@]}"; do cli_stop "$n"; done
	rm -rf "$TMP"
}
trap cli_cleanup EXIT

cli_daemon() { # name [config-text [ulnetd options...]]
	local name=$1 conf=${2:-} _
	shift
	[ $# -gt 0 ] && shift
	local config=(--config "$TMP/$name.yaml")
	printf '%s\n' "$conf" >"$TMP/$name.yaml"
	[ "$conf" = --no-config ] && config=()
	"$ULNETD" "${config[@]}" --ctl "$TMP/$name.ctl" \
		--foreground --port "$cli_port" --accept all \
		--src-port any "$@" 2>"$TMP/$name.log" &
	cli_pids[$name]=$!
	for _ in $(seq 200); do
		if ! kill -0 "${cli_pids[$name]}" 2>/dev/null; then
			echo "FAIL: ulnetd $name exited at start:"
			cat "$TMP/$name.log"
			exit 1
		fi
		if [ -S "$TMP/$name.ctl" ] &&
			grep -q 'control socket ready' "$TMP/$name.log"; then
			export ULNET_CTL="$TMP/$name.ctl"
			return 0
		fi
		sleep 0.1
	done
	echo "FAIL: ulnetd $name did not start"
	cat "$TMP/$name.log"
	exit 1
}
