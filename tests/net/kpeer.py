#!/usr/bin/env python3
"""A scripted kernel socklnd peer against a running ulnetd (conformance).

    kpeer.py HOST PORT

HOST is the address of ulnetd's tcp NI (its NID is HOST@tcp); PORT the
acceptor port both sides use. ULNETCTL and ULNET_CTL in the environment
name ulnetctl and ulnetd's control socket (for the scenarios where ulnetd
must dial). The peer plays NIDs on addresses next to HOST (the same first
three octets, last octet 5, 6 and 1) and plays them as lustre-release's
lnet/klnds/socklnd/socklnd_cb.c and socklnd.c do: it writes the bytes the
kernel writes, answers pings with the kernel's ping info, and expects
ulnetd's reactions to be the kernel's (or the departure docs/design-notes.md
documents). ulnetd must run with accept=all, any source port, keepalive 2 s.

Each scenario prints "ok NAME: what was checked" or exits 1 with
"FAIL NAME: why". Every wait is bounded (BOUND seconds).
"""
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

BOUND = 20.0
ACR_MAGIC = 0xACCE7100
HELLO_MAGIC = 0x45726963
PING_MAGIC = 0x70696E67
PID = 12345
NONE, ANY, CONTROL, BULK_IN, BULK_OUT = 0xFFFFFFFF, 0, 1, 2, 3
INVERSE = {ANY: ANY, CONTROL: CONTROL, BULK_IN: BULK_OUT, BULK_OUT: BULK_IN}
MSG_NOOP, MSG_LNET = 0xC0, 0xC1
LNET_ACK, LNET_PUT, LNET_GET, LNET_REPLY = 0, 1, 2, 3
PING_BITS = 0x8000000000000000
NI_UP = 0x15AAC0DE
WH_NONE = 0xFFFFFFFFFFFFFFFF


class Fail(Exception):
    pass


def nid4(addr):
    return (2 << 48) | struct.unpack("!I", socket.inet_aton(addr))[0]


def acr(nid):
    return struct.pack("<IIQ", ACR_MAGIC, 1, nid)


def hello(src, dst, ctype, inc, version=3, pid=PID):
    """A hello as the kernel writes it (ksocknal_send_hello): dst_pid and
    dst_incarnation are never set, 0 in a connector's hello (a zeroed
    buffer) and echoed from it in a reply (the buffer is reused)."""
    return struct.pack("<IIQQIIQQII", HELLO_MAGIC, version, src, dst, pid,
                       0, inc, 0, ctype, 0)


def parse_hello(b):
    k = ("magic", "version", "src", "dst", "src_pid", "dst_pid", "src_inc",
         "dst_inc", "ctype", "nips")
    return dict(zip(k, struct.unpack("<IIQQIIQQII", b)))


def ksock(mtype, cookie0=0, cookie1=0):
    return struct.pack("<IIQQ", mtype, 0, cookie0, cookie1)


def lnet_hdr(dst, src, mtype, plen, body):
    return struct.pack("<QQIIII", dst, src, PID, PID, mtype, plen) + \
        body.ljust(40, b"\0")


def read_exact(s, n, what):
    buf = b""
    end = time.monotonic() + BOUND
    while len(buf) < n:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            c = s.recv(n - len(buf))
        except socket.timeout:
            raise Fail("%s: %d of %d bytes after %.0f s" %
                       (what, len(buf), n, BOUND))
        except ConnectionResetError:
            raise Fail("%s: reset after %d of %d bytes" % (what, len(buf), n))
        if not c:
            raise Fail("%s: EOF after %d of %d bytes" % (what, len(buf), n))
        buf += c
    return buf


def wait_closed(s, what, bound=BOUND):
    """ulnetd ends the connection (EOF or reset) within bound seconds;
    what it sent before is returned."""
    got = b""
    end = time.monotonic() + bound
    while True:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            c = s.recv(4096)
        except socket.timeout:
            raise Fail("%s: still open after %.0f s" % (what, bound))
        except ConnectionResetError:
            return got
        if not c:
            return got
        got += c


def still_open(s):
    r, _, _ = select.select([s], [], [], 0)
    if not r:
        return True
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except (ConnectionResetError, BlockingIOError):
        return False


class Peer:
    """One kernel node: a NID on its own loopback address."""

    def __init__(self, host, port, last_octet):
        self.host, self.port = host, port
        base = host.rsplit(".", 1)[0]
        self.addr = "%s.%d" % (base, last_octet)
        self.nid = nid4(self.addr)
        self.u = nid4(host)
        self.inc = 0x1800000000000000 | (int(time.time() * 1e6) << 4) | \
            last_octet
        self.socks = []

    def connect(self, ctype, inc=None, version=3, pid=PID):
        """The active side, as ksocknal_connect: acceptor request and
        hello in one write; returns (socket, ulnetd's hello)."""
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((self.addr, 0))
        s.settimeout(BOUND)
        s.connect((self.host, self.port))
        self.socks.append(s)
        s.sendall(acr(self.u) + hello(self.nid, self.u, ctype,
                                      inc or self.inc, version=version,
                                      pid=pid))
        return s, parse_hello(read_exact(s, 56, "ulnetd's hello"))

    def listen(self):
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((self.addr, self.port))
        ls.listen(16)
        self.socks.append(ls)
        return ls

    def accept(self, ls, what):
        """The passive side: read ulnetd's request and hello."""
        ls.settimeout(BOUND)
        try:
            s, _ = ls.accept()
        except socket.timeout:
            raise Fail("%s: ulnetd did not connect" % what)
        self.socks.append(s)
        req = struct.unpack("<IIQ", read_exact(s, 16, what + " request"))
        if req != (ACR_MAGIC, 1, self.nid):
            raise Fail("%s: acceptor request %r" % (what, req))
        return s, parse_hello(read_exact(s, 56, what + " hello"))

    def answer(self, s, h, ctype=None):
        """Reply as ksocknal_create_conn does: our hello, the inverse
        type (or the one given, NONE to refuse)."""
        if ctype is None:
            ctype = INVERSE[h["ctype"]]
        s.sendall(hello(self.nid, self.u, ctype, self.inc))

    def close(self):
        for s in self.socks:
            s.close()
        self.socks = []


def check_reply_hello(name, p, h, ctype, version=3):
    """ulnetd's reply to our hello: the kernel's fields (wire.md 4.2);
    dst_pid and dst_incarnation as we sent them (0)."""
    want = dict(magic=HELLO_MAGIC, version=version, src=p.u, dst=p.nid,
                src_pid=PID, dst_pid=0, dst_inc=0, ctype=ctype, nips=0)
    for k, v in want.items():
        if h[k] != v:
            raise Fail("%s: hello %s is %#x, the kernel's would be %#x" %
                       (name, k, h[k], v))


def read_msg(s, what, skip_keepalive=True):
    """One ksock message: (ksock fields, lnet header fields, payload)."""
    while True:
        mtype, csum, c0, c1 = struct.unpack("<IIQQ", read_exact(s, 24, what))
        if mtype == MSG_NOOP:
            if skip_keepalive and (c0, c1) == (0, 1):
                continue
            return (mtype, csum, c0, c1), None, b""
        if mtype != MSG_LNET:
            raise Fail("%s: ksock type %#x" % (what, mtype))
        raw = read_exact(s, 72, what + " header")
        f = struct.unpack("<QQIIII", raw[:32])
        hdr = dict(zip(("dst", "src", "dst_pid", "src_pid", "type", "plen"),
                       f))
        hdr["body"] = raw[32:]
        payload = read_exact(s, hdr["plen"], what + " payload") \
            if hdr["plen"] else b""
        return (mtype, csum, c0, c1), hdr, payload


def ping_info(p):
    """The kernel's ping info of a single-NI node (lnet-idl.h): features
    NI_STATUS | RTE_DISABLED, entries 0@lo and the NID."""
    return struct.pack("<IIII", PING_MAGIC, 0x06, PID, 2) + \
        struct.pack("<QII", 9 << 48, 0, 0) + struct.pack("<QII", p.nid, NI_UP, 0)


def answer_lnet(p, s, hdr):
    """Play LNet's side for what ulnetd sends: a REPLY with ping info to
    a GET on portal 0, an ACK to a PUT that asks for one."""
    if hdr["type"] == LNET_GET:
        wmd, bits, ptl, _off, sink = struct.unpack("<16sQIII",
                                                   hdr["body"][:36])
        if ptl != 0 or bits != PING_BITS:
            return
        info = ping_info(p)[:sink]
        s.sendall(ksock(MSG_LNET) +
                  lnet_hdr(p.u, p.nid, LNET_REPLY, len(info), wmd) + info)
    elif hdr["type"] == LNET_PUT:
        wmd = hdr["body"][:16]
        if wmd != struct.pack("<QQ", WH_NONE, WH_NONE):
            bits = hdr["body"][16:24]
            s.sendall(ksock(MSG_LNET) + lnet_hdr(
                p.u, p.nid, LNET_ACK, 0,
                wmd + bits + struct.pack("<I", hdr["plen"])))


class Server(threading.Thread):
    """Serve ulnetd's connections to p in the background: answer each
    handshake (optionally refusing the first as a lost race) and the
    LNet messages on it."""

    def __init__(self, p, ls, conns=(), refuse_first=False):
        super().__init__(daemon=True)
        self.p, self.ls, self.refuse_first = p, ls, refuse_first
        self.conns = list(conns)
        self.hellos = []
        self.error = None
        self.stop = False

    def run(self):
        conns = self.conns
        try:
            self.ls.setblocking(False)
            end = time.monotonic() + BOUND
            while not self.stop and time.monotonic() < end:
                r, _, _ = select.select([self.ls] + conns, [], [], 0.1)
                for s in r:
                    if s is self.ls:
                        c, _ = self.ls.accept()
                        c.setblocking(True)
                        _, h = self.p.accept(_Once(c), "server")
                        self.hellos.append(h)
                        if self.refuse_first and len(self.hellos) == 1:
                            self.p.answer(c, h, NONE)
                            c.close()
                            continue
                        self.p.answer(c, h)
                        conns.append(c)
                    else:
                        _, hdr, _ = read_msg(s, "server")
                        if hdr:
                            answer_lnet(self.p, s, hdr)
        except (Fail, OSError) as e:
            self.error = str(e)


class _Once:
    """A listener stand-in that hands out one accepted socket."""

    def __init__(self, s):
        self.s = s

    def settimeout(self, t):
        pass

    def accept(self):
        return self.s, None


def ulnetctl(*args):
    r = subprocess.run([os.environ["ULNETCTL"], *args], capture_output=True,
                       text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


class Ping(threading.Thread):
    """`ulnetctl ping` of p's NID from ulnetd, in the background (ulnetd
    dials p while the scenario plays p's side); result() waits for it:
    (exit status, output), or None if it did not end within BOUND."""

    def __init__(self, p):
        super().__init__(daemon=True)
        self.nid = "%s@tcp" % p.addr
        self.rc = None
        self.start()

    def run(self):
        self.rc = ulnetctl("--ctl", os.environ["ULNET_CTL"], "ping",
                           "--timeout", "15", self.nid)

    def result(self):
        self.join(BOUND)
        return self.rc


# ---- Scenarios ------------------------------------------------------------


def s_version_negotiation(host, port):
    """A V2 hello, then one of version 5: ulnetd speaks V3 only and answers
    as the kernel answers an unknown version (wire.md 4.6): its V3 hello,
    ctype NONE, dst_nid its own NID, then it closes."""
    p = Peer(host, port, 5)
    try:
        for v in (2, 5):
            s, h = p.connect(CONTROL, version=v)
            want = dict(magic=HELLO_MAGIC, version=3, src=p.u, dst=p.u,
                        ctype=NONE, nips=0)
            for k, val in want.items():
                if h[k] != val:
                    raise Fail("version %d: hello %s %#x, want %#x" %
                               (v, k, h[k], val))
            wait_closed(s, "after the NONE reply to version %d" % v)
    finally:
        p.close()
    return "V2 and V5 hellos answered V3/NONE/own NID and closed"


def s_passive_types(host, port):
    """Connections of each type from the kernel peer: ulnetd's hello for
    each is the kernel's (inverse type, our incarnation as dst, one
    incarnation of its own); a ping GET from the peer is answered with a
    REPLY of ulnetd's ping info; ulnetd dials none of its own while these
    connections carry its messages (issue 16 item 3); a zero-copy request
    is ACKed with NOOP {0, cookie}; a keepalive NOOP is taken silently;
    ulnetd's own keepalive comes on our BULK_OUT after 2 s of silence."""
    p = Peer(host, port, 6)
    ls = p.listen()
    try:
        conns, incs = {}, set()

        def open_conn(t):
            s, h = p.connect(t)
            check_reply_hello("passive %d" % t, p, h, INVERSE[t])
            incs.add(h["src_inc"])
            conns[t] = s

        # CONTROL alone first: ulnetd answers our ping on it and must not
        # dial the types we have not opened (the kernel adds no route for
        # a peer it only knows from its connections).
        open_conn(CONTROL)
        # A ping, as lnet_ping sends it, on CONTROL.
        wmd = struct.pack("<QQ", 0x1811223344550001, 0x77)
        body = wmd + struct.pack("<QIII", PING_BITS, 0, 0, 272)
        conns[CONTROL].sendall(ksock(MSG_LNET) +
                               lnet_hdr(p.u, p.nid, LNET_GET, 0, body))
        _, hdr, payload = read_msg(conns[CONTROL], "the ping REPLY")
        if hdr is None or hdr["type"] != LNET_REPLY or \
                hdr["dst"] != p.nid or hdr["src"] != p.u or \
                hdr["body"][:16] != wmd:
            raise Fail("ping: not a REPLY to our GET: %r" % (hdr,))
        magic, _feat, pid, nnis = struct.unpack("<IIII", payload[:16])
        nids = [struct.unpack("<QI", payload[16 + 16 * i:28 + 16 * i])
                for i in range(nnis)]
        if magic != PING_MAGIC or pid != PID or (p.u, NI_UP) not in nids:
            raise Fail("ping info: magic %#x pid %d NIs %r" %
                       (magic, pid, nids))
        ls.settimeout(1.0)
        try:
            ls.accept()
            raise Fail("ulnetd dialled a peer whose connection carries")
        except socket.timeout:
            pass
        open_conn(BULK_IN)
        open_conn(BULK_OUT)
        if len(incs) != 1:
            raise Fail("ulnetd's incarnation differs between connections")
        # Zero-copy request on a PUT to a portal nobody uses.
        put = struct.pack("<QQQQII", WH_NONE, WH_NONE, 5, 0, 33, 0)
        conns[CONTROL].sendall(ksock(MSG_LNET, 77) +
                               lnet_hdr(p.u, p.nid, LNET_PUT, 0, put))
        acked = False
        end = time.monotonic() + BOUND
        while not acked and time.monotonic() < end:
            r, _, _ = select.select(list(conns.values()), [], [], 0.5)
            for s in r:
                k, hdr, _ = read_msg(s, "zero-copy ACK")
                if k[0] == MSG_NOOP and k[2:] == (0, 77):
                    acked = True
        if not acked:
            raise Fail("no NOOP {0, 77} for a zero-copy request")
        # A keepalive from us: nothing back, the connection stays.
        conns[BULK_OUT].sendall(ksock(MSG_NOOP, 0, 1))
        # ulnetd's keepalive: on its BULK_IN, our BULK_OUT (wire.md 9.3).
        k, _, _ = read_msg(conns[BULK_OUT], "ulnetd's keepalive",
                           skip_keepalive=False)
        if k != (MSG_NOOP, 0, 0, 1):
            raise Fail("keepalive: %r, want NOOP {0, 1}" % (k,))
        for t, s in conns.items():
            if not still_open(s):
                raise Fail("connection %d closed" % t)
        ls.settimeout(0.5)
        try:
            ls.accept()
            raise Fail("ulnetd dialled a peer whose connections carry")
        except socket.timeout:
            pass
    finally:
        p.close()
    return "3 types, ping REPLY, zero-copy ACK, keepalives, no dial-back"


def s_restart(host, port):
    """The peer restarts: a hello with a new incarnation while its
    connections are up closes them all and is answered NONE ("peer_ni
    rebooted" in ksocknal_create_conn); the next one is taken."""
    p = Peer(host, port, 6)
    try:
        old = [p.connect(t)[0] for t in (CONTROL, BULK_IN)]
        s, h = p.connect(BULK_OUT, inc=p.inc + 1)
        if h["ctype"] != NONE:
            raise Fail("new incarnation answered %d, not NONE" % h["ctype"])
        for o in old:
            wait_closed(o, "old connection after the restart")
        wait_closed(s, "refused connection")
        s, h = p.connect(CONTROL, inc=p.inc + 1)
        check_reply_hello("after restart", p, h, CONTROL)
    finally:
        p.close()
    return "old connections closed, NONE, then a new connection taken"


def s_protocol_error(host, port):
    """A bad ksock type on one connection closes it and its siblings
    (ksocknal_close_conn_and_siblings)."""
    p = Peer(host, port, 7)
    try:
        conns = [p.connect(t)[0] for t in (CONTROL, BULK_IN, BULK_OUT)]
        conns[0].sendall(ksock(0x12345678))
        for s in conns:
            wait_closed(s, "a connection after a protocol error")
    finally:
        p.close()
    return "the bad connection and both siblings closed"


def s_active_and_race(host, port):
    """ulnetd dials the peer: each connection starts with the acceptor
    request and a V3 hello with our incarnation unknown (0); CONTROL
    first, then BULK_IN and BULK_OUT. The peer has the lower NID and is
    connecting too: ulnetd answers the peer's connection NONE (connection
    race, ksocknal_create_conn), then its own connection, answered, goes
    on to BULK_IN and BULK_OUT, and its ping gets the peer's REPLY."""
    p = Peer(host, port, 1)  # below ulnetd's address: the lower NID
    ls = p.listen()
    try:
        t = Ping(p)
        s, h = p.accept(ls, "ulnetd's first connection")
        want = dict(magic=HELLO_MAGIC, version=3, src=p.u, dst=p.nid,
                    src_pid=PID, dst_pid=0, dst_inc=0, ctype=CONTROL, nips=0)
        for k, v in want.items():
            if h[k] != v:
                raise Fail("active hello %s %#x, want %#x" % (k, h[k], v))
        # While ulnetd waits for our answer, we connect: we lose.
        s2, h2 = p.connect(CONTROL)
        if h2["ctype"] != NONE:
            raise Fail("race: ulnetd answered %d, not NONE" % h2["ctype"])
        wait_closed(s2, "our connection that lost the race")
        # Now answer ulnetd's connection and serve the rest.
        p.answer(s, h)
        srv = Server(p, ls, [s])
        srv.start()
        rc = t.result()
        end = time.monotonic() + BOUND
        while len(srv.hellos) < 2 and time.monotonic() < end and \
                srv.is_alive():
            time.sleep(0.1)
        srv.stop = True
        srv.join(BOUND)
        if srv.error:
            raise Fail("serving ulnetd: " + srv.error)
        types = [h["ctype"] for h in srv.hellos]
        if types[:2] != [BULK_IN, BULK_OUT]:
            raise Fail("ulnetd opened %r after CONTROL" % types)
        if rc is None or rc[0] != 0:
            raise Fail("ping: %r" % (rc,))
    finally:
        p.close()
    return "CONTROL, BULK_IN, BULK_OUT dialled; race lost by the lower " \
        "NID; ping answered"


def s_reset_then_retry(host, port):
    """ulnetd's first connection to the peer is reset during the handshake
    (a kernel acceptor that was restarting). As ksocknal_connect does, the
    message waiting for it fails at once with the reset (ksocknal_txlist_done
    classes it REMOTE_DROPPED, which LNet resends only to a peer with
    another NI), and the next attempt waits for the reconnect back-off
    (min_reconnectms): a second ping dials again after it and succeeds."""
    p = Peer(host, port, 8)
    ls = p.listen()
    try:
        t = Ping(p)
        s, _h = p.accept(ls, "ulnetd's first connection")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
        t0 = time.monotonic()
        rc = t.result()
        if rc is None or rc[0] == 0 or "-104" not in rc[1]:
            raise Fail("ping through a reset handshake: %r" % (rc,))
        srv = Server(p, ls)
        srv.start()
        rc = Ping(p).result()
        waited = time.monotonic() - t0
        srv.stop = True
        srv.join(BOUND)
        if srv.error:
            raise Fail("serving ulnetd: " + srv.error)
        if rc is None or rc[0] != 0 or not srv.hellos:
            raise Fail("ping after the back-off: %r" % (rc,))
    finally:
        p.close()
    return "reset: ping failed -104 at once; next ping dialled again " \
        "and answered %.1f s after the reset" % waited


SCENARIOS = [s_version_negotiation, s_passive_types, s_restart,
             s_protocol_error, s_active_and_race, s_reset_then_retry]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    host, port = sys.argv[1], int(sys.argv[2])
    for sc in SCENARIOS:
        name = sc.__name__[2:]
        try:
            what = sc(host, port)
        except (Fail, OSError) as e:
            print("FAIL %s: %s" % (name, e))
            sys.exit(1)
        print("ok %s: %s" % (name, what))


if __name__ == "__main__":
    main()
