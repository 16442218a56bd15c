/*
 * simlnd: the in-memory fabric and the LND ops over it (simlnd.h).
 *
 * Objects: endpoints (one per started NI, in a hash by NID), links (one
 * per direction of a NID pair that was set or used, in a hash by the
 * pair and chained by destination NID), and messages (one record per ops->send(), on the fabric's list
 * until it ends). Each message is one small state machine with one timer
 * on the fabric's heap:
 *
 *   SIM_MSG_FAIL  the send cannot go out: at send + latency, tx_done with
 *                 the failure, then the record is freed.
 *   SIM_MSG_TX    the message occupies its link: at transmit complete the
 *                 payload is copied into the record (the node may reuse
 *                 its buffer once tx_done ran), tx_done(0, OK), and the
 *                 message moves to SIM_MSG_FLIGHT (or is freed if lost).
 *   SIM_MSG_FLIGHT on the wire: at transmit complete + latency, parse and
 *                 rx_done on the destination NI, then the record is freed.
 *   SIM_MSG_NOTICE news of a peer for an NI (peer_down), at the time the
 *                 RST or the handshake would reach it.
 *
 * Connections: the src -> dst link remembers which endpoint of src last
 * talked with which endpoint of dst (a message sent or received), as a
 * socklnd connection would. When dst shuts down (its process dies), src
 * hears peer_down(not restarted) one latency later; when src next meets
 * another endpoint at dst (a message either way), it hears
 * peer_down(restarted), before that message is delivered to it.
 *
 * Endpoints carry a fabric-unique id: a message remembers the id of the
 * NI it was sent to, so an NI that shut down and started again with the
 * same NID never receives what was sent to its predecessor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ni.h"
#include "lnd/simlnd.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/list.h"
#include "util/timer.h"

#define NS_PER_SEC 1000000000ull
/* Payload buffer classes: 64 bytes (class 0) to 1 MiB (class 14). */
#define PAYLOAD_MIN_SHIFT 6u
#define PAYLOAD_CLASSES 15u
/* Free buffers kept per class: up to 64 MiB of each. */
#define PAYLOAD_KEEP(c) ((64u << 20) >> ((c) + PAYLOAD_MIN_SHIFT))

/* A free payload buffer, on ul_simfab.bufs[its class]. */
struct sim_buf {
	struct sim_buf *next;
};

struct sim_ep {
	struct ul_hnode hnode; /* on ul_simfab.eps, by nid */
	struct ulnet_nid nid;
	struct ul_lnd_ni *lni;
	struct ul_simfab *fab;
	uint64_t id; /* fabric-unique, never 0 */
	bool is_up;  /* the cable (ul_simfab_ni_set_up) */
	/*
	 * sim_msg.ep_link: what it sends (FAIL, TX) and what is on its way
	 * to it (FLIGHT, NOTICE), so that its shutdown does not walk every
	 * message of the fabric.
	 */
	struct ul_list msgs;
};

struct sim_link {
	struct ul_hnode hnode; /* on ul_simfab.links, by (src, dst) */
	struct ulnet_nid src;
	struct ulnet_nid dst;
	bool has_props; /* false: the fabric default applies */
	struct ul_simlink_props props;
	uint64_t free_at_ns; /* when the last transmit queued completes */
	struct ul_simlink_stats stats;
	/* The connection as src sees it (module comment); 0: none. */
	uint64_t conn_src_id;	      /* the endpoint of src that talked */
	uint64_t conn_dst_id;	      /* with this endpoint of dst */
	struct sim_link *next_to_dst; /* the chain of struct sim_dst */
};

/*
 * Every link into one NID, so that an NI that leaves tells its peers
 * without a walk over every link of the fabric (10,000 nodes have
 * hundreds of thousands: bench_fabric's teardown took minutes).
 */
struct sim_dst {
	struct ul_hnode hnode; /* on ul_simfab.dsts, by nid */
	struct ulnet_nid nid;
	struct sim_link *first;
};

enum sim_msg_state {
	SIM_MSG_FAIL,
	SIM_MSG_TX,
	SIM_MSG_FLIGHT,
	SIM_MSG_NOTICE,
};

struct sim_msg {
	struct ul_timer timer;	 /* first: the callback finds the record */
	struct ul_list fab_link; /* on ul_simfab.msgs while it exists */
	struct ul_list ep_link;	 /* on the sim_ep.msgs it concerns */
	struct ul_simfab *fab;
	enum sim_msg_state state;
	/*
	 * When the timer is due. The next step is timed from here, not from
	 * the heap's now, which a driver may have run past the deadline.
	 */
	uint64_t due_ns;
	struct sim_ep *src;    /* FAIL, TX: the sending NI */
	struct ul_lnd_tx *tx;  /* FAIL, TX: the node's until tx_done */
	struct sim_link *link; /* src -> dst direction */
	uint64_t dst_id;   /* endpoint id sent to (NOTICE: told); 0 if none */
	uint64_t src_id;   /* endpoint id of the sender */
	bool is_restarted; /* NOTICE: peer_down's argument */
	bool is_lost;	   /* TX: never delivered */
	int status;	   /* FAIL: tx_done's status and hstatus */
	enum ul_hstatus hstatus;
	/* FLIGHT: what the destination gets. */
	struct ul_wire_lnet_hdr hdr;
	struct ulnet_nid from_nid;
	uint32_t nob;
	unsigned char *payload;
};

struct ul_simfab {
	struct ul_timer_heap *heap;
	uint64_t rng; /* splitmix64 state */
	uint64_t next_ep_id;
	struct ul_simlink_props dflt;
	struct ul_hash eps;
	struct ul_hash links;
	struct ul_hash dsts; /* struct sim_dst by NID */
	struct ul_list msgs; /* struct sim_msg.fab_link, send order */
	size_t nmsgs;
	/*
	 * Payload copies kept for reuse, by power-of-two size class: a
	 * stream of 4 KiB messages freed and allocated one by one kept
	 * glibc searching its bins (a quarter of bench_fabric's time).
	 */
	struct sim_buf *bufs[PAYLOAD_CLASSES];
	uint32_t nbufs[PAYLOAD_CLASSES];
};

/* splitmix64: small, fast, and the same sequence on every platform. */
static uint64_t fab_rand(struct ul_simfab *fab)
{
	uint64_t z = (fab->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 bits. */
static double fab_rand_unit(struct ul_simfab *fab)
{
	return (double)(fab_rand(fab) >> 11) * (1.0 / 9007199254740992.0);
}

static struct sim_ep *ep_find(const struct ul_simfab *fab,
			      const struct ulnet_nid *nid)
{
	uint32_t hv = ul_nid_hash(nid);

	for (struct ul_hnode *n = ul_hash_bucket(&fab->eps, hv); n;
	     n = n->next) {
		struct sim_ep *ep = ul_container_of(n, struct sim_ep, hnode);

		if (n->hash == hv && ulnet_nid_same(&ep->nid, nid))
			return ep;
	}
	return NULL;
}

static uint32_t link_hash(const struct ulnet_nid *src,
			  const struct ulnet_nid *dst)
{
	return ul_nid_hash(src) * 31u + ul_nid_hash(dst);
}

static struct sim_link *link_find(const struct ul_simfab *fab,
				  const struct ulnet_nid *src,
				  const struct ulnet_nid *dst)
{
	uint32_t hv = link_hash(src, dst);

	for (struct ul_hnode *n = ul_hash_bucket(&fab->links, hv); n;
	     n = n->next) {
		struct sim_link *l = ul_container_of(n, struct sim_link, hnode);

		if (n->hash == hv && ulnet_nid_same(&l->src, src) &&
		    ulnet_nid_same(&l->dst, dst))
			return l;
	}
	return NULL;
}

static struct sim_dst *dst_find(const struct ul_simfab *fab,
				const struct ulnet_nid *nid)
{
	uint32_t hv = ul_nid_hash(nid);

	for (struct ul_hnode *n = ul_hash_bucket(&fab->dsts, hv); n;
	     n = n->next) {
		struct sim_dst *d = ul_container_of(n, struct sim_dst, hnode);

		if (n->hash == hv && ulnet_nid_same(&d->nid, nid))
			return d;
	}
	return NULL;
}

/* The src->dst link record, made on first use. NULL: out of memory. */
static struct sim_link *link_get(struct ul_simfab *fab,
				 const struct ulnet_nid *src,
				 const struct ulnet_nid *dst)
{
	struct sim_link *l = link_find(fab, src, dst);
	struct sim_dst *d;

	if (l)
		return l;
	d = dst_find(fab, dst);
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		d->nid = *dst;
		ul_hash_add(&fab->dsts, &d->hnode, ul_nid_hash(dst));
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->src = *src;
	l->dst = *dst;
	l->next_to_dst = d->first;
	d->first = l;
	ul_hash_add(&fab->links, &l->hnode, link_hash(src, dst));
	return l;
}

static const struct ul_simlink_props *link_props(const struct ul_simfab *fab,
						 const struct sim_link *l)
{
	return l->has_props ? &l->props : &fab->dflt;
}

/* Time a message of nob payload bytes occupies a link, rounded up. */
static uint64_t xmit_ns(const struct ul_simlink_props *p, uint32_t nob)
{
	uint64_t bytes = (uint64_t)nob + UL_SIMLND_HDR_BYTES;

	if (p->bandwidth == 0)
		return 0;
	return (bytes * NS_PER_SEC + p->bandwidth - 1) / p->bandwidth;
}

/* The class of a payload of nob bytes, or PAYLOAD_CLASSES: too big. */
static unsigned int buf_class(uint32_t nob)
{
	unsigned int c = 0;

	while (c < PAYLOAD_CLASSES && (1u << (c + PAYLOAD_MIN_SHIFT)) < nob)
		c++;
	return c;
}

static unsigned char *buf_get(struct ul_simfab *fab, uint32_t nob)
{
	unsigned int c = buf_class(nob);
	struct sim_buf *b;

	if (c == PAYLOAD_CLASSES)
		return malloc(nob);
	b = fab->bufs[c];
	if (!b)
		return malloc((size_t)1 << (c + PAYLOAD_MIN_SHIFT));
	fab->bufs[c] = b->next;
	fab->nbufs[c]--;
	return (unsigned char *)b;
}

static void buf_put(struct ul_simfab *fab, unsigned char *p, uint32_t nob)
{
	unsigned int c = buf_class(nob);
	struct sim_buf *b = (struct sim_buf *)(void *)p;

	if (!p)
		return;
	if (c == PAYLOAD_CLASSES || fab->nbufs[c] >= PAYLOAD_KEEP(c)) {
		free(p);
		return;
	}
	b->next = fab->bufs[c];
	fab->bufs[c] = b;
	fab->nbufs[c]++;
}

static void msg_free(struct sim_msg *m)
{
	struct ul_simfab *fab = m->fab;

	ul_timer_cancel(fab->heap, &m->timer);
	ul_list_del(&m->fab_link);
	ul_list_del(&m->ep_link);
	fab->nmsgs--;
	buf_put(fab, m->payload, m->nob);
	free(m);
}

/* Gather nob bytes of the tx's fragments into buf. */
static void copy_from_iov(unsigned char *buf, const struct iovec *iov,
			  uint32_t niov, uint32_t nob)
{
	for (uint32_t i = 0; i < niov && nob > 0; i++) {
		size_t n = iov[i].iov_len < nob ? iov[i].iov_len : nob;

		memcpy(buf, iov[i].iov_base, n);
		buf += n;
		nob -= (uint32_t)n;
	}
}

/* Scatter nob bytes into the fragments; returns how many fitted. */
static uint32_t copy_to_iov(const struct iovec *iov, uint32_t niov,
			    const unsigned char *buf, uint32_t nob)
{
	uint32_t done = 0;

	for (uint32_t i = 0; i < niov && done < nob; i++) {
		size_t n = iov[i].iov_len < nob - done ? iov[i].iov_len
						       : nob - done;

		memcpy(iov[i].iov_base, buf + done, n);
		done += (uint32_t)n;
	}
	return done;
}

static void msg_timer_cb(struct ul_timer *t, uint64_t now_ns);

/*
 * Tell x, delay_ns from now, what became of the peer at the other end of
 * link l (x -> l->dst). Out of memory: x never hears, as if the RST was
 * lost.
 */
static void notice_queue(struct ul_simfab *fab, struct sim_ep *x,
			 struct sim_link *l, bool is_restarted,
			 uint64_t delay_ns)
{
	struct sim_msg *m = calloc(1, sizeof(*m));

	if (!m)
		return;
	ul_timer_init(&m->timer, msg_timer_cb);
	ul_list_init(&m->ep_link);
	m->fab = fab;
	m->state = SIM_MSG_NOTICE;
	m->link = l;
	m->dst_id = x->id;
	m->is_restarted = is_restarted;
	m->due_ns = fab->heap->now_ns + delay_ns;
	if (ul_timer_arm(fab->heap, &m->timer, m->due_ns) != 0) {
		free(m);
		return;
	}
	ul_list_add_tail(&fab->msgs, &m->fab_link);
	ul_list_add_tail(&x->msgs, &m->ep_link);
	fab->nmsgs++;
}

static void tell(struct sim_ep *x, const struct ulnet_nid *peer,
		 bool is_restarted)
{
	if (x->lni->up->peer_down)
		x->lni->up->peer_down(x->lni, peer, is_restarted);
}

/* SIM_MSG_NOTICE: the news reaches the NI it is for, if still there. */
static void msg_on_notice(struct sim_msg *m)
{
	struct sim_link *l = m->link;
	struct sim_ep *x = ep_find(m->fab, &l->src);
	bool is_restarted = m->is_restarted;
	uint64_t id = m->dst_id;

	msg_free(m);
	if (x && x->id == id)
		tell(x, &l->dst, is_restarted);
}

/*
 * x (endpoint) talks with the endpoint y_id at y_nid: if x knew another
 * endpoint there, that one restarted: x hears it now (is_now, from a
 * timer) or one latency later (from ops->send()).
 */
static bool conn_note(struct ul_simfab *fab, struct sim_ep *x,
		      const struct ulnet_nid *y_nid, uint64_t y_id, bool is_now)
{
	struct sim_link *l = link_get(fab, &x->nid, y_nid);

	if (!l)
		return false;
	if (l->conn_src_id == x->id && l->conn_dst_id == y_id)
		return false;
	l->conn_dst_id = y_id;
	if (l->conn_src_id != x->id) {
		l->conn_src_id = x->id;
		return false;
	}
	if (is_now)
		tell(x, y_nid, true);
	else
		notice_queue(fab, x, l, true, 0);
	return true;
}

/* SIM_MSG_FAIL: the failure reaches the sender. */
static void msg_on_fail(struct sim_msg *m)
{
	struct ul_lnd_ni *lni = m->src->lni;
	struct ul_lnd_tx *tx = m->tx;
	int status = m->status;
	enum ul_hstatus hs = m->hstatus;

	m->link->stats.drops++;
	msg_free(m);
	lni->up->tx_done(lni, tx, status, hs);
}

/* SIM_MSG_TX: the last byte left the sender. */
static void msg_on_xmit_done(struct sim_msg *m)
{
	struct ul_simfab *fab = m->fab;
	struct sim_link *l = m->link;
	const struct ul_simlink_props *p = link_props(fab, l);
	struct ul_lnd_ni *lni = m->src->lni;
	struct ul_lnd_tx *tx = m->tx;

	/* A cable pulled or a link cut while it was transmitting. */
	if (!m->src->is_up || !p->is_up) {
		enum ul_hstatus hs = m->src->is_up ? UL_HSTATUS_REMOTE_DROPPED
						   : UL_HSTATUS_LOCAL_DROPPED;

		l->stats.drops++;
		msg_free(m);
		lni->up->tx_done(lni, tx, -EHOSTUNREACH, hs);
		return;
	}
	l->stats.msgs++;
	l->stats.bytes += tx->nob;
	m->nob = tx->nob;
	if (!m->is_lost && tx->nob > 0) {
		m->payload = buf_get(fab, tx->nob);
		if (m->payload)
			copy_from_iov(m->payload, tx->iov, tx->niov, tx->nob);
		else
			m->is_lost = true;
	}
	m->due_ns += p->latency_ns;
	if (!m->is_lost && ul_timer_arm(fab->heap, &m->timer, m->due_ns) != 0)
		m->is_lost = true;
	if (m->is_lost) {
		/* Silent: the sender learns it only by a response timeout. */
		l->stats.drops++;
		msg_free(m);
	} else {
		struct sim_ep *dst = ep_find(fab, &l->dst);

		m->hdr = tx->hdr;
		m->from_nid = m->src->nid;
		m->state = SIM_MSG_FLIGHT;
		m->src = NULL;
		m->tx = NULL;
		ul_list_del(&m->ep_link);
		if (dst && dst->id == m->dst_id)
			ul_list_add_tail(&dst->msgs, &m->ep_link);
	}
	lni->up->tx_done(lni, tx, 0, UL_HSTATUS_OK);
}

/* SIM_MSG_FLIGHT: the message reaches the far end. */
static void msg_on_arrive(struct sim_msg *m)
{
	struct sim_link *l = m->link;
	struct sim_ep *dst = ep_find(m->fab, &l->dst);
	struct ul_lnd_ni *lni;
	struct ul_lnd_rx rx;
	int status = 0;

	/*
	 * Off the list during the upcalls: they may send, or shut an NI
	 * down, which walks the list. msg_free() copes with that.
	 */
	ul_list_del(&m->fab_link);
	ul_list_del(&m->ep_link);
	if (!dst || dst->id != m->dst_id || !dst->is_up ||
	    !link_props(m->fab, l)->is_up) {
		l->stats.drops++;
		goto out;
	}
	/* A hello from a restarted sender would come first. */
	conn_note(m->fab, dst, &l->src, m->src_id, true);
	if (ep_find(m->fab, &l->dst) != dst) {
		l->stats.drops++;
		goto out;
	}
	lni = dst->lni;
	memset(&rx, 0, sizeof(rx));
	if (lni->up->parse(lni, &m->hdr, &m->from_nid, &rx) != 0) {
		/* The node refused the header: a socket LND closes here. */
		l->stats.drops++;
		goto out;
	}
	l->stats.delivered++;
	if (rx.mlen > m->nob ||
	    copy_to_iov(rx.iov, rx.niov, m->payload, rx.mlen) != rx.mlen)
		status = -EPROTO;
	lni->up->rx_done(lni, &rx, status);
out:
	msg_free(m);
}

static void msg_timer_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct sim_msg *m = ul_container_of(t, struct sim_msg, timer);

	(void)now_ns;

	switch (m->state) {
	case SIM_MSG_FAIL:
		msg_on_fail(m);
		break;
	case SIM_MSG_TX:
		msg_on_xmit_done(m);
		break;
	case SIM_MSG_FLIGHT:
		msg_on_arrive(m);
		break;
	case SIM_MSG_NOTICE:
		msg_on_notice(m);
		break;
	}
}

static int simlnd_startup(struct ul_lnd_ni *lni, struct ul_err *err)
{
	struct ul_simfab *fab = lni->lnd->ctx;
	const struct ulnet_nid *nid = &lni->ni->nid;
	char buf[ULNET_NIDSTR_SIZE];
	struct sim_ep *ep;

	if (lni->timers != fab->heap)
		return ul_err_set(err, -EINVAL,
				  "simlnd: NI %s runs on another timer heap",
				  ulnet_nid_format(nid, buf, sizeof(buf)));
	if (ep_find(fab, nid))
		return ul_err_set(err, -EADDRINUSE,
				  "simlnd: NID %s is already on the fabric",
				  ulnet_nid_format(nid, buf, sizeof(buf)));
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return ul_err_set(err, -ENOMEM, "simlnd: out of memory");
	ep->nid = *nid;
	ep->lni = lni;
	ep->fab = fab;
	ep->id = ++fab->next_ep_id;
	ep->is_up = true;
	ul_list_init(&ep->msgs);
	ul_hash_add(&fab->eps, &ep->hnode, ul_nid_hash(nid));
	lni->data = ep;
	return 0;
}

/* ep leaves the fabric: every NI connected to it hears of it. */
static void tell_peers_down(struct ul_simfab *fab, const struct sim_ep *ep)
{
	struct sim_dst *d = dst_find(fab, &ep->nid);

	for (struct sim_link *l = d ? d->first : NULL; l; l = l->next_to_dst) {
		struct sim_ep *x;

		if (l->conn_dst_id != ep->id)
			continue;
		x = ep_find(fab, &l->src);
		if (x && x->id == l->conn_src_id)
			notice_queue(fab, x, l, false,
				     link_props(fab, l)->latency_ns);
	}
}

static void simlnd_shutdown(struct ul_lnd_ni *lni)
{
	struct sim_ep *ep = lni->data;
	struct ul_simfab *fab;
	struct sim_msg *m, *tmp;
	struct ul_list dying;

	if (!ep)
		return;
	fab = ep->fab;
	ul_hash_del(&fab->eps, &ep->hnode);
	tell_peers_down(fab, ep);
	ul_list_init(&dying);
	/*
	 * Collect first: tx_done may send on other NIs, which adds to the
	 * lists while we walk this NI's.
	 */
	ul_list_for_each_entry_safe(m, tmp, &ep->msgs, ep_link) {
		if (m->src == ep) {
			ul_list_del(&m->fab_link);
			ul_list_add_tail(&dying, &m->fab_link);
		} else if (m->state == SIM_MSG_FLIGHT && m->dst_id == ep->id) {
			m->link->stats.drops++;
			msg_free(m);
		} else if (m->state == SIM_MSG_NOTICE && m->dst_id == ep->id) {
			msg_free(m);
		}
	}
	ul_list_for_each_entry_safe(m, tmp, &dying, fab_link) {
		struct ul_lnd_tx *tx = m->tx;

		m->link->stats.drops++;
		msg_free(m);
		lni->up->tx_done(lni, tx, -ESHUTDOWN, UL_HSTATUS_LOCAL_DROPPED);
	}
	lni->data = NULL;
	free(ep);
}

static int simlnd_send(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx)
{
	struct sim_ep *ep = lni->data;
	struct ul_simfab *fab;
	const struct ul_simlink_props *p;
	struct sim_link *l;
	struct sim_ep *dst;
	struct sim_msg *m;
	uint64_t now, when;

	if (!ep)
		return -ESHUTDOWN;
	fab = ep->fab;
	now = fab->heap->now_ns;
	l = link_get(fab, &ep->nid, &tx->target_nid);
	if (!l)
		return -ENOMEM;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	p = link_props(fab, l);
	dst = ep_find(fab, &tx->target_nid);
	ul_timer_init(&m->timer, msg_timer_cb);
	ul_list_init(&m->ep_link);
	m->fab = fab;
	m->src = ep;
	m->tx = tx;
	m->link = l;
	m->dst_id = dst ? dst->id : 0;
	m->src_id = ep->id;
	if (!ep->is_up || !dst || !dst->is_up || !p->is_up) {
		m->state = SIM_MSG_FAIL;
		m->status = -EHOSTUNREACH;
		m->hstatus = ep->is_up ? UL_HSTATUS_REMOTE_DROPPED
				       : UL_HSTATUS_LOCAL_DROPPED;
		when = now + p->latency_ns;
	} else {
		m->state = SIM_MSG_TX;
		when = (l->free_at_ns > now ? l->free_at_ns : now) +
		       xmit_ns(p, tx->nob);
		/*
		 * Meeting a restarted peer: the news comes first (due now),
		 * as the handshake comes before the message.
		 */
		if (conn_note(fab, ep, &tx->target_nid, dst->id, false) &&
		    when == now)
			when = now + 1;
	}
	m->due_ns = when;
	if (ul_timer_arm(fab->heap, &m->timer, when) != 0) {
		free(m);
		return -ENOMEM;
	}
	if (m->state == SIM_MSG_TX) {
		l->free_at_ns = when;
		/* Drawn only when it matters, in send order: deterministic. */
		m->is_lost = p->loss > 0 && fab_rand_unit(fab) < p->loss;
	}
	ul_list_add_tail(&fab->msgs, &m->fab_link);
	ul_list_add_tail(&ep->msgs, &m->ep_link);
	fab->nmsgs++;
	return 0;
}

const struct ul_lnd_ops ul_simlnd_ops = {
	.name = "simlnd",
	.startup = simlnd_startup,
	.shutdown = simlnd_shutdown,
	.send = simlnd_send,
};

int ul_simfab_create(struct ul_timer_heap *heap, uint64_t seed,
		     struct ul_simfab **out)
{
	struct ul_simfab *fab = calloc(1, sizeof(*fab));

	if (!fab)
		return -ENOMEM;
	if (ul_hash_init(&fab->eps, 4) != 0)
		goto free_fab;
	if (ul_hash_init(&fab->links, 6) != 0)
		goto fini_eps;
	if (ul_hash_init(&fab->dsts, 4) != 0)
		goto fini_links;
	fab->heap = heap;
	fab->rng = seed;
	fab->dflt.latency_ns = 1000;
	fab->dflt.is_up = true;
	ul_list_init(&fab->msgs);
	*out = fab;
	return 0;

fini_links:
	ul_hash_fini(&fab->links);
fini_eps:
	ul_hash_fini(&fab->eps);
free_fab:
	free(fab);
	return -ENOMEM;
}

/* Empty a hash whose entries were allocated one by one. */
static void hash_free_all(struct ul_hash *h, size_t offset)
{
	for (uint32_t b = 0; b <= h->mask; b++) {
		struct ul_hnode *n = h->buckets[b];

		while (n) {
			struct ul_hnode *next = n->next;

			free((char *)n - offset);
			n = next;
		}
		h->buckets[b] = NULL;
	}
	h->count = 0;
}

void ul_simfab_destroy(struct ul_simfab *fab)
{
	struct sim_msg *m, *tmp;

	if (!fab)
		return;
	ul_list_for_each_entry_safe(m, tmp, &fab->msgs, fab_link)
		msg_free(m);
	for (unsigned int c = 0; c < PAYLOAD_CLASSES; c++) {
		while (fab->bufs[c]) {
			struct sim_buf *b = fab->bufs[c];

			fab->bufs[c] = b->next;
			free(b);
		}
	}
	hash_free_all(&fab->eps, offsetof(struct sim_ep, hnode));
	hash_free_all(&fab->links, offsetof(struct sim_link, hnode));
	hash_free_all(&fab->dsts, offsetof(struct sim_dst, hnode));
	ul_hash_fini(&fab->eps);
	ul_hash_fini(&fab->links);
	ul_hash_fini(&fab->dsts);
	free(fab);
}

void ul_simfab_default_set(struct ul_simfab *fab,
			   const struct ul_simlink_props *p)
{
	fab->dflt = *p;
}

int ul_simfab_link_set(struct ul_simfab *fab, const struct ulnet_nid *a,
		       const struct ulnet_nid *b,
		       const struct ul_simlink_props *p)
{
	struct sim_link *ab, *ba;

	if (!(p->loss >= 0 && p->loss <= 1))
		return -EINVAL;
	ab = link_get(fab, a, b);
	if (!ab)
		return -ENOMEM;
	ba = link_get(fab, b, a);
	if (!ba)
		return -ENOMEM;
	ab->props = *p;
	ab->has_props = true;
	ba->props = *p;
	ba->has_props = true;
	return 0;
}

void ul_simfab_link_get(const struct ul_simfab *fab,
			const struct ulnet_nid *src,
			const struct ulnet_nid *dst,
			struct ul_simlink_props *out)
{
	const struct sim_link *l = link_find(fab, src, dst);

	*out = l ? *link_props(fab, l) : fab->dflt;
}

void ul_simfab_link_stats(const struct ul_simfab *fab,
			  const struct ulnet_nid *src,
			  const struct ulnet_nid *dst,
			  struct ul_simlink_stats *out)
{
	const struct sim_link *l = link_find(fab, src, dst);

	if (l)
		*out = l->stats;
	else
		memset(out, 0, sizeof(*out));
}

int ul_simfab_ni_set_up(struct ul_simfab *fab, const struct ulnet_nid *nid,
			bool is_up)
{
	struct sim_ep *ep = ep_find(fab, nid);

	if (!ep)
		return -ENOENT;
	ep->is_up = is_up;
	return 0;
}

int ul_simfab_conn_reset(struct ul_simfab *fab, const struct ulnet_nid *a,
			 const struct ulnet_nid *b)
{
	const struct ulnet_nid *ends[2][2] = { { a, b }, { b, a } };
	int told = 0;

	for (int i = 0; i < 2; i++) {
		struct sim_ep *x = ep_find(fab, ends[i][0]);
		struct sim_ep *y = ep_find(fab, ends[i][1]);
		struct sim_link *l = link_find(fab, ends[i][0], ends[i][1]);

		if (!x || !y || !l || l->conn_src_id != x->id ||
		    l->conn_dst_id != y->id)
			continue;
		notice_queue(fab, x, l, false, link_props(fab, l)->latency_ns);
		told++;
	}
	return told ? 0 : -ENOENT;
}

size_t ul_simfab_pending(const struct ul_simfab *fab)
{
	return fab->nmsgs;
}

size_t ul_simfab_nis(const struct ul_simfab *fab)
{
	return fab->eps.count;
}
