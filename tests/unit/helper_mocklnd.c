/*
 * The mock LND and its fabric (helper_mocklnd.h). Each send gets a small
 * record with its own timer; a mock NI keeps the records it has not
 * completed, so its shutdown can complete them with -ESHUTDOWN.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "helper_mocklnd.h"
#include "lnd/lolnd.h"
#include "util/err.h"

struct mock_ni {
	struct ul_list link; /* mock_fabric.nis */
	struct mock_fabric *f;
	struct ul_lnd_ni *lni;
	struct ul_list txs; /* struct mock_tx not completed */
};

struct mock_tx {
	struct ul_list link; /* mock_ni.txs */
	struct ul_timer timer;
	struct mock_ni *src;
	struct ul_lnd_tx *tx;
};

struct ulnet_nid mock_nid(const char *s)
{
	struct ulnet_nid nid;

	if (ulnet_nid_parse(s, &nid, NULL, 0)) {
		fprintf(stderr, "bad NID %s\n", s);
		abort();
	}
	return nid;
}

static struct mock_ni *find_ni(struct mock_fabric *f,
			       const struct ulnet_nid *nid)
{
	struct mock_ni *mi;

	ul_list_for_each_entry(mi, &f->nis, link) {
		if (ulnet_nid_same(&mi->lni->ni->nid, nid))
			return mi;
	}
	return NULL;
}

static void tx_finish(struct mock_tx *mt, int status, enum ul_hstatus hs)
{
	struct ul_lnd_ni *lni = mt->src->lni;
	struct ul_lnd_tx *tx = mt->tx;

	ul_list_del(&mt->link);
	mt->src->f->in_flight--;
	lni->up->tx_done(lni, tx, status, hs);
	free(mt);
}

/* Invert byte off of the payload an iovec holds (it is within). */
static void flip_byte(const struct iovec *iov, size_t niov, size_t off)
{
	size_t i;

	for (i = 0; i < niov; i++) {
		if (off < iov[i].iov_len) {
			((uint8_t *)iov[i].iov_base)[off] ^= 0xffu;
			return;
		}
		off -= iov[i].iov_len;
	}
}

static void deliver(struct ul_timer *t, uint64_t now_ns)
{
	struct mock_tx *mt = ul_container_of(t, struct mock_tx, timer);
	struct mock_fabric *f = mt->src->f;
	struct ul_lnd_tx *tx = mt->tx;
	struct ulnet_nid from = mt->src->lni->ni->nid;
	struct mock_ni *dst;
	struct ul_lnd_rx rx;
	int rc;

	(void)now_ns;
	if (f->fail_status) {
		tx->is_undelivered = f->fail_undelivered;
		tx_finish(mt, f->fail_status, f->fail_hstatus);
		return;
	}
	if (f->is_drop) {
		tx_finish(mt, 0, UL_HSTATUS_OK);
		return;
	}
	dst = find_ni(f, &tx->target_nid);
	if (!dst) {
		tx_finish(mt, -EHOSTUNREACH, UL_HSTATUS_REMOTE_DROPPED);
		return;
	}
	rc = dst->lni->up->parse(dst->lni, &tx->hdr, &from, &rx);
	if (rc) {
		f->nparse_err++;
		tx_finish(mt, -ECONNRESET, UL_HSTATUS_REMOTE_ERROR);
		return;
	}
	ul_lnd_iov_copy(rx.iov, rx.niov, tx->iov, tx->niov,
			rx.mlen < tx->nob ? rx.mlen : tx->nob);
	if (f->corrupt_at && rx.mlen > f->corrupt_at - 1)
		flip_byte(rx.iov, rx.niov, f->corrupt_at - 1);
	tx_finish(mt, 0, UL_HSTATUS_OK);
	dst->lni->up->rx_done(dst->lni, &rx, 0);
}

static int mock_startup(struct ul_lnd_ni *lni, struct ul_err *err)
{
	struct mock_fabric *f = lni->lnd->ctx;
	struct mock_ni *mi = calloc(1, sizeof(*mi));

	if (!mi)
		return ul_err_set(err, -ENOMEM, "mock: out of memory");
	mi->f = f;
	mi->lni = lni;
	ul_list_init(&mi->txs);
	ul_list_add_tail(&f->nis, &mi->link);
	lni->data = mi;
	return 0;
}

static void mock_shutdown(struct ul_lnd_ni *lni)
{
	struct mock_ni *mi = lni->data;
	struct mock_tx *mt, *tmp;
	struct ul_list dead;

	/* Take them all first: completions may not add to a dying NI. */
	ul_list_init(&dead);
	if (!ul_list_empty(&mi->txs)) {
		ul_list_link(&dead, mi->txs.prev, mi->txs.next);
		ul_list_init(&mi->txs);
	}
	ul_list_for_each_entry_safe(mt, tmp, &dead, link) {
		ul_timer_cancel(&mi->f->timers, &mt->timer);
		tx_finish(mt, -ESHUTDOWN, UL_HSTATUS_LOCAL_DROPPED);
	}
	ul_list_del(&mi->link);
	free(mi);
	lni->data = NULL;
}

static int mock_send(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx)
{
	struct mock_ni *mi = lni->data;
	struct mock_fabric *f = mi->f;
	struct mock_tx *mt = calloc(1, sizeof(*mt));

	if (!mt)
		return -ENOMEM;
	mt->src = mi;
	mt->tx = tx;
	ul_timer_init(&mt->timer, deliver);
	if (!f->is_hold && ul_timer_arm(&f->timers, &mt->timer,
					f->timers.now_ns + f->delay_ns)) {
		free(mt);
		return -ENOMEM;
	}
	ul_list_add_tail(&mi->txs, &mt->link);
	f->nsent++;
	if (++f->in_flight > f->max_in_flight)
		f->max_in_flight = f->in_flight;
	return 0;
}

static void mock_link_change(struct ul_lnd_ni *lni, bool is_up)
{
	struct mock_ni *mi = lni->data;

	(void)is_up;
	mi->f->nlink_change++;
}

static void mock_set_timeout(void *ctx, uint32_t sec)
{
	struct mock_fabric *f = ctx;

	f->timeout_sec = sec;
}

static uint32_t mock_get_timeout(void *ctx)
{
	const struct mock_fabric *f = ctx;

	return f->timeout_sec;
}

static const struct ul_lnd_ops mock_ops = {
	.name = "mocklnd",
	.startup = mock_startup,
	.shutdown = mock_shutdown,
	.send = mock_send,
	.link_change = mock_link_change,
	.set_timeout = mock_set_timeout,
	.get_timeout = mock_get_timeout,
};

static void log_line(void *ctx, const char *line)
{
	struct mock_fabric *f = ctx;

	f->nlog++;
	snprintf(f->last_log, sizeof(f->last_log), "%s", line);
}

void mock_fabric_init(struct mock_fabric *f)
{
	memset(f, 0, sizeof(*f));
	ul_timer_heap_init(&f->timers);
	f->timers.now_ns = 1000000000; /* 1 s: 0 reads as "unset" */
	ul_list_init(&f->nis);
	f->lnd.ops = &mock_ops;
	f->lnd.ctx = f;
	f->lnd.lnd_type = ULNET_LND_SOCK;
	f->next_cookie = 0x1234000000000001ULL;
	f->log.fn = log_line;
	f->log.ctx = f;
	f->log.mask = UL_LOG_DEFAULT_MASK | UL_D_NET;
}

void mock_fabric_fini(struct mock_fabric *f)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		ul_node_destroy(f->nodes[i]);
	f->nnodes = 0;
	ul_timer_heap_fini(&f->timers);
}

struct ul_node *mock_node(struct mock_fabric *f, const char *const *nids,
			  size_t n, int peer_credits, int credits)
{
	struct ul_net_tunables tun;
	struct ul_node_opts opts = { 0 };
	struct ul_core *c;
	struct ul_node *node;

	if (f->nnodes == MOCK_MAX_NODES || ul_core_create(&c))
		return NULL;
	ul_net_tunables_default(&tun);
	if (peer_credits > 0)
		tun.peer_tx_credits = peer_credits;
	if (credits > 0)
		tun.credits = credits;
	for (size_t i = 0; i < n; i++) {
		struct ulnet_nid nid = mock_nid(nids[i]);
		char ifname[16];

		snprintf(ifname, sizeof(ifname), "eth%u",
			 (unsigned int)(i % 100));
		if (ul_ni_add(c, &nid, ifname, -1, &tun, NULL, NULL)) {
			ul_core_destroy(c);
			return NULL;
		}
	}
	opts.timers = &f->timers;
	opts.log = &f->log;
	opts.pid = ULNET_PID_LUSTRE;
	opts.interface_cookie = f->next_cookie++;
	if (ul_node_create(c, &opts, &node))
		return NULL;
	if (ul_lolnd_register(node) || ul_node_register_lnd(node, &f->lnd) ||
	    ul_node_startup(node, NULL)) {
		ul_node_destroy(node);
		return NULL;
	}
	f->nodes[f->nnodes++] = node;
	return node;
}

static void flush_all(struct mock_fabric *f)
{
	bool is_more = true;

	for (int rounds = 0; is_more && rounds < 1000; rounds++) {
		is_more = false;
		for (uint32_t i = 0; i < f->nnodes; i++)
			is_more |= ul_node_flush(f->nodes[i]);
	}
}

void mock_run(struct mock_fabric *f, uint64_t for_ns)
{
	uint64_t until = f->timers.now_ns + for_ns;

	flush_all(f);
	for (;;) {
		uint64_t next = ul_timer_heap_next(&f->timers);

		if (next > until)
			break;
		ul_timer_heap_run(&f->timers, next > f->timers.now_ns
						      ? next
						      : f->timers.now_ns);
		flush_all(f);
	}
	f->timers.now_ns = until;
	flush_all(f);
}

void mock_release(struct mock_fabric *f)
{
	struct mock_ni *mi;
	struct mock_tx *mt;

	f->is_hold = false;
	ul_list_for_each_entry(mi, &f->nis, link) {
		ul_list_for_each_entry(mt, &mi->txs, link) {
			if (!ul_timer_is_armed(&mt->timer))
				(void)ul_timer_arm(&f->timers, &mt->timer,
						   f->timers.now_ns +
							   f->delay_ns);
		}
	}
}

int mock_inject(struct mock_fabric *f, const struct ulnet_nid *dst_nid,
		const struct ul_wire_lnet_hdr *hdr,
		const struct ulnet_nid *from_nid, const void *payload,
		uint32_t len, bool *is_taken)
{
	struct mock_ni *dst = find_ni(f, dst_nid ? dst_nid : &hdr->dest_nid);
	struct iovec src = { (void *)(uintptr_t)payload, len };
	struct ul_lnd_rx rx;
	int rc;

	*is_taken = false;
	if (!dst)
		return -ENOENT;
	rc = dst->lni->up->parse(dst->lni, hdr, from_nid, &rx);
	if (rc)
		return rc;
	*is_taken = rx.msg != NULL;
	ul_lnd_iov_copy(rx.iov, rx.niov, &src, 1,
			rx.mlen < len ? rx.mlen : len);
	dst->lni->up->rx_done(dst->lni, &rx, 0);
	return 0;
}

void mock_record(struct ulnet *u, const struct ulnet_event *ev)
{
	struct mock_rec *r = ev->md_user_ptr;

	(void)u;
	if (r->n >= MOCK_REC_MAX) {
		fprintf(stderr, "mock_record: too many events\n");
		abort();
	}
	r->ev[r->n++] = *ev;
	if (ev->unlinked && (unsigned int)ev->type < 8)
		r->nfinal[ev->type]++;
	if (r->hook)
		r->hook(r, ev);
}

int mock_rec_count(const struct mock_rec *r, enum ulnet_event_type type)
{
	int k = 0;

	for (int i = 0; i < r->n; i++)
		k += r->ev[i].type == type;
	return k;
}

struct ulnet_handle mock_attach(struct ul_node *n, uint32_t portal,
				uint64_t bits, void *buf, size_t len,
				uint32_t options, int threshold,
				struct mock_rec *r)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = {
		.start = buf,
		.length = len,
		.threshold = threshold,
		.options = options,
		.user_ptr = r,
		.handler = mock_record,
		.numa_node = -1,
	};
	struct ulnet_handle h;

	ulnet_nid_set_any(&any.nid);
	if (ul_node_md_attach(n, portal, &any, bits, 0, ULNET_INS_AFTER, &md,
			      ULNET_RETAIN, &h))
		abort();
	return h;
}

struct ulnet_handle mock_bind(struct ul_node *n, void *buf, size_t len,
			      uint32_t options, int threshold,
			      enum ulnet_unlink unlink, struct mock_rec *r)
{
	struct ulnet_md md = {
		.start = buf,
		.length = len,
		.threshold = threshold,
		.options = options,
		.user_ptr = r,
		.handler = mock_record,
		.numa_node = -1,
	};
	struct ulnet_handle h;

	if (ul_node_md_bind(n, &md, unlink, &h))
		abort();
	return h;
}

void mock_peer_known(struct ul_node *n, const char *nid)
{
	struct ulnet_nid id = mock_nid(nid);
	struct ul_peer_ni *lpni;
	struct ul_peer *p;

	if (ul_peer_ni_find_or_create(ul_node_core(n), &id, NULL, &lpni))
		abort();
	p = ul_peer_ni_peer(lpni);
	p->is_discovered = true;
	if (!ul_disc_set_state(NULL, p, UL_DISC_STATE_UP_TO_DATE))
		abort();
}
