/*
 * The control server under test (helper_ctlsrv.h): fixture and raw
 * client.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/proto.h"
#include "helper_ctlsrv.h"
#include "helper_topo.h"
#include "runtime/ctlsrv.h"
#include "util/loop.h"
#include "util/err.h"
#include "wire/bytes.h"
#include "lnd/lolnd.h"

void flush_hook(void *arg)
{
	struct fx *f = arg;

	if (ul_node_flush(f->node))
		ul_loop_wake_self(f->loop);
}

void fx_path(struct fx *f, const char *tag)
{
	snprintf(f->path, sizeof(f->path), "/tmp/ulnet-ctlsrv-%d-%s.sock",
		 (int)getpid(), tag);
	unlink(f->path);
}

/* A loop and a node; with_nis adds a tcp net, two peers, no startup. */
int fx_setup(void **state, bool with_nis)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct ul_node_opts opts;
	struct ul_peer *peer;
	struct ul_core *core;
	struct ulnet_nid nid;

	assert_non_null(f);
	assert_int_equal(ul_loop_create(&f->loop), 0);
	assert_int_equal(ul_core_create(&core), 0);
	if (with_nis) {
		nid = ht_nid("192.168.1.10@tcp");
		assert_int_equal(
			ul_ni_add(core, &nid, "eth0", 0, NULL, NULL, NULL), 0);
		nid = ht_nid("192.168.2.10@tcp");
		assert_int_equal(ul_ni_add(core, &nid, "eth1", UL_NUMA_ANY,
					   NULL, NULL, NULL),
				 0);
		nid = ht_nid("192.168.1.20@tcp");
		assert_int_equal(
			ul_peer_add(core, &nid, true, false, &peer, NULL), 0);
		nid = ht_nid("192.168.2.20@tcp");
		assert_int_equal(ul_peer_ni_add(core, peer, &nid, NULL, NULL),
				 0);
		nid = ht_nid("10.0.0.5@tcp1");
		assert_int_equal(
			ul_peer_add(core, &nid, false, false, NULL, NULL), 0);
	}
	memset(&opts, 0, sizeof(opts));
	opts.timers = ul_loop_timers(f->loop);
	opts.pid = ULNET_PID_LUSTRE;
	opts.interface_cookie = 1;
	assert_int_equal(ul_node_create(core, &opts, &f->node), 0);
	assert_int_equal(ul_lolnd_register(f->node), 0);
	assert_int_equal(ul_loop_hook_add(f->loop, flush_hook, f), 0);
	fx_path(f, with_nis ? "show" : "ping");
	assert_int_equal(
		ul_ctlsrv_create(f->loop, f->node, f->path, NULL, &f->srv), 0);
	*state = f;
	return 0;
}

int setup_show(void **state)
{
	return fx_setup(state, true);
}

int setup_ping(void **state)
{
	struct fx *f;

	fx_setup(state, false);
	f = *state;
	assert_int_equal(ul_node_startup(f->node, NULL), 0);
	return 0;
}

int teardown(void **state)
{
	struct fx *f = *state;
	struct stat st;

	ul_ctlsrv_destroy(f->srv);
	/* destroy removes the socket file */
	assert_int_equal(stat(f->path, &st), -1);
	ul_loop_hook_del(f->loop, flush_hook, f);
	ul_node_destroy(f->node);
	ul_loop_destroy(f->loop);
	free(f);
	return 0;
}

/* ---- A raw client ----------------------------------------------------- */

int client_connect(const struct fx *f)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

void client_send(int fd, const void *p, size_t len)
{
	assert_int_equal(send(fd, p, len, MSG_NOSIGNAL), (ssize_t)len);
}

void client_send_req(int fd, const struct ul_ctl_req *req)
{
	struct ul_ctl_msg m;

	assert_int_equal(ul_ctl_req_encode(req, &m), 0);
	client_send(fd, m.buf, m.len);
	ul_ctl_msg_fini(&m);
}

/*
 * Run the loop until the client has a whole frame (returned, malloc'd,
 * its size in *len) or EOF (NULL). A server that closes with part of a
 * request unread resets the connection: that is an EOF too.
 */
uint8_t *client_recv(struct fx *f, int fd, size_t *len)
{
	uint8_t hdr[UL_CTL_HDR_SIZE], *frame = NULL;
	size_t got = 0, need = sizeof(hdr);
	int spins;

	for (spins = 0; spins < MAX_SPINS; spins++) {
		uint8_t *dst = frame ? frame + got : hdr + got;
		ssize_t n = recv(fd, dst, need - got, 0);

		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			free(frame);
			return NULL;
		}
		if (n > 0) {
			got += (size_t)n;
			if (got < need)
				continue;
			if (frame) {
				*len = need;
				return frame;
			}
			need = UL_CTL_HDR_SIZE + ul_get_le32(hdr + 8);
			frame = malloc(need);
			assert_non_null(frame);
			memcpy(frame, hdr, sizeof(hdr));
			if (got == need) {
				*len = need;
				return frame;
			}
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			fail_msg("recv: %s", strerror(errno));
		ul_loop_run_once(f->loop, 10);
	}
	fail_msg("no reply and no EOF from the server");
	return NULL;
}

void client_expect_eof(struct fx *f, int fd)
{
	size_t len;

	assert_null(client_recv(f, fd, &len));
}

/* Receive and decode the reply to op. */
void client_reply(struct fx *f, int fd, uint16_t op, struct ul_ctl_reply *r)
{
	struct ul_err err = { 0 };
	uint8_t *frame;
	size_t len = 0;

	frame = client_recv(f, fd, &len);
	assert_non_null(frame);
	if (ul_ctl_reply_decode(frame, len, op, r, &err))
		fail_msg("bad reply: %s", err.msg);
	free(frame);
}

void ask(struct fx *f, const struct ul_ctl_req *req, struct ul_ctl_reply *r)
{
	int fd = client_connect(f);

	client_send_req(fd, req);
	client_reply(f, fd, req->op, r);
	close(fd);
}
