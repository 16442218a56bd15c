#!/usr/bin/env bash
# ulnetctl net add / del / show with real interfaces (reference/
# lnetctl.md §6.1, §6.2): NIs by interface, LNet's legacy --ip2net
# matching, loopback and IPv6-only interfaces refused, conns_per_peer
# from the link speed. Root only (network namespaces); exits 77,
# "skipped", otherwise. ulnetd and ulnetctl both run in one namespace:
#
#   netns ulnet-net-<pid>
#     eth0 198.18.0.1/24   veth (peer p0), 10000 Mb/s
#     eth1 198.18.1.1/24   veth (peer p1), 10000 Mb/s
#     eth2 198.18.2.1/24   veth (peer p2), 10000 Mb/s
#     eth3 2001:db8::5/64  veth (peer p3), no IPv4 address
#     ifb0 198.18.4.1/24   ifb, no link speed
#     lo   127.0.0.1/8
#
# ulnetd has one CPT (--cpts 1) and no net but lo at start.
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root to create network namespaces"
	exit 77
fi
if ! command -v ip >/dev/null; then
	echo "skipped: ip (iproute2) is not installed"
	exit 77
fi
ns=ulnet-net-$$
if ! ip netns add "$ns" 2>/dev/null; then
	echo "skipped: cannot create network namespace $ns"
	exit 77
fi
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"
trap 'cli_cleanup; ip netns del "$ns" 2>/dev/null' EXIT

for k in 0 1 2 3; do
	ip -n "$ns" link add "eth$k" type veth peer name "p$k"
	ip -n "$ns" link set "p$k" up
done
for k in 0 1 2; do
	ip -n "$ns" addr add "198.18.$k.1/24" dev "eth$k"
done
ip -n "$ns" addr add 2001:db8::5/64 dev eth3 nodad
if ! ip -n "$ns" link add ifb0 type ifb; then
	echo "skipped: this kernel has no ifb link type"
	exit 77
fi
ip -n "$ns" addr add 198.18.4.1/24 dev ifb0
for i in eth0 eth1 eth2 eth3 ifb0 lo; do
	ip -n "$ns" link set "$i" up
done

# ulnetd inside the namespace (ip netns exec runs it in place, so the
# pid daemon.bash tracks is ulnetd's).
real_ulnetd=$(realpath "$ULNETD")
ULNETD=$TMP/ulnetd-in-ns
printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$ns" "$real_ulnetd" \
	>"$ULNETD"
chmod +x "$ULNETD"
cli_daemon n '' --cpts 1
u="ip netns exec $ns $ULNETCTL"

# show NAME NET NID:IF...: `net show --net NET` lists exactly these NIs,
# in this order, each up on its interface.
show() {
	local name=$1 net=$2 ni want
	shift 2
	want="net:
-     net type: $net
      local NI(s):"
	for ni in "$@"; do
		want+="
      -     nid: ${ni%%:*}@$net
            status: up
            interfaces:
                  0: ${ni#*:}"
	done
	expect "$name" 0 "$want" "" -- $u net show --net "$net"
}
gone() { # name net: the net is not there (lnetctl.md §6.3)
	expect "$1" 234 "" "$(d1 show net -3 'Network is down')" -- \
		$u net show --net "$2"
}

# --- NIs by interface ---------------------------------------------------
# 1 conns_per_peer follows the link speed when the NI starts, as LNet's
# socklnd: 10000 Mb/s gives floor(log2(10)) / 2 + 1 = 2; an unknown
# speed (ifb) counts as 1 Gb/s: 1; 0 is the LND default, a count given is
# kept; an NI by NID on an interface's address takes that interface's.
expect add_eth0 0 "" "" -- $u net add --net tcp --if eth0
expect add_ifb0 0 "" "" -- $u net add --net tcp --if ifb0
expect add_cpp0 0 "" "" -- $u net add --net tcp1 --if eth1 \
	--conns-per-peer 0
expect add_cpp3 0 "" "" -- $u net add --net tcp1 --if eth2 -m 3
expect add_nid_eth2 0 "" "" -- $u net add --nid 198.18.2.1@tcp2
expect show_cpp 0 @net/netns_show_v1.yaml "" -- $u net show -v
expect del_setup 0 "" "" -- $u net del --net tcp1
expect del_setup2 0 "" "" -- $u net del --net tcp2
# 2 a repeated --if adds to the list, for add and for del.
expect add_repeat 0 "" "" -- $u net add --net tcp3 --if eth1 --if eth2
show show_repeat tcp3 198.18.1.1:eth1 198.18.2.1:eth2
expect del_repeat 0 "" "" -- $u net del --net tcp3 --if eth1 --if eth2
gone gone_repeat tcp3
# 3 NIs are added one at a time; those before a failure stay.
expect add_partial_if 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --net tcp3 --if eth1,nosuch
show show_partial_if tcp3 198.18.1.1:eth1
expect add_partial_cpt 234 "" "$(d1 add net -34 'invalid CPT value')" -- \
	$u net add --net tcp4 --if 'eth1,eth2[5]'
show show_partial_cpt tcp4 198.18.1.1:eth1
expect add_first_cpt 234 "" "$(d1 add net -34 'invalid CPT value')" -- \
	$u net add --net tcp5 --if 'eth1[5],eth2'
gone gone_first_cpt tcp5
expect del_partial 0 "" "" -- $u net del --net tcp3
expect del_partial2 0 "" "" -- $u net del --net tcp4
# 4 loopback interfaces are never LNet's; a --if whose interface has
# only IPv6, or an IPv6 NID, is refused in words that say why (ulnet's
# socklnd is IPv4 only; LNet would start an IPv6 NI).
expect add_lo 234 "" "$(d1 add net -19 'cannot add LNet NI')" -- \
	$u net add --net tcp5 --if lo
v6=$(d1 add net -97 "cannot add LNet NI: ulnet's socklnd is IPv4 only")
expect add_ipv6_if 234 "" "$v6" -- $u net add --net tcp5 --if eth3
expect add_ipv6_nid 234 "" "$v6" -- $u net add --nid 2001:db8::5@tcp5
expect del_if_lo 234 "" "$(d1 del net -19 'cannot del LNet NI')" -- \
	$u net del --net tcp --if lo
gone gone_tcp5 tcp5

# --- --ip2net, LNet's legacy matching ---------------------------------------
ip2net_err() { # errno: the D1 every refused rule gets
	d1 add net "$1" 'cannot setup ip2nets'
}
# 5 a rule without an address pattern matches nothing; loopback
# addresses are never matched; a comment hides a pattern.
expect ip2net_bare 234 "" "$(ip2net_err -2)" -- $u net add --ip2net tcp12
expect ip2net_bare_ifs 234 "" "$(ip2net_err -2)" -- \
	$u net add --ip2net 'tcp12(eth0); tcp12()'
expect ip2net_lo 234 "" "$(ip2net_err -2)" -- \
	$u net add --ip2net 'tcp12 127.0.0.1'
expect ip2net_comment 234 "" "$(ip2net_err -2)" -- \
	$u net add --ip2net 'tcp12(eth2) 10.9.9.9 # 198.18.2.1'
# 6 an entry that matches gives an NI on every interface it lists, in
# its order, whatever their own addresses; a net without interfaces
# takes the first one (eth0).
expect ip2net_all 0 "" "" -- \
	$u net add --ip2net 'tcp10(eth1,eth0) 198.18.0.*'
show show_ip2net_all tcp10 198.18.1.1:eth1 198.18.0.1:eth0
expect ip2net_default 0 "" "" -- $u net add --ip2net 'tcp11 198.18.2.*'
show show_ip2net_default tcp11 198.18.0.1:eth0
# 7 a net named by two matching entries gets the NIs of both (an
# interface may carry a CPT list).
expect ip2net_merge 0 "" "" -- $u net add --ip2net \
	'tcp14(eth1[0]) 198.18.1.*; tcp14(eth2) 10.0.0.1 198.18.2.*'
show show_ip2net_merge tcp14 198.18.1.1:eth1 198.18.2.1:eth2
# 8 a net's NIs are added all or none; nets are added in order and
# those before a failure stay.
expect ip2net_atomic 234 "" "$(ip2net_err -19)" -- \
	$u net add --ip2net 'tcp13(eth1,nosuch) 198.18.*.*'
gone gone_ip2net_atomic tcp13
expect ip2net_exists 234 "" "$(ip2net_err -17)" -- \
	$u net add --ip2net 'tcp15(eth1) 198.18.1.*; tcp10(eth0) 198.18.0.*'
show show_ip2net_before tcp15 198.18.1.1:eth1
show show_ip2net_unchanged tcp10 198.18.1.1:eth1 198.18.0.1:eth0
# 9 a bad pattern or net anywhere refuses the whole string.
expect ip2net_bad_pattern 234 "" "$(ip2net_err -22)" -- \
	$u net add --ip2net 'tcp16 198.18.0.*; tcp17 10.0.0'
expect ip2net_bad_net 234 "" "$(ip2net_err -22)" -- \
	$u net add --ip2net 'foo 198.18.0.*'
expect ip2net_dup 234 "" "$(ip2net_err -22)" -- \
	$u net add --ip2net 'tcp16(eth0),tcp16(eth1) 198.18.0.*'
gone gone_ip2net_bad tcp16


# --- import's ip2nets (lnetctl.md §17.2) ------------------------------------
# 10 a rule resolved against these interfaces; a second rule for a net
# already configured is skipped: one NI, with the first rule's tunables.
cat >"$TMP/ip_dup.yaml" <<'EOF'
ip2nets:
    - net-spec: tcp20
      interfaces:
          0: eth1
      ip-range:
          0: 198.18.*.*
    - net-spec: tcp20
      interfaces:
          0: eth1
      tunables:
          peer_credits: 4
EOF
expect import_ip2nets 0 "" "" -- $u import "$TMP/ip_dup.yaml"
show show_import_ip2nets tcp20 198.18.1.1:eth1
expect show_import_v 0 "*" "" -- $u net show --net tcp20 -v
check import_ip2nets_credits '^                  peer_credits: 8$'
expect import_ip2nets_del 0 "" "" -- $u import --del "$TMP/ip_dup.yaml"
gone gone_import tcp20
# a rule that resolves to lo: LNet refuses the NI (no loopback NIs).
printf 'ip2nets:\n    - net-spec: tcp21\n      interfaces:\n          0: lo\n      ip-range:\n          0: 127.*.*.*\n' \
	>"$TMP/ip_lo.yaml"
expect import_ip2nets_lo 234 "" "$(d1 add net -19 'cannot add LNet NI')
$(d1 add import -22 "Failed to configure NI on net 'tcp21' rc = -22")" -- \
	$u import "$TMP/ip_lo.yaml"
gone gone_import_lo tcp21

# --- no --config: LNet's default networks="tcp" -------------------------------
# 11 ulnetd brings up tcp on the first interface that is up with an IPv4
# address and is not a loopback one (eth0), and `lnet configure --all`
# brings up the same again, as LNet's module defaults would.
cli_stop n
cli_daemon d --no-config --cpts 1
show show_default tcp 198.18.0.1:eth0
expect default_down 0 "" "" -- $u lnet unconfigure
expect default_configure 0 "" "" -- $u lnet configure --all
show show_default_again tcp 198.18.0.1:eth0
# plain configure: 0@lo only, as before.
expect default_down2 0 "" "" -- $u lnet unconfigure
expect default_configure_lo 0 "" "" -- $u lnet configure
expect show_default_lo 0 "*" "" -- $u net show
check show_default_lo_only '^-     net type: lo$'
expect show_default_no_tcp 234 "" "*" -- $u net show --net tcp

finish
