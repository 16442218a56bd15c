#!/usr/bin/env bash
# Failure lab: a stream of PUTs over four veth rails while one fault at a
# time hits it (root only; exits 77, "skipped", otherwise; see
# docs/failure-lab.md):
#
#   netns ufA-<pid> (sender)                     netns ufB-<pid> (receiver)
#   ulnetd a                                     ulnetd b (perf sink)
#   ua0 198.18.0.1/24  <------ veth ------>  ub0 198.18.0.2/24
#   ua1 198.18.1.1/24  <------ veth ------>  ub1 198.18.1.2/24  (a) down/up
#   ua2 198.18.2.1/24  <------ veth ------>  ub2 198.18.2.2/24  (b) hole
#   ua3 198.18.3.1/24  <------ veth ------>  ub3 198.18.3.2/24
#        (c) every rail, both ways: nfqloss, 1 % loss, 1 % reordered
#        (d) ulnetd b killed with SIGKILL, started again
#
# Both ulnetd run with transaction_timeout 10 and retry_count 2, so
# lnd_timeout is about 3.3 s. Each case is one `ulnetctl perf put` stream
# from A to B (1 MiB PUTs, 8 in flight) with the fault in its middle:
#  (a) ua1 link down at 3 s, up again at 7 s, of a 12 s stream;
#  (b) rail 2 a black hole from 3 s to 9 s of 12 s: link up, every packet
#      arriving on ua2 or ub2 dropped (iptables, raw PREROUTING, in each
#      namespace), so neither end gets a local error; within 5 s (one
#      lnd_timeout and a margin) A's NI or peer NI on rail 2 must have
#      lost health;
#  (c) 8 s with every rail's outgoing packets, both ways, through nfqloss
#      (NFQUEUE, one queue per rail): 1 % dropped, 1 % held back behind
#      the next 3 packets (or 20 ms);
#  (d) ulnetd b killed with SIGKILL at 3 s of 12 s and started again at
#      5 s with the same configuration.
# Checked for every case: the stream ends (within 25 s of its length) and
# every PUT ended in exactly one final event (started = completed +
# failed, from perf put's output). In (a) to (c) no PUT failed, as one
# rail at least survived. After (a) and (b) a 3 s stream sends on the
# restored rail again; after (d) a 3 s stream moves data to the new
# incarnation. Every assertion is run and reported; the script fails at
# the end naming the ones that did not hold.
# Environment: NFQLOSS (default $ULNET_BUILD/tools/nfqloss/nfqloss; case
# (c) is skipped, said so, without it); iptables is needed for (b), (c).
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to create network namespaces"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
nfqloss=${NFQLOSS:-${ULNET_BUILD:-}/tools/nfqloss/nfqloss}
has_iptables=false
command -v iptables >/dev/null && has_iptables=true
nsa=ufA-$$
nsb=ufB-$$
ul_cleanup_extra() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
}
ul_setup netns_failover

ul_rails_lab "$nsa" "$nsb"
ul_rails_conf ua 2 >"$tmp/a.yaml"
ul_rails_conf ub 1 >"$tmp/b.yaml"
ctl() { "$ULNETCTL" --ctl "$tmp/a.ctl" "$@"; }
ctlb() { "$ULNETCTL" --ctl "$tmp/b.ctl" "$@"; }
tunables() { # ctl function
	"$1" set transaction_timeout 10 >/dev/null ||
		ul_fail "set transaction_timeout 10 on $1"
	"$1" set retry_count 2 >/dev/null || ul_fail "set retry_count 2 on $1"
}
UL_NETNS=$nsa ul_daemon_start a --port 988 --accept secure
UL_NETNS=$nsb ul_daemon_start b --port 988 --accept secure
tunables ctl
tunables ctlb

# Assertions are counted, not fatal: every case runs and the end names
# what failed.
fails=()
ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	fails+=("$*")
}

# stream_start NAME SECONDS: a perf stream from A to B in the background
# (its YAML in $tmp/NAME.out); stream_wait NAME waits for it. A stream
# may take 25 s more than asked (two transaction timeouts and a margin)
# before it counts as stuck.
stream_pid=
stream_start() {
	timeout -k 5 $(($2 + 25)) "$ULNETCTL" --ctl "$tmp/a.ctl" perf put \
		198.18.0.2@tcp --size 1M --seconds "$2" --inflight 8 \
		>"$tmp/$1.out" 2>"$tmp/$1.err" &
	stream_pid=$!
	ul_track "$stream_pid"
}
stream_wait() { # name -> 0 when the stream printed its figures
	local rc=0
	wait "$stream_pid" || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		bad "$1: perf put did not end within 25 s of its stream"
		return 1
	fi
	# perf put exits non-zero when a PUT failed, and still reports.
	if ! grep -q '^perf:' "$tmp/$1.out"; then
		bad "$1: perf put failed (exit $rc): $(head -3 "$tmp/$1.err")"
		return 1
	fi
	ul_yaml_ok "$tmp/$1.out" "perf $1"
	summary "$1"
}
stream() { # name, seconds
	stream_start "$1" "$2"
	stream_wait "$1"
}

# The first value of a key in a stream's output: the stream's totals
# come before its rails.
key() { awk -v k="$2:" '$1 == k { print $2; exit }' "$tmp/$1.out"; }
rails() { # name -> "nid bytes" per rail
	awk '/- *nid:/ { nid = $NF } /^ *bytes:/ && nid { print nid, $2; nid = "" }' \
		"$tmp/$1.out"
}
rail_bytes() { rails "$1" | awk -v n="$2" '$1 == n { print $2 }'; }
failures() { # name: perf put's failures by final status, one line
	awk '$1 == "failures:" { d = index($0, "f"); f = 1; next }
	     f && index($0, $1) <= d { f = 0 }
	     f { out = out " " $1 " " $2 }
	     END { if (out != "") print "  " n ": failures:" out }' \
		n="$1" "$tmp/$1.out"
}
summary() { # name
	local nid bytes line
	echo "  $1: started $(key "$1" started) completed $(key "$1" completed)" \
		"failed $(key "$1" failed) in $(key "$1" seconds) s," \
		"$(key "$1" MiB/s) MiB/s"
	failures "$1"
	line=
	while read -r nid bytes; do
		line+=" ${nid%@tcp}=$((bytes / 1048576))MiB"
	done < <(rails "$1")
	echo "  $1: rails:$line"
}

# Every PUT ended in exactly one final event: started = completed +
# failed. perf put's totals before it printed started and completed
# (puts, failed) could not show a lost or doubled event.
one_event_each() { # name
	local s c f
	s=$(key "$1" started)
	c=$(key "$1" completed)
	f=$(key "$1" failed)
	if [ -z "$s" ] || [ -z "$c" ] || [ -z "$f" ]; then
		bad "$1: perf put prints no started/completed/failed" \
			"(started='$s' completed='$c' failed='$f')"
	elif [ "$s" = $((c + f)) ]; then
		ok "$1: every PUT ended once ($s started = $c completed + $f failed)"
	else
		bad "$1: $s PUTs started but $c completed + $f failed"
	fi
}
none_failed() { # name
	local f
	f=$(key "$1" failed)
	if [ "${f:-x}" = 0 ]; then
		ok "$1: no PUT failed"
	else
		bad "$1: ${f:-?} PUTs failed while a rail survived"
	fi
}
rail_sends() { # name, nid
	local b
	b=$(rail_bytes "$1" "$2")
	if [ "${b:-0}" -gt 0 ]; then
		ok "$1: $2 carries traffic again ($((b / 1048576)) MiB)"
	else
		bad "$1: $2 sent nothing after it was restored"
	fi
}

# A healthy stream first: the lab itself works.
if stream warmup 2; then
	[ "$(key warmup failed)" = 0 ] ||
		ul_fail "PUTs failed on four healthy rails; the lab is broken"
else
	ul_fail "no stream on four healthy rails; the lab is broken"
fi

# (a) One rail's link down, then up.
echo "== (a) ua1 link down at 3 s, up at 7 s"
stream_start a 12
sleep 3
ip -n "$nsa" link set ua1 down
sleep 4
ip -n "$nsa" link set ua1 up
if stream_wait a; then
	one_event_each a
	none_failed a
fi
stream a_after 3 && rail_sends a_after 198.18.1.1@tcp

# (b) A black hole on rail 2: link up, every packet dropped on arrival.
healthv() { # show output, nid -> that NI's "health value"
	awk -v n="$2" '/nid:/ { cur = ($NF == n) }
		cur && /health value:/ { print $NF; exit }' "$1"
}
hole() { # -I to open it, -D to close it
	ip netns exec "$nsa" iptables -t raw "$1" PREROUTING -i ua2 -j DROP
	ip netns exec "$nsb" iptables -t raw "$1" PREROUTING -i ub2 -j DROP
}
if $has_iptables; then
	echo "== (b) rail 2 a black hole from 3 s to 9 s"
	stream_start b 12
	sleep 3
	hole -I
	# Within one lnd_timeout (3.3 s) and a check interval, A must notice:
	# the NI or the peer NI on rail 2 loses health. Polled every 0.5 s
	# for the 6 s of the hole; health cannot come back while it lasts.
	t_hole=${EPOCHREALTIME/./}
	noticed=
	while :; do
		sleep 0.5
		ms=$(((${EPOCHREALTIME/./} - t_hole) / 1000))
		[ "$ms" -ge 6000 ] && break
		[ -n "$noticed" ] && continue
		ctl net show -v 2 >"$tmp/b-net.yaml" 2>&1 || true
		ctl peer show --nid 198.18.0.2@tcp -v 2 >"$tmp/b-peer.yaml" \
			2>&1 || true
		ni_h=$(healthv "$tmp/b-net.yaml" 198.18.2.1@tcp)
		peer_h=$(healthv "$tmp/b-peer.yaml" 198.18.2.2@tcp)
		if [ "${ni_h:-1000}" -lt 1000 ] || [ "${peer_h:-1000}" -lt 1000 ]
		then
			noticed=$ms
		fi
	done
	hole -D
	if [ -z "$noticed" ]; then
		bad "b: after 6 s of hole, health still NI ${ni_h:-?}," \
			"peer NI ${peer_h:-?}: the hole went unnoticed"
	elif [ "$noticed" -le 5000 ]; then
		ok "b: hole noticed within $noticed ms (health: NI ${ni_h:-?}," \
			"peer NI ${peer_h:-?})"
	else
		bad "b: hole noticed only after $noticed ms (more than 5 s)"
	fi
	if stream_wait b; then
		one_event_each b
		none_failed b
	fi
	stream b_after 3 && rail_sends b_after 198.18.2.1@tcp
else
	echo "== (b) skipped: iptables is not installed"
fi

# (c) 1 % loss and 1 % reordering on every rail, both ways.
nfq_pids=()
nfq_start() { # namespace, interface prefix, side
	local k
	ip netns exec "$1" "$nfqloss" --queue 0-3 --loss 0.01 --reorder 0.01 \
		--seed $$ >"$tmp/nfq-$3.log" 2>&1 &
	nfq_pids+=($!)
	ul_track $!
	ul_wait_for 50 grep -q bound "$tmp/nfq-$3.log" ||
		ul_fail "nfqloss did not bind its queues in $1"
	for k in 0 1 2 3; do
		ip netns exec "$1" iptables -A OUTPUT -o "$2$k" -j NFQUEUE \
			--queue-num "$k" --queue-bypass
	done
}
nfq_stop() {
	local p
	ip netns exec "$nsa" iptables -F OUTPUT
	ip netns exec "$nsb" iptables -F OUTPUT
	for p in "${nfq_pids[@]}"; do ul_stop "$p"; done
}
if ! $has_iptables; then
	echo "== (c) skipped: iptables is not installed"
elif [ ! -x "$nfqloss" ]; then
	echo "== (c) skipped: no nfqloss at '$nfqloss' (needs libnetfilter-queue)"
else
	echo "== (c) 1 % loss, 1 % reordered, every rail, both ways, 8 s"
	nfq_start "$nsa" ua a
	nfq_start "$nsb" ub b
	stream_start c 8
	c_ok=true
	stream_wait c || c_ok=false
	nfq_stop
	grep -h total "$tmp/nfq-a.log" | sed 's/^/  A /'
	grep -h total "$tmp/nfq-b.log" | sed 's/^/  B /'
	dropped=$(awk '/total:/ { n += $6 } END { print n + 0 }' \
		"$tmp/nfq-a.log" "$tmp/nfq-b.log")
	[ "$dropped" -gt 0 ] || bad "c: nfqloss dropped no packet: no loss tested"
	if $c_ok; then
		one_event_each c
		none_failed c
	fi
fi

# (d) The receiving daemon killed and started again.
echo "== (d) ulnetd b killed (SIGKILL) at 3 s, started again at 5 s"
stream_start d 12
sleep 3
kill -KILL "${ul_pid[b]}"
wait "${ul_pid[b]}" 2>/dev/null || true
mv "$tmp/b.log" "$tmp/b-killed.log"
sleep 2
UL_NETNS=$nsb ul_daemon_start b --port 988 --accept secure
tunables ctlb
if stream_wait d; then
	one_event_each d
fi
if stream d_after 3; then
	if [ "$(key d_after bytes)" -gt 0 ]; then
		ok "d_after: the new incarnation of b receives"
	else
		bad "d_after: nothing reached the new incarnation of b"
	fi
fi

ul_yaml_check_all
if [ ${#fails[@]} -gt 0 ]; then
	ul_fail "${#fails[@]} assertion(s) did not hold:" \
		"$(printf '\n  %s' "${fails[@]}")"
fi
echo "PASS"
