/*
 * lolnd (lolnd.h). State per NI: the queue of txs sent and not yet
 * delivered, and the timer that delivers them.
 *
 * Timer: deliver, armed at "now" by the first send into an empty queue;
 * a send made while delivering (an event handler that sends again) arms
 * it one nanosecond later, so that it runs in the next loop turn and not
 * in the same timer run: a ping-pong over 0@lo must not hold the loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ni.h"
#include "core/node.h"
#include "lnd/lolnd.h"
#include "util/err.h"
#include "util/timer.h"

struct lolnd_ni {
	struct ul_lnd_ni *lni;
	struct ul_list txq; /* struct ul_lnd_tx.lnd_link, FIFO */
	struct ul_timer deliver;
	bool is_delivering; /* inside lolnd_deliver */
};

void ul_lnd_iov_copy(const struct iovec *dst, uint32_t ndst,
		     const struct iovec *src, uint32_t nsrc, uint32_t nob)
{
	uint32_t di = 0, si = 0;
	size_t doff = 0, soff = 0;

	while (nob && di < ndst && si < nsrc) {
		size_t dleft = dst[di].iov_len - doff;
		size_t sleft = src[si].iov_len - soff;
		size_t n = dleft < sleft ? dleft : sleft;

		if (n > nob)
			n = nob;
		if (n)
			memcpy((char *)dst[di].iov_base + doff,
			       (const char *)src[si].iov_base + soff, n);
		doff += n;
		soff += n;
		nob -= (uint32_t)n;
		if (doff == dst[di].iov_len) {
			di++;
			doff = 0;
		}
		if (soff == src[si].iov_len) {
			si++;
			soff = 0;
		}
	}
}

/* One tx: the node parses it as received on the same NI, from 0@lo. */
static void deliver_one(struct lolnd_ni *lo, struct ul_lnd_tx *tx)
{
	struct ul_lnd_ni *lni = lo->lni;
	struct ul_lnd_rx rx;
	int rc;

	rc = lni->up->parse(lni, &tx->hdr, &lni->ni->nid, &rx);
	if (rc) {
		lni->up->tx_done(lni, tx, rc, UL_HSTATUS_LOCAL_ERROR);
		return;
	}
	ul_lnd_iov_copy(rx.iov, rx.niov, tx->iov, tx->niov,
			rx.mlen < tx->nob ? rx.mlen : tx->nob);
	lni->up->tx_done(lni, tx, 0, UL_HSTATUS_OK);
	lni->up->rx_done(lni, &rx, 0);
}

static void lolnd_deliver(struct ul_timer *t, uint64_t now_ns)
{
	struct lolnd_ni *lo = ul_container_of(t, struct lolnd_ni, deliver);
	struct ul_list batch;

	(void)now_ns;
	/* Sends made while delivering wait for the next run. */
	ul_list_take(&lo->txq, &batch);
	lo->is_delivering = true;
	while (!ul_list_empty(&batch)) {
		struct ul_lnd_tx *tx =
			ul_list_first_entry(&batch, struct ul_lnd_tx, lnd_link);

		ul_list_del(&tx->lnd_link);
		deliver_one(lo, tx);
	}
	lo->is_delivering = false;
}

static int lolnd_startup(struct ul_lnd_ni *lni, struct ul_err *err)
{
	struct lolnd_ni *lo = calloc(1, sizeof(*lo));

	if (!lo)
		return ul_err_set(err, -ENOMEM, "lolnd: out of memory");
	lo->lni = lni;
	ul_list_init(&lo->txq);
	ul_timer_init(&lo->deliver, lolnd_deliver);
	lni->data = lo;
	return 0;
}

static void lolnd_shutdown(struct ul_lnd_ni *lni)
{
	struct lolnd_ni *lo = lni->data;

	ul_timer_cancel(lni->timers, &lo->deliver);
	while (!ul_list_empty(&lo->txq)) {
		struct ul_lnd_tx *tx = ul_list_first_entry(
			&lo->txq, struct ul_lnd_tx, lnd_link);

		ul_list_del(&tx->lnd_link);
		lni->up->tx_done(lni, tx, -ESHUTDOWN, UL_HSTATUS_LOCAL_DROPPED);
	}
	free(lo);
	lni->data = NULL;
}

static int lolnd_send(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx)
{
	struct lolnd_ni *lo = lni->data;
	int rc;

	if (!ul_timer_is_armed(&lo->deliver)) {
		rc = ul_timer_arm(lni->timers, &lo->deliver,
				  lni->timers->now_ns + lo->is_delivering);
		if (rc)
			return rc;
	}
	ul_list_add_tail(&lo->txq, &tx->lnd_link);
	return 0;
}

const struct ul_lnd_ops ul_lolnd_ops = {
	.name = "lolnd",
	.startup = lolnd_startup,
	.shutdown = lolnd_shutdown,
	.send = lolnd_send,
};

int ul_lolnd_register(struct ul_node *n)
{
	struct ul_lnd lo = { &ul_lolnd_ops, NULL, ULNET_LND_LO };

	return ul_node_register_lnd(n, &lo);
}
