#!/usr/bin/env python3
"""Write the seed corpus of one fuzz target into a directory.

    make_seeds.py TARGET OUTDIR

wire:   every unit of tests/vectors/frames.txt, and each direction of each
        connection joined into one stream, as raw bytes;
decode: frames.txt itself, and each unit as a line of hex;
nid:    each line of tests/fuzz/nid_seeds.txt (NID, net and nidlist strings),
        with a NUL and a NID to match after nidlists;
conf:   the lnet.conf files of tests/unit/conf and tests/fuzz/conf_seeds.
udsp:   UDSP rule blocks (reference/udsp.md §8): the worked encodings of
        §8.4, one rule of every kind and LND, and each cut in half.
ctl:    control protocol frames (src/ctl/proto.h): a request of every op,
        with and without its optional attributes, and a reply to each.
linkmon: rtnetlink datagrams (RTM_NEWLINK/RTM_DELLINK with IFLA_IFNAME and
        IFLA_OPERSTATE, several in one datagram, NLMSG_DONE, NLMSG_ERROR).
Standard library only; deterministic.
"""
import os
import re
import struct
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAMES = os.path.join(TOP, "tests", "vectors", "frames.txt")


def read_frames():
    frames = []
    cur = None
    in_hex = False
    for line in open(FRAMES, encoding="ascii"):
        m = re.match(r"=== (\d+) (\S+) ===", line)
        if m:
            cur = {"index": int(m.group(1)), "label": m.group(2), "bytes": b""}
            continue
        if cur is None:
            continue
        m = re.match(r"conn: (\d)\s+dir: (\S+)", line)
        if m:
            cur["conn"], cur["dir"] = m.group(1), m.group(2)
        if line.startswith("hex:"):
            in_hex = True
            continue
        if line.startswith("fields:") or line.startswith("=== end"):
            in_hex = False
            if line.startswith("=== end"):
                frames.append(cur)
                cur = None
            continue
        if in_hex:
            parts = line.split()
            cur["bytes"] += bytes.fromhex("".join(parts[1:]))
    return frames


def write(outdir, name, data):
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


# UDSP rule blocks: (idx, action, priority, [src, dst, rte]); a descriptor
# is None (absent) or (lnd type, net-number ranges, [address expressions]),
# an expression a list of (lo, hi, stride) ranges.
UDSP_RULES = [
    # §8.4: --src 192.168.0.[2-20/2]@tcp1 --priority 3
    (-1, 1, 3, [(2, [(1, 1, 1)], [[(192, 192, 1)], [(168, 168, 1)],
                                 [(0, 0, 1)], [(2, 20, 2)]]), None, None]),
    # §8.4: --src 10.1.0.[1-2]@o2ib --dst 10.1.0.10@o2ib
    (-1, 2, 0, [(5, [], [[(10, 10, 1)], [(1, 1, 1)], [(0, 0, 1)], [(1, 2, 1)]]),
                (5, [], [[(10, 10, 1)], [(1, 1, 1)], [(0, 0, 1)], [(10, 10, 1)]]),
                None]),
    # --dst 172.16.0.10@o2ib2 --rte 10.1.0.101@o2ib, idx 2
    (2, 2, 0, [None,
               (5, [(2, 2, 1)], [[(172, 172, 1)], [(16, 16, 1)], [(0, 0, 1)],
                                 [(10, 10, 1)]]),
               (5, [], [[(10, 10, 1)], [(1, 1, 1)], [(0, 0, 1)], [(101, 101, 1)]])]),
    # --dst o2ib2 --rte 10.1.0.[100-101]@o2ib
    (-1, 2, 0, [None, (5, [(2, 2, 1)], []),
                (5, [], [[(10, 10, 1)], [(1, 1, 1)], [(0, 0, 1)], [(100, 101, 1)]])]),
    # --src o2ib* --priority 3
    (0, 1, 3, [(5, [(0, 0xffffffff, 1)], []), None, None]),
    # --src tcp --priority 1
    (-1, 1, 1, [(2, [], []), None, None]),
    # --dst 10.0.[1-3,7].5@o2ib --priority 4294967295
    (-1, 1, 0xffffffff, [None, (5, [], [[(10, 10, 1)], [(0, 0, 1)],
                                       [(1, 3, 1), (7, 7, 1)], [(5, 5, 1)]]),
                         None]),
    # --src 0@lo, --dst [1-5]@gni3 --rte 5@kfi (inert), action none
    (-1, 1, 0, [(9, [], [[(0, 0, 1)]]), None, None]),
    (-1, 0, 0, [None, (13, [(3, 3, 1)], [[(1, 5, 1)]]), (16, [], [[(5, 5, 1)]])]),
    # --rte 10.1.0.100@o2ib alone
    (-1, 2, 0, [None, None, (5, [], [[(10, 10, 1)], [(1, 1, 1)], [(0, 0, 1)],
                                    [(100, 100, 1)]])]),
    # efa, gip, ptlf, bxi3f
    (1, 1, 2, [(18, [], [[(1, 1, 1)], [(2, 2, 1)], [(3, 3, 1)], [(4, 8, 2)]]),
               None, None]),
    (1, 1, 2, [None, (14, [(0, 9, 3)], [[(0, 255, 1)], [(0, 255, 1)],
                                        [(0, 255, 1)], [(0, 255, 1)]]), None]),
    (-1, 1, 7, [None, (15, [], [[(7, 7, 1)]]), None]),
    (-1, 1, 7, [(19, [(7, 7, 1)], [[(0, 100, 3), (200, 200, 1)]]), None, None]),
]


def udsp_block(rule):
    idx, action, prio, descrs = rule
    body = b""
    for tag, d in zip((b"SRC\0", b"DST\0", b"RTE\0"), descrs):
        if d is None:
            body += tag + struct.pack("<3I", 0, 0, 0)
            continue
        lnd, net, addr = d
        body += tag + struct.pack("<3I", len(addr), lnd, len(net))
        body += b"".join(struct.pack("<3I", *r) for r in net)
        for expr in addr:
            body += struct.pack("<I", len(expr))
            body += b"".join(struct.pack("<3I", *r) for r in expr)
    return struct.pack("<IIiIIIQ", 32 + len(body), 0x0001000b, idx, action,
                       len(body), prio, 0) + body


# Control protocol (src/ctl/proto.h): little-endian, attributes padded to 4.
CTL_MAGIC = 0x554C4354


def ctl_attr(atype, value, nested=False):
    pad = b"\0" * (-len(value) % 4)
    return struct.pack("<HHI", atype, 1 if nested else 0, len(value)) + value + pad


def ctl_frame(op, attrs):
    payload = b"".join(attrs)
    return struct.pack("<IHHI", CTL_MAGIC, 1, op, len(payload)) + payload


def ctl_nid(lnd, num, addr):
    return struct.pack(">BBHIIII", 0, lnd, num, addr, 0, 0, 0)


def ctl_u32(atype, v):
    return ctl_attr(atype, struct.pack("<I", v))


def ctl_u64(atype, v):
    return ctl_attr(atype, struct.pack("<Q", v))


def ctl_seeds():
    tcp = ctl_nid(2, 0, 0xC0A80114)
    lo = ctl_nid(9, 0, 0)
    ping = ctl_attr(0x0005, tcp)
    yield "req-ping", ctl_frame(1, [ping])
    yield "req-ping-all", ctl_frame(1, [ping, ctl_attr(0x0006, lo),
                                        ctl_u32(0x0007, 1000)])
    yield "req-net-show", ctl_frame(2, [ctl_u32(0x0004, 0)])
    yield "req-net-show-net", ctl_frame(2, [ctl_attr(0x0008, b"tcp1\0"),
                                            ctl_u32(0x0004, 4)])
    yield "req-peer-show", ctl_frame(3, [ctl_attr(0x0005, tcp), ctl_u32(0x0004, 2)])
    rc = ctl_u32(0x0001, 0)
    pni = ctl_attr(0x0103, ctl_attr(0x0005, tcp) + ctl_u32(0x0009, 0xDEADBEEF), True)
    yield "rep-ping", ctl_frame(0x8001, [rc, ctl_attr(0x0100, tcp),
                                         ctl_u32(0x0101, 12345),
                                         ctl_u32(0x0102, 0x1B), pni])
    stats = ctl_attr(0x0400, ctl_u64(0x0410, 3) + ctl_u64(0x0417, 2), True)
    health = ctl_attr(0x0404, ctl_u32(0x0430, 0) + ctl_u32(0x0431, 1000), True)
    sent = ctl_attr(0x0401, ctl_u64(0x0420, 1) + ctl_u64(0x0424, 0), True)
    tun = ctl_attr(0x0204, ctl_u32(0x0205, 180) + ctl_u32(0x0208, 256), True)
    ni = ctl_attr(0x0202, ctl_attr(0x0005, tcp) + ctl_u32(0x0009, 0xDEADBEEF) +
                  ctl_attr(0x0203, b"eth0\0") + stats + sent + health + tun +
                  ctl_attr(0x020E, b"[0]\0"), True)
    net = ctl_attr(0x0200, ctl_u32(0x0201, 0x20000) + ni, True)
    yield "rep-net-show", ctl_frame(0x8002, [rc, net])
    peer_ni = ctl_attr(0x0304, ctl_attr(0x0005, tcp) + ctl_u32(0x0305, 0) +
                       ctl_u32(0x0306, 8) + stats + health, True)
    peer = ctl_attr(0x0300, ctl_attr(0x0301, tcp) + ctl_u32(0x0302, 1) +
                    ctl_u32(0x0303, 273) + peer_ni, True)
    yield "rep-peer-show", ctl_frame(0x8003, [rc, peer])
    yield "req-perf", ctl_frame(27, [ctl_attr(0x0005, tcp), ctl_u32(0x0c00, 1 << 20),
                                     ctl_u32(0x0c01, 5000), ctl_u32(0x0c02, 8)])
    # selftest's: a checked read to two targets, and the frame the fuzzer
    # once crashed the decoder with (a 4-byte target NID)
    tcp2 = ctl_nid(2, 0, 0xC0A80115)
    yield "req-perf-read", ctl_frame(27, [ctl_attr(0x0005, tcp), ctl_attr(0x0c10, tcp2),
                                          ctl_u32(0x0c00, 4096), ctl_u32(0x0c01, 1000),
                                          ctl_u32(0x0c02, 4), ctl_u32(0x0c0e, 1),
                                          ctl_u32(0x0c0f, 2)])
    yield "req-perf-short-target", ctl_frame(27, [ctl_attr(0x0005, tcp),
                                                  ctl_u32(0x0c10, 0x7fffff00),
                                                  ctl_u32(0x0c0f, 8)])
    rail = ctl_attr(0x0c07, ctl_attr(0x0005, tcp) + ctl_u64(0x0c03, 10) +
                    ctl_u64(0x0c04, 10 << 20), True)
    yield "rep-perf", ctl_frame(0x801B, [rc, ctl_u64(0x0c03, 10), ctl_u64(0x0c04, 10 << 20),
                                         ctl_u64(0x0c05, 0), ctl_u64(0x0c06, 10 ** 9), rail])
    yield "rep-error", ctl_frame(0x8002, [ctl_u32(0x0001, 0xFFFFFF9C),
                                          ctl_attr(0x0002, b"LNet stack down\0")])
    # generic ops: ARG_HAS then the fields it announces (proto.h 0x05xx)
    has = 0x2 | 0x10 | 0x200 | 0x10000000 | 0x20000000  # NID NET PEER_CREDITS NIDS IFS
    yield "req-net-add", ctl_frame(4, [ctl_u64(0x0500, has), ctl_attr(0x0503, tcp),
                                       ctl_attr(0x0506, b"tcp1\0"),
                                       ctl_u32(0x050b, 16), ctl_attr(0x0520, tcp),
                                       ctl_attr(0x0521, b"eth0[0,1]\0")])
    yield "req-udsp-add", ctl_frame(16, [ctl_u64(0x0500, 0x8000000),
                                         ctl_attr(0x0522, bytes(range(40)))])
    # generic reply: a document (0x06xx), engine-agnostic tree
    doc = ctl_attr(0x0600, ctl_attr(0x0602, b"global\0") +
                   ctl_attr(0x0600, ctl_attr(0x0602, b"numa_range\0") +
                            ctl_u64(0x0605, 0) +
                            ctl_attr(0x0602, b"CPT\0") +
                            ctl_attr(0x0604, b"[0,1]\0"), True) +
                   ctl_attr(0x0602, b"route\0") +
                   ctl_attr(0x0601, ctl_attr(0x0600, ctl_attr(0x0602, b"up\0") +
                                             ctl_u32(0x0607, 1), True), True), True)
    yield "rep-global-show", ctl_frame(0x800F, [rc, doc])


# rtnetlink (linux/netlink.h, linux/rtnetlink.h, linux/if_link.h), host order.
def nl_msg(mtype, payload, flags=0, seq=1):
    n = 16 + len(payload)
    pad = (4 - n % 4) % 4
    return struct.pack("=IHHII", n, mtype, flags, seq, 0) + payload + b"\0" * pad


def rta(atype, value):
    n = 4 + len(value)
    pad = (4 - n % 4) % 4
    return struct.pack("=HH", n, atype) + value + b"\0" * pad


def link_msg(mtype, index, name, flags, operstate):
    ifinfo = struct.pack("=BBHiII", 0, 0, 1, index, flags, 0xFFFFFFFF)
    attrs = rta(3, name + b"\0")          # IFLA_IFNAME
    if operstate is not None:
        attrs += rta(16, bytes([operstate]))  # IFLA_OPERSTATE
    return nl_msg(mtype, ifinfo + attrs)


def linkmon_seeds():
    up, running = 0x1, 0x40
    yield "newlink-up", link_msg(16, 2, b"eth0", up | running, 6)
    yield "newlink-down", link_msg(16, 3, b"veth1", up, 2)
    yield "dellink", link_msg(17, 3, b"veth1", 0, None)
    yield "dump", (link_msg(16, 1, b"lo", up | running, 0) +
                   link_msg(16, 2, b"eth0", up | running, 6) +
                   nl_msg(3, struct.pack("=i", 0), 2))       # NLMSG_DONE
    yield "error", nl_msg(2, struct.pack("=i", -16) + b"\0" * 16)  # NLMSG_ERROR


def main():
    target, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    frames = read_frames()
    if target == "wire":
        streams = {}
        for fr in frames:
            write(outdir, "unit-%02d-%s" % (fr["index"], fr["label"]), fr["bytes"])
            key = (fr["conn"], fr["dir"])
            streams[key] = streams.get(key, b"") + fr["bytes"]
        for (conn, d), data in sorted(streams.items()):
            write(outdir, "stream-%s-%s" % (conn, d.replace(">", "to")), data)
    elif target == "decode":
        write(outdir, "frames.txt", open(FRAMES, "rb").read())
        for fr in frames:
            write(outdir, "hex-%02d" % fr["index"], fr["bytes"].hex().encode() + b"\n")
    elif target == "nid":
        seeds = os.path.join(TOP, "tests", "fuzz", "nid_seeds.txt")
        for i, line in enumerate(open(seeds, encoding="utf-8")):
            line = line.rstrip("\n")
            if line:
                write(outdir, "seed-%03d" % i, line.replace("\\0", "\0").encode())
    elif target == "conf":
        for sub in (("tests", "unit", "conf"), ("tests", "fuzz", "conf_seeds")):
            d = os.path.join(TOP, *sub)
            for name in sorted(os.listdir(d)):
                if name.endswith(".yaml"):
                    write(outdir, "%s-%s" % (sub[1], name),
                          open(os.path.join(d, name), "rb").read())
    elif target == "udsp":
        for i, rule in enumerate(UDSP_RULES):
            block = udsp_block(rule)
            write(outdir, "rule-%02d" % i, block)
            # half a block whose lengths say so: the descriptors run short
            cut = max(32, len(block) // 2)
            write(outdir, "cut-%02d" % i, struct.pack("<I", cut) + block[4:16] +
                  struct.pack("<I", cut - 32) + block[20:cut])
    elif target == "ctl":
        for name, data in ctl_seeds():
            write(outdir, name, data)
    elif target == "linkmon":
        for name, data in linkmon_seeds():
            write(outdir, name, data)
    else:
        sys.exit("make_seeds.py: unknown target %r" % target)


if __name__ == "__main__":
    main()
