/*
 * tcp_stream: one bulk TCP (or MPTCP) stream, for scripts/bench_rails.sh.
 *
 *   tcp_stream recv ADDR PORT [--mptcp]
 *	listen on ADDR:PORT, take one connection, read it to the end and
 *	print "bytes B seconds S gbit_s G" (first byte to last byte);
 *   tcp_stream send ADDR PORT SECONDS [--mptcp] [--from SRC] [--zerocopy]
 *	connect (from SRC if given) and write 128 KiB at a time for SECONDS;
 *	--zerocopy: with MSG_ZEROCOPY (SO_ZEROCOPY), reading the completions
 *	from the error queue, and say on stderr how many the kernel
 *	reported as copied after all (SO_EE_CODE_ZEROCOPY_COPIED).
 *
 * Goodput is measured at the receiver: what the application got, not
 * what left the sender's buffers. Not a bench_* program: `make bench`
 * does not run it (it needs a peer).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* MSG_ZEROCOPY completions read so far, and those the kernel copied. */
struct zc_count {
	uint64_t done, copied;
};

/* Read what the error queue holds now (completion ranges). */
static void zc_reap(int fd, struct zc_count *zc)
{
	for (;;) {
		char ctrl[128];
		struct msghdr msg;
		struct cmsghdr *cm;
		ssize_t n;

		memset(&msg, 0, sizeof(msg));
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (n < 0)
			return;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err ee;

			if (cm->cmsg_level != SOL_IP ||
			    cm->cmsg_type != IP_RECVERR)
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			/* ee_info..ee_data: the range of sends completed */
			zc->done += (uint64_t)(ee.ee_data - ee.ee_info) + 1;
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				zc->copied +=
					(uint64_t)(ee.ee_data - ee.ee_info) + 1;
		}
	}
}

#define CHUNK (128u * 1024u)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int addr_parse(const char *ip, const char *port, struct sockaddr_in *sa)
{
	char *end;
	unsigned long p = strtoul(port, &end, 10);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (*end || p > 65535 || inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
		return -EINVAL;
	sa->sin_port = htons((uint16_t)p);
	return 0;
}

static int do_recv(const struct sockaddr_in *sa, bool is_mptcp)
{
	static uint8_t buf[CHUNK];
	int proto = is_mptcp ? IPPROTO_MPTCP : IPPROTO_TCP;
	int one = 1, lfd, fd;
	uint64_t bytes = 0, t0 = 0, t1 = 0;
	double s;

	lfd = socket(AF_INET, SOCK_STREAM, proto);
	if (lfd < 0) {
		perror("tcp_stream: socket");
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(lfd, 1)) {
		perror("tcp_stream: bind/listen");
		close(lfd);
		return 1;
	}
	/* Ready: the script waits for this line before it starts a sender. */
	printf("listening\n");
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("tcp_stream: accept");
		close(lfd);
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		t1 = now_ns();
		if (!bytes)
			t0 = t1;
		bytes += (uint64_t)n;
	}
	close(fd);
	/* Only now: MPTCP joins (extra subflows) come in through it. */
	close(lfd);
	s = (double)(t1 - t0) / 1e9;
	printf("bytes %llu seconds %.3f gbit_s %.4f\n",
	       (unsigned long long)bytes, s,
	       s > 0 ? (double)bytes * 8 / s / 1e9 : 0.0);
	return 0;
}

static int do_send(const struct sockaddr_in *sa, double seconds, bool is_mptcp,
		   const char *from, bool is_zc)
{
	static uint8_t buf[CHUNK];
	int proto = is_mptcp ? IPPROTO_MPTCP : IPPROTO_TCP;
	struct zc_count zc = { 0, 0 };
	uint64_t end, nsends = 0;
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, proto);
	if (fd < 0) {
		perror("tcp_stream: socket");
		return 1;
	}
	if (from) {
		struct sockaddr_in src;

		if (addr_parse(from, "0", &src) ||
		    bind(fd, (const struct sockaddr *)&src, sizeof(src))) {
			perror("tcp_stream: bind source");
			close(fd);
			return 1;
		}
	}
	if (is_zc &&
	    setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		perror("tcp_stream: SO_ZEROCOPY");
		close(fd);
		return 1;
	}
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		perror("tcp_stream: connect");
		close(fd);
		return 1;
	}
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		size_t off = 0;

		while (off < sizeof(buf)) {
			ssize_t n =
				is_zc ? send(fd, buf + off, sizeof(buf) - off,
					     MSG_ZEROCOPY)
				      : write(fd, buf + off, sizeof(buf) - off);

			if (n < 0 && errno == EINTR)
				continue;
			/* Too many completions unread: read them, go on. */
			if (n < 0 && is_zc && errno == ENOBUFS) {
				zc_reap(fd, &zc);
				continue;
			}
			if (n > 0 && is_zc) {
				nsends++;
				zc_reap(fd, &zc);
			}
			if (n <= 0) {
				perror("tcp_stream: write");
				close(fd);
				return 1;
			}
			off += (size_t)n;
		}
	}
	if (is_zc) {
		zc_reap(fd, &zc);
		fprintf(stderr,
			"tcp_stream: zerocopy: %llu sends, %llu completed, "
			"%llu of them copied by the kernel\n",
			(unsigned long long)nsends, (unsigned long long)zc.done,
			(unsigned long long)zc.copied);
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: tcp_stream recv ADDR PORT [--mptcp]\n"
			"       tcp_stream send ADDR PORT SECONDS [--mptcp] "
			"[--from SRC] [--zerocopy]\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	const char *from = NULL;
	bool is_mptcp = false, is_zc = false, is_send;
	double seconds = 0;
	int i, first_opt;

	if (argc < 4) {
		usage();
		return 2;
	}
	is_send = !strcmp(argv[1], "send");
	if (!is_send && strcmp(argv[1], "recv") != 0) {
		usage();
		return 2;
	}
	if (addr_parse(argv[2], argv[3], &sa)) {
		fprintf(stderr, "tcp_stream: bad address %s:%s\n", argv[2],
			argv[3]);
		return 2;
	}
	first_opt = 4;
	if (is_send) {
		char *end;

		if (argc < 5) {
			usage();
			return 2;
		}
		seconds = strtod(argv[4], &end);
		if (*end || seconds <= 0) {
			usage();
			return 2;
		}
		first_opt = 5;
	}
	for (i = first_opt; i < argc; i++) {
		if (!strcmp(argv[i], "--mptcp")) {
			is_mptcp = true;
		} else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
			from = argv[++i];
		} else if (is_send && !strcmp(argv[i], "--zerocopy")) {
			is_zc = true;
		} else {
			usage();
			return 2;
		}
	}
	return is_send ? do_send(&sa, seconds, is_mptcp, from, is_zc)
		       : do_recv(&sa, is_mptcp);
}
