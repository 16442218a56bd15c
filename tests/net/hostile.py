#!/usr/bin/env python3
"""Hostile raw TCP clients against a ulnetd acceptor (hostile_daemon.sh).

    hostile.py HOST PORT TARGET_NID_ADDR FAKE_ADDR MODE [COUNT] [READY_FILE]

HOST:PORT is the acceptor; TARGET_NID_ADDR the IPv4 address of the NI
listening there (its tcp NID); FAKE_ADDR the address of the made-up tcp
NID the clients that finish a handshake claim to be.

Each client checks that ulnetd ends the connection (EOF or reset) by itself
within BOUND seconds, and what it answered first where wire.md says it
answers (the 16-byte version answer, our V3 hello). It prints one line per
client kind with its count and exits 1 on the first client ulnetd did not
treat as expected.

MODE:
  fast N     N connections cycling through the kinds that ulnetd must end
             at once (bad magic, hello without acceptor request, bad acceptor
             version, wrong NID, bad hello, RST half-way, and, after a real
             handshake: absurd payload length, bad ksock type, bad LNet type)
  slow N F   N each of: silent connect, acceptor request then half a hello
             then silence, one byte a second; all at once, in threads,
             each from its own address 127.X.11.1-250 (X: FAKE_ADDR's
             second octet); the file F is created once all are connected.
             ulnetd's handshake bound (5 s) must end each of them.
  hellos N   N clients, one after another, each completing a handshake as
             a different made-up NID (FAKE_ADDR's last two octets counting
             up) and then closing: what ulnetd keeps of peers it only
             heard from is the script's to check.
  flood N F  N silent connections held open at once, from 64 source
             addresses 127.X.10.1-64 (X: FAKE_ADDR's second octet); the
             file F is created once all are connected; they are closed
             when the script removes F or after BOUND. Each one ulnetd
             ended is counted; none is required to end.
  storm N    N connections closed as soon as connected, no byte sent
             (every other one with a reset).
  stall N    N clients at once that finish a handshake, then send the
             first bytes of an LNet message one a second for 3 s and
             stop; ulnetd must close each once its socklnd timeout
             passes without progress (the script sets a short one).
"""
import os
import socket
import struct
import sys
import threading
import time

BOUND = 20.0  # seconds: far above ulnetd's 5 s handshake bound
ACR_MAGIC = 0xACCE7100
HELLO_MAGIC = 0x45726963
PROTO_V3 = 3
CONN_CONTROL = 1
VERSION_ANSWER = struct.pack("<IIQ", ACR_MAGIC, 1, 0)
FAKE_INCARNATION = 0x1811223344556677


class Bad(Exception):
    pass


def ip_int(addr):
    return struct.unpack("!I", socket.inet_aton(addr))[0]


def nid4(addr):
    """64-bit tcp (net type 2, number 0) NID of an IPv4 address."""
    return (2 << 48) | ip_int(addr)


def acr(nid, version=1, magic=ACR_MAGIC):
    return struct.pack("<IIQ", magic, version, nid)


def hello(src, dst, ctype=CONN_CONTROL, version=PROTO_V3, nips=0):
    return struct.pack("<IIQQIIQQII", HELLO_MAGIC, version, src, dst, 12345,
                       0, FAKE_INCARNATION, 0, ctype, nips)


def ksock_lnet(lnet_type=1, payload_length=0, ksh_type=0xC1):
    """A ksock LNET header and an LNet PUT-shaped header (wire.md 5.5, 5.6)."""
    ksh = struct.pack("<IIQQ", ksh_type, 0, 0, 0)
    hdr = struct.pack("<QQIIII", 0, 0, 12345, 12345, lnet_type,
                      payload_length)
    return ksh + hdr + bytes(40)


def connect(host, port, src=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if src:
        s.bind((src, 0))
    s.settimeout(BOUND)
    s.connect((host, port))
    return s


def slow_source(a, i):
    """Source address of slow client i: 127.X.11.(i+1), X being
    FAKE_ADDR's second octet; one address each, so that no address holds
    more than its share of handshakes and only the bound ends them."""
    return "127.%d.11.%d" % ((a.fake >> 16) & 0xFF, i % 250 + 1)


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise Bad("EOF after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def expect_close(s, what, first=b""):
    """ulnetd must send `first` (maybe nothing), then end the connection."""
    got = b""
    t0 = time.monotonic()
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise Bad("%s: still open after %.0f s" % (what, BOUND))
    finally:
        s.close()
    if got != first:
        raise Bad("%s: got %r, expected %r" % (what, got.hex(), first.hex()))
    return time.monotonic() - t0


def handshake(a):
    """A real acceptor request and V3 hello; returns the socket once
    ulnetd's own hello (V3, from the target NID, CONTROL) is read."""
    s = connect(a.host, a.port)
    s.sendall(acr(a.target) + hello(a.fake, a.target))
    reply = read_exact(s, 56)
    magic, ver, src, dst, _sp, _dp, _si, _di, ctype, nips = struct.unpack(
        "<IIQQIIQQII", reply)
    if (magic, ver, src, dst, ctype, nips) != (HELLO_MAGIC, PROTO_V3, a.target,
                                               a.fake, CONN_CONTROL, 0):
        raise Bad("handshake: unexpected hello %s" % reply.hex())
    return s


def k_bad_magic(a):
    s = connect(a.host, a.port)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    expect_close(s, "bad magic")


def k_hello_first(a):
    s = connect(a.host, a.port)
    s.sendall(hello(a.fake, a.target))
    expect_close(s, "hello without acceptor request", VERSION_ANSWER)


def k_bad_version(a):
    s = connect(a.host, a.port)
    s.sendall(acr(a.target, version=9))
    expect_close(s, "acceptor version 9", VERSION_ANSWER)


def k_wrong_nid(a):
    s = connect(a.host, a.port)
    s.sendall(acr(a.fake) + hello(a.fake, a.fake))
    expect_close(s, "request for a NID that is not the NI's")


def k_bad_hello(a):
    # Right request, then a hello claiming 1000 legacy IPs.
    s = connect(a.host, a.port)
    s.sendall(acr(a.target) + hello(a.fake, a.target, nips=1000))
    expect_close(s, "hello with nips 1000")


def k_rst(a):
    s = connect(a.host, a.port)
    s.sendall(acr(a.target)[:7])
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def k_absurd_length(a):
    s = handshake(a)
    s.sendall(ksock_lnet(payload_length=0xFFFFFFF0))
    expect_close(s, "PUT with payload_length 0xfffffff0")


def k_over_mtu(a):
    s = handshake(a)
    s.sendall(ksock_lnet(payload_length=0x100001))
    expect_close(s, "PUT with payload_length 1 MiB + 1")


def k_bad_ksh_type(a):
    s = handshake(a)
    s.sendall(ksock_lnet(ksh_type=0x12345678))
    expect_close(s, "ksock type 0x12345678")


def k_bad_lnet_type(a):
    s = handshake(a)
    s.sendall(ksock_lnet(lnet_type=77))
    expect_close(s, "LNet type 77")


FAST = [k_bad_magic, k_hello_first, k_bad_version, k_wrong_nid, k_bad_hello,
        k_rst, k_absurd_length, k_over_mtu, k_bad_ksh_type, k_bad_lnet_type]


def s_silent(a, ready, i):
    s = connect(a.host, a.port, slow_source(a, i))
    ready.connected()
    expect_close(s, "silent client")


def s_half_hello(a, ready, i):
    s = connect(a.host, a.port, slow_source(a, i))
    s.sendall(acr(a.target) + hello(a.fake, a.target)[:20])
    ready.connected()
    expect_close(s, "half a hello, then silence")


def s_trickle(a, ready, i):
    s = connect(a.host, a.port, slow_source(a, i))
    data = acr(a.target) + hello(a.fake, a.target)
    ready.connected()
    t0 = time.monotonic()
    for i, b in enumerate(data):
        try:
            s.sendall(bytes([b]))
        except (BrokenPipeError, ConnectionResetError):
            s.close()
            return
        # A close from ulnetd shows up as EOF before the next byte, or as
        # a reset when it closed with our last byte still unread.
        s.settimeout(1.0)
        try:
            if s.recv(1) == b"":
                s.close()
                return
            raise Bad("trickle: ulnetd answered a partial handshake")
        except ConnectionResetError:
            s.close()
            return
        except socket.timeout:
            pass
        if time.monotonic() - t0 > BOUND:
            break
    s.close()
    raise Bad("trickle: %d bytes at 1 byte/s and still open" % (i + 1))


SLOW = [s_silent, s_half_hello, s_trickle]


def nid_plus(nid, i):
    """The tcp NID i addresses above nid (same net)."""
    return (nid & ~0xFFFFFFFF) | ((nid + i) & 0xFFFFFFFF)


def h_fake_hello(a, i):
    s = connect(a.host, a.port)
    fake = nid_plus(a.fake, i)
    s.sendall(acr(a.target) + hello(fake, a.target))
    reply = read_exact(s, 56)
    magic, ver, src, dst = struct.unpack("<IIQQ", reply[:24])
    if (magic, ver, src, dst) != (HELLO_MAGIC, PROTO_V3, a.target, fake):
        raise Bad("fake hello %d: unexpected hello %s" % (i, reply.hex()))
    s.close()


def flood_source(a, i):
    """Source address of flood connection i: one of 64 loopback addresses
    127.X.10.1-64 (X: FAKE_ADDR's second octet), so that both the share
    of one address and the total number of handshakes are tested."""
    x = (a.fake >> 16) & 0xFF
    return "127.%d.10.%d" % (x, i % 64 + 1)


def flood(a, count, ready_file):
    """Hold count silent connections; count those ulnetd ends."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = count + 64
        if soft < want and (hard == resource.RLIM_INFINITY or hard >= want):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < want:
            # What this host allows; said on stderr, the script goes on.
            count = max(soft - 64, 1)
            sys.stderr.write("flood: %d connections (RLIMIT_NOFILE %d)\n"
                             % (count, soft))
    except (ImportError, ValueError, OSError):
        pass
    socks = []
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((flood_source(a, i), 0))
        s.settimeout(BOUND)
        s.connect((a.host, a.port))
        s.setblocking(False)
        socks.append(s)
    with open(ready_file, "w") as f:
        f.write("connected\n")
    ended = 0
    t0 = time.monotonic()
    while os.path.exists(ready_file) and time.monotonic() - t0 < BOUND:
        time.sleep(0.2)
    for s in socks:
        try:
            if s.recv(1) == b"":
                ended += 1
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            ended += 1
        s.close()
    return ended


def t_stall(a, i):
    """A handshake as made-up NID i, 3 bytes of a message at 1 byte/s,
    then silence: closed by ulnetd's stall timeout."""
    s = connect(a.host, a.port)
    fake = nid_plus(a.fake, 1000 + i)
    s.sendall(acr(a.target) + hello(fake, a.target))
    read_exact(s, 56)
    for b in ksock_lnet()[:3]:
        s.sendall(bytes([b]))
        time.sleep(1.0)
    expect_close(s, "stalled mid-message")


def storm(a, count):
    """count connections closed as soon as they are made (no byte sent);
    every other one with a reset."""
    for i in range(count):
        s = connect(a.host, a.port)
        if i % 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        s.close()


class Args:
    pass


class Ready:
    """Counts the slow clients connected; the script waits for all."""

    def __init__(self, n):
        self.left = n
        self.cv = threading.Condition()

    def connected(self):
        with self.cv:
            self.left -= 1
            self.cv.notify_all()

    def wait_all(self, bound):
        with self.cv:
            return self.cv.wait_for(lambda: self.left <= 0, bound)


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    a = Args()
    a.host, a.port = sys.argv[1], int(sys.argv[2])
    a.target, a.fake = nid4(sys.argv[3]), nid4(sys.argv[4])
    mode = sys.argv[5]
    count = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    done = {}
    if mode == "fast":
        for i in range(count):
            k = FAST[i % len(FAST)]
            try:
                k(a)
            except (Bad, OSError) as e:
                sys.exit("client %d (%s): %s" % (i, k.__name__, e))
            done[k.__name__] = done.get(k.__name__, 0) + 1
    elif mode == "slow":
        ready = Ready(count * len(SLOW))
        errors = []
        lock = threading.Lock()

        def run(k, i):
            try:
                k(a, ready, i)
                with lock:
                    done[k.__name__] = done.get(k.__name__, 0) + 1
            except (Bad, OSError) as e:
                with lock:
                    errors.append("%s: %s" % (k.__name__, e))

        threads = [threading.Thread(target=run, args=(SLOW[j % len(SLOW)], j))
                   for j in range(count * len(SLOW))]
        for t in threads:
            t.start()
        if ready.wait_all(BOUND):
            with open(sys.argv[7], "w") as f:
                f.write("connected\n")
        for t in threads:
            t.join()
        if errors:
            sys.exit("; ".join(errors))
    elif mode == "hellos":
        for i in range(count):
            try:
                h_fake_hello(a, i)
            except (Bad, OSError) as e:
                sys.exit("fake hello %d: %s" % (i, e))
        done["fake_hello"] = count
    elif mode == "flood":
        done["flood_ended_by_ulnetd"] = flood(a, count, sys.argv[7])
    elif mode == "stall":
        errors = []

        def run_stall(i):
            try:
                t_stall(a, i)
            except (Bad, OSError) as e:
                errors.append("stall %d: %s" % (i, e))

        threads = [threading.Thread(target=run_stall, args=(i,))
                   for i in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            sys.exit("; ".join(errors))
        done["stalled_closed"] = count
    elif mode == "storm":
        storm(a, count)
        done["storm"] = count
    else:
        sys.exit("unknown mode " + mode)
    for k in sorted(done):
        print("%s %d" % (k, done[k]))


if __name__ == "__main__":
    main()
