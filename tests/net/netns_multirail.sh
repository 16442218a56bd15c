#!/usr/bin/env bash
# Two ulnet nodes in two network namespaces joined by four veth rails
# (root only; exits 77, "skipped", otherwise):
#
#   netns ulA-<pid>                              netns ulB-<pid>
#   ulnetd a                                     ulnetd b
#   ua0 198.18.0.1/24  <------ veth ------>  ub0 198.18.0.2/24
#   ua1 198.18.1.1/24  <------ veth ------>  ub1 198.18.1.2/24
#   ua2 198.18.2.1/24  <------ veth ------>  ub2 198.18.2.2/24
#   ua3 198.18.3.1/24  <------ veth ------>  ub3 198.18.3.2/24
#
# Each node runs ulnetd (port 988, accept=secure) with one tcp NI per rail,
# given by interface name, and knows the other as a Multi-Rail peer with
# all four NIDs. Checked:
#  1. ping across lists B's four NIDs; a perf stream of PUTs from A uses
#     all four of A's NIs, each carrying at least 15 % of the bytes;
#  2. ua2 taken down in A's namespace: net show says "status: down" for
#     198.18.2.1@tcp within 5 s (the link monitor), the other NIs stay up;
#     the next two streams send nothing from it and still move data on
#     the other three; the first loses a few PUTs (fewer than 1 %: those
#     to B's NI on the cut rail before its health drops, not resent yet),
#     the second none;
#  3. ua2 brought back up: "status: up" again within 5 s; it sends again
#     once socklnd's reconnect back-off lets it (polled with 1 s streams,
#     at most 10), and the stream after that uses all four NIs again.
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to create network namespaces"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
nsa=ulA-$$
nsb=ulB-$$
ul_cleanup_extra() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
}
ul_setup netns

ul_rails_lab "$nsa" "$nsb"
ul_rails_conf ua 2 >"$tmp/a.yaml"
ul_rails_conf ub 1 >"$tmp/b.yaml"
UL_NETNS=$nsa ul_daemon_start a --port 988 --accept secure
UL_NETNS=$nsb ul_daemon_start b --port 988 --accept secure
ctl() { "$ULNETCTL" --ctl "$tmp/a.ctl" "$@"; }

# perf NAME SECONDS: a stream from A to B, its YAML in $tmp/NAME.out.
perf() {
	ctl perf put 198.18.0.2@tcp --size 1M --seconds "$2" >"$tmp/$1.out" ||
		ul_fail "perf stream $1"
	ul_yaml_ok "$tmp/$1.out" "perf $1"
}
# A stream's total of a key (puts, failed, bytes).
total() { awk -v k="$2:" '$1 == k { print $2; exit }' "$tmp/$1.out"; }
# A stream's per-rail bytes, one "nid bytes" line per rail.
rails() {
	awk '/- *nid:/ { nid = $NF } /^ *bytes:/ && nid { print nid, $2; nid = "" }' \
		"$tmp/$1.out"
}
rail_bytes() { rails "$1" | awk -v n="$2" '$1 == n { print $2 }'; }
# Every one of A's four NIs carried at least 15 % of the stream's bytes.
all_rails_used() { # name
	local t nid bytes share
	t=$(total "$1" bytes)
	[ "${t:-0}" -gt 0 ] || ul_fail "perf $1: no bytes moved"
	[ "$(rails "$1" | wc -l)" = 4 ] || ul_fail "perf $1: not 4 rails"
	while read -r nid bytes; do
		share=$((bytes * 100 / t))
		echo "  $1: rail $nid $bytes bytes ($share %)"
		[ "$share" -ge 15 ] || ul_fail "perf $1: rail $nid carried $share %"
	done < <(rails "$1")
}
status_of() { # nid -> up/down
	ctl net show --net tcp | awk -v n="$1" '
		$NF == n && /nid:/ { cur = 1; next } /nid:/ { cur = 0 }
		cur && /status:/ { print $NF }'
}
status_is() { [ "$(status_of "$1")" = "$2" ]; }

# 1. All four rails.
ctl ping 198.18.0.2@tcp >"$tmp/ping.out" || ul_fail "ping across"
for k in 0 1 2 3; do
	grep -q "nid: 198.18.$k.2@tcp" "$tmp/ping.out" ||
		ul_fail "ping does not list 198.18.$k.2@tcp"
done
perf perf1 3
[ "$(total perf1 failed)" = 0 ] || ul_fail "PUTs failed on healthy rails"
all_rails_used perf1
echo "four rails up: each carries its share"

# 2. Rail 2 down on A's side.
ip -n "$nsa" link set ua2 down
ul_wait_for 50 status_is 198.18.2.1@tcp down ||
	ul_fail "198.18.2.1@tcp is '$(status_of 198.18.2.1@tcp)'" \
		"5 s after its link went down"
for k in 0 1 3; do
	status_is "198.18.$k.1@tcp" up || ul_fail "198.18.$k.1@tcp is not up"
done
echo "ua2 down: 198.18.2.1@tcp shows status down"
# Streams with ua2 down: nothing from 198.18.2.1@tcp, data on the others.
down_streams() { # name
	local k b
	perf "$1" 2
	b=$(rail_bytes "$1" 198.18.2.1@tcp)
	[ "${b:-0}" = 0 ] || ul_fail "perf $1: the down NI still sent $b bytes"
	for k in 0 1 3; do
		b=$(rail_bytes "$1" "198.18.$k.1@tcp")
		[ "${b:-0}" -gt 0 ] || ul_fail "perf $1: 198.18.$k.1@tcp sent nothing"
	done
}
down_streams perf2
# In the first stream, the first PUTs toward B's NI on the cut rail
# (198.18.2.2@tcp) from A's other NIs fail (no route to it): they are not
# resent elsewhere (resending is the health work). That failure lowers
# the peer NI's health, so they are few, and the next stream has none.
failed=$(total perf2 failed)
puts=$(total perf2 puts)
echo "ua2 down, first stream: nothing sent from 198.18.2.1@tcp;" \
	"$failed of $puts PUTs failed"
[ $((failed * 100)) -lt "$puts" ] ||
	ul_fail "perf2: $failed of $puts PUTs failed"
down_streams perf2b
[ "$(total perf2b failed)" = 0 ] ||
	ul_fail "perf2b: $(total perf2b failed) PUTs failed in a second" \
		"stream with ua2 down"
echo "ua2 down, second stream: nothing sent from 198.18.2.1@tcp, no failures"

# 3. Rail 2 back.
ip -n "$nsa" link set ua2 up
ul_wait_for 50 status_is 198.18.2.1@tcp up ||
	ul_fail "198.18.2.1@tcp is '$(status_of 198.18.2.1@tcp)'" \
		"5 s after its link came back"
echo "ua2 up: 198.18.2.1@tcp shows status up again"
# The NI's connections come back only when socklnd's reconnect back-off
# (1 s, doubling, as ksocklnd's) lets it try: a stream right after link
# up gives that NI a small share. So wait (at most 10 one-second streams)
# until it sends again, then judge the spread of the next stream.
rail2_sends() {
	perf perf3 1
	[ "$(rail_bytes perf3 198.18.2.1@tcp)" -gt 0 ]
}
for i in $(seq 10); do
	rail2_sends && break
	[ "$i" = 10 ] &&
		ul_fail "198.18.2.1@tcp sent nothing in 10 streams after link up"
done
echo "ua2 up: 198.18.2.1@tcp sends again (stream $i after link up)"
perf perf4 2
all_rails_used perf4
ul_yaml_check_all
echo "PASS"
