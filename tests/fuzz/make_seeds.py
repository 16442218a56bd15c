#!/usr/bin/env python3
"""Write the seed corpus of one fuzz target into a directory.

    make_seeds.py TARGET OUTDIR

wire:   every unit of tests/vectors/frames.txt, and each direction of each
        connection joined into one stream, as raw bytes;
decode: frames.txt itself, and each unit as a line of hex;
nid:    each line of tests/fuzz/nid_seeds.txt (NID, net and nidlist strings),
        with a NUL and a NID to match after nidlists;
conf:   the lnet.conf files of tests/unit/conf and tests/fuzz/conf_seeds.
Standard library only; deterministic.
"""
import os
import re
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
    else:
        sys.exit("make_seeds.py: unknown target %r" % target)


if __name__ == "__main__":
    main()
