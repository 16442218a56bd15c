/*
 * The typed replies of the control protocol (proto.h: the PING, NET_SHOW,
 * PEER_SHOW and PERF_PUT data, every op's RC and ERR_MSG, and the Y_MAP
 * document of the generic ops): one encoder and one decoder, used by the
 * control server and ulnetctl.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
#include "ctl/ytree.h"
#include "util/err.h"

/* ---- Members: one table per block, for encoder and decoder ---------- */

/*
 * A scalar member of a reply struct and the attribute that carries it.
 * The member has the attribute's type (proto.h: u32, s32, u64 or s64),
 * so one table tells the encoder what to write and the decoder where to
 * put what it reads.
 */
struct member {
	uint16_t type; /* UL_CTL_A_* */
	uint16_t off;  /* offsetof in the struct */
};

#define MEMBER(id, st, field)                                                  \
	{                                                                      \
		UL_CTL_A_##id, offsetof(struct st, field)                      \
	}
#define NMEMBERS(t) (sizeof(t) / sizeof((t)[0]))

static const struct member stats_members[] = {
	MEMBER(SEND_COUNT, ul_ctl_stats, send_count),
	MEMBER(RECV_COUNT, ul_ctl_stats, recv_count),
	MEMBER(DROP_COUNT, ul_ctl_stats, drop_count),
	MEMBER(PUT_EGRESS_SAMPLES, ul_ctl_stats, put_egress.samples),
	MEMBER(PUT_EGRESS_MIN, ul_ctl_stats, put_egress.min_nsec),
	MEMBER(PUT_EGRESS_MAX, ul_ctl_stats, put_egress.max_nsec),
	MEMBER(PUT_EGRESS_AVG, ul_ctl_stats, put_egress.avg_nsec),
	MEMBER(GET_RTT_SAMPLES, ul_ctl_stats, get_rtt.samples),
	MEMBER(GET_RTT_MIN, ul_ctl_stats, get_rtt.min_nsec),
	MEMBER(GET_RTT_MAX, ul_ctl_stats, get_rtt.max_nsec),
	MEMBER(GET_RTT_AVG, ul_ctl_stats, get_rtt.avg_nsec),
	MEMBER(PUT_ACK_SAMPLES, ul_ctl_stats, put_ack.samples),
	MEMBER(PUT_ACK_MIN, ul_ctl_stats, put_ack.min_nsec),
	MEMBER(PUT_ACK_MAX, ul_ctl_stats, put_ack.max_nsec),
	MEMBER(PUT_ACK_AVG, ul_ctl_stats, put_ack.avg_nsec),
};

static const struct member counts_members[] = {
	MEMBER(MSG_PUT, ul_ctl_msg_counts, put),
	MEMBER(MSG_GET, ul_ctl_msg_counts, get),
	MEMBER(MSG_REPLY, ul_ctl_msg_counts, reply),
	MEMBER(MSG_ACK, ul_ctl_msg_counts, ack),
	MEMBER(MSG_HELLO, ul_ctl_msg_counts, hello),
};

static const struct member health_members[] = {
	MEMBER(FATAL_ERROR, ul_ctl_health, fatal_error),
	MEMBER(HEALTH_VALUE, ul_ctl_health, healthv),
	MEMBER(H_INTERRUPTS, ul_ctl_health, interrupts),
	MEMBER(H_DROPPED, ul_ctl_health, dropped),
	MEMBER(H_ABORTED, ul_ctl_health, aborted),
	MEMBER(H_NO_ROUTE, ul_ctl_health, no_route),
	MEMBER(H_TIMEOUTS, ul_ctl_health, timeouts),
	MEMBER(H_ERROR, ul_ctl_health, error),
	MEMBER(H_NETWORK_TIMEOUT, ul_ctl_health, network_timeout),
	MEMBER(PING_COUNT, ul_ctl_health, ping_count),
	MEMBER(NEXT_PING, ul_ctl_health, next_ping),
};

static const struct member tunables_members[] = {
	MEMBER(PEER_TIMEOUT, ul_ctl_ni, peer_timeout),
	MEMBER(PEER_CREDITS, ul_ctl_ni, peer_credits),
	MEMBER(PEER_BUFFER_CREDITS, ul_ctl_ni, peer_buffer_credits),
	MEMBER(CREDITS, ul_ctl_ni, credits),
};

static const struct member lnd_members[] = {
	MEMBER(CONNS_PER_PEER, ul_ctl_ni, conns_per_peer),
	MEMBER(LND_TIMEOUT, ul_ctl_ni, lnd_timeout),
	MEMBER(TOS, ul_ctl_ni, tos),
};

/* A peer NI's credits, flat in PEER_NI (not nested). */
static const struct member credits_members[] = {
	MEMBER(MAX_TX_CREDITS, ul_ctl_peer_ni, max_tx_credits),
	MEMBER(TX_CREDITS, ul_ctl_peer_ni, tx_credits),
	MEMBER(MIN_TX_CREDITS, ul_ctl_peer_ni, min_tx_credits),
	MEMBER(TX_Q_NOB, ul_ctl_peer_ni, tx_q_nob),
	MEMBER(RTR_CREDITS, ul_ctl_peer_ni, rtr_credits),
	MEMBER(MIN_RTR_CREDITS, ul_ctl_peer_ni, min_rtr_credits),
	MEMBER(REFCOUNT, ul_ctl_peer_ni, refcount),
};

/* Write every member of base the table names, in the table's order. */
static void put_members(struct ul_ctl_msg *m, const void *base,
			const struct member *ms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)base + ms[i].off;
		union {
			uint32_t u32;
			int32_t s32;
			uint64_t u64;
			int64_t s64;
		} v;

		switch (ul_ctl_attr_type(ms[i].type)) {
		case UL_CTL_T_U32:
			memcpy(&v.u32, p, sizeof(v.u32));
			ul_ctl_put_u32(m, ms[i].type, v.u32);
			break;
		case UL_CTL_T_S32:
			memcpy(&v.s32, p, sizeof(v.s32));
			ul_ctl_put_s32(m, ms[i].type, v.s32);
			break;
		case UL_CTL_T_U64:
			memcpy(&v.u64, p, sizeof(v.u64));
			ul_ctl_put_u64(m, ms[i].type, v.u64);
			break;
		default: /* UL_CTL_T_S64: the tables hold nothing else */
			memcpy(&v.s64, p, sizeof(v.s64));
			ul_ctl_put_s64(m, ms[i].type, v.s64);
			break;
		}
	}
}

/* The same, nested in an attribute of its own. */
static void put_nest(struct ul_ctl_msg *m, uint16_t type, const void *base,
		     const struct member *ms, size_t n)
{
	ul_ctl_nest_start(m, type);
	put_members(m, base, ms, n);
	ul_ctl_nest_end(m);
}

/* ---- Replies: encoding ----------------------------------------------- */

static void put_blocks(struct ul_ctl_msg *m, const struct ul_ctl_ni_blocks *b)
{
	if (b->has_stats)
		put_nest(m, UL_CTL_A_STATS, &b->stats, stats_members,
			 NMEMBERS(stats_members));
	if (b->has_udsp) {
		ul_ctl_put_s32(m, UL_CTL_A_NET_PRIO, b->net_prio);
		ul_ctl_put_s32(m, UL_CTL_A_NID_PRIO, b->nid_prio);
	}
	if (b->has_msg_stats) {
		put_nest(m, UL_CTL_A_SENT_STATS, &b->sent, counts_members,
			 NMEMBERS(counts_members));
		put_nest(m, UL_CTL_A_RECV_STATS, &b->received, counts_members,
			 NMEMBERS(counts_members));
		put_nest(m, UL_CTL_A_DROP_STATS, &b->dropped, counts_members,
			 NMEMBERS(counts_members));
	}
	if (b->has_health)
		put_nest(m, UL_CTL_A_HEALTH, &b->health, health_members,
			 NMEMBERS(health_members));
}

static void put_ni(struct ul_ctl_msg *m, const struct ul_ctl_ni *ni)
{
	ul_ctl_nest_start(m, UL_CTL_A_NI);
	ul_ctl_put_nid(m, UL_CTL_A_NID, &ni->nid);
	ul_ctl_put_u32(m, UL_CTL_A_STATUS, ni->status);
	if (ni->ifname[0])
		ul_ctl_put_str(m, UL_CTL_A_IFNAME, ni->ifname);
	put_blocks(m, &ni->b);
	if (ni->has_tunables)
		put_nest(m, UL_CTL_A_TUNABLES, ni, tunables_members,
			 NMEMBERS(tunables_members));
	if (ni->has_lnd_tunables)
		put_nest(m, UL_CTL_A_LND_TUNABLES, ni, lnd_members,
			 NMEMBERS(lnd_members));
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
	if (p->has_credits)
		put_members(m, p, credits_members, NMEMBERS(credits_members));
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
		ul_ctl_put_u64(m, UL_CTL_A_PERF_STARTED, r->perf.started);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_SEND_NS, r->perf.send_ns);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_SEND_BYTES, r->perf.send_bytes);
		for (i = 0; i < r->perf.nfails && i < UL_CTL_PERF_FAILS_MAX;
		     i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PERF_FAIL);
			ul_ctl_put_s32(m, UL_CTL_A_PERF_STATUS,
				       r->perf.fails[i].status);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_COUNT,
				       r->perf.fails[i].count);
			ul_ctl_nest_end(m);
		}
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

/* Store a into the member of base the table names: true, else false. */
static bool get_member(void *base, const struct member *ms, size_t n,
		       const struct ul_ctl_attr *a)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)base + ms[i].off;
		union {
			uint32_t u32;
			int32_t s32;
			uint64_t u64;
			int64_t s64;
		} v;

		if (ms[i].type != a->type)
			continue;
		switch (ul_ctl_attr_type(a->type)) {
		case UL_CTL_T_U32:
			v.u32 = ul_ctl_attr_u32(a);
			memcpy(p, &v.u32, sizeof(v.u32));
			break;
		case UL_CTL_T_S32:
			v.s32 = ul_ctl_attr_s32(a);
			memcpy(p, &v.s32, sizeof(v.s32));
			break;
		case UL_CTL_T_U64:
			v.u64 = ul_ctl_attr_u64(a);
			memcpy(p, &v.u64, sizeof(v.u64));
			break;
		default: /* UL_CTL_T_S64 */
			v.s64 = ul_ctl_attr_s64(a);
			memcpy(p, &v.s64, sizeof(v.s64));
			break;
		}
		return true;
	}
	return false;
}

/* The attributes nested in parent into base's members (others skipped). */
static int get_nest(const struct ul_ctl_attr *parent, void *base,
		    const struct member *ms, size_t n, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0)
		get_member(base, ms, n, &a);
	return rc;
}

/* An attribute of the blocks an NI and a peer NI share: 1 taken, 0 not. */
static int dec_block_attr(const struct ul_ctl_attr *a,
			  struct ul_ctl_ni_blocks *b, struct ul_err *err)
{
	const struct member *cm = counts_members;
	size_t ncm = NMEMBERS(counts_members);

	switch (a->type) {
	case UL_CTL_A_STATS:
		b->has_stats = true;
		return get_nest(a, &b->stats, stats_members,
				NMEMBERS(stats_members), err)
			       ?: 1;
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
		return get_nest(a, &b->sent, cm, ncm, err) ?: 1;
	case UL_CTL_A_RECV_STATS:
		b->has_msg_stats = true;
		return get_nest(a, &b->received, cm, ncm, err) ?: 1;
	case UL_CTL_A_DROP_STATS:
		b->has_msg_stats = true;
		return get_nest(a, &b->dropped, cm, ncm, err) ?: 1;
	case UL_CTL_A_HEALTH:
		b->has_health = true;
		return get_nest(a, &b->health, health_members,
				NMEMBERS(health_members), err)
			       ?: 1;
	default:
		return 0;
	}
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
		ni->has_tunables = true;
		return get_nest(a, ni, tunables_members,
				NMEMBERS(tunables_members), err);
	case UL_CTL_A_LND_TUNABLES:
		ni->has_lnd_tunables = true;
		return get_nest(a, ni, lnd_members, NMEMBERS(lnd_members), err);
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
	if (get_member(p, credits_members, NMEMBERS(credits_members), a)) {
		p->has_credits = true;
		return 0;
	}
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &p->nid);
		break;
	case UL_CTL_A_PNI_STATE:
		p->state = ul_ctl_attr_u32(a);
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

/* One PERF_FAIL block; those beyond UL_CTL_PERF_FAILS_MAX are skipped. */
static int dec_perf_fail(const struct ul_ctl_attr *parent,
			 struct ul_ctl_reply *r, struct ul_err *err)
{
	struct ul_ctl_perf_fail f = { 0 };
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_PERF_STATUS)
			f.status = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PERF_COUNT)
			f.count = ul_ctl_attr_u64(&a);
	}
	if (rc == 0 && r->perf.nfails < UL_CTL_PERF_FAILS_MAX)
		r->perf.fails[r->perf.nfails++] = f;
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
		else if (a->type == UL_CTL_A_PERF_STARTED)
			r->perf.started = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_SEND_NS)
			r->perf.send_ns = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_SEND_BYTES)
			r->perf.send_bytes = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_FAIL)
			return dec_perf_fail(a, r, err);
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
