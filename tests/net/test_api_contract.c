/*
 * The public API's contract over real sockets, two nodes on loopback:
 *
 *   node A  127.0.5.1@tcp ---- 127.0.5.2@tcp  node B
 *          (127.0.6.1@tcp, added at run time) 127.0.6.2@tcp
 *
 * - a call that fails produces no event;
 * - a PUT with ACK or a GET from an MD with no threshold left for its
 *   answer is refused at call time (-EINVAL), not left without an end;
 * - ulnet_stop() with PUTs in flight ends each of them with exactly one
 *   final event; one still waiting for its ACK or REPLY ends with
 *   -ESHUTDOWN;
 * - ulnet_stop() from an event callback is refused (-EDEADLK) and the
 *   instance runs on;
 * - NIs added and removed at run time by NID carry traffic, then stop;
 * - calls from several threads at once all complete, one event each;
 * - ulnet_peer_learn() folds a peer traffic made into the peer of the
 *   first NID it is given (Lustre's LNetAddPeer);
 * - module parameters are set and read by name, refusals say why, and
 *   traffic flows with busy-poll on.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ulnet/ulnet.h"

#define PORTAL 20u
#define MBITS UINT64_C(0x77)
#define NOPS 64u
#define OP_SIZE (256u * 1024u)

static const char conf_a[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 127.0.5.1@tcp\n";

static const char conf_b[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 127.0.5.2@tcp\n"
			     "      - nid: 127.0.6.2@tcp\n";

struct pair {
	struct ulnet *a, *b;
	uint8_t *sink;
	struct ulnet_handle sink_h;
};

static struct ulnet_nid nid(const char *s)
{
	struct ulnet_nid n;

	assert_int_equal(ulnet_nid_parse(s, &n, NULL, 0), 0);
	return n;
}

static int make_node(const char *conf, struct ulnet **out)
{
	struct ulnet_opts o;
	char err[256];
	int rc;

	ulnet_opts_init(&o);
	o.conf_text = conf;
	o.accept_port = (uint16_t)(20000 + (getpid() + 7) % 20000);
	o.accept = ULNET_ACCEPT_ALL;
	o.src_port = ULNET_SRC_PORT_ANY;
	o.is_link_monitor_off = true;
	rc = ulnet_create(&o, out, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ulnet_create: %s\n", err);
		return rc;
	}
	rc = ulnet_start(*out);
	if (rc < 0)
		ulnet_destroy(*out);
	return rc;
}

static void sink_cb(struct ulnet *u, const struct ulnet_event *ev)
{
	(void)u;
	(void)ev;
}

static int setup(void **state)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = { 0 };
	struct pair *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	p->sink = malloc(OP_SIZE);
	if (!p->sink || make_node(conf_a, &p->a) < 0)
		return -1;
	if (make_node(conf_b, &p->b) < 0) {
		ulnet_destroy(p->a);
		return -1;
	}
	ulnet_nid_set_any(&any.nid);
	md.start = p->sink;
	md.length = OP_SIZE;
	md.threshold = ULNET_MD_THRESH_INF;
	md.options = ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE |
		     ULNET_MD_TRUNCATE;
	md.handler = sink_cb;
	md.numa_node = -1;
	if (ulnet_md_attach(p->b, PORTAL, &any, MBITS, 0, ULNET_INS_AFTER, &md,
			    ULNET_RETAIN, &p->sink_h))
		return -1;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	ulnet_destroy(p->a);
	ulnet_destroy(p->b);
	free(p->sink);
	free(p);
	return 0;
}

/* One operation: its events, counted by kind. */
struct op {
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	unsigned *nfinal;
	unsigned finals; /* final events of this operation */
	unsigned events; /* all events */
	bool is_sent;	 /* its SEND came with status 0 */
	int status;	 /* the final event's status */
	enum ulnet_event_type final_type;
};

static void op_cb(struct ulnet *u, const struct ulnet_event *ev)
{
	struct op *op = ev->md_user_ptr;
	bool is_final;

	(void)u;
	pthread_mutex_lock(op->lock);
	/*
	 * ulnet.h: a failed SEND is final; after a good SEND the ACK, or an
	 * UNLINK (no answer), is. An UNLINK after a failed SEND is the MD's
	 * last event, not the operation's.
	 */
	if (ev->type == ULNET_EVENT_SEND && ev->status == 0)
		op->is_sent = true;
	is_final = (ev->type == ULNET_EVENT_SEND && ev->status != 0) ||
		   ev->type == ULNET_EVENT_ACK ||
		   ev->type == ULNET_EVENT_REPLY ||
		   (ev->type == ULNET_EVENT_UNLINK && op->is_sent);
	op->events++;
	if (is_final) {
		op->finals++;
		op->status = ev->status;
		op->final_type = ev->type;
		(*op->nfinal)++;
	}
	pthread_cond_broadcast(op->cond);
	pthread_mutex_unlock(op->lock);
}

static void put_with_unknown_md_fails_without_event(void **state)
{
	struct pair *p = *state;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	struct ulnet_handle bogus = { UINT64_C(0x123456789) };

	assert_int_equal(ulnet_put(p->a, NULL, bogus, ULNET_ACK_REQ, &target,
				   PORTAL, MBITS, 0, 0),
			 -ENOENT);
	assert_int_equal(ulnet_get(p->a, NULL, bogus, &target, PORTAL, MBITS,
				   0),
			 -ENOENT);
	assert_int_equal(ulnet_md_unlink(p->a, bogus), -ENOENT);
}

static void put_to_portal_64_fails_without_event(void **state)
{
	struct pair *p = *state;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	static uint8_t buf[16];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	unsigned nfinal = 0;
	struct op op = { &lock, &cond, &nfinal, 0, 0, false, 0, 0 };
	struct ulnet_md md = { 0 };
	struct ulnet_handle h;

	md.start = buf;
	md.length = sizeof(buf);
	md.threshold = 1;
	md.user_ptr = &op;
	md.handler = op_cb;
	md.numa_node = -1;
	assert_int_equal(ulnet_md_bind(p->a, &md, ULNET_RETAIN, &h), 0);
	assert_int_equal(ulnet_put(p->a, NULL, h, ULNET_NOACK_REQ, &target,
				   ULNET_PORTALS, MBITS, 0, 0),
			 -EINVAL);
	/* The reserved portal 0 (pings, pushes) takes no application ME. */
	{
		struct ulnet_process_id anyid = { .pid = ULNET_PID_ANY };
		struct ulnet_handle mh;

		assert_int_equal(ulnet_md_attach(p->b, ULNET_RESERVED_PORTAL,
						 &anyid, MBITS, 0,
						 ULNET_INS_AFTER, &md,
						 ULNET_RETAIN, &mh),
				 -EINVAL);
	}
	/* Pinning a source NID that is not ours is refused too. */
	{
		struct ulnet_nid other = nid("127.0.9.1@tcp");

		assert_int_equal(ulnet_put(p->a, &other, h, ULNET_NOACK_REQ,
					   &target, PORTAL, MBITS, 0, 0),
				 -EINVAL);
	}
	assert_int_equal(ulnet_md_unlink(p->a, h), 0);
	/* The unlink's own event is the MD's only one: no SEND came. */
	pthread_mutex_lock(&lock);
	while (op.events < 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	ulnet_stop(p->a); /* every event is delivered when it returns */
	assert_int_equal(op.events, 1);
	assert_int_equal(nfinal, 0);
}

static void stop_ends_puts_in_flight_once_each(void **state)
{
	struct pair *p = *state;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct op ops[NOPS];
	struct ulnet_handle h[NOPS];
	unsigned nfinal = 0, i, started = 0;
	uint8_t *src = calloc(NOPS, OP_SIZE);

	assert_non_null(src);
	for (i = 0; i < NOPS; i++) {
		struct ulnet_md md = { 0 };

		ops[i] =
			(struct op){ &lock, &cond, &nfinal, 0, 0, false, 0, 0 };
		md.start = src + (size_t)i * OP_SIZE;
		md.length = OP_SIZE;
		md.threshold = 2;
		md.user_ptr = &ops[i];
		md.handler = op_cb;
		md.numa_node = -1;
		assert_int_equal(ulnet_md_bind(p->a, &md, ULNET_UNLINK, &h[i]),
				 0);
	}
	for (i = 0; i < NOPS; i++)
		if (ulnet_put(p->a, NULL, h[i], ULNET_ACK_REQ, &target, PORTAL,
			      MBITS, 0, i) == 0)
			started++;
	assert_int_equal(started, NOPS);
	/* Stop at once: some are done, some in flight, some queued. */
	ulnet_stop(p->a);
	/* ulnet_stop() returns after every event was delivered. */
	pthread_mutex_lock(&lock);
	assert_int_equal(nfinal, NOPS);
	for (i = 0; i < NOPS; i++) {
		assert_int_equal(ops[i].finals, 1);
		/* Its ACK came first, or the stop ended it. */
		if (ops[i].final_type == ULNET_EVENT_ACK)
			assert_int_equal(ops[i].status, 0);
		else
			assert_int_equal(ops[i].status, -ESHUTDOWN);
	}
	pthread_mutex_unlock(&lock);
	/* After stop nothing is accepted. */
	assert_int_equal(ulnet_put(p->a, NULL, h[0], ULNET_ACK_REQ, &target,
				   PORTAL, MBITS, 0, 0),
			 -ESHUTDOWN);
	free(src);
}

/* Bind a one-buffer MD whose events go to op. */
static struct ulnet_handle bind_op(struct ulnet *u, void *buf, size_t len,
				   int threshold, struct op *op)
{
	struct ulnet_md md = { 0 };
	struct ulnet_handle h;

	md.start = buf;
	md.length = len;
	md.threshold = threshold;
	md.user_ptr = op;
	md.handler = op_cb;
	md.numa_node = -1;
	assert_int_equal(ulnet_md_bind(u, &md, ULNET_UNLINK, &h), 0);
	return h;
}

static void md_without_room_for_answer_is_refused(void **state)
{
	struct pair *p = *state;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	static uint8_t buf[64];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	unsigned nfinal = 0;
	struct op op = { &lock, &cond, &nfinal, 0, 0, false, 0, 0 };
	struct ulnet_handle h = bind_op(p->a, buf, sizeof(buf), 1, &op);

	/* Threshold 1: SEND would use it up, the ACK or REPLY find none. */
	assert_int_equal(ulnet_put(p->a, NULL, h, ULNET_ACK_REQ, &target,
				   PORTAL, MBITS, 0, 0),
			 -EINVAL);
	assert_int_equal(ulnet_get(p->a, NULL, h, &target, PORTAL, MBITS, 0),
			 -EINVAL);
	/* Without an answer one is enough: its SEND is final and last. */
	assert_int_equal(ulnet_put(p->a, NULL, h, ULNET_NOACK_REQ, &target,
				   PORTAL, MBITS, 0, 0),
			 0);
	pthread_mutex_lock(&lock);
	while (op.events < 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	assert_int_equal(ulnet_stop(p->a), 0);
	/* The refused calls left no event: the SEND was the only one. */
	assert_int_equal(op.events, 1);
	assert_true(op.is_sent);
}

static void stop_ends_ops_waiting_for_answer_with_eshutdown(void **state)
{
	struct pair *p = *state;
	/* Nothing is attached there on B: no ACK or REPLY will come. */
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	static uint8_t src[4096], sink[4096];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	unsigned nfinal = 0;
	struct op put = { &lock, &cond, &nfinal, 0, 0, false, 0, 0 };
	struct op get = { &lock, &cond, &nfinal, 0, 0, false, 0, 0 };
	struct ulnet_handle hp = bind_op(p->a, src, sizeof(src), 2, &put);
	struct ulnet_handle hg = bind_op(p->a, sink, sizeof(sink), 2, &get);

	assert_int_equal(ulnet_put(p->a, NULL, hp, ULNET_ACK_REQ, &target,
				   PORTAL + 1, MBITS, 0, 0),
			 0);
	assert_int_equal(
		ulnet_get(p->a, NULL, hg, &target, PORTAL + 1, MBITS, 0), 0);
	/* Both left this node; now they wait for answers. */
	pthread_mutex_lock(&lock);
	while (!put.is_sent || !get.is_sent)
		pthread_cond_wait(&cond, &lock);
	assert_int_equal(nfinal, 0);
	pthread_mutex_unlock(&lock);
	assert_int_equal(ulnet_stop(p->a), 0);
	assert_int_equal(nfinal, 2);
	assert_int_equal(put.finals, 1);
	assert_int_equal(put.final_type, ULNET_EVENT_UNLINK);
	assert_int_equal(put.status, -ESHUTDOWN);
	assert_int_equal(get.finals, 1);
	assert_int_equal(get.final_type, ULNET_EVENT_UNLINK);
	assert_int_equal(get.status, -ESHUTDOWN);
	/* SEND, then UNLINK: nothing more. */
	assert_int_equal(put.events, 2);
	assert_int_equal(get.events, 2);
}

/* Calls ulnet_stop() from its ACK's callback, on the loop thread. */
struct stopper {
	struct op op;
	int stop_rc;
	bool has_tried;
};

static void stop_in_cb(struct ulnet *u, const struct ulnet_event *ev)
{
	struct stopper *s = ev->md_user_ptr;
	int rc = 1;

	if (ev->type == ULNET_EVENT_ACK)
		rc = ulnet_stop(u);
	pthread_mutex_lock(s->op.lock);
	if (rc != 1) {
		s->stop_rc = rc;
		s->has_tried = true;
	}
	pthread_mutex_unlock(s->op.lock);
	op_cb(u, ev);
}

static void stop_from_callback_is_refused(void **state)
{
	struct pair *p = *state;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	static uint8_t buf[64];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	unsigned nfinal = 0;
	struct stopper s = { { &lock, &cond, &nfinal, 0, 0, false, 0, 0 },
			     0,
			     false };
	struct ulnet_ping_result res;
	struct ulnet_md md = { 0 };
	struct ulnet_handle h;

	md.start = buf;
	md.length = sizeof(buf);
	md.threshold = 2;
	md.user_ptr = &s;
	md.handler = stop_in_cb;
	md.numa_node = -1;
	assert_int_equal(ulnet_md_bind(p->a, &md, ULNET_UNLINK, &h), 0);
	assert_int_equal(ulnet_put(p->a, NULL, h, ULNET_ACK_REQ, &target,
				   PORTAL, MBITS, 0, 0),
			 0);
	pthread_mutex_lock(&lock);
	while (nfinal < 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	assert_true(s.has_tried);
	assert_int_equal(s.stop_rc, -EDEADLK);
	assert_int_equal(s.op.final_type, ULNET_EVENT_ACK);
	assert_int_equal(s.op.status, 0);
	/* Refused means nothing changed: the instance still works. */
	assert_int_equal(ulnet_ping_sync(p->a, NULL, &target, 5000, &res), 0);
	assert_int_equal(ulnet_stop(p->a), 0);
	assert_int_equal(ulnet_stop(p->a), 0); /* idempotent */
}

static void ni_added_at_run_time_carries_traffic(void **state)
{
	struct pair *p = *state;
	struct ulnet_nid self = nid("127.0.6.1@tcp");
	struct ulnet_process_id target = { nid("127.0.6.2@tcp"),
					   ULNET_PID_LUSTRE };
	struct ulnet_ni_spec spec = { "tcp", NULL, &self, -1 };
	struct ulnet_ping_result res;
	struct ulnet_ni_info info[4];
	char err[256];
	size_t n;

	assert_int_equal(ulnet_ni_add(p->a, &spec, err, sizeof(err)), 0);
	assert_int_equal(ulnet_ni_info(p->a, info, 4, &n), 0);
	assert_int_equal(n, 2);
	/* A second add of the same NID is refused, with a reason. */
	assert_int_equal(ulnet_ni_add(p->a, &spec, err, sizeof(err)), -EEXIST);
	assert_true(err[0] != '\0');

	assert_int_equal(ulnet_ping_sync(p->a, &self, &target, 5000, &res), 0);
	assert_int_equal(res.nnis, 2);
	assert_int_equal(ulnet_ni_info(p->a, info, 4, &n), 0);
	assert_true(info[1].stats.send_count[2] >= 1); /* the ping's GET */

	assert_int_equal(ulnet_ni_del(p->a, &self), 0);
	assert_int_equal(ulnet_ni_info(p->a, info, 4, &n), 0);
	assert_int_equal(n, 1);
	/* The NID is no longer ours to send from. */
	assert_int_equal(ulnet_ping_sync(p->a, &self, &target, 2000, &res),
			 -EINVAL);
	assert_int_equal(ulnet_ni_del(p->a, &self), -ENOENT);
}

/*
 * A's ping of B makes a peer of 127.0.5.2@tcp. Told that B is
 * [127.0.9.2@tcp9, 127.0.5.2@tcp], A pings 127.0.5.2 again in the
 * background and folds it into the peer of 127.0.9.2@tcp9 (a net A has
 * no route to, so that peer's own discovery fails): after it, the NID is
 * another peer's non-primary NID and cannot lead a list (-EALREADY).
 * Traffic to it goes on.
 */
static void peer_learn_folds_into_the_first_nids_peer(void **state)
{
	struct pair *p = *state;
	struct ulnet_nid known[2] = { nid("127.0.9.2@tcp9"),
				      nid("127.0.5.2@tcp") };
	struct ulnet_process_id target = { known[1], ULNET_PID_LUSTRE };
	struct ulnet_ping_result res;
	char err[256] = "";

	assert_int_equal(ulnet_ping_sync(p->a, NULL, &target, 5000, &res), 0);
	assert_int_equal(ulnet_peer_learn(p->a, known, 0, err, sizeof(err)),
			 -EINVAL);
	assert_true(err[0] != '\0');
	assert_int_equal(ulnet_peer_learn(p->a, known, 2, err, sizeof(err)), 0);
	/* One connection, answered in order: the fold's ping came back. */
	assert_int_equal(ulnet_ping_sync(p->a, NULL, &target, 5000, &res), 0);
	assert_int_equal(ulnet_peer_learn(p->a, &known[1], 1, err, sizeof(err)),
			 -EALREADY);
	assert_int_equal(ulnet_ping_sync(p->a, NULL, &target, 5000, &res), 0);
}

struct sender {
	struct ulnet *u;
	struct op ops[NOPS];
	struct ulnet_handle h[NOPS];
	uint8_t buf[4096];
	int rc;
};

static void *send_many(void *arg)
{
	struct sender *s = arg;
	struct ulnet_process_id target = { nid("127.0.5.2@tcp"),
					   ULNET_PID_LUSTRE };
	unsigned i;

	for (i = 0; i < NOPS && s->rc == 0; i++)
		s->rc = ulnet_put(s->u, NULL, s->h[i], ULNET_ACK_REQ, &target,
				  PORTAL, MBITS, 0, i);
	return NULL;
}

static void calls_from_many_threads_all_complete(void **state)
{
	struct pair *p = *state;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct sender *s = calloc(4, sizeof(*s));
	pthread_t th[4];
	unsigned nfinal = 0, t, i;

	assert_non_null(s);
	for (t = 0; t < 4; t++) {
		s[t].u = p->a;
		for (i = 0; i < NOPS; i++) {
			struct ulnet_md md = { 0 };

			s[t].ops[i] = (struct op){ &lock, &cond, &nfinal, 0,
						   0,	  false, 0,	  0 };
			md.start = s[t].buf;
			md.length = sizeof(s[t].buf);
			md.threshold = 2;
			md.user_ptr = &s[t].ops[i];
			md.handler = op_cb;
			md.numa_node = -1;
			assert_int_equal(ulnet_md_bind(p->a, &md, ULNET_UNLINK,
						       &s[t].h[i]),
					 0);
		}
	}
	for (t = 0; t < 4; t++)
		assert_int_equal(pthread_create(&th[t], NULL, send_many, &s[t]),
				 0);
	for (t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_lock(&lock);
	while (nfinal < 4 * NOPS)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (t = 0; t < 4; t++) {
		assert_int_equal(s[t].rc, 0);
		for (i = 0; i < NOPS; i++) {
			assert_int_equal(s[t].ops[i].finals, 1);
			assert_int_equal(s[t].ops[i].status, 0);
			/* SEND and ACK, nothing else. */
			assert_int_equal(s[t].ops[i].events, 2);
		}
	}
	free(s);
}

/*
 * Module parameters by name on running nodes: a writable one is set and
 * read back, a load-time one, an unknown name and a value out of range
 * are refused with the reason; with busy-poll on at both ends, calls
 * from several threads still all complete, one final event each.
 */
static void params_by_name_and_busy_poll(void **state)
{
	struct pair *p = *state;
	char err[256];
	int64_t v = -1;

	assert_int_equal(ulnet_param_set(p->a, "lnet.lnet_retry_count", 3, err,
					 sizeof(err)),
			 0);
	assert_int_equal(ulnet_param_get(p->a, "lnet_retry_count", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(ulnet_param_set(p->a, "lnet.lock_prim_nid", 0, err,
					 sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "read-only once running"));
	assert_int_equal(ulnet_param_set(p->a, "ulnet.bogus", 1, err,
					 sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "ulnet.bogus: no such parameter"));
	assert_int_equal(ulnet_param_get(p->a, "ulnet.bogus", &v), -ENOENT);
	assert_int_equal(ulnet_param_set(p->a, "ulnet.busy_poll", 5000000, err,
					 sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "out of range 0..1000000"));

	for (int i = 0; i < 2; i++) {
		struct ulnet *u = i ? p->b : p->a;

		assert_int_equal(ulnet_param_set(u, "ulnet.busy_poll", 200, err,
						 sizeof(err)),
				 0);
		assert_int_equal(ulnet_param_get(u, "ulnet.busy_poll", &v), 0);
		assert_int_equal(v, 200);
	}
	calls_from_many_threads_all_complete(state);
}

static void keep_lines(void *ctx, const char *line)
{
	char *log = ctx;
	size_t n = strlen(log);

	snprintf(log + n, 4096 - n, "%s\n", line);
}

/*
 * A misspelt key in ulnet_create()'s lnet.conf is skipped, as lnetctl
 * skips unknown keys, but not in silence: the log names its line, column
 * and the key meant.
 */
static void create_names_a_misspelt_key(void **state)
{
	static char log[4096];
	struct ulnet_opts o;
	struct ulnet *u;
	char err[256];

	(void)state;
	ulnet_opts_init(&o);
	o.conf_text = "net:\n"
		      "  - net type: tcp\n"
		      "    local NIs:\n"
		      "      - nid: 127.0.5.9@tcp\n";
	o.is_link_monitor_off = true;
	o.log = keep_lines;
	o.log_ctx = log;
	assert_int_equal(ulnet_create(&o, &u, err, sizeof(err)), 0);
	assert_non_null(strstr(log, "lnet.conf line 3 column 5: "
				    "net[0].local NIs: unknown key; skipped "
				    "(did you mean 'local NI(s)'?)"));
	ulnet_destroy(u);
}

/*
 * ulnet_create() applies its lnet.conf as ulnetd --config does (one
 * engine, ctl/node_req.h): what the daemon refuses, with the line and
 * LNet's words (tests/cli/import_order.sh checks the daemon's side), it
 * refuses too, and nothing is left running.
 */
static void create_refuses_config_as_ulnetd_does(void **state)
{
	static const struct {
		const char *yaml;
		const char *msg;
	} cases[] = {
		{ "udsp:\n    - idx: 0\n      src: tcp\n      priority: 0\n",
		  "line 2: udsp: rule idx 0: priority 0 gives no action" },
		{ "global:\n    retry_count: 999\n",
		  "line 2: retry_count: 999 must not exceed "
		  "transaction_timeout" },
		{ "net:\n  - net type: lo\n",
		  "line 2: setting @lo not allowed" },
	};
	struct ulnet_opts o;
	struct ulnet *u = NULL;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ulnet_opts_init(&o);
		o.conf_text = cases[i].yaml;
		o.accept = ULNET_ACCEPT_NONE;
		o.is_link_monitor_off = true;
		err[0] = '\0';
		assert_true(ulnet_create(&o, &u, err, sizeof(err)) < 0);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s', want '%s'", i, err,
				 cases[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_refuses_config_as_ulnetd_does),
		cmocka_unit_test(create_names_a_misspelt_key),
		cmocka_unit_test_setup_teardown(params_by_name_and_busy_poll,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			put_with_unknown_md_fails_without_event, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			put_to_portal_64_fails_without_event, setup, teardown),
		cmocka_unit_test_setup_teardown(
			stop_ends_puts_in_flight_once_each, setup, teardown),
		cmocka_unit_test_setup_teardown(
			md_without_room_for_answer_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(
			stop_ends_ops_waiting_for_answer_with_eshutdown, setup,
			teardown),
		cmocka_unit_test_setup_teardown(stop_from_callback_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			ni_added_at_run_time_carries_traffic, setup, teardown),
		cmocka_unit_test_setup_teardown(
			calls_from_many_threads_all_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(
			peer_learn_folds_into_the_first_nids_peer, setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
