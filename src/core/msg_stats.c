/*
 * Message statistics (lnetctl.md §18): per NI, per peer NI and global
 * counts and bytes of what was sent, received and dropped, and the
 * latency samples of PUT egress, GET round trip and PUT-to-ACK.
 */
#include "core/core.h"
#include "core/msg.h"

static void stats_add(struct ulnet_msg_stats *s, bool is_tx, bool is_ok,
		      uint32_t type, uint32_t bytes)
{
	if (!is_ok) {
		s->drop_count[type]++;
		s->drop_bytes[type] += bytes;
	} else if (is_tx) {
		s->send_count[type]++;
		s->send_bytes[type] += bytes;
	} else {
		s->recv_count[type]++;
		s->recv_bytes[type] += bytes;
	}
}

void ul_msg_count_drop(struct ul_node *n, struct ul_ni *ni,
		       struct ul_peer_ni *lpni, uint32_t type, uint32_t bytes)
{
	struct ul_counters *g = &n->core->counters;

	if (type > UL_MSG_REPLY)
		return;
	if (ni)
		stats_add(&ni->stats, false, false, type, bytes);
	if (lpni && lpni->msgs)
		stats_add(&lpni->msgs->stats, false, false, type, bytes);
	g->drop_count++;
	g->drop_length += bytes;
}

/*
 * lnet_msg_decommit_tx/rx: only a message that succeeded is counted. A
 * failed one is not a drop either (its health counters say what went
 * wrong); drops are counted where LNet drops on purpose, through
 * ul_msg_count_drop() (health.md §3, fault.md §4.1).
 */
static void count_msg(struct ul_node *n, struct ul_msg *m, int status)
{
	struct ul_counters *g = &n->core->counters;
	uint32_t bytes = m->is_tx ? m->tx.nob : m->rx_hdr.payload_length;

	if (status)
		return;
	if (m->ni)
		stats_add(&m->ni->stats, m->is_tx, true, m->type, bytes);
	if (m->lpni && m->lpni->msgs)
		stats_add(&m->lpni->msgs->stats, m->is_tx, true, m->type,
			  bytes);
	/* A forwarded message counts globally as routed (forward.c). */
	if (m->is_forward)
		return;
	if (m->is_tx) {
		g->send_count++;
		g->send_length += bytes;
	} else {
		g->recv_count++;
		g->recv_length += bytes;
	}
}

/*
 * lnetctl.md §18 "Statistics": a PUT's egress is timed from its commit to
 * its send completion; a GET's and an acked PUT's round trip from the
 * moment the request's response tracker was attached to the end of the
 * REPLY or ACK, on the NI and peer NI that received it. Only successes
 * count, and only responses to tracked requests (response_tracking).
 */
static void msg_latency(struct ul_node *n, struct ul_msg *m, int status)
{
	enum ul_lat_op op;
	uint64_t start, now;

	if (status || !m->ni)
		return;
	if (m->is_tx && m->type == UL_MSG_PUT) {
		op = UL_LAT_PUT_EGRESS;
		start = m->t_start_ns;
	} else if (!m->is_tx && m->is_rtt_timed &&
		   (m->type == UL_MSG_REPLY || m->type == UL_MSG_ACK)) {
		op = m->type == UL_MSG_REPLY ? UL_LAT_GET_RTT : UL_LAT_PUT_ACK;
		start = m->rtt_start_ns;
	} else {
		return;
	}
	now = ul_msg_clock_ns(n);
	if (now <= start)
		return;
	ul_lat_record(&m->ni->lat[op], now - start);
	if (m->lpni && m->lpni->msgs)
		ul_lat_record(&m->lpni->msgs->lat[op], now - start);
}

void ul_msg_stats(struct ul_node *n, struct ul_msg *m, int status)
{
	count_msg(n, m, status);
	msg_latency(n, m, status);
}
