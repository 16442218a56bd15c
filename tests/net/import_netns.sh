#!/usr/bin/env bash
# ulnetctl import and ulnetd --config resolving interfaces on a real host
# (reference/lnetctl.md §17.2), in one network namespace (root only;
# exits 77, "skipped", otherwise):
#
#   netns ulI-<pid>
#   lo  up    127.0.0.1
#   v0  up    198.18.0.1/24                 (veth to v0p, no address)
#   v1  up    no IPv4 address               (veth to v1p)
#   v2  down  198.18.2.1/24                 (veth to v2p)
#   v3  up    10.20.3.1/24, 2001:db8:1::1/64 (veth to v3p)
#
# Checked:
#  1. a net block naming no interface gets an NI on the first up IPv4
#     interface but lo (v0); its --del removes that NI only;
#  2. an up interface without IPv4 is lnetctl's "couldn't query intf"
#     (234), a down one "Matched interface ... is not UP" (214);
#  3. an ip2nets rule with an IPv6 range picks v3 by its IPv6 address and
#     the NI takes v3's IPv4 address;
#  4. ulnetd --config with the same file ends with the same NIs.
set -euo pipefail
# shellcheck source=tests/net/lib.bash
. "$(dirname "$0")/lib.bash"
ul_need_root "to create a network namespace"
command -v ip >/dev/null || ul_skip "ip (iproute2) is not installed"
ns=ulI-$$
port=$((20000 + $$ % 20000))
ul_cleanup_extra() {
	ip netns del "$ns" 2>/dev/null
}
ul_setup import

ip netns add "$ns"
ip -n "$ns" link set lo up
for i in 0 1 2 3; do
	ip -n "$ns" link add "v$i" type veth peer name "v${i}p"
done
ip -n "$ns" addr add 198.18.0.1/24 dev v0
ip -n "$ns" addr add 198.18.2.1/24 dev v2
ip -n "$ns" addr add 10.20.3.1/24 dev v3
ip -n "$ns" addr add 2001:db8:1::1/64 dev v3 nodad
for i in 0 1 3; do
	ip -n "$ns" link set "v$i" up
	ip -n "$ns" link set "v${i}p" up
done

daemon() { # name [config]
	local conf=${2:-$tmp/$1.empty}
	printf '\n' >"$tmp/$1.empty"
	ip netns exec "$ns" "$ULNETD" --config "$conf" --ctl "$tmp/$1.ctl" \
		--foreground --port "$port" --accept all --src-port any \
		2>"$tmp/$1.log" &
	ul_track $!
	ul_pid[$1]=$!
	ul_wait_for 50 grep -q 'control socket ready' "$tmp/$1.log" ||
		ul_fail "ulnetd $1 did not start"
}
ctl() { # name, ulnetctl arguments...
	local n=$1
	shift
	ip netns exec "$ns" "$ULNETCTL" --ctl "$tmp/$n.ctl" "$@"
}
nids() { # name: the NIDs of net show, one line
	ctl "$1" net show | awk '/nid:/ { print $NF }' | tr '\n' ' '
}
expect_rc() { # name, want, command...
	local want=$2 rc=0
	shift 2
	"$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err" || rc=$?
	[ "$rc" = "$want" ] || ul_fail "status $rc, want $want: $*"
}

cat >"$tmp/conf.yaml" <<'EOF'
net:
    - net type: tcp
      local NI(s):
        - tunables:
              peer_credits: 16
ip2nets:
    - net-spec: tcp5
      ip-range:
          0: 2001:db8:1::/64
EOF

daemon a
# 1 and 3
expect_rc a 0 ctl a import "$tmp/conf.yaml"
[ "$(nids a)" = "0@lo 198.18.0.1@tcp 10.20.3.1@tcp5 " ] ||
	ul_fail "after import: $(nids a)"
ctl a net add --net tcp --if v3
printf 'net:\n    - net type: tcp\n' >"$tmp/tcp.yaml"
expect_rc a 0 ctl a import --del "$tmp/tcp.yaml"
[ "$(nids a)" = "0@lo 10.20.3.1@tcp 10.20.3.1@tcp5 " ] ||
	ul_fail "after import --del: $(nids a)"
# 2
printf 'net:\n    - net type: tcp1\n      local NI(s):\n        - interfaces:\n              0: v1\n' \
	>"$tmp/v1.yaml"
expect_rc a 234 ctl a import "$tmp/v1.yaml"
grep -qF 'descr: ! "\"couldn'"'"'t query intf v1\""' "$tmp/cmd.err" ||
	ul_fail "v1: $(cat "$tmp/cmd.err")"
sed 's/v1$/v2/' "$tmp/v1.yaml" >"$tmp/v2.yaml"
expect_rc a 214 ctl a import "$tmp/v2.yaml"
grep -qF "Matched interface 'v2' is not UP" "$tmp/cmd.err" ||
	ul_fail "v2: $(cat "$tmp/cmd.err")"

# 4 (one daemon at a time: they would share the port)
ul_stop "${ul_pid[a]}"
daemon b "$tmp/conf.yaml"
[ "$(nids b)" = "0@lo 198.18.0.1@tcp 10.20.3.1@tcp5 " ] ||
	ul_fail "ulnetd --config: $(nids b)"
echo "import_netns: all checks passed"
