#!/usr/bin/env bash
# ulnetctl set <tunable> <value>, global show, stats show and stats reset
# against live ulnetd (reference/lnetctl.md §3, §8.4, §9, §10): defaults,
# every tunable set and shown back with LNet's side effects (max_interfaces
# below 16, non-zero flags stored as 1 and -1 as 1, numa_range -1 stored
# as 4294967295, recovery_interval ignored whatever its value,
# health_sensitivity 0 zeroing retry_count, lnd_timeout computed), the
# parse errors (parser/set, 255), LNet's refusals (-61, 195), lnetctl's
# own range checks (-22, 234), buffers below -1 (-34, 222), routing's
# two-line parse error, help and missing value; stats after a ping
# between two daemons (counters and the GET round trip) and all zero
# after stats reset, NI and peer NI statistics too; a refused connection
# counted as LNet counts it (no drop), health counters kept by stats
# reset; stats show and reset while LNet is down. NIDs: 127.1.4.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
conf() { # n
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - nid: 127.1.4.%s@tcp\n' "$1"
}
cli_daemon g2 "$(conf 2)" --cpts 2
cli_daemon g1 "$(conf 1)" --cpts 2

# --- global show: defaults, extra words ignored ---------------------------
expect global_default 0 @global/show_default.yaml "" -- $u global show
expect global_extra_words 0 @global/show_default.yaml "" -- \
	$u global show -v 3
expect global_help 1 "*" "" -- $u global show -h
check global_help '^global show: '

# --- set: every tunable, then global show -----------------------------------
expect set_numa_hex 0 "" "" -- $u set numa_range 0x10
expect set_max_intf_small 0 "" "" -- $u set max_interfaces 8
expect set_discovery 0 "" "" -- $u set discovery 0
expect set_drop_asym 0 "" "" -- $u set drop_asym_route 5
expect set_retry 0 "" "" -- $u set retry_count 3
expect set_tt 0 "" "" -- $u set transaction_timeout 100
expect set_hs 0 "" "" -- $u set health_sensitivity 50
expect set_recovery_interval 0 "" "" -- $u set recovery_interval 10
expect set_router_sens 0 "" "" -- $u set router_sensitivity 50
expect set_rt 0 "" "" -- $u set response_tracking 1
expect set_recovery_limit 0 "" "" -- $u set recovery_limit 60
expect set_max_ping 0 "" "" -- $u set max_recovery_ping_interval 010
expect set_extra_ignored 0 "" "" -- $u set router_sensitivity 40 99
expect global_after_set 0 @global/show_after_set.yaml "" -- $u global show
# health_sensitivity 0 also zeroes retry_count; lnd_timeout follows.
expect set_hs_zero 0 "" "" -- $u set health_sensitivity 0
expect global_hs_zero 0 @global/show_hs_zero.yaml "" -- $u global show
# retry_count > 0 is refused while health_sensitivity is 0.
expect set_retry_no_health 195 "" \
	"$(d2 add retry_count -61 '"cannot configure retry count: Invalid argument"')" \
	-- $u set retry_count 1
expect set_max_intf_big 0 "" "" -- $u set max_interfaces 200
expect global_max_intf 0 "*" "" -- $u global show
check global_max_intf '^    max_interfaces: 200$'
# lnetctl writes discovery and drop_asym_route as 0/1 (-1 enables), hands
# numa_range to LNet as a __u32, and LNet ignores recovery_interval
# without reading it: none of these is refused.
expect set_drop_asym_off 0 "" "" -- $u set drop_asym_route 0
expect set_discovery_neg 0 "" "" -- $u set discovery -1
expect set_drop_asym_neg 0 "" "" -- $u set drop_asym_route -1
expect set_numa_neg 0 "" "" -- $u set numa_range -1
expect set_recovery_interval_neg 0 "" "" -- $u set recovery_interval -5
expect global_negatives 0 "*" "" -- $u global show
check global_discovery_neg '^    discovery: 1$'
check global_drop_asym_neg '^    drop_asym_route: 1$'
check global_numa_neg '^    numa_range: 4294967295$'
check global_recovery_interval_neg '^    recovery_interval: 1$'

# --- set: parse errors (parser/set, exit 255) -------------------------------
while read -r name what; do
	expect "parse_$name" 255 "" \
		"$(d2 parser set -1 "cannot parse $what value")" -- \
		$u set "$name" 12x
done <<'EOF'
numa_range numa_range
max_interfaces max_interfaces
discovery discovery
drop_asym_route drop_asym_route
retry_count retry_count
transaction_timeout transaction timeout
health_sensitivity health sensitivity
recovery_interval recovery interval
router_sensitivity router sensitivity
response_tracking response_tracking
recovery_limit recovery_limit
max_recovery_ping_interval maximum recovery interval
tiny_buffers tiny_buffers
small_buffers small_buffers
large_buffers large_buffers
EOF
expect parse_overflow 255 "" \
	"$(d2 parser set -1 'cannot parse discovery value')" -- \
	$u set discovery 99999999999999999999
expect parse_routing 255 "" @global/routing_parse.err -- $u set routing 2
expect parse_routing_word 255 "" @global/routing_parse.err -- \
	$u set routing on

# --- set: LNet's refusals (-61, exit 195) -----------------------------------
expect refuse_hs 195 "" \
	"$(d2 add health_sensitivity -61 '"cannot configure health sensitivity: Invalid argument"')" \
	-- $u set health_sensitivity 1001
expect refuse_tt_zero 195 "" \
	"$(d2 add transaction_timeout -61 '"cannot configure transaction timeout: Invalid argument"')" \
	-- $u set transaction_timeout 0
expect refuse_router_sens 195 "" \
	"$(d2 add router_sensitivity -61 '"cannot configure router health sensitivity: Invalid argument"')" \
	-- $u set router_sensitivity 101
expect refuse_retry_neg 195 "" \
	"$(d2 add retry_count -61 '"cannot configure retry count: Invalid argument"')" \
	-- $u set retry_count -1

# --- set: lnetctl's own checks (-22, exit 234) ------------------------------
expect rt_high 234 "" \
	"$(d2 add response_tracking -22 '"Valid values are: 0, 1, 2, or 3"')" \
	-- $u set response_tracking 4
expect rt_neg 234 "" \
	"$(d2 add response_tracking -22 '"Valid values are: 0, 1, 2, or 3"')" \
	-- $u set response_tracking -1
expect recovery_limit_neg 234 "" \
	"$(d2 add recovery_limit -22 '"Must be greater than or equal to 0"')" \
	-- $u set recovery_limit -1
expect max_ping_zero 234 "" \
	"$(d2 add 'maximum recovery ping interval' -22 '"must be strictly positive"')" \
	-- $u set max_recovery_ping_interval 0
expect global_unchanged 0 "*" "" -- $u global show
check global_unchanged '^    response_tracking: 1$'
check global_unchanged '^    recovery_limit: 60$'
check global_unchanged '^    max_recovery_ping_interval: 8$'

# --- set: routing and buffers ------------------------------------------------
expect buffers_below 222 "" \
	"$(d2 add buf -34 '"tiny, small and large must be >= 0"')" -- \
	$u set tiny_buffers -2
expect set_routing_on 0 "" "" -- $u set routing 1
expect set_tiny 0 "" "" -- $u set tiny_buffers 4096
expect set_small_keep 0 "" "" -- $u set small_buffers -1
expect set_large_default 0 "" "" -- $u set large_buffers 0
expect set_routing_off 0 "" "" -- $u set routing 0

# --- set: help and missing value ------------------------------------------
expect set_missing 234 "*" "" -- $u set discovery
check set_missing '^set discovery: '
expect set_help 1 "*" "" -- $u set retry_count -h
check set_help '^set retry_count: '
expect set_no_name 234 "*" "" -- $u set
check set_no_name '^set max_recovery_ping_interval: '

# --- stats: a ping between two daemons, then reset ------------------------
expect stats_keys 0 "*" "" -- $u stats show
awk '{ print $1 }' "$TMP/out" >"$TMP/keys"
if diff -u "$EXPECTED/global/stats_keys.txt" "$TMP/keys"; then
	passed=$((passed + 1))
else
	echo "FAIL stats_keys: keys differ"
	failed=$((failed + 1))
fi
expect ping 0 "*" "" -- $u ping 127.1.4.2@tcp
expect stats_after_ping 0 "*" "" -- $u stats show
check stats_send '^    send_count: [1-9][0-9]*$'
check stats_recv '^    recv_count: [1-9][0-9]*$'
# a GET carries no payload: send_length stays 0 for a ping
check stats_send_length "^    send_length: 0$"
check stats_recv_length '^    recv_length: [1-9][0-9]*$'
expect net_stats_before 0 "*" "" -- $u net show -v
check net_stats_before '^ +send_count: [1-9][0-9]*$'
# The ping was a tracked GET: one round trip timed on the NI and the peer
# NI (sanity-lnet 475), min = max = avg for a single sample.
check net_get_rtt '^ +get_rtt_samples: 1$'
check net_get_rtt_max '^ +get_rtt_max_nsec: [1-9][0-9]*$'
expect peer_stats_before 0 "*" "" -- $u peer show -v 4
check peer_stats_before '^ +send_count: [1-9][0-9]*$'
check peer_get_rtt '^ +get_rtt_samples: 1$'
# The GET took one of the 8 credits: the low-water mark (§7.3 example).
check peer_min_tx_credits '^ +min_tx_credits: 7$'
check peer_tx_credits_back '^ +available_tx_credits: 8$'
min=$(awk '/get_rtt_min_nsec/ { print $NF }' "$TMP/out")
avg=$(awk '/get_rtt_avg_nsec/ { print $NF }' "$TMP/out")
if [ -n "$min" ] && [ "$min" -gt 0 ] && [ "$min" = "$avg" ]; then
	passed=$((passed + 1))
else
	echo "FAIL peer_get_rtt_one_sample: min '$min' avg '$avg'"
	failed=$((failed + 1))
fi
expect stats_reset 0 "" "" -- $u stats reset
expect stats_zero 0 @global/stats_zero.yaml "" -- $u stats show
expect net_stats_zero 0 "*" "" -- $u net show -v
if grep -E '^ +((send|recv|drop)_count|[a-z_]+_(samples|nsec)): [1-9]' "$TMP/out"; then
	echo "FAIL net_stats_zero: NI counters not cleared"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
expect peer_stats_zero 0 "*" "" -- $u peer show -v
if grep -E '^ +((send|recv|drop)_count|[a-z_]+_(samples|nsec)): [1-9]' "$TMP/out"; then
	echo "FAIL peer_stats_zero: peer NI counters not cleared"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
# The other daemon keeps its own counters.
ULNET_CTL=$TMP/g2.ctl expect stats_other 0 "*" "" -- $u stats show
check stats_other '^    recv_count: [1-9][0-9]*$'

# --- a failed send is not a drop; stats reset keeps health ----------------
# Nothing listens on 127.1.4.9: the connection is refused at once. LNet
# counts no drop for it (lnet_msg_decommit_tx), only its health status
# (remote_dropped_count, the peer NI's "dropped"), and stats reset leaves
# the NI and peer NI health counters alone (lnet_iface_stats_reset).
dropped_get() { # the get count under dropped_stats in $TMP/out
	awk '/dropped_stats:/ { d = 1 } d && /get:/ { print $NF; exit }' \
		"$TMP/out"
}
expect refused_reset 0 "" "" -- $u stats reset
expect refused_ping 255 "*" "" -- $u ping 127.1.4.9@tcp
check refused_ping "failed to ping 127.1.4.9@tcp: Connection refused"
expect refused_stats 0 "*" "" -- $u stats show
check refused_no_drop '^    drop_count: 0$'
check refused_no_drop_length '^    drop_length: 0$'
check refused_remote_dropped '^    remote_dropped_count: 1$'
expect refused_peer 0 "*" "" -- $u peer show -v 2 --nid 127.1.4.9@tcp
check refused_peer_health '^ +dropped: 1$'
check refused_peer_no_drop '^ +drop_count: 0$'
if [ "$(dropped_get)" = 0 ]; then
	passed=$((passed + 1))
else
	echo "FAIL refused_peer_dropped_stats: get $(dropped_get)"
	failed=$((failed + 1))
fi
expect refused_net 0 "*" "" -- $u net show -v 2 --net tcp
check refused_net_no_drop '^ +drop_count: 0$'
expect health_reset 0 "" "" -- $u stats reset
expect health_kept_peer 0 "*" "" -- $u peer show -v 2 --nid 127.1.4.9@tcp
check health_kept_peer '^ +dropped: 1$'
expect health_reset_global 0 "*" "" -- $u stats show
check health_reset_global '^    remote_dropped_count: 0$'

# --- stats and global while LNet is down -----------------------------------
expect set_numa_up 0 "" "" -- $u set numa_range 7
expect set_max_intf_up 0 "" "" -- $u set max_interfaces 0
expect down 0 "" "" -- $u lnet unconfigure
expect stats_reset_down 156 "" \
	"$(d2 show statistics -100 '"cannot reset lnet statistics: Network is down"')" \
	-- $u stats reset
expect stats_show_down 255 "" \
	"$(d2 show statistics -100 '"cannot get lnet statistics: Network is down"')" \
	-- $u stats show
# numa_range is read and written by ioctls that need LNet up; the other
# values are module parameters. global show stops at that first failure
# (jt_show_global); export prints it into its output and the global
# section without numa_range; set numa_range fails as LNet's ioctl does.
numa_down=$(d2 show global -100 '"cannot get numa_range: Network is down"')
expect global_show_down 156 "" "$numa_down" -- $u global show
expect set_numa_down 156 "" "$(d2 add numa_range -100 \
	'"cannot configure numa_range to 2: Network is down"')" -- \
	$u set numa_range 2
expect set_discovery_down 0 "" "" -- $u set discovery 1
expect export_down 0 "*" "*" -- $u export
# jt_export's order: the routing error, the numa_range error, the udsp
# error as each is asked for, then the sections, global without
# numa_range.
grep -A2 -- '- global:' "$TMP/out" | head -3 >"$TMP/got"
printf '%s\n' "$numa_down" | tail -n +2 >"$TMP/want"
if cmp -s "$TMP/got" "$TMP/want" && ! grep -q "^ *numa_range:" "$TMP/out" &&
	[ "$(grep -n -- '- global:' "$TMP/out" | cut -d: -f1)" -lt \
		"$(grep -n -- '- udsp:' "$TMP/out" | cut -d: -f1)" ] &&
	grep -q '^global:$' "$TMP/out"; then
	passed=$((passed + 1))
else
	echo "FAIL export_down: no numa_range error before global in:"
	cat "$TMP/out"
	failed=$((failed + 1))
fi
expect up 0 "" "" -- $u lnet configure
expect global_show_up 0 "*" "" -- $u global show
check global_show_up_numa '^    numa_range: 7$'

# --- no daemon ---------------------------------------------------------------
expect stats_no_daemon 255 "" "*" -- $u --ctl "$TMP/none.ctl" stats show
grep -q '^show:$' "$TMP/err" && grep -q '^    - statistics:$' "$TMP/err" ||
	{ echo "FAIL stats_no_daemon: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
expect global_no_daemon 255 "" "*" -- $u --ctl "$TMP/none.ctl" global show
grep -q '^    - global:$' "$TMP/err" ||
	{ echo "FAIL global_no_daemon: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
expect set_no_daemon 214 "" "*" -- $u --ctl "$TMP/none.ctl" set discovery 1
grep -q 'errno: -42$' "$TMP/err" ||
	{ echo "FAIL set_no_daemon: stderr"; cat "$TMP/err"; failed=$((failed + 1)); }
finish
