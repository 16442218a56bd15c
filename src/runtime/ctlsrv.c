/*
 * The control socket server (ctlsrv.h; the protocol is src/ctl/proto.h).
 *
 * A client connection is one explicit state machine:
 *
 *	READ_HDR   waiting for the 12-byte header (the timer runs from
 *	           accept, or from the last reply, to the whole request)
 *	READ_BODY  header accepted, reading its payload
 *	BUSY       request handed to the node (a ping in flight): nothing
 *	           is read, the timer is off; the node's callback answers
 *	WRITE      a reply is queued; EPOLLOUT until it is drained, then
 *	           back to READ_HDR
 *	WRITE_CLOSE an error reply is queued; the connection closes once
 *	           it is drained (malformed request, refused peer)
 *
 * Timer: one per client, UL_CTLSRV_CLIENT_TIMEOUT_MS, armed whenever the
 * server waits on the client (READ_*, WRITE*); expiry closes the client
 * with one log line. A ping waits on the node, which has its own timeout.
 *
 * Crowding: at most srv->max_clients connections (ctlsrv.h). When a new
 * one would pass that, the client the server has waited on longest among
 * those not BUSY is closed to make room, whatever it has sent: neither
 * idle connections nor half-sent requests can keep ulnetctl out. Only
 * when every other client is BUSY (its ping, discover or perf in flight)
 * is the newcomer refused. Lines about crowds (evictions, refusals,
 * clients closed mid-request) are rate-limited, so a flood cannot fill
 * the log.
 *
 * A ping's callback may fire after its client is gone: the pending ping
 * is a separate object that the client detaches from when it closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sys/epoll.h>

#include "core/node.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "runtime/perf.h"
#include "ctl/node_req.h"
#include "ctl/proto_doc.h"
#include "util/err.h"
#include "util/log.h"

/* Connections taken per wake-up of the listening socket. */
#define ACCEPT_BURST 16
/* Fewest client slots, whatever the open-file limit. */
#define MIN_CLIENTS 16

/*
 * A crowd of clients (a script gone wrong, someone holding the socket)
 * would write one line each: at most one line a second of each kind,
 * which says how many were not written since (*quiet). false: stay quiet.
 */
static bool log_pass(struct ul_ctlsrv *srv, struct ul_ctlsrv_ratelimit *rl,
		     unsigned int *quiet)
{
	uint64_t now = ul_loop_timers(srv->loop)->now_ns;

	if (rl->is_used && now - rl->last_ns < 1000000000u) {
		rl->quiet++;
		return false;
	}
	*quiet = rl->quiet;
	rl->is_used = true;
	rl->last_ns = now;
	rl->quiet = 0;
	return true;
}

static void client_close(struct ctl_client *c)
{
	struct ul_ctlsrv *srv = c->srv;

	ul_io_stop(&c->io);
	ul_timer_cancel(ul_loop_timers(srv->loop), &c->timer);
	close(c->fd);
	if (c->ping)
		c->ping->c = NULL;
	if (c->perf) {
		/* Nobody waits for its figures: end it (it drains). */
		ul_perf_stream_stop(c->perf->stream);
		c->perf->c = NULL;
	}
	ul_list_del(&c->link);
	srv->nclients--;
	free(c->frame);
	ul_ctl_msg_fini(&c->out);
	free(c);
}

static void client_arm_timer(struct ctl_client *c)
{
	struct ul_timer_heap *h = ul_loop_timers(c->srv->loop);

	/* Without a timer the client could stall forever: close it now. */
	if (ul_timer_arm(h, &c->timer, h->now_ns + c->srv->timeout_ns)) {
		ul_log(c->srv->log, UL_D_ERROR,
		       "ctl: client pid %d: no memory for its timer, closing",
		       (int)c->pid);
		client_close(c);
	}
}

static void client_on_timer(struct ul_timer *t, uint64_t now_ns)
{
	struct ctl_client *c = ul_container_of(t, struct ctl_client, timer);

	static const char *const what[] = {
		[CTL_CLIENT_READ_HDR] = "no whole request",
		[CTL_CLIENT_READ_BODY] = "request not complete",
		[CTL_CLIENT_BUSY] = "busy",
		[CTL_CLIENT_WRITE] = "reply not taken",
		[CTL_CLIENT_WRITE_CLOSE] = "error reply not taken",
	};

	struct ul_ctlsrv *srv = c->srv;
	unsigned int quiet;

	(void)now_ns;
	/* The limit is on a whole request or reply, not on each byte. */
	if (log_pass(srv, &srv->client_rl, &quiet))
		ul_log(srv->log, UL_D_NETERROR,
		       "ctl: client pid %d: %s after %llu ms, closing (%u "
		       "more like this not logged)",
		       (int)c->pid, what[c->state],
		       (unsigned long long)(srv->timeout_ns / 1000000u), quiet);
	client_close(c);
}

/* Write what the socket takes; 0 when all is out, 1 pending, <0 failed. */
static int client_flush(struct ctl_client *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.buf + c->out_off,
				 c->out.len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0)
			return -errno;
		c->out_off += (size_t)n;
	}
	return 0;
}

/*
 * Write the queued reply. Once it is out: the next request, or close.
 * The client may be gone when this returns.
 */
static void client_after_write(struct ctl_client *c)
{
	int rc = client_flush(c);

	if (rc < 0 || (rc == 0 && c->state == CTL_CLIENT_WRITE_CLOSE)) {
		client_close(c);
		return;
	}
	if (rc == 0) {
		ul_ctl_msg_fini(&c->out);
		c->out_off = 0;
		c->state = CTL_CLIENT_READ_HDR;
		c->hdr_got = 0;
	}
	if (ul_io_modify(&c->io, rc ? EPOLLOUT : EPOLLIN)) {
		client_close(c);
		return;
	}
	/* Progress on a write moves the deadline; a request has one. */
	client_arm_timer(c);
}

/* Queue a reply and start writing it; the client may be gone after. */
void ul_ctlsrv_client_send(struct ctl_client *c, const struct ul_ctl_reply *r,
			   bool then_close)
{
	struct ul_ctl_reply err_reply;
	int rc;

	ul_ctl_msg_fini(&c->out);
	c->out_off = 0;
	rc = ul_ctl_reply_encode(r, &c->out);
	if (rc) {
		ul_ctl_msg_fini(&c->out);
		ul_log(c->srv->log, UL_D_WARNING,
		       "ctl: client pid %d: reply to op %u not sent: %s",
		       (int)c->pid, r->op, strerror(-rc));
		ul_ctl_reply_error(&err_reply, r->op, rc,
				   rc == -EMSGSIZE ? "reply too large"
						   : "cannot build reply");
		err_reply.batch_done = r->batch_done; /* applied all the same */
		if (ul_ctl_reply_encode(&err_reply, &c->out)) {
			client_close(c);
			return;
		}
	}
	c->state = then_close ? CTL_CLIENT_WRITE_CLOSE : CTL_CLIENT_WRITE;
	client_after_write(c);
}

/* Queue the document reply of a generic op. */
void ul_ctlsrv_client_send_doc(struct ctl_client *c, uint16_t op,
			       const struct ul_ctl_msg *doc)
{
	ul_ctlsrv_client_send_page(c, op, doc, NULL);
}

/* The same, with where the next page starts (cursor NULL: last page). */
void ul_ctlsrv_client_send_page(struct ctl_client *c, uint16_t op,
				const struct ul_ctl_msg *doc,
				const uint32_t *cursor)
{
	struct ul_ctl_reply err_reply;
	int rc;

	ul_ctl_msg_fini(&c->out);
	c->out_off = 0;
	rc = ul_ctl_doc_reply(doc, op, &c->out);
	if (!rc && cursor) {
		ul_ctl_put_u32(&c->out, UL_CTL_A_CURSOR, *cursor);
		rc = ul_ctl_msg_finish(&c->out);
	}
	if (rc) {
		ul_ctl_msg_fini(&c->out);
		ul_ctl_reply_error(&err_reply, op, rc,
				   rc == -EMSGSIZE ? "reply too large"
						   : "cannot build reply");
		ul_ctlsrv_client_send(c, &err_reply, false);
		return;
	}
	c->state = CTL_CLIENT_WRITE;
	client_after_write(c);
}

/*
 * Refuse what the client sent: one log line (unless the caller wrote
 * one), an error reply that answers any op (op 0), then close.
 */
static void client_refuse(struct ctl_client *c, int rc, const char *msg,
			  bool with_version, bool is_logged)
{
	struct ul_ctl_reply r;

	if (is_logged)
		ul_log(c->srv->log, UL_D_NETERROR,
		       "ctl: client pid %d: %s, closing", (int)c->pid, msg);
	ul_ctl_reply_error(&r, 0, rc, msg);
	if (with_version)
		r.version = UL_CTL_VERSION;
	if (ul_io_modify(&c->io, 0)) {
		client_close(c);
		return;
	}
	ul_ctlsrv_client_send(c, &r, true);
}

/* ---- Generic ops ----------------------------------------------------- */

struct generic_op {
	uint16_t op;
	ul_ctlsrv_op_fn fn;
	/* The error a stopped LNet gives (lnetctl.md §5); 0: runs anyway. */
	int down_rc;
	const char *down_msg;
};

static const struct generic_op generic_ops[] = {
	/* No handler: a node request (ctl/node_req.h), LNet's answers. */
	{ UL_CTL_OP_NET_ADD, NULL, 0, NULL },
	{ UL_CTL_OP_NET_DEL, NULL, 0, NULL },
	{ UL_CTL_OP_NET_SET, NULL, 0, NULL },
	{ UL_CTL_OP_PEER_ADD, NULL, 0, NULL },
	{ UL_CTL_OP_PEER_DEL, NULL, 0, NULL },
	{ UL_CTL_OP_PEER_SET, NULL, 0, NULL },
	{ UL_CTL_OP_ROUTE_ADD, NULL, 0, NULL },
	{ UL_CTL_OP_ROUTE_DEL, NULL, 0, NULL },
	{ UL_CTL_OP_SET, NULL, 0, NULL },
	{ UL_CTL_OP_UDSP_ADD, NULL, 0, NULL },
	{ UL_CTL_OP_UDSP_DEL, NULL, 0, NULL },
	{ UL_CTL_OP_PEER_LIST, ul_ctlsrv_peer_list, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTE_SHOW, ul_ctlsrv_route_show, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTING_SHOW, ul_ctlsrv_routing_show, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_GLOBAL_SHOW, ul_ctlsrv_global_show, 0, NULL },
	{ UL_CTL_OP_STATS_SHOW, ul_ctlsrv_stats_show, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_STATS_RESET, ul_ctlsrv_stats_reset, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_UDSP_SHOW, ul_ctlsrv_udsp_show, 0, NULL },
	{ UL_CTL_OP_FAULT_ADD, ul_ctlsrv_fault_add, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_FAULT_DEL, ul_ctlsrv_fault_del, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_FAULT_SHOW, ul_ctlsrv_fault_show, 0, NULL },
	{ UL_CTL_OP_FAULT_RESET, ul_ctlsrv_fault_reset, 0, NULL },
	{ UL_CTL_OP_LNET_CONFIGURE, ul_ctlsrv_lnet_configure, 0, NULL },
	{ UL_CTL_OP_LNET_UNCONFIGURE, ul_ctlsrv_lnet_unconfigure, 0, NULL },
	{ UL_CTL_OP_DEBUG_RECOVERY, ul_ctlsrv_debug_recovery, 0, NULL },
	{ UL_CTL_OP_DEBUG_PEER, ul_ctlsrv_debug_peer, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_CPT_OF_NID, ul_ctlsrv_cpt_of_nid, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_SELFTEST_STAT, ul_ctlsrv_selftest_stat, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_PARAM_GET, ul_ctlsrv_param_get, 0, NULL },
	{ UL_CTL_OP_PARAM_SET, ul_ctlsrv_param_set, 0, NULL },
};

/* Run a generic op's handler and queue its reply. */
static void do_generic(struct ctl_client *c, const struct ul_ctl_req *req)
{
	const struct generic_op *g = NULL;
	struct ul_node_req_env env;
	struct ul_err err = { 0 };
	struct ul_ctl_reply r;
	struct ul_ctl_msg doc = { 0 };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(generic_ops) / sizeof(generic_ops[0]); i++)
		if (generic_ops[i].op == req->op)
			g = &generic_ops[i];
	if (!g) {
		ul_ctl_reply_error(&r, req->op, -EOPNOTSUPP,
				   "operation not supported");
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	if (!ul_node_lnet_is_configured(c->srv->node) && g->down_rc) {
		ul_ctl_reply_error(&r, req->op, g->down_rc, g->down_msg);
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	ul_ctl_doc_init(&doc);
	if (g->fn) {
		rc = g->fn(c->srv, &req->args, &doc, &err);
	} else {
		ul_ctlsrv_node_env(c->srv, &env);
		rc = ul_node_req_call(&env, req->op, &req->args, &err);
	}
	if (rc == 0) {
		ul_ctlsrv_client_send_doc(c, req->op, &doc);
		ul_ctl_msg_fini(&doc);
		return;
	}
	ul_ctl_msg_fini(&doc);
	ul_ctl_reply_error(&r, req->op, rc < 0 ? rc : -EINVAL, err.msg);
	ul_ctlsrv_client_send(c, &r, false);
}

/*
 * A batch (proto.h): its items applied in order as the node requests
 * they are, up to the first refusal, whose failure the reply carries
 * with the count of items applied before it.
 */
static void do_batch(struct ctl_client *c, const struct ul_ctl_batch_req *b)
{
	struct ul_ctl_args *a = malloc(sizeof(*a));
	struct ul_node_req_env env;
	struct ul_err err = { 0 };
	struct ul_ctl_reply r;
	struct ul_ctl_iter it;
	int rc = 0, more;

	ul_ctl_reply_error(&r, UL_CTL_OP_BATCH, 0, NULL);
	if (!a) {
		ul_ctl_reply_error(&r, UL_CTL_OP_BATCH, -ENOMEM,
				   "out of memory");
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	ul_ctlsrv_node_env(c->srv, &env);
	ul_ctl_batch_iter(b, &it);
	while ((more = ul_ctl_batch_next(&it, a, &err)) > 0) {
		rc = ul_node_req_call(&env, b->op, a, &err);
		if (rc)
			break;
		r.batch_done++;
	}
	free(a);
	if (!rc && more < 0)
		rc = more; /* cannot be: the decoder checked every item */
	if (rc) {
		r.rc = rc < 0 ? rc : -EINVAL;
		snprintf(r.err_msg, sizeof(r.err_msg), "%s", err.msg);
	}
	ul_ctlsrv_client_send(c, &r, false);
}

/* ---- Requests -------------------------------------------------------- */

static void client_dispatch(struct ctl_client *c)
{
	struct ul_err err = { 0 };
	uint8_t *frame;
	struct ul_ctl_reply r;
	struct ul_ctl_msg doc = { 0 };
	struct ul_ctl_req req;
	int rc;

	ul_timer_cancel(ul_loop_timers(c->srv->loop), &c->timer);
	rc = ul_ctl_req_decode(c->frame, c->frame_len, &req, &err);
	/* A generic request or a batch borrows the frame (UDSP blocks). */
	if (rc ||
	    !(ul_ctl_op_is_generic(req.op) || req.op == UL_CTL_OP_BATCH)) {
		free(c->frame);
		c->frame = NULL;
	}
	if (rc == -EOPNOTSUPP) {
		ul_log(c->srv->log, UL_D_WARNING, "ctl: client pid %d: %s",
		       (int)c->pid, err.msg);
		ul_ctl_reply_error(&r, 0, rc, err.msg);
		c->state = CTL_CLIENT_BUSY;
		if (ul_io_modify(&c->io, 0)) {
			client_close(c);
			return;
		}
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	if (rc) {
		client_refuse(c, rc, err.msg, false, true);
		return;
	}
	c->state = CTL_CLIENT_BUSY;
	if (ul_io_modify(&c->io, 0)) {
		client_close(c);
		return;
	}
	memset(&r, 0, sizeof(r));
	switch (req.op) {
	case UL_CTL_OP_PING:
		ul_ctlsrv_do_ping(c, &req.ping);
		return;
	case UL_CTL_OP_DISCOVER:
		frame = c->frame;
		c->frame = NULL;
		ul_ctlsrv_do_discover(c, &req.args);
		free(frame);
		return;
	case UL_CTL_OP_PERF_PUT:
		ul_ctlsrv_do_perf(c, &req.perf);
		return;
	case UL_CTL_OP_BATCH:
		frame = c->frame; /* the reply may close c */
		c->frame = NULL;
		do_batch(c, &req.batch);
		free(frame);
		return;
	case UL_CTL_OP_NET_SHOW:
	case UL_CTL_OP_PEER_SHOW:
		if (!ul_node_lnet_is_configured(c->srv->node)) {
			ul_ctl_reply_error(&r, req.op, -ENETDOWN,
					   req.op == UL_CTL_OP_NET_SHOW
						   ? "LNet stack down"
						   : "Network is down");
			break;
		}
		rc = req.op == UL_CTL_OP_NET_SHOW
			     ? ul_ctlsrv_net_show(c->srv, &req.net_show, &doc,
						  &r)
			     : ul_ctlsrv_peer_show(c->srv, &req.peer_show, &doc,
						   &r);
		if (rc == 0) {
			ul_ctlsrv_client_send_page(c, req.op, &doc,
						   r.has_cursor ? &r.cursor
								: NULL);
			ul_ctl_msg_fini(&doc);
			return;
		}
		ul_ctl_msg_fini(&doc);
		if (rc == 1)
			rc = 0;
		break;
	default:
		/* The reply may close c: own the frame first. */
		frame = c->frame;
		c->frame = NULL;
		do_generic(c, &req);
		free(frame);
		return;
	}
	if (rc) {
		ul_ctl_reply_fini(&r);
		ul_ctl_reply_error(&r, req.op, rc, strerror(-rc));
	}
	ul_ctlsrv_client_send(c, &r, false);
	ul_ctl_reply_fini(&r);
}

/* One read per wake-up, so one client cannot hog the loop. */
static void client_read(struct ctl_client *c)
{
	struct ul_err err = { 0 };
	struct ul_ctl_hdr h;
	uint8_t *dst;
	unsigned int quiet;
	size_t want;
	ssize_t n;
	char msg[128];

	if (c->state == CTL_CLIENT_READ_HDR) {
		dst = c->hdr + c->hdr_got;
		want = UL_CTL_HDR_SIZE - c->hdr_got;
	} else {
		dst = c->frame + c->frame_got;
		want = c->frame_len - c->frame_got;
	}
	n = recv(c->fd, dst, want, 0);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		if ((n < 0 || c->hdr_got || c->state == CTL_CLIENT_READ_BODY) &&
		    log_pass(c->srv, &c->srv->client_rl, &quiet))
			ul_log(c->srv->log, UL_D_NETERROR,
			       "ctl: client pid %d: %s in the middle of a "
			       "request, closing (%u more like this not "
			       "logged)",
			       (int)c->pid, n < 0 ? strerror(errno) : "EOF",
			       quiet);
		client_close(c);
		return;
	}
	if (c->state == CTL_CLIENT_READ_BODY) {
		c->frame_got += (size_t)n;
		if (c->frame_got == c->frame_len)
			client_dispatch(c);
		return;
	}
	c->hdr_got += (size_t)n;
	if (c->hdr_got < UL_CTL_HDR_SIZE)
		return;
	if (ul_ctl_hdr_decode(c->hdr, sizeof(c->hdr), &h, &err)) {
		client_refuse(c, -EPROTO, err.msg, false, true);
		return;
	}
	/* A client sends requests: their limit, whatever its op says. */
	if (h.len > UL_CTL_MAX_PAYLOAD) {
		snprintf(msg, sizeof(msg),
			 "control message: payload of %u bytes, limit %u",
			 h.len, UL_CTL_MAX_PAYLOAD);
		client_refuse(c, -EPROTO, msg, false, true);
		return;
	}
	if (h.version != UL_CTL_VERSION) {
		snprintf(msg, sizeof(msg),
			 "control protocol version %u not supported (ulnetd "
			 "speaks version %d)",
			 h.version, UL_CTL_VERSION);
		client_refuse(c, -EPROTO, msg, true, true);
		return;
	}
	c->frame_len = UL_CTL_HDR_SIZE + (size_t)h.len;
	c->frame = malloc(c->frame_len);
	if (!c->frame) {
		client_refuse(c, -ENOMEM, "out of memory", false, true);
		return;
	}
	memcpy(c->frame, c->hdr, UL_CTL_HDR_SIZE);
	c->frame_got = UL_CTL_HDR_SIZE;
	c->state = CTL_CLIENT_READ_BODY;
	if (c->frame_got == c->frame_len)
		client_dispatch(c);
}

static void client_on_io(struct ul_io *io, uint32_t events)
{
	struct ctl_client *c = ul_container_of(io, struct ctl_client, io);

	if (events & EPOLLERR) {
		client_close(c);
		return;
	}
	switch (c->state) {
	case CTL_CLIENT_READ_HDR:
	case CTL_CLIENT_READ_BODY:
		if (events & (EPOLLIN | EPOLLHUP))
			client_read(c);
		break;
	case CTL_CLIENT_WRITE:
	case CTL_CLIENT_WRITE_CLOSE:
		if (events & EPOLLHUP)
			client_close(c);
		else if (events & EPOLLOUT)
			client_after_write(c);
		break;
	case CTL_CLIENT_BUSY:
		/* Gone while its ping runs: the ping finishes into nothing. */
		if (events & EPOLLHUP)
			client_close(c);
		break;
	}
}

/*
 * Whether the peer is in the --ctl-group group: its primary group, or one
 * of the supplementary groups its user has in the group database.
 */
static bool peer_in_group(struct ucred cred, gid_t group)
{
	struct passwd pw, *pwp = NULL;
	gid_t groups[256];
	int n = 256, i;
	char buf[4096];

	if (cred.gid == group)
		return true;
	if (getpwuid_r(cred.uid, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;
	for (i = 0; i < n; i++)
		if (groups[i] == group)
			return true;
	return false;
}

/*
 * The peer's uid must be ours or root's, or it must be in the socket's
 * group (--ctl-group) (proto.h "Transport").
 */
static int check_peer(struct ctl_client *c, char *why, size_t len)
{
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	uid_t me = geteuid();

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len)) {
		snprintf(why, len, "cannot read peer credentials: %s",
			 strerror(errno));
		return -EACCES;
	}
	c->pid = cred.pid;
	if (cred.uid != me && cred.uid != 0 &&
	    !(c->srv->has_group && peer_in_group(cred, c->srv->group))) {
		snprintf(why, len,
			 "permission denied: uid %u may not control this "
			 "instance (uid %u)",
			 (unsigned int)cred.uid, (unsigned int)me);
		return -EACCES;
	}
	return 0;
}

/* A client closed or refused for want of a slot: one line a second. */
static void crowd_log(struct ul_ctlsrv *srv, const char *what, int pid)
{
	unsigned int quiet;

	if (!log_pass(srv, &srv->crowd_rl, &quiet))
		return;
	ul_log(srv->log, UL_D_NETERROR,
	       "ctl: %u control clients at once (limit %u): %s pid %d (%u "
	       "more like this not logged)",
	       srv->nclients, srv->max_clients, what, pid, quiet);
}

/*
 * The client to close when every slot is taken: among those that are
 * not BUSY, the one the server has waited on longest (the earliest
 * deadline: every wait has the same length), whatever its progress. A
 * BUSY client has its command running on the node and is left alone.
 * NULL when every client but the newcomer is BUSY.
 */
static struct ctl_client *longest_waiting(struct ul_ctlsrv *srv,
					  const struct ctl_client *but)
{
	struct ctl_client *c, *best = NULL;

	ul_list_for_each_entry(c, &srv->clients, link) {
		if (c == but || c->state == CTL_CLIENT_BUSY)
			continue;
		if (!best || c->timer.when_ns < best->timer.when_ns)
			best = c;
	}
	return best;
}

static void accept_one(struct ul_ctlsrv *srv, int fd)
{
	struct ctl_client *c = calloc(1, sizeof(*c));
	char why[128];
	int rc;

	if (!c) {
		ul_log(srv->log, UL_D_ERROR, "ctl: no memory for a client");
		close(fd);
		return;
	}
	c->srv = srv;
	c->fd = fd;
	c->state = CTL_CLIENT_READ_HDR;
	ul_timer_init(&c->timer, client_on_timer);
	if (ul_io_start(srv->loop, &c->io, fd, EPOLLIN, client_on_io)) {
		ul_log(srv->log, UL_D_ERROR, "ctl: cannot watch a client");
		close(fd);
		free(c);
		return;
	}
	ul_list_add_tail(&srv->clients, &c->link);
	srv->nclients++;
	rc = check_peer(c, why, sizeof(why));
	if (rc) {
		client_refuse(c, rc, why, false, true);
		return;
	}
	if (srv->nclients > srv->max_clients) {
		struct ctl_client *old = longest_waiting(srv, c);

		if (!old) {
			crowd_log(srv, "refused client", (int)c->pid);
			snprintf(why, sizeof(why),
				 "too many control clients (%u)",
				 srv->max_clients);
			client_refuse(c, -EBUSY, why, false, false);
			return;
		}
		crowd_log(srv, "closed the longest-waiting client",
			  (int)old->pid);
		client_close(old);
	}
	client_arm_timer(c);
}

static void srv_on_accept(struct ul_io *io, uint32_t events)
{
	struct ul_ctlsrv *srv = ul_container_of(io, struct ul_ctlsrv, io);
	int i, fd;

	(void)events;
	for (i = 0; i < ACCEPT_BURST; i++) {
		fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				ul_log(srv->log, UL_D_ERROR,
				       "ctl: accept on %s: %s", srv->path,
				       strerror(errno));
			return;
		}
		accept_one(srv, fd);
	}
}

/* ---- Server ---------------------------------------------------------- */

/* How many NUMA nodes the host has (node0, node1, ... in sysfs). */
static unsigned int host_numa_nodes(void)
{
	char path[64];
	unsigned int n = 0;

	do {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u",
			 n);
	} while (access(path, F_OK) == 0 && ++n < 1024);
	return n ? n : 1;
}

/*
 * Client slots: UL_CTLSRV_MAX_CLIENTS, or a quarter of the open-file
 * limit when that is less, so that control clients cannot take the
 * descriptors the node's connections need.
 */
static unsigned int client_slots(void)
{
	struct rlimit rl;
	rlim_t quarter;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UL_CTLSRV_MAX_CLIENTS;
	quarter = rl.rlim_cur / 4;
	if (quarter < MIN_CLIENTS)
		return MIN_CLIENTS;
	return quarter < UL_CTLSRV_MAX_CLIENTS ? (unsigned int)quarter
					       : UL_CTLSRV_MAX_CLIENTS;
}

/* Remove a stale socket file at path; see ul_ctlsrv_create(). */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, rc;

	if (lstat(sa->sun_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	if (rc == 0)
		rc = -EADDRINUSE;
	else if (errno == ECONNREFUSED)
		rc = unlink(sa->sun_path) ? -errno : 0;
	else
		rc = -errno;
	close(fd);
	return rc;
}

int ul_ctlsrv_create(struct ul_loop *loop, struct ul_node *node,
		     const char *path, const struct ul_log *log,
		     struct ul_ctlsrv **out)
{
	struct sockaddr_un sa;
	struct ul_ctlsrv *srv;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path));
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->loop = loop;
	srv->node = node;
	srv->log = log;
	srv->timeout_ns = (uint64_t)UL_CTLSRV_CLIENT_TIMEOUT_MS * 1000000u;
	srv->max_clients = client_slots();
	srv->ncpt = 1;
	srv->nnodes = host_numa_nodes();
	ul_list_init(&srv->clients);
	rc = -ENOMEM;
	srv->path = strdup(path);
	if (!srv->path)
		goto err_free;
	rc = clear_stale(&sa);
	if (rc)
		goto err_free;
	srv->fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->fd < 0) {
		rc = -errno;
		goto err_free;
	}
	if (bind(srv->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		rc = -errno;
		goto err_close;
	}
	/* Nobody can connect before listen(), so this leaves no window. */
	if (chmod(path, 0600) || listen(srv->fd, 16)) {
		rc = -errno;
		goto err_unlink;
	}
	rc = ul_io_start(loop, &srv->io, srv->fd, EPOLLIN, srv_on_accept);
	if (rc)
		goto err_unlink;
	*out = srv;
	return 0;

err_unlink:
	unlink(path);
err_close:
	close(srv->fd);
err_free:
	free(srv->path);
	free(srv);
	return rc;
}

void ul_ctlsrv_destroy(struct ul_ctlsrv *srv)
{
	struct ctl_client *c, *tmp;

	if (!srv)
		return;
	ul_list_for_each_entry_safe(c, tmp, &srv->clients, link)
		client_close(c);
	ul_io_stop(&srv->io);
	close(srv->fd);
	unlink(srv->path);
	free(srv->conf_path);
	free(srv->path);
	free(srv);
}

void ul_ctlsrv_set_client_timeout(struct ul_ctlsrv *srv, uint32_t timeout_ms)
{
	srv->timeout_ns = (uint64_t)timeout_ms * 1000000u;
}

void ul_ctlsrv_set_max_clients(struct ul_ctlsrv *srv, unsigned int n)
{
	srv->max_clients = n ? n : 1;
}

unsigned int ul_ctlsrv_max_clients(const struct ul_ctlsrv *srv)
{
	return srv->max_clients;
}

void ul_ctlsrv_set_udsp(struct ul_ctlsrv *srv, struct ul_udsp_set *udsp)
{
	srv->udsp = udsp;
	/* the node's configuration operations keep its rules applied */
	ul_node_set_udsp(srv->node, udsp);
}

void ul_ctlsrv_set_socklnd(struct ul_ctlsrv *srv, struct ul_socklnd *s)
{
	srv->socklnd = s;
}

void ul_ctlsrv_node_env(const struct ul_ctlsrv *srv,
			struct ul_node_req_env *env)
{
	memset(env, 0, sizeof(*env));
	env->node = srv->node;
	env->ncpt = srv->ncpt;
}

void ul_ctlsrv_set_perf_sink(struct ul_ctlsrv *srv, struct ul_perf_sink *sink)
{
	srv->sink = sink;
}

void ul_ctlsrv_set_ncpt(struct ul_ctlsrv *srv, unsigned int ncpt)
{
	srv->ncpt = ncpt ? ncpt : 1;
}

int ul_ctlsrv_set_conf_path(struct ul_ctlsrv *srv, const char *path)
{
	char *copy = path ? strdup(path) : NULL;

	if (path && !copy)
		return -ENOMEM;
	free(srv->conf_path);
	srv->conf_path = copy;
	return 0;
}

int ul_ctlsrv_set_group(struct ul_ctlsrv *srv, gid_t gid)
{
	if (chown(srv->path, (uid_t)-1, gid) || chmod(srv->path, 0660))
		return -errno;
	srv->group = gid;
	srv->has_group = true;
	return 0;
}
