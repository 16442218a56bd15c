#!/usr/bin/env bash
# LNet Health through ulnetctl against a live ulnetd (reference/health.md
# §4, §5, §7, §14; fault.md §4.2, §5): fault drop rules with a health
# error act on real traffic, and what an operator reads afterwards moves
# as in LNet: the ping's error, `stats show` counters (resends included),
# `fault drop show` counters, `net show -v 2` health values, `debug
# recovery --local`. The daemon pings its own NIDs, which go through
# socklnd to itself as in LNet. NIDs: 127.1.41.0/24.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon h 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.41.1@tcp
      - nid: 127.1.41.2@tcp'

eio_ping() { # nid
	printf 'manage:\n- ping:\n  errno: -5\n'
	printf "  descr: ! 'failed to ping %s: Input/output error'" "$1"
}

# stat_is TEST COUNTER VALUE: `stats show` (in $TMP/out) prints VALUE, an
# extended regex, for COUNTER.
stat_is() {
	check "$1" "^    $2: ($3)\$"
}
# The NI a failure lowers goes on the recovery queue and is pinged from
# 1 s on, on real time; the pings are GETs the same rules fail, so the
# counts they can add to are read as "at least".
AT_LEAST_1='[1-9][0-9]*'
AT_LEAST_3='[3-9]|[1-9][0-9]+'

expect ping_ok 0 "*" "" -- $u ping 127.1.41.2@tcp

# --- §14.4 a multi-NI node, local_error: failed at once, never resent ---
expect add_local_error 0 "" "" -- $u fault drop add -s '*' -d '*' -m GET \
	-r 1 -e local_error
expect ping_local_error 255 "$(eio_ping 127.1.41.2@tcp)" "" -- \
	$u ping 127.1.41.2@tcp
expect stats_local_error 0 "*" "" -- $u stats show
stat_is le_count local_error_count "$AT_LEAST_1"
stat_is le_resends resend_count 0
stat_is le_failed failed_resends 0
expect show_rule 0 "*" "" -- $u fault drop show
check rule_dropped '^      ds_dropped: [1-9][0-9]*$'
check rule_get '^      fs_get: [1-9][0-9]*$'
# one of the NIs lost 100 (or more, pinged since) and is on the local
# recovery queue
expect net_health 0 "*" "" -- $u net show -v 2
check net_health_900 '^                  health value: ([1-9]00|0)$'
expect recovery_local 0 "*" "" -- $u debug recovery --local
check recovery_listed '^      nid-0: 127\.1\.41\.[12]@tcp$'
# the console lists the local recovery queue (health.md §5.4) at the
# queue's first pass, a second after the failure
for _ in $(seq 100); do
	grep -q 'local NI(s) in recovery: 127\.1\.41\.[12]@tcp' "$TMP/h.log" &&
		break
	sleep 0.1
done
check recovery_console '[0-9]+ local NI\(s\) in recovery: 127\.1\.41\.[12]@tcp' \
	"$TMP/h.log"
expect del_rules 0 "" "" -- $u fault drop del -a
expect health_back 0 "" "" -- $u net set --all --health 1000
expect recovery_empty 0 "" "" -- $u debug recovery --local

# --- §14.3 local_timeout: resent twice, then failed ---------------------------
expect stats_reset 0 "" "" -- $u stats reset
expect add_local_timeout 0 "" "" -- $u fault drop add -s '*' -d '*' \
	-m GET -r 1 -e local_timeout
expect ping_local_timeout 255 "$(eio_ping 127.1.41.2@tcp)" "" -- \
	$u ping 127.1.41.2@tcp
expect stats_local_timeout 0 "*" "" -- $u stats show
stat_is lt_count local_timeout_count "$AT_LEAST_3"
stat_is lt_resends resend_count 2
stat_is lt_failed failed_resends 1
stat_is lt_ok successful_resends 0
expect del_rules2 0 "" "" -- $u fault drop del -a
expect health_back2 0 "" "" -- $u net set --all --health 1000

# --- §14.9 rate 2: the first try fails, the resend gets through ------------
expect stats_reset2 0 "" "" -- $u stats reset
expect add_rate2 0 "" "" -- $u fault drop add -s '*' -d '*' -m GET -r 2 \
	-e local_dropped
expect ping_rate2 0 "*" "" -- $u ping --source 127.1.41.1@tcp 127.1.41.2@tcp
expect stats_rate2 0 "*" "" -- $u stats show
stat_is r2_resends resend_count 1
stat_is r2_ok successful_resends 1
stat_is r2_failed failed_resends 0
expect del_rules3 0 "" "" -- $u fault drop del -a

# --- §14.11 the timeout arithmetic an operator sees ---------------------------
expect set_tt 0 "" "" -- $u set transaction_timeout 10
expect global_tt 0 "*" "" -- $u global show
check lnd_timeout_3 '^    lnd_timeout: 3$'
expect net_timeout_3 0 "*" "" -- $u net show -v --net tcp
check socklnd_follows '^                  timeout: 3$'
# 2 is not above retry_count 2: LNet's refusal (lnetctl.md §9)
expect set_tt_2 195 "" \
	"$(d2 add transaction_timeout -61 '"cannot configure transaction timeout: Invalid argument"')" \
	-- $u set transaction_timeout 2

finish
