#!/usr/bin/env bash
# route show -v against live ulnetd with the router checker running
# (reference/routing.md §4, §5, §10.7; lnetctl.md §8.3):
#
#   A 127.1.8.1@tcp --- B 127.1.8.2@tcp, 127.1.18.2@tcp1
#
# A routes tcp1 through B and tcp9 through 127.1.8.9@tcp, where nothing
# listens. A's checker pings both at once: B answers RTE_DISABLED (B
# does not route), the other never answers, so both routes go down,
# each with LNet's log line; B's route stays multi-hop (an answer with
# RTE_DISABLED teaches nothing of hops). B then turns routing on; with
# one-second intervals B is ENABLED two seconds later and A's next
# check brings the route up, single-hop now (B lists a tcp1 NID).
# avoid_asym_router_failure is off on A: nothing pings B's tcp1 NI
# here, which B publishes DOWN after the same two seconds.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon b 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.8.2@tcp
  - net type: tcp1
    local NI(s):
      - nid: 127.1.18.2@tcp1' --cpts 1 \
	--param alive_router_check_interval=1 --param router_ping_timeout=1
cli_daemon a 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.8.1@tcp
global:
    transaction_timeout: 4
    retry_count: 1' --cpts 1 \
	--param alive_router_check_interval=1 \
	--param avoid_asym_router_failure=0
export ULNET_CTL=$TMP/a.ctl

# Waits for a line in A's log (an event, not a time: 20 s at most).
wait_log() { # regex
	for _ in $(seq 200); do
		grep -Eq "$1" "$TMP/a.log" && return
		sleep 0.1
	done
}

expect add_b 0 "" "" -- $u route add --net tcp1 --gateway 127.1.8.2@tcp
expect add_ghost 0 "" "" -- $u route add --net tcp9 --gateway 127.1.8.9@tcp
wait_log 'route to tcp1 through 127\.1\.8\.2@tcp has gone from up to down'
wait_log 'route to tcp9 through 127\.1\.8\.9@tcp has gone from up to down'
expect down_show 0 "route:
-     net: tcp1
      gateway: 127.1.8.2@tcp
      hop: -1
      priority: 0
      state: down
      type: multi-hop
-     net: tcp9
      gateway: 127.1.8.9@tcp
      hop: -1
      priority: 0
      state: down
      type: multi-hop" "" -- $u route show -v
check down_log_b 'console: route to tcp1 through 127\.1\.8\.2@tcp has gone from up to down$' \
	"$TMP/a.log"
check down_log_ghost 'console: route to tcp9 through 127\.1\.8\.9@tcp has gone from up to down$' \
	"$TMP/a.log"
# Export leaves state and type out.
expect export_routes 0 "*" "" -- $u export --backup
check export_no_state '^      priority: 0$'
if sed -n '/^route:/,/^[a-z]/p' "$TMP/out" | grep -q 'state: \|type: '; then
	echo "FAIL export_no_state: export shows a route state"
	failed=$((failed + 1))
fi
# The gateway's NID is tracked (up, it answered); the ghost's is down.
expect peer_b 0 "*" "" -- $u peer show --nid 127.1.8.2@tcp
check peer_b_up '^            state: up$'
expect peer_ghost 0 "*" "" -- $u peer show --nid 127.1.8.9@tcp
check peer_ghost_down '^            state: down$'

expect b_routing_on 0 "" "" -- $u --ctl "$TMP/b.ctl" set routing 1
wait_log 'route to tcp1 through 127\.1\.8\.2@tcp has gone from down to up'
expect up_show 0 "route:
-     net: tcp1
      gateway: 127.1.8.2@tcp
      hop: -1
      priority: 0
      state: up
      type: single-hop" "" -- $u route show -v --net tcp1

finish
