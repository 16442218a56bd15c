# Shared helpers of the tests/net/*.sh scripts; sourced, not a test itself
# (only *.sh files become ctest entries).
#
# A script sets `set -euo pipefail`, sources this file, then calls
# ul_setup NAME: it gets $tmp (a private directory), a trap that stops
# every process it registered with ul_track (TERM, then KILL after a
# bound), runs the script's own ul_cleanup_extra if it defined one (to
# delete namespaces) and removes $tmp, also when the script fails.

: "${ULNETD:?set ULNETD to the ulnetd binary}"
: "${ULNETCTL:?set ULNETCTL to the ulnetctl binary}"

ul_pids=()
# shellcheck disable=SC2034 # read by the scripts
declare -A ul_pid=()
tmp=

ul_track() { # pid...
	ul_pids+=("$@")
}

# Stop one process: TERM, wait up to 10 s for it to go, then KILL.
ul_stop() { # pid
	local p=$1 _
	kill -TERM "$p" 2>/dev/null || return 0
	for _ in $(seq 100); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

ul_cleanup() {
	local p
	set +e
	for p in "${ul_pids[@]}"; do ul_stop "$p"; done
	if declare -F ul_cleanup_extra >/dev/null; then
		ul_cleanup_extra
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
}

ul_setup() { # name
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-$1-$$-XXXXXX")
	trap ul_cleanup EXIT
	trap 'exit 130' INT TERM
}

# Print why, the tail of every log and output file in $tmp, and fail.
ul_fail() {
	local f
	echo "FAIL: $*"
	for f in "$tmp"/*.log "$tmp"/*.out "$tmp"/*.err; do
		[ -s "$f" ] || continue
		echo "== ${f##*/}"
		tail -20 "$f"
	done
	exit 1
}

# Skip the whole script (ctest shows "skipped" for 77) with one reason.
ul_skip() {
	echo "skipped: $*"
	exit 77
}

ul_need_root() { # what for
	[ "$(id -u)" = 0 ] || ul_skip "needs root $*"
}

# Poll a command (up to $1 tenths of a second) until it succeeds.
ul_wait_for() { # tenths, command...
	local n=$1 _
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# An octet for the 127.<o>.x.y addresses and a port, both from the PID,
# so that concurrent runs of the same script do not meet.
# shellcheck disable=SC2034 # both used by the scripts
ul_octet=$(($$ % 200 + 20))
# shellcheck disable=SC2034
ul_port=$((20000 + $$ % 20000))

# Start ulnetd NAME (config $tmp/NAME.yaml, socket $tmp/NAME.ctl, log
# $tmp/NAME.log) with the extra options given, then those of
# UL_DAEMON_ARGS (words), optionally inside a namespace (UL_NETNS=...),
# and wait until it says it is ready. The pid lands in ${ul_pid[NAME]}.
ul_daemon_start() { # name, ulnetd options...
	local name=$1 pid extra
	shift
	read -r -a extra <<<"${UL_DAEMON_ARGS:-}"
	set -- "$@" ${extra[@]+"${extra[@]}"}
	if [ -n "${UL_NETNS:-}" ]; then
		ip netns exec "$UL_NETNS" "$ULNETD" --config "$tmp/$name.yaml" \
			--ctl "$tmp/$name.ctl" --foreground "$@" \
			2>"$tmp/$name.log" &
	else
		"$ULNETD" --config "$tmp/$name.yaml" --ctl "$tmp/$name.ctl" \
			--foreground "$@" 2>"$tmp/$name.log" &
	fi
	pid=$!
	ul_track "$pid"
	# shellcheck disable=SC2034 # read by the scripts
	ul_pid[$name]=$pid
	ul_wait_for 200 ul_daemon_ready "$name" "$pid" ||
		ul_fail "ulnetd $name did not start"
}

ul_daemon_ready() { # name, pid
	kill -0 "$2" 2>/dev/null || ul_fail "ulnetd $1 exited at start"
	[ -S "$tmp/$1.ctl" ] && grep -q 'control socket ready' "$tmp/$1.log"
}

# True when ulnetd was built with AddressSanitizer: its quarantine keeps
# freed memory resident, so RSS bounds do not apply.
ul_asan() {
	grep -qa __asan_init "$ULNETD"
}

# YAML checks: ul_yaml_ok FILE LABEL keeps a copy of FILE to be checked
# later; ul_yaml_check_all loads every copy in one python3 run (one
# python3 start per check would cost seconds) and fails naming the first
# that is not YAML. Without python3-yaml a structural check stands in:
# top-level keys at column 0, no tabs.
ul_yaml_n=0
ul_yaml_ok() { # file, label
	mkdir -p "$tmp/yaml"
	ul_yaml_n=$((ul_yaml_n + 1))
	cp "$1" "$tmp/yaml/$(printf %03d "$ul_yaml_n") ${2//\//_}"
}

ul_yaml_check_all() {
	local f bad
	[ -d "$tmp/yaml" ] || return 0
	if python3 -c 'import yaml' 2>/dev/null; then
		bad=$(python3 -c 'import sys, yaml
for f in sorted(sys.argv[1:]):
    try:
        list(yaml.safe_load_all(open(f)))
    except yaml.YAMLError as e:
        print(f); break' "$tmp/yaml"/*)
	else
		bad=
		for f in "$tmp/yaml"/*; do
			[ ! -s "$f" ] && continue
			if ! grep -q '^[a-z-]' "$f" || grep -q $'\t' "$f"; then
				bad=$f
				break
			fi
		done
	fi
	if [ -n "$bad" ]; then
		echo "== not YAML: ${bad##*/}"
		cat "$bad"
		ul_fail "output of '${bad##*/}' is not YAML"
	fi
	echo "$ul_yaml_n outputs checked as YAML"
	rm -rf "$tmp/yaml"
	ul_yaml_n=0
}

# ul_rails_lab NSA NSB: two network namespaces joined by 4 veth rails,
# uaK in NSA (198.18.K.1/24) facing ubK in NSB (198.18.K.2/24), all up.
# The caller's ul_cleanup_extra deletes the namespaces.
ul_rails_lab() {
	local a=$1 b=$2 k
	ip netns add "$a"
	ip netns add "$b"
	for k in 0 1 2 3; do
		ip link add "ua$k-$$" netns "$a" type veth peer name "ub$k-$$" \
			netns "$b"
		ip -n "$a" link set "ua$k-$$" name "ua$k"
		ip -n "$b" link set "ub$k-$$" name "ub$k"
		ip -n "$a" addr add "198.18.$k.1/24" dev "ua$k"
		ip -n "$b" addr add "198.18.$k.2/24" dev "ub$k"
		ip -n "$a" link set "ua$k" up
		ip -n "$b" link set "ub$k" up
	done
	ip -n "$a" link set lo up
	ip -n "$b" link set lo up
}

# ul_rails_conf PREFIX OCTET: the lnet.conf of one end of ul_rails_lab:
# a tcp NI on each of PREFIX0..3, and the other end (198.18.K.OCTET) as a
# Multi-Rail peer.
ul_rails_conf() {
	local k
	echo "net:"
	echo "  - net type: tcp"
	echo "    local NI(s):"
	for k in 0 1 2 3; do
		printf '      - interfaces:\n          0: %s%d\n' "$1" "$k"
	done
	echo "peer:"
	echo "  - primary nid: 198.18.0.$2@tcp"
	echo "    Multi-Rail: True"
	echo "    peer ni:"
	for k in 0 1 2 3; do
		echo "      - nid: 198.18.$k.$2@tcp"
	done
}
