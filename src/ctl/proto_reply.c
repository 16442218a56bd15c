/*
 * The typed replies of the control protocol (proto.h: the PING, NET_SHOW,
 * PEER_SHOW and PERF_PUT data, every op's RC and ERR_MSG, and the Y_MAP
 * document of the generic ops): one encoder and one decoder, used by the
 * control server and ulnetctl.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
#include "ctl/ytree.h"
#include "util/err.h"

/* ---- Replies: encoding ----------------------------------------------- */

static void put_lat(struct ul_ctl_msg *m, uint16_t first,
		    const struct ul_ctl_lat *l)
{
	ul_ctl_put_u64(m, first, l->samples);
	ul_ctl_put_u64(m, first + 1, l->min_nsec);
	ul_ctl_put_u64(m, first + 2, l->max_nsec);
	ul_ctl_put_u64(m, first + 3, l->avg_nsec);
}

static void put_counts(struct ul_ctl_msg *m, uint16_t type,
		       const struct ul_ctl_msg_counts *c)
{
	ul_ctl_nest_start(m, type);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_PUT, c->put);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_GET, c->get);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_REPLY, c->reply);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_ACK, c->ack);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_HELLO, c->hello);
	ul_ctl_nest_end(m);
}

static void put_health(struct ul_ctl_msg *m, const struct ul_ctl_health *h)
{
	ul_ctl_nest_start(m, UL_CTL_A_HEALTH);
	ul_ctl_put_u32(m, UL_CTL_A_FATAL_ERROR, h->fatal_error);
	ul_ctl_put_s32(m, UL_CTL_A_HEALTH_VALUE, h->healthv);
	ul_ctl_put_u64(m, UL_CTL_A_H_INTERRUPTS, h->interrupts);
	ul_ctl_put_u64(m, UL_CTL_A_H_DROPPED, h->dropped);
	ul_ctl_put_u64(m, UL_CTL_A_H_ABORTED, h->aborted);
	ul_ctl_put_u64(m, UL_CTL_A_H_NO_ROUTE, h->no_route);
	ul_ctl_put_u64(m, UL_CTL_A_H_TIMEOUTS, h->timeouts);
	ul_ctl_put_u64(m, UL_CTL_A_H_ERROR, h->error);
	ul_ctl_put_u64(m, UL_CTL_A_H_NETWORK_TIMEOUT, h->network_timeout);
	ul_ctl_put_u64(m, UL_CTL_A_PING_COUNT, h->ping_count);
	ul_ctl_put_s64(m, UL_CTL_A_NEXT_PING, h->next_ping);
	ul_ctl_nest_end(m);
}

static void put_blocks(struct ul_ctl_msg *m, const struct ul_ctl_ni_blocks *b)
{
	if (b->has_stats) {
		ul_ctl_nest_start(m, UL_CTL_A_STATS);
		ul_ctl_put_u64(m, UL_CTL_A_SEND_COUNT, b->stats.send_count);
		ul_ctl_put_u64(m, UL_CTL_A_RECV_COUNT, b->stats.recv_count);
		ul_ctl_put_u64(m, UL_CTL_A_DROP_COUNT, b->stats.drop_count);
		put_lat(m, UL_CTL_A_PUT_EGRESS_SAMPLES, &b->stats.put_egress);
		put_lat(m, UL_CTL_A_GET_RTT_SAMPLES, &b->stats.get_rtt);
		put_lat(m, UL_CTL_A_PUT_ACK_SAMPLES, &b->stats.put_ack);
		ul_ctl_nest_end(m);
	}
	if (b->has_udsp) {
		ul_ctl_put_s32(m, UL_CTL_A_NET_PRIO, b->net_prio);
		ul_ctl_put_s32(m, UL_CTL_A_NID_PRIO, b->nid_prio);
	}
	if (b->has_msg_stats) {
		put_counts(m, UL_CTL_A_SENT_STATS, &b->sent);
		put_counts(m, UL_CTL_A_RECV_STATS, &b->received);
		put_counts(m, UL_CTL_A_DROP_STATS, &b->dropped);
	}
	if (b->has_health)
		put_health(m, &b->health);
}

static void put_ni(struct ul_ctl_msg *m, const struct ul_ctl_ni *ni)
{
	ul_ctl_nest_start(m, UL_CTL_A_NI);
	ul_ctl_put_nid(m, UL_CTL_A_NID, &ni->nid);
	ul_ctl_put_u32(m, UL_CTL_A_STATUS, ni->status);
	if (ni->ifname[0])
		ul_ctl_put_str(m, UL_CTL_A_IFNAME, ni->ifname);
	put_blocks(m, &ni->b);
	if (ni->has_tunables) {
		ul_ctl_nest_start(m, UL_CTL_A_TUNABLES);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_TIMEOUT, ni->peer_timeout);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_CREDITS, ni->peer_credits);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_BUFFER_CREDITS,
			       ni->peer_buffer_credits);
		ul_ctl_put_s32(m, UL_CTL_A_CREDITS, ni->credits);
		ul_ctl_nest_end(m);
	}
	if (ni->has_lnd_tunables) {
		ul_ctl_nest_start(m, UL_CTL_A_LND_TUNABLES);
		ul_ctl_put_s32(m, UL_CTL_A_CONNS_PER_PEER, ni->conns_per_peer);
		ul_ctl_put_s32(m, UL_CTL_A_LND_TIMEOUT, ni->lnd_timeout);
		ul_ctl_put_s32(m, UL_CTL_A_TOS, ni->tos);
		ul_ctl_nest_end(m);
	}
	if (ni->has_cpt) {
		ul_ctl_put_s32(m, UL_CTL_A_DEV_CPT, ni->dev_cpt);
		ul_ctl_put_str(m, UL_CTL_A_CPT, ni->cpt);
	}
	ul_ctl_nest_end(m);
}

static void put_peer_ni(struct ul_ctl_msg *m, const struct ul_ctl_peer_ni *p)
{
	size_t i;

	ul_ctl_nest_start(m, UL_CTL_A_PEER_NI);
	ul_ctl_put_nid(m, UL_CTL_A_NID, &p->nid);
	ul_ctl_put_u32(m, UL_CTL_A_PNI_STATE, p->state);
	if (p->has_credits) {
		ul_ctl_put_s32(m, UL_CTL_A_MAX_TX_CREDITS, p->max_tx_credits);
		ul_ctl_put_s32(m, UL_CTL_A_TX_CREDITS, p->tx_credits);
		ul_ctl_put_s32(m, UL_CTL_A_MIN_TX_CREDITS, p->min_tx_credits);
		ul_ctl_put_u32(m, UL_CTL_A_TX_Q_NOB, p->tx_q_nob);
		ul_ctl_put_s32(m, UL_CTL_A_RTR_CREDITS, p->rtr_credits);
		ul_ctl_put_s32(m, UL_CTL_A_MIN_RTR_CREDITS, p->min_rtr_credits);
		ul_ctl_put_s32(m, UL_CTL_A_REFCOUNT, p->refcount);
	}
	put_blocks(m, &p->b);
	for (i = 0; i < p->npref_rtrs; i++)
		ul_ctl_put_nid(m, UL_CTL_A_PREF_RTR_NID, &p->pref_rtrs[i]);
	ul_ctl_nest_end(m);
}

int ul_ctl_reply_encode(const struct ul_ctl_reply *r, struct ul_ctl_msg *m)
{
	size_t i, j;

	ul_ctl_msg_init(m, (uint16_t)(r->op | UL_CTL_OP_REPLY));
	ul_ctl_put_s32(m, UL_CTL_A_RC, r->rc);
	if (r->err_msg[0])
		ul_ctl_put_str(m, UL_CTL_A_ERR_MSG, r->err_msg);
	if (r->version)
		ul_ctl_put_u32(m, UL_CTL_A_VERSION, r->version);
	if (r->rc)
		return ul_ctl_msg_finish(m);
	switch (r->op) {
	case UL_CTL_OP_PING:
		ul_ctl_put_nid(m, UL_CTL_A_PING_PRIMARY, &r->ping.primary);
		ul_ctl_put_u32(m, UL_CTL_A_PING_PID, r->ping.pid);
		ul_ctl_put_u32(m, UL_CTL_A_PING_FEATURES, r->ping.features);
		ul_ctl_put_u32(m, UL_CTL_A_PING_MR, r->ping.is_mr);
		for (i = 0; i < r->ping.nnis; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PING_NI);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->ping.nis[i].nid);
			ul_ctl_put_u32(m, UL_CTL_A_STATUS,
				       r->ping.nis[i].status);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_NET_SHOW:
		for (i = 0; i < r->net_show.nnets; i++) {
			const struct ul_ctl_net *net = &r->net_show.nets[i];

			ul_ctl_nest_start(m, UL_CTL_A_NET);
			ul_ctl_put_u32(m, UL_CTL_A_NET_ID, net->net_id);
			for (j = 0; j < net->nnis; j++)
				put_ni(m, &net->nis[j]);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_PEER_SHOW:
		for (i = 0; i < r->peer_show.npeers; i++) {
			const struct ul_ctl_peer *p = &r->peer_show.peers[i];

			ul_ctl_nest_start(m, UL_CTL_A_PEER);
			ul_ctl_put_nid(m, UL_CTL_A_PEER_PRIMARY, &p->primary);
			ul_ctl_put_u32(m, UL_CTL_A_PEER_MR, p->is_mr);
			if (p->has_state)
				ul_ctl_put_u32(m, UL_CTL_A_PEER_STATE,
					       p->state);
			for (j = 0; j < p->npnis; j++)
				put_peer_ni(m, &p->pnis[j]);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_PERF_PUT:
		ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS, r->perf.puts);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES, r->perf.bytes);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_FAILED, r->perf.failed);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_ELAPSED_NS, r->perf.elapsed_ns);
		for (i = 0; i < r->perf.nrails; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PERF_RAIL);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->perf.rails[i].nid);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS,
				       r->perf.rails[i].puts);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES,
				       r->perf.rails[i].bytes);
			ul_ctl_nest_end(m);
		}
		break;
	default:
		break;
	}
	return ul_ctl_msg_finish(m);
}

void ul_ctl_reply_error(struct ul_ctl_reply *r, uint16_t op, int rc,
			const char *msg)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->rc = rc;
	if (msg)
		snprintf(r->err_msg, sizeof(r->err_msg), "%s", msg);
}

/* ---- Replies: decoding ----------------------------------------------- */

/*
 * Room for element n of an array whose capacity is the next power of two
 * at or above n: the array (moved if it grew), or NULL.
 */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	return realloc(arr, (n ? n * 2 : 1) * size);
}

/* Append a zeroed element to arr[n]: a pointer to it, or NULL. */
#define APPEND(arr, n)                                                         \
	({                                                                     \
		__typeof__(arr) g_ = grow((arr), (n), sizeof(*(arr)));         \
		if (g_) {                                                      \
			(arr) = g_;                                            \
			g_ += (n)++;                                           \
			memset(g_, 0, sizeof(*g_));                            \
		}                                                              \
		g_;                                                            \
	})

static int lat_attr(struct ul_ctl_stats *s, const struct ul_ctl_attr *a)
{
	struct ul_ctl_lat *l;
	unsigned int k;

	if (a->type < UL_CTL_A_PUT_EGRESS_SAMPLES ||
	    a->type > UL_CTL_A_PUT_ACK_AVG)
		return 0;
	k = a->type - UL_CTL_A_PUT_EGRESS_SAMPLES;
	l = k < 4 ? &s->put_egress : k < 8 ? &s->get_rtt : &s->put_ack;
	switch (k % 4) {
	case 0:
		l->samples = ul_ctl_attr_u64(a);
		break;
	case 1:
		l->min_nsec = ul_ctl_attr_u64(a);
		break;
	case 2:
		l->max_nsec = ul_ctl_attr_u64(a);
		break;
	default:
		l->avg_nsec = ul_ctl_attr_u64(a);
		break;
	}
	return 0;
}

static int dec_stats(const struct ul_ctl_attr *parent, struct ul_ctl_stats *s,
		     struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_SEND_COUNT)
			s->send_count = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_RECV_COUNT)
			s->recv_count = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_DROP_COUNT)
			s->drop_count = ul_ctl_attr_u64(&a);
		else
			lat_attr(s, &a);
	}
	return rc;
}

static int dec_counts(const struct ul_ctl_attr *parent,
		      struct ul_ctl_msg_counts *c, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_MSG_PUT:
			c->put = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_GET:
			c->get = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_REPLY:
			c->reply = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_ACK:
			c->ack = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_HELLO:
			c->hello = ul_ctl_attr_u64(&a);
			break;
		default:
			break;
		}
	}
	return rc;
}

static int dec_health(const struct ul_ctl_attr *parent, struct ul_ctl_health *h,
		      struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_FATAL_ERROR:
			h->fatal_error = ul_ctl_attr_u32(&a);
			break;
		case UL_CTL_A_HEALTH_VALUE:
			h->healthv = ul_ctl_attr_s32(&a);
			break;
		case UL_CTL_A_H_INTERRUPTS:
			h->interrupts = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_DROPPED:
			h->dropped = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_ABORTED:
			h->aborted = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_NO_ROUTE:
			h->no_route = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_TIMEOUTS:
			h->timeouts = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_ERROR:
			h->error = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_NETWORK_TIMEOUT:
			h->network_timeout = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_PING_COUNT:
			h->ping_count = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_NEXT_PING:
			h->next_ping = ul_ctl_attr_s64(&a);
			break;
		default:
			break;
		}
	}
	return rc;
}

/* An attribute of the blocks an NI and a peer NI share: 1 taken, 0 not. */
static int dec_block_attr(const struct ul_ctl_attr *a,
			  struct ul_ctl_ni_blocks *b, struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_STATS:
		b->has_stats = true;
		return dec_stats(a, &b->stats, err) ?: 1;
	case UL_CTL_A_NET_PRIO:
		b->has_udsp = true;
		b->net_prio = ul_ctl_attr_s32(a);
		return 1;
	case UL_CTL_A_NID_PRIO:
		b->has_udsp = true;
		b->nid_prio = ul_ctl_attr_s32(a);
		return 1;
	case UL_CTL_A_SENT_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->sent, err) ?: 1;
	case UL_CTL_A_RECV_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->received, err) ?: 1;
	case UL_CTL_A_DROP_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->dropped, err) ?: 1;
	case UL_CTL_A_HEALTH:
		b->has_health = true;
		return dec_health(a, &b->health, err) ?: 1;
	default:
		return 0;
	}
}

static int dec_tunables(const struct ul_ctl_attr *parent, struct ul_ctl_ni *ni,
			struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni->has_tunables = true;
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_PEER_TIMEOUT)
			ni->peer_timeout = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PEER_CREDITS)
			ni->peer_credits = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PEER_BUFFER_CREDITS)
			ni->peer_buffer_credits = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_CREDITS)
			ni->credits = ul_ctl_attr_s32(&a);
	}
	return rc;
}

static int dec_lnd_tunables(const struct ul_ctl_attr *parent,
			    struct ul_ctl_ni *ni, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni->has_lnd_tunables = true;
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_CONNS_PER_PEER)
			ni->conns_per_peer = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_LND_TIMEOUT)
			ni->lnd_timeout = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_TOS)
			ni->tos = ul_ctl_attr_s32(&a);
	}
	return rc;
}

static int dec_ni_attr(const struct ul_ctl_attr *a, struct ul_ctl_ni *ni,
		       struct ul_err *err)
{
	int rc = dec_block_attr(a, &ni->b, err);

	if (rc)
		return rc < 0 ? rc : 0;
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &ni->nid);
		return 0;
	case UL_CTL_A_STATUS:
		ni->status = ul_ctl_attr_u32(a);
		return 0;
	case UL_CTL_A_IFNAME:
		return ul_ctl_copy_str(a, ni->ifname, sizeof(ni->ifname), err);
	case UL_CTL_A_TUNABLES:
		return dec_tunables(a, ni, err);
	case UL_CTL_A_LND_TUNABLES:
		return dec_lnd_tunables(a, ni, err);
	case UL_CTL_A_DEV_CPT:
		ni->has_cpt = true;
		ni->dev_cpt = ul_ctl_attr_s32(a);
		return 0;
	case UL_CTL_A_CPT:
		ni->has_cpt = true;
		return ul_ctl_copy_str(a, ni->cpt, sizeof(ni->cpt), err);
	default:
		return 0;
	}
}

static int dec_net(const struct ul_ctl_attr *parent, struct ul_ctl_net *net,
		   struct ul_err *err)
{
	struct ul_ctl_iter it, nit;
	struct ul_ctl_attr a, na;
	struct ul_ctl_ni *ni;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NET_ID) {
			net->net_id = ul_ctl_attr_u32(&a);
			continue;
		}
		if (a.type != UL_CTL_A_NI)
			continue;
		ni = APPEND(net->nis, net->nnis);
		if (!ni)
			return ul_err_set(err, -ENOMEM, "out of memory");
		ul_ctl_iter_nested(&nit, &a);
		while ((rc = ul_ctl_iter_next(&nit, &na, err)) > 0) {
			rc = dec_ni_attr(&na, ni, err);
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int dec_peer_ni_attr(const struct ul_ctl_attr *a,
			    struct ul_ctl_peer_ni *p, struct ul_err *err)
{
	int rc = dec_block_attr(a, &p->b, err);

	if (rc)
		return rc < 0 ? rc : 0;
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &p->nid);
		break;
	case UL_CTL_A_PNI_STATE:
		p->state = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_MAX_TX_CREDITS:
		p->has_credits = true;
		p->max_tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_TX_CREDITS:
		p->tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_MIN_TX_CREDITS:
		p->min_tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_TX_Q_NOB:
		p->tx_q_nob = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_RTR_CREDITS:
		p->rtr_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_MIN_RTR_CREDITS:
		p->min_rtr_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_REFCOUNT:
		p->refcount = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_PREF_RTR_NID: {
		struct ulnet_nid *nid = APPEND(p->pref_rtrs, p->npref_rtrs);

		if (!nid)
			return ul_err_set(err, -ENOMEM, "out of memory");
		ul_ctl_attr_nid(a, nid);
		break;
	}
	default:
		break;
	}
	return 0;
}

static int dec_peer(const struct ul_ctl_attr *parent, struct ul_ctl_peer *peer,
		    struct ul_err *err)
{
	struct ul_ctl_iter it, nit;
	struct ul_ctl_attr a, na;
	struct ul_ctl_peer_ni *p;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_PEER_PRIMARY:
			ul_ctl_attr_nid(&a, &peer->primary);
			continue;
		case UL_CTL_A_PEER_MR:
			peer->is_mr = ul_ctl_attr_u32(&a) != 0;
			continue;
		case UL_CTL_A_PEER_STATE:
			peer->has_state = true;
			peer->state = ul_ctl_attr_u32(&a);
			continue;
		case UL_CTL_A_PEER_NI:
			break;
		default:
			continue;
		}
		p = APPEND(peer->pnis, peer->npnis);
		if (!p)
			return ul_err_set(err, -ENOMEM, "out of memory");
		ul_ctl_iter_nested(&nit, &a);
		while ((rc = ul_ctl_iter_next(&nit, &na, err)) > 0) {
			rc = dec_peer_ni_attr(&na, p, err);
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int dec_ping_ni(const struct ul_ctl_attr *parent, struct ul_ctl_reply *r,
		       struct ul_err *err)
{
	struct ul_ctl_ping_ni *ni;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni = APPEND(r->ping.nis, r->ping.nnis);
	if (!ni)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &ni->nid);
		else if (a.type == UL_CTL_A_STATUS)
			ni->status = ul_ctl_attr_u32(&a);
	}
	return rc;
}

static int dec_perf_rail(const struct ul_ctl_attr *parent,
			 struct ul_ctl_reply *r, struct ul_err *err)
{
	struct ul_ctl_perf_rail *rail;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	rail = APPEND(r->perf.rails, r->perf.nrails);
	if (!rail)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &rail->nid);
		else if (a.type == UL_CTL_A_PERF_PUTS)
			rail->puts = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_PERF_BYTES)
			rail->bytes = ul_ctl_attr_u64(&a);
	}
	return rc;
}

/* One top-level attribute of a reply's data. */
static int dec_reply_attr(const struct ul_ctl_attr *a, struct ul_ctl_reply *r,
			  struct ul_err *err)
{
	struct ul_ctl_peer *peer;
	struct ul_ctl_net *net;

	switch (a->type) {
	case UL_CTL_A_RC:
		r->rc = ul_ctl_attr_s32(a);
		return 0;
	case UL_CTL_A_ERR_MSG:
		return ul_ctl_copy_str(a, r->err_msg, sizeof(r->err_msg), err);
	case UL_CTL_A_VERSION:
		r->version = ul_ctl_attr_u32(a);
		return 0;
	default:
		break;
	}
	if (ul_ctl_op_is_generic(r->op)) {
		if (a->type != UL_CTL_A_Y_MAP)
			return 0;
		if (r->doc)
			return ul_err_set(err, -EPROTO,
					  "control reply: two documents");
		return ul_ctl_doc_decode(a, &r->doc, err);
	}
	switch (r->op) {
	case UL_CTL_OP_PING:
		if (a->type == UL_CTL_A_PING_PRIMARY)
			ul_ctl_attr_nid(a, &r->ping.primary);
		else if (a->type == UL_CTL_A_PING_PID)
			r->ping.pid = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_FEATURES)
			r->ping.features = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_MR)
			r->ping.is_mr = ul_ctl_attr_u32(a) != 0;
		else if (a->type == UL_CTL_A_PING_NI)
			return dec_ping_ni(a, r, err);
		return 0;
	case UL_CTL_OP_NET_SHOW:
		if (a->type != UL_CTL_A_NET)
			return 0;
		net = APPEND(r->net_show.nets, r->net_show.nnets);
		if (!net)
			return ul_err_set(err, -ENOMEM, "out of memory");
		return dec_net(a, net, err);
	case UL_CTL_OP_PEER_SHOW:
		if (a->type != UL_CTL_A_PEER)
			return 0;
		peer = APPEND(r->peer_show.peers, r->peer_show.npeers);
		if (!peer)
			return ul_err_set(err, -ENOMEM, "out of memory");
		return dec_peer(a, peer, err);
	case UL_CTL_OP_PERF_PUT:
		if (a->type == UL_CTL_A_PERF_PUTS)
			r->perf.puts = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_BYTES)
			r->perf.bytes = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_FAILED)
			r->perf.failed = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_ELAPSED_NS)
			r->perf.elapsed_ns = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_RAIL)
			return dec_perf_rail(a, r, err);
		return 0;
	default:
		return 0;
	}
}

int ul_ctl_reply_decode(const void *frame, size_t len, uint16_t op,
			struct ul_ctl_reply *out, struct ul_err *err)
{
	bool has_rc = false, is_refusal;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	struct ul_ctl_hdr h;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ul_ctl_frame_open(frame, len, &h, err);
	if (rc)
		return rc;
	is_refusal = h.op == UL_CTL_OP_REPLY;
	if (h.op != (op | UL_CTL_OP_REPLY) && !is_refusal)
		return ul_err_set(err, -EPROTO,
				  "control reply: op 0x%04x does not answer "
				  "op %u",
				  h.op, op);
	/* A refusal (op 0) carries an error only; read it as op's reply. */
	out->op = is_refusal ? 0 : op;
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h.len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_RC)
			has_rc = true;
		rc = dec_reply_attr(&a, out, err);
		if (rc)
			break;
	}
	if (!rc && !has_rc)
		rc = ul_err_set(err, -EPROTO, "control reply: no return code");
	if (!rc && (out->rc > 0 || (is_refusal && out->rc == 0)))
		rc = ul_err_set(err, -EPROTO,
				"control reply: return code %d in a%s reply",
				out->rc, is_refusal ? " refusal" : "n op's");
	out->op = op;
	if (rc) {
		ul_ctl_reply_fini(out);
		return rc;
	}
	return 0;
}

void ul_ctl_reply_fini(struct ul_ctl_reply *r)
{
	size_t i, j;

	ul_ytree_free(r->doc);
	switch (r->op) {
	case UL_CTL_OP_PING:
		free(r->ping.nis);
		break;
	case UL_CTL_OP_NET_SHOW:
		for (i = 0; i < r->net_show.nnets; i++)
			free(r->net_show.nets[i].nis);
		free(r->net_show.nets);
		break;
	case UL_CTL_OP_PEER_SHOW:
		for (i = 0; i < r->peer_show.npeers; i++) {
			struct ul_ctl_peer *p = &r->peer_show.peers[i];

			for (j = 0; p->pnis && j < p->npnis; j++)
				free(p->pnis[j].pref_rtrs);
			free(p->pnis);
		}
		free(r->peer_show.peers);
		break;
	case UL_CTL_OP_PERF_PUT:
		free(r->perf.rails);
		break;
	default:
		break;
	}
	memset(r, 0, sizeof(*r));
}
