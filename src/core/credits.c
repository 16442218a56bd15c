/*
 * Credits (LNet's lnet_post_send_locked and lnet_return_tx_credits_locked):
 * a message takes a peer NI credit, then an NI credit; a count that goes
 * negative means the message waits on that queue, and each credit
 * returned while the count is still <= 0 releases the first waiter.
 * Released messages go on ul_node.ready and are posted by
 * ul_msg_drain_ready(), so a long queue never recurses.
 */
#include <assert.h>

#include "core/core.h"
#include "core/msg.h"

bool ul_msg_take_credits(struct ul_node *n, struct ul_msg *m)
{
	if (m->lpni && !m->has_peer_credit) {
		m->has_peer_credit = true;
		m->lpni->txqnob += m->tx.nob;
		if (--m->lpni->txcredits < m->lpni->mintxcredits)
			m->lpni->mintxcredits = m->lpni->txcredits;
		if (m->lpni->txcredits < 0) {
			ul_msg_set_state(n, m, UL_MSG_STATE_QUEUED_PEER);
			ul_list_add_tail(&m->lpni->msgs->txq, &m->link);
			return false;
		}
	}
	if (m->lpni && !m->has_ni_credit) {
		m->has_ni_credit = true;
		if (--m->ni->tx_credits < 0) {
			ul_msg_set_state(n, m, UL_MSG_STATE_QUEUED_NI);
			ul_list_add_tail(&m->nni->txq, &m->link);
			return false;
		}
	}
	return true;
}

void ul_msg_drain_ready(struct ul_node *n)
{
	if (n->is_posting)
		return;
	n->is_posting = true;
	while (!ul_list_empty(&n->ready) || !ul_list_empty(&n->fwd_ready)) {
		struct ul_list batch;

		/* Forwarded messages that got their router credits. */
		ul_fwd_run(n);
		/* What posting releases waits for the next batch. */
		ul_list_take(&n->ready, &batch);
		while (!ul_list_empty(&batch)) {
			struct ul_msg *m = ul_list_first_entry(
				&batch, struct ul_msg, link);

			ul_list_del(&m->link);
			ul_msg_post(n, m);
		}
	}
	n->is_posting = false;
}

/* Release the first waiter of q; done is the message giving it back. */
static void release_first(struct ul_node *n, struct ul_list *q,
			  const struct ul_msg *done)
{
	struct ul_msg *m;

	if (ul_list_empty(q))
		return;
	m = ul_list_first_entry(q, struct ul_msg, link);
	/* finalize took done off every queue before its credits came back */
	assert(m != done);
	(void)done; /* only the assertion reads it */
	ul_list_del(&m->link);
	ul_msg_set_state(n, m, UL_MSG_STATE_READY);
	ul_node_add_work(n, &n->ready, &m->link);
}

/*
 * Give back m's credits. A credit m was only waiting for (it sat on that
 * queue) is returned without releasing anyone: m never held it.
 */
void ul_msg_return_credits(struct ul_node *n, struct ul_msg *m,
			   enum ul_msg_state was)
{
	if (m->has_peer_credit) {
		assert(m->lpni); /* a peer credit is only taken toward one */
		m->has_peer_credit = false;
		m->lpni->txqnob -= m->tx.nob;
		if (++m->lpni->txcredits <= 0 &&
		    was != UL_MSG_STATE_QUEUED_PEER)
			release_first(n, &m->lpni->msgs->txq, m);
	}
	if (m->has_ni_credit) {
		m->has_ni_credit = false;
		if (++m->ni->tx_credits <= 0 && was != UL_MSG_STATE_QUEUED_NI)
			release_first(n, &m->nni->txq, m);
	}
}
