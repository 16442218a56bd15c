/*
 * The receive side of the message layer and the LND upcalls
 * (ul_node_lnd_upcalls): validation of an incoming LNet header
 * (reference/wire.md §10.5), matching at the target (§7.4) and by wire
 * handle (§7.3), and the answers a target owes: the ACK of a PUT, the
 * REPLY of a GET.
 *
 * Of the §10.5 rows, the malformed ones (type, payload lengths, a
 * destination that is ours or on the receiving NI's net but not this NI)
 * return -EPROTO so the LND closes the connection; every other problem
 * drops the message: rx->msg NULL, mlen 0, rlen the payload to skip, and
 * one drop counted. A message for another node on another net is
 * forward.c's: forwarded, or dropped when routing is disabled.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "core/msg.h"
#include "core/ping.h"
#include "core/rtrchk.h"

static struct ul_node_ni *lni_nni(struct ul_lnd_ni *lni)
{
	return ul_container_of(lni, struct ul_node_ni, lni);
}

static bool nid_is_lo(const struct ulnet_nid *nid)
{
	return nid->nid_type == ULNET_LND_LO;
}

/* The live, unattached, unexhausted MD a wire handle names, or NULL. */
static struct ul_md *wmd_md(struct ul_node *n, const struct ul_wire_handle *h)
{
	struct ul_md *md;

	if (h->wh_interface_cookie != n->opts.interface_cookie)
		return NULL;
	md = ul_md_lookup(&n->mds, h->wh_object_cookie);
	if (!md || md->threshold == 0 || md->is_attached)
		return NULL;
	return md;
}

static void fill_rx_event(struct ul_msg *m, struct ul_md *md,
			  enum ulnet_event_type type,
			  const struct ulnet_nid *initiator)
{
	struct ulnet_event *ev = &m->mev.ev;
	const struct ul_wire_lnet_hdr *hdr = &m->rx_hdr;

	ev->type = type;
	ev->md_handle.cookie = md->cookie;
	ev->md_start = md->start;
	ev->md_user_ptr = md->user_ptr;
	ev->initiator.nid = *initiator;
	ev->initiator.pid = hdr->src_pid;
	ev->target.nid = hdr->dest_nid;
	ev->target.pid = hdr->dest_pid;
	ev->sender = m->from_nid;
	ev->source = m->ni->nid;
	ev->rlength = hdr->payload_length;
}

/* Point rx at mlen bytes of md from offset; -ENOMEM. */
static int set_rx_iov(struct ul_msg *m, struct ul_md *md, uint32_t offset,
		      uint32_t mlen)
{
	struct iovec *v;
	int rc = ul_md_slice(md, offset, mlen, &m->iov_one, &v, &m->rx.niov,
			     &m->iov_alloc);

	if (rc)
		return rc;
	m->rx.iov = v;
	m->rx.mlen = mlen;
	return 0;
}

/* Match a PUT or GET on its portal; false: drop. */
static bool match_request(struct ul_node *n, struct ul_msg *m,
			  const struct ulnet_nid *initiator)
{
	const struct ul_wire_lnet_hdr *hdr = &m->rx_hdr;
	bool is_put = hdr->type == UL_WIRE_MSG_PUT;
	struct ul_md_match_req req = {
		.opc = is_put ? ULNET_MD_OP_PUT : ULNET_MD_OP_GET,
		.initiator = { *initiator, hdr->src_pid },
	};
	uint32_t portal, offset = 0, mlen = 0;
	struct ul_md *md = NULL;
	struct ulnet_event *ev = &m->mev.ev;

	if (is_put) {
		portal = hdr->msg.put.ptl_index;
		req.match_bits = hdr->msg.put.match_bits;
		req.rlength = hdr->payload_length;
		req.roffset = hdr->msg.put.offset;
	} else {
		portal = hdr->msg.get.ptl_index;
		req.match_bits = hdr->msg.get.match_bits;
		/* The REPLY must stay a legal PUT-sized payload. */
		req.rlength = hdr->msg.get.sink_length > ULNET_MTU
				      ? ULNET_MTU
				      : hdr->msg.get.sink_length;
		req.roffset = hdr->msg.get.src_offset;
	}
	if (portal >= ULNET_PORTALS)
		return false;
	if (ul_md_match(&n->mds, portal, &req, &md, &offset, &mlen) !=
	    UL_MD_MATCH_OK)
		return false;
	m->md = md;
	/* A push target takes one PUT; the next one needs a fresh one. */
	if (is_put && portal == UL_WIRE_RESERVED_PORTAL)
		ul_ping_on_put_matched(n, md);
	fill_rx_event(m, md, is_put ? ULNET_EVENT_PUT : ULNET_EVENT_GET,
		      initiator);
	ev->pt_index = portal;
	ev->match_bits = req.match_bits;
	ev->mlength = mlen;
	ev->offset = offset;
	if (is_put) {
		ev->hdr_data = hdr->msg.put.hdr_data;
		m->want_ack = !(hdr->msg.put.ack_wmd.wh_interface_cookie ==
					UL_WIRE_HANDLE_COOKIE_NONE &&
				hdr->msg.put.ack_wmd.wh_object_cookie ==
					UL_WIRE_HANDLE_COOKIE_NONE) &&
			      !(md->options & ULNET_MD_ACK_DISABLE);
		/*
		 * The match has used the MD (threshold, offset, maybe its
		 * unlink): the PUT must end in its event. Without memory to
		 * describe the fragments, the payload is skipped and the
		 * event fails, as LNet finalizes a receive that failed.
		 */
		if (set_rx_iov(m, md, offset, mlen))
			m->rx_status = -ENOMEM;
	} else {
		ev->rlength = req.rlength;
	}
	return true;
}

/* An ACK or REPLY for one of our MDs (wire.md §7.3); false: drop. */
static bool match_response(struct ul_node *n, struct ul_msg *m)
{
	const struct ul_wire_lnet_hdr *hdr = &m->rx_hdr;
	bool is_ack = hdr->type == UL_WIRE_MSG_ACK;
	struct ul_md *md = wmd_md(n, is_ack ? &hdr->msg.ack.dst_wmd
					    : &hdr->msg.reply.dst_wmd);
	struct ulnet_event *ev = &m->mev.ev;
	uint32_t mlen = hdr->payload_length;

	if (!md)
		return false;
	if (!is_ack && mlen > md->length) {
		if (!(md->options & ULNET_MD_TRUNCATE))
			return false;
		mlen = md->length;
	}
	if (!is_ack && set_rx_iov(m, md, 0, mlen))
		return false;
	/* its request's send, if still held by the LND, was delivered */
	if (md->req_msg && md->req_msg->state == UL_MSG_STATE_LND)
		md->req_msg->is_answered = true;
	ul_md_attach_msg(md);
	m->md = md;
	if (!ul_list_empty(&md->rspt_link)) {
		m->rtt_start_ns = md->rspt_start_ns;
		m->is_rtt_timed = true;
	}
	ul_msg_rspt_detach(n, md);
	fill_rx_event(m, md, is_ack ? ULNET_EVENT_ACK : ULNET_EVENT_REPLY,
		      &hdr->src_nid);
	if (is_ack) {
		ev->match_bits = hdr->msg.ack.match_bits;
		ev->mlength = hdr->msg.ack.mlength;
		ev->rlength = hdr->msg.ack.mlength;
	} else {
		ev->mlength = mlen;
	}
	return true;
}

/* §10.5 "close" rows; NULL if fine, else why. */
static const char *hdr_close_reason(const struct ul_node *n,
				    const struct ul_ni *ni,
				    const struct ul_wire_lnet_hdr *hdr)
{
	switch (hdr->type) {
	case UL_WIRE_MSG_ACK:
	case UL_WIRE_MSG_GET:
		if (hdr->payload_length)
			return "payload on an ACK or GET";
		break;
	case UL_WIRE_MSG_PUT:
	case UL_WIRE_MSG_REPLY:
		if (hdr->payload_length > ULNET_MTU)
			return "payload above LNET_MTU";
		break;
	default:
		return "bad message type";
	}
	if (ulnet_nid_same(&hdr->dest_nid, &ni->nid))
		return NULL;
	if (ulnet_nid_net(&hdr->dest_nid) == ulnet_nid_net(&ni->nid))
		return "destination on this net but not this NI";
	if (ul_ni_find(n->core, &hdr->dest_nid))
		return "destination is another of our NIs";
	return NULL;
}

static int drop_rx(struct ul_node *n, struct ul_ni *ni, struct ul_peer_ni *lpni,
		   const struct ul_wire_lnet_hdr *hdr,
		   const struct ulnet_nid *from_nid, const char *why)
{
	char a[64];

	ul_msg_count_drop(n, ni, lpni, hdr->type, hdr->payload_length);
	ul_node_log(n, UL_D_NET, "drop %s from %s md %#llx: %s",
		    ul_wire_msg_type_name(hdr->type),
		    ulnet_nid_format(from_nid, a, sizeof(a)),
		    (unsigned long long)ul_wire_hdr_md_cookie(hdr), why);
	return 0;
}

static int up_parse(struct ul_lnd_ni *lni, const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx)
{
	struct ul_node_ni *nni = lni_nni(lni);
	struct ul_node *n = lni->node;
	struct ul_ni *ni = nni->ni;
	struct ul_peer_ni *lpni = NULL, *src_lpni;
	struct ulnet_nid initiator;
	const char *why;
	struct ul_msg *m;
	bool is_ok;
	char a[64];

	memset(rx, 0, sizeof(*rx));
	why = hdr_close_reason(n, ni, hdr);
	if (why) {
		ul_node_log_limit(n, UL_D_NETERROR,
				  "bad LNet header from %s on %s: %s",
				  ulnet_nid_format(from_nid, a, sizeof(a)),
				  ni->ifname[0] ? ni->ifname : "lo", why);
		return -EPROTO;
	}
	rx->rlen = hdr->payload_length;
	if (!ulnet_nid_same(&hdr->dest_nid, &ni->nid))
		return ul_fwd_parse(n, nni, hdr, from_nid, rx);
	if (n->state != UL_NODE_STATE_RUNNING || nni->is_stopping)
		return drop_rx(n, ni, NULL, hdr, from_nid, "shutting down");
	/* fault.md §4.1: before the sender's peer NI is looked up. */
	if (ul_fault_on_rx(n, ni, hdr, from_nid))
		return drop_rx(n, ni, NULL, hdr, from_nid, "fault rule");
	initiator = hdr->src_nid;
	if (!nid_is_lo(&ni->nid)) {
		if (ul_peer_ni_find_or_create(n->core, from_nid, ni, &lpni) ||
		    !ul_msg_lpni_msgs(n, lpni))
			return drop_rx(n, ni, NULL, hdr, from_nid,
				       "no peer for the sender");
		/* health.md §5.2: heard from (lpni_last_alive). */
		lpni->msgs->last_alive_ns = n->opts.timers->now_ns;
		/* routing.md §4.2, §7.5: statuses, before matching. */
		ul_rtrchk_on_rx(n, ni, lpni, hdr);
		src_lpni = ul_peer_ni_find(n->core, &hdr->src_nid);
		if (src_lpni)
			initiator = ul_peer_ni_peer(src_lpni)->primary_nid;
		/* routing.md §8: only over a gateway we would use back. */
		if (ul_fwd_is_asym(n, hdr, from_nid))
			return drop_rx(n, ni, lpni, hdr, from_nid,
				       "Dropping asymmetrical route");
	}
	m = ul_msg_alloc_rx(n, hdr, from_nid, nni, lpni);
	if (!m)
		return drop_rx(n, ni, lpni, hdr, from_nid, "out of memory");
	if (hdr->type == UL_WIRE_MSG_PUT || hdr->type == UL_WIRE_MSG_GET)
		is_ok = match_request(n, m, &initiator);
	else
		is_ok = match_response(n, m);
	if (!is_ok) {
		/* Nothing was attached: a match always ends in an event. */
		ul_msg_free(n, m);
		return drop_rx(n, ni, lpni, hdr, from_nid,
			       "no match or stale handle");
	}
	ul_msg_set_state(n, m, UL_MSG_STATE_RX);
	rx->iov = m->rx.iov;
	rx->niov = m->rx.niov;
	rx->mlen = m->rx.mlen;
	rx->msg = m;
	ul_node_log(n, UL_D_NET, "rx %s from %s len %u mlen %u md %#llx",
		    ul_wire_msg_type_name(hdr->type),
		    ulnet_nid_format(from_nid, a, sizeof(a)),
		    hdr->payload_length, rx->mlen,
		    (unsigned long long)ul_wire_hdr_md_cookie(hdr));
	return 0;
}

void ul_msg_send_ack(struct ul_node *n, struct ul_msg *put)
{
	struct ul_msg *a = ul_msg_alloc(n);
	const struct ulnet_nid *rtr = NULL;
	int rc = -ENOMEM;

	if (a) {
		a->type = UL_MSG_ACK;
		ul_wire_ack_init(&a->tx.hdr, &put->rx_hdr, n->opts.pid,
				 put->mev.ev.mlength);
		if (!ulnet_nid_same(&put->from_nid, &put->rx_hdr.src_nid))
			rtr = &put->from_nid;
		rc = ul_msg_route(n, a, &put->ni->nid, &put->rx_hdr.src_nid,
				  rtr, UL_NUMA_ANY, false);
	}
	if (rc) {
		ul_msg_count_drop(n, put->ni, NULL, UL_MSG_ACK, 0);
		ul_node_log(n, UL_D_NETERROR, "cannot send ACK: %d", rc);
		if (a)
			ul_msg_free(n, a);
		return;
	}
	ul_msg_post(n, a);
}

/*
 * The GET's payload-less receive is done: the same message becomes the
 * REPLY (as in LNet), and its GET event goes out when the REPLY is sent.
 */
static void start_reply(struct ul_node *n, struct ul_msg *m)
{
	struct ul_md *md = m->md;
	struct ul_ni *rx_ni = m->ni;
	struct ulnet_nid rx_nid = rx_ni->nid;
	const struct ulnet_nid *rtr = NULL;
	uint32_t mlen = m->mev.ev.mlength;
	struct iovec *v;
	int rc;

	/* Account the GET as received, then the message is a fresh tx. */
	rx_ni->stats.recv_count[UL_MSG_GET]++;
	if (m->lpni && m->lpni->msgs)
		m->lpni->msgs->stats.recv_count[UL_MSG_GET]++;
	n->core->counters.recv_count++;
	if (m->lpni)
		ul_peer_ni_put(m->lpni);
	m->lpni = NULL;
	m->ni = NULL;
	m->nni = NULL;
	m->is_committed = false;
	m->type = UL_MSG_REPLY;
	ul_wire_reply_init(&m->tx.hdr, &m->rx_hdr, n->opts.pid, mlen);
	rc = ul_md_slice(md, m->mev.ev.offset, mlen, &m->iov_one, &v,
			 &m->tx.niov, &m->iov_alloc);
	if (!rc) {
		m->tx.iov = v;
		m->tx.nob = mlen;
		if (!ulnet_nid_same(&m->from_nid, &m->rx_hdr.src_nid))
			rtr = &m->from_nid;
		rc = ul_msg_route(n, m, &rx_nid, &m->rx_hdr.src_nid, rtr,
				  md->numa_node, false);
	}
	ul_ni_put(rx_ni);
	m->is_tx = true;
	ul_msg_set_state(n, m, UL_MSG_STATE_NEW);
	if (rc) {
		ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
		return;
	}
	ul_msg_post(n, m);
	ul_msg_drain_ready(n);
}

void ul_msg_rx_deliver(struct ul_node *n, struct ul_msg *m)
{
	if (m->type == UL_MSG_GET)
		start_reply(n, m);
	else
		ul_msg_finalize(n, m, 0, UL_HSTATUS_OK);
}

static void up_rx_done(struct ul_lnd_ni *lni, struct ul_lnd_rx *rx, int status)
{
	struct ul_node *n = lni->node;
	struct ul_msg *m = rx->msg;

	if (!m) {
		if (!status)
			ul_node_dispatch(n);
		return;
	}
	rx->msg = NULL;
	if (m->state != UL_MSG_STATE_RX) {
		ul_node_log(n, UL_D_ERROR, "rx_done for a message not in rx");
		return;
	}
	if (!status && m->rx_status)
		/* Our own failure (no memory): no one's health. */
		ul_msg_finalize(n, m, m->rx_status, UL_HSTATUS_OK);
	else if (status)
		/* An NI being stopped is no fault of the peer's. */
		ul_msg_finalize(n, m, status,
				status == -ESHUTDOWN ? UL_HSTATUS_OK
						     : UL_HSTATUS_REMOTE_ERROR);
	else if (m->is_forward)
		ul_fwd_rx_done(n, m);
	else if (!ul_fault_rx_delay(n, m))
		ul_msg_rx_deliver(n, m);
	/*
	 * A failed receive comes from an LND closing a connection, maybe in
	 * the middle of walking its lists: its events wait for the node's
	 * next flush, so no user callback (which may delete the NI) runs
	 * inside that walk.
	 */
	if (!status)
		ul_node_dispatch(n);
}

static void up_tx_done(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx, int status,
		       enum ul_hstatus hstatus)
{
	struct ul_node *n = lni->node;
	struct ul_msg *m = ul_container_of(tx, struct ul_msg, tx);

	if (m->state != UL_MSG_STATE_LND) {
		ul_node_log(n, UL_D_ERROR, "tx_done for a message not sent");
		return;
	}
	ul_msg_finalize(n, m, status, hstatus);
	ul_node_dispatch(n);
}

/*
 * The LND holds tx until the peer has it: its credits come back now, so
 * waiting for TCP's acknowledgement costs no throughput. Released
 * messages wait on ul_node.ready for the next drain (the LND is in its
 * flush and must not be called back into).
 */
static void up_tx_sent(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx)
{
	struct ul_msg *m = ul_container_of(tx, struct ul_msg, tx);

	if (m->state == UL_MSG_STATE_LND)
		ul_msg_return_credits(lni->node, m, UL_MSG_STATE_LND);
}

/*
 * The LND lost the peer NI nid, or met a new incarnation of it: the
 * answers it owes end sooner (rspt.c), within the NI's LND timeout.
 */
static void up_peer_down(struct ul_lnd_ni *lni, const struct ulnet_nid *nid,
			 bool is_restarted)
{
	struct ul_node *n = lni->node;
	int lndt = ul_node_lnd_timeout(n, lni->ni->nid.nid_type);

	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	/* health.md §3: an LND without a timeout of its own uses LNet's */
	if (lndt <= 0)
		lndt = (int)ul_tunables_lnd_timeout(&n->core->tun);
	ul_rspt_on_peer_down(n, nid, is_restarted, (uint32_t)lndt,
			     n->opts.timers->now_ns);
	/* A restart is a peer up again: only a loss downs a gateway. */
	if (!is_restarted)
		ul_rtrchk_on_peer_down(n, nid);
	ul_node_dispatch(n);
}

const struct ul_lnd_upcalls ul_node_lnd_upcalls = {
	.parse = up_parse,
	.rx_done = up_rx_done,
	.tx_done = up_tx_done,
	.tx_sent = up_tx_sent,
	.peer_down = up_peer_down,
};
