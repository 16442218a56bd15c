#!/usr/bin/env bash
# Discovery and push between two ulnetd in two network namespaces joined
# by veth rails (root only; exits 77, "skipped", otherwise):
#
#   netns ulDA-<pid>                             netns ulDB-<pid>
#   ulnetd a                                     ulnetd b
#   ua0 198.18.0.1/24  <------ veth ------>  ub0 198.18.0.2/24   tcp
#   ua1 198.18.1.1/24  <------ veth ------>  ub1 198.18.1.2/24   tcp
#   ua2 198.18.2.1/24  <------ veth ------>  ub2 198.18.2.2/24   (tcp99 on
#   ua3 198.18.3.1/24  <------ veth ------>  ub3 198.18.3.2/24    B later)
#
# Neither node has a peer section. Checked (reference/discovery.md §14):
#  14.3 A's first PUTs to B0 wait for discovery, then go: B is a
#       Multi-Rail peer of A with B0 and B1;
#  14.1 `discover B1` prints B0 as primary, Multi-Rail, both NIDs, peer
#       state 273; B learnt A's NIDs from A's push;
#  14.5 B adds net tcp99 on ub2: A's peer lists 198.18.2.2@tcp99 with
#       nothing done on A; ub2 down in B's namespace: B's net show says
#       down, A's health value of that peer NI drops below 1000;
#       B deletes tcp99: A's peer loses the NID (B's push again);
#  14.7 B sets discovery 0: A deletes its peer for B; A's next PUTs make
#       it again from the NID used: one NID, Multi-Rail false, peer state
#       274 (NO_DISCOVERY | DISCOVERED | NIDS_UPTODATE);
#  14.6 (discovery back on, B discovered again) A configures B with `peer
#       add --prim_nid B0 --nid B1`; B deletes its NI on ub1: A's peer
#       still lists B1 (configuration wins, §8.3).
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to create network namespaces"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
nsa=ulDA-$$
nsb=ulDB-$$
ul_cleanup_extra() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
}
ul_setup netns_discovery

ul_rails_lab "$nsa" "$nsb"
conf() { # prefix
	printf 'net:\n  - net type: tcp\n    local NI(s):\n'
	printf '      - interfaces:\n          0: %s0\n' "$1"
	printf '      - interfaces:\n          0: %s1\n' "$1"
}
conf ua >"$tmp/a.yaml"
conf ub >"$tmp/b.yaml"
UL_NETNS=$nsa ul_daemon_start a --port 988 --accept secure
UL_NETNS=$nsb ul_daemon_start b --port 988 --accept secure
ctl() { "$ULNETCTL" --ctl "$tmp/a.ctl" "$@"; }
ctlb() { "$ULNETCTL" --ctl "$tmp/b.ctl" "$@"; }

A0=198.18.0.1@tcp A1=198.18.1.1@tcp
B0=198.18.0.2@tcp B1=198.18.1.2@tcp B99=198.18.2.2@tcp99

# same NAME FILE: FILE's text is what stdin says.
same() {
	local want=$tmp/$1.want
	cat >"$want"
	diff -u "$want" "$2" || ul_fail "$1: output differs"
}
# The NIDs a node's peer of NID lists, one per line ("" if none).
peer_nids() { # ctl-function nid
	"$1" peer show --nid "$2" 2>/dev/null |
		awk '/^ *- *nid:/ { print $NF }' || true
}
lists() { peer_nids "$1" "$2" | grep -qx "$3"; }
lacks() { ! lists "$@"; }
no_peer() { ! "$1" peer show --nid "$2" >/dev/null 2>&1; }
health_of() { # nid: A's health value of that peer NI
	ctl peer show -v 2 --nid "$1" | awk -v n="$1" '
		/nid:/ { cur = ($NF == n) } cur && /health value:/ { print $NF }'
}
health_below() { [ "$(health_of "$1")" -lt 1000 ]; }
net_status() { # ctl-function net nid
	"$1" net show --net "$2" | awk -v n="$3" '
		$NF == n && /nid:/ { cur = 1; next } /nid:/ { cur = 0 }
		cur && /status:/ { print $NF }'
}
state_of() { # ctl-function nid: lnetctl's peer state
	"$1" peer show -v 3 --nid "$2" | awk '/peer state:/ { print $NF }'
}
recv_from_b() { # messages A received from its peer B, over its NIs
	ctl peer show -v 1 --nid $B0 | awk '/recv_count:/ { t += $NF }
		END { print t + 0 }'
}
received_more() { [ "$(recv_from_b)" -gt "$1" ]; }
b99_down() { [ "$(net_status ctlb tcp99 $B99)" = down ]; }
perf() {
	ctl perf put "$1" --size 64K --seconds 1 >"$tmp/perf.out" ||
		ul_fail "perf put to $1"
	ul_yaml_ok "$tmp/perf.out" perf
}

# 14.3: the first PUTs discover B.
perf $B0
same peer_after_put <(ctl peer show) <<EOF
peer:
-     primary nid: $B0
      Multi-Rail: true
      peer ni:
      -     nid: $B0
            state: NA
      -     nid: $B1
            state: NA
EOF
echo "ok 14.3 first PUTs discover B"

# 14.1: discover output; B knows A's NIDs by A's push.
ctl discover $B1 >"$tmp/discover.out"
same discover "$tmp/discover.out" <<EOF
discover:
- primary nid: $B0
  Multi-Rail: true
  peer_ni:
  - nid: $B0
  - nid: $B1
EOF
[ "$(state_of ctl $B0)" = 273 ] || ul_fail "peer state $(state_of ctl $B0)"
ul_wait_for 50 lists ctlb $A0 $A1 || ul_fail "B did not learn A1 by push"
same b_knows_a <(ctlb peer show --nid $A1) <<EOF
peer:
-     primary nid: $A0
      Multi-Rail: true
      peer ni:
      -     nid: $A0
            state: NA
      -     nid: $A1
            state: NA
EOF
echo "ok 14.1 discover B; B learnt A's NIDs by push"

# 14.5: a net added on B, then its link down, reach A by push.
ctlb net add --net tcp99 --if ub2 || ul_fail "net add tcp99 on B"
ul_wait_for 50 lists ctl $B0 $B99 || ul_fail "A did not learn $B99"
same a_knows_b99 <(ctl peer show --nid $B99) <<EOF
peer:
-     primary nid: $B0
      Multi-Rail: true
      peer ni:
      -     nid: $B0
            state: NA
      -     nid: $B1
            state: NA
      -     nid: $B99
            state: NA
EOF
[ "$(health_of $B99)" = 1000 ] || ul_fail "health of $B99 before"
ip -n "$nsb" link set ub2 down
ul_wait_for 50 b99_down ||
	ul_fail "B's net show does not say tcp99 is down"
ul_wait_for 50 health_below $B99 ||
	ul_fail "A's health of $B99 stayed $(health_of $B99)"
echo "ok 14.5 net add and link down on B reach A ($B99 health $(health_of $B99))"
ctlb net del --net tcp99 || ul_fail "net del tcp99 on B"
ul_wait_for 50 lacks ctl $B0 $B99 || ul_fail "A still lists $B99"
echo "ok 14.6 a deleted NI of B leaves A's peer"

# 14.7: discovery off on B deletes A's peer; traffic makes it non-MR.
ctlb set discovery 0
ul_wait_for 50 no_peer ctl $B0 || ul_fail "A kept its peer for B"
no_peer ctl $B1 || ul_fail "A kept $B1"
perf $B1
same non_mr <(ctl peer show) <<EOF
peer:
-     primary nid: $B1
      Multi-Rail: false
      peer ni:
      -     nid: $B1
            state: NA
EOF
[ "$(state_of ctl $B1)" = 274 ] || ul_fail "peer state $(state_of ctl $B1)"
echo "ok 14.7 discovery off on B: peer deleted, made again non-MR"

# 14.6 with B configured on A: the deleted NID stays listed.
ctlb set discovery 1
ctl discover $B0 >/dev/null || ul_fail "discover B again"
ctl peer add --prim_nid $B0 --nid $B1 || ul_fail "peer add on A"
before=$(recv_from_b)
ctlb net del --net tcp --if ub1 || ul_fail "net del ub1 on B"
# B's push is one more message received from B; after it, B1 is listed.
ul_wait_for 50 received_more "$before" ||
	ul_fail "no push from B arrived"
lists ctl $B0 $B1 || ul_fail "configured $B1 left A's peer"
echo "ok 14.6 a configured NID stays listed"

ul_yaml_check_all
echo "PASS"
