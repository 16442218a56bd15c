/*
 * simlnd (src/lnd/simlnd.c) against a mock node: a hand-filled upcall
 * table that records every tx_done, parse and rx_done with the virtual
 * time it happened at. Checks the timing model (latency plus size over
 * bandwidth, back-to-back sends serialised per link direction), loss
 * drawn from the seed, link and cable switches with their statuses, and
 * shutdown completing every tx exactly once. Time is the heap's now_ns
 * only; every test ends with the fabric empty and destroyed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/ni.h"
#include "lnd/simlnd.h"
#include "util/err.h"
#include "util/timer.h"

#define MOCK_NIS 4
#define MOCK_RECS 1024
#define MOCK_TXS 256
#define MOCK_BUF 4096

enum rec_kind {
	REC_TX_DONE,
	REC_PARSE,
	REC_RX_DONE,
};

struct rec {
	enum rec_kind kind;
	uint64_t at_ns;
	int ni;	    /* index of the NI the upcall came on */
	int tx;	    /* REC_TX_DONE: index of the tx */
	int status; /* tx_done, rx_done */
	enum ul_hstatus hstatus;
	struct ulnet_nid from; /* REC_PARSE */
	uint64_t match_bits;   /* REC_PARSE: tells the messages apart */
};

struct world;

struct mock_ni {
	struct ul_ni ni;
	struct ul_lnd_ni lni;
	struct world *w;
	int idx;
	bool is_started;
	unsigned char buf[MOCK_BUF]; /* where received payloads land */
	struct iovec rx_iov[2];	     /* buf split in two fragments */
};

struct world {
	struct ul_timer_heap heap;
	struct ul_simfab *fab;
	struct ul_lnd lnd;
	struct mock_ni nis[MOCK_NIS];
	struct ul_lnd_tx txs[MOCK_TXS];
	unsigned char payload[MOCK_BUF];
	struct iovec tx_iov[3];
	struct rec recs[MOCK_RECS];
	size_t nrecs;
	int parse_rc; /* what the mock parse returns */
};

static struct mock_ni *mock_of(struct ul_lnd_ni *lni)
{
	return (struct mock_ni *)(void *)((char *)lni -
					  offsetof(struct mock_ni, lni));
}

static struct rec *rec_add(struct mock_ni *m, enum rec_kind kind)
{
	struct world *w = m->w;
	struct rec *r;

	assert_true(w->nrecs < MOCK_RECS);
	r = &w->recs[w->nrecs++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->at_ns = w->heap.now_ns;
	r->ni = m->idx;
	return r;
}

static int mock_parse(struct ul_lnd_ni *lni, const struct ul_wire_lnet_hdr *hdr,
		      const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx)
{
	struct mock_ni *m = mock_of(lni);
	struct rec *r = rec_add(m, REC_PARSE);

	r->from = *from_nid;
	r->match_bits = hdr->msg.put.match_bits;
	memset(m->buf, 0, sizeof(m->buf));
	rx->iov = m->rx_iov;
	rx->niov = 2;
	rx->mlen = hdr->payload_length;
	rx->rlen = hdr->payload_length;
	rx->msg = m;
	return m->w->parse_rc;
}

static void mock_rx_done(struct ul_lnd_ni *lni, struct ul_lnd_rx *rx,
			 int status)
{
	struct rec *r = rec_add(mock_of(lni), REC_RX_DONE);

	(void)rx;
	r->status = status;
}

static void mock_tx_done(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx,
			 int status, enum ul_hstatus hstatus)
{
	struct mock_ni *m = mock_of(lni);
	struct rec *r = rec_add(m, REC_TX_DONE);

	r->tx = (int)(tx - m->w->txs);
	r->status = status;
	r->hstatus = hstatus;
	/* The node may reuse its buffer now: the fabric must not read it. */
	memset(m->w->payload, 0xee, sizeof(m->w->payload));
}

static const struct ul_lnd_upcalls mock_up = {
	.parse = mock_parse,
	.rx_done = mock_rx_done,
	.tx_done = mock_tx_done,
};

static struct ulnet_nid nid_of(const char *s)
{
	struct ulnet_nid nid;

	assert_int_equal(ulnet_nid_parse(s, &nid, NULL, 0), 0);
	return nid;
}

static const char *const nid_names[MOCK_NIS] = {
	"10.0.0.1@tcp",
	"10.0.0.2@tcp",
	"10.0.0.3@tcp",
	"10.0.0.4@tcp",
};

static struct world *world_new(uint64_t seed)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	ul_timer_heap_init(&w->heap);
	assert_int_equal(ul_simfab_create(&w->heap, seed, &w->fab), 0);
	w->lnd.ops = &ul_simlnd_ops;
	w->lnd.ctx = w->fab;
	w->lnd.lnd_type = ULNET_LND_SOCK;
	for (int i = 0; i < MOCK_NIS; i++) {
		struct mock_ni *m = &w->nis[i];

		m->ni.nid = nid_of(nid_names[i]);
		m->lni.ni = &m->ni;
		m->lni.up = &mock_up;
		m->lni.lnd = &w->lnd;
		m->lni.timers = &w->heap;
		m->lni.pid = 12345;
		m->w = w;
		m->idx = i;
		m->rx_iov[0].iov_base = m->buf;
		m->rx_iov[0].iov_len = 100;
		m->rx_iov[1].iov_base = m->buf + 100;
		m->rx_iov[1].iov_len = MOCK_BUF - 100;
	}
	for (size_t i = 0; i < sizeof(w->payload); i++)
		w->payload[i] = (unsigned char)(i * 7 + 3);
	/* Three fragments, so the fabric has to gather. */
	w->tx_iov[0].iov_base = w->payload;
	w->tx_iov[0].iov_len = 10;
	w->tx_iov[1].iov_base = w->payload + 10;
	w->tx_iov[1].iov_len = 500;
	w->tx_iov[2].iov_base = w->payload + 510;
	w->tx_iov[2].iov_len = MOCK_BUF - 510;
	return w;
}

static void ni_start(struct world *w, int i)
{
	struct ul_err err = { 0 };

	assert_int_equal(ul_simlnd_ops.startup(&w->nis[i].lni, &err), 0);
	w->nis[i].is_started = true;
}

static void ni_stop(struct world *w, int i)
{
	ul_simlnd_ops.shutdown(&w->nis[i].lni);
	w->nis[i].is_started = false;
}

/* Run every timer in deadline order, advancing the virtual clock. */
static void run_all(struct world *w)
{
	uint64_t next;

	while ((next = ul_timer_heap_next(&w->heap)) != UL_TIMER_NEVER)
		ul_timer_heap_run(&w->heap, next);
}

static void world_free(struct world *w)
{
	for (int i = 0; i < MOCK_NIS; i++)
		if (w->nis[i].is_started)
			ni_stop(w, i);
	run_all(w);
	assert_int_equal(ul_simfab_pending(w->fab), 0);
	assert_int_equal(ul_simfab_nis(w->fab), 0);
	ul_simfab_destroy(w->fab);
	ul_timer_heap_fini(&w->heap);
	free(w);
}

/* Send tx number k of nob payload bytes from NI src to NI dst. */
static int send_k(struct world *w, int k, int src, int dst, uint32_t nob)
{
	struct ul_lnd_tx *tx = &w->txs[k];

	memset(tx, 0, sizeof(*tx));
	tx->hdr.dest_nid = w->nis[dst].ni.nid;
	tx->hdr.src_nid = w->nis[src].ni.nid;
	tx->hdr.dest_pid = 12345;
	tx->hdr.src_pid = 12345;
	tx->hdr.type = nob > 0 ? UL_WIRE_MSG_PUT : UL_WIRE_MSG_GET;
	tx->hdr.payload_length = nob;
	tx->hdr.msg.put.match_bits = (uint64_t)k;
	tx->target_nid = w->nis[dst].ni.nid;
	tx->target_pid = 12345;
	tx->iov = w->tx_iov;
	tx->niov = 3;
	tx->nob = nob;
	return ul_simlnd_ops.send(&w->nis[src].lni, tx);
}

static void link_set(struct world *w, int a, int b, uint64_t bw,
		     uint64_t lat_ns, double loss, bool is_up)
{
	struct ul_simlink_props p = {
		.bandwidth = bw,
		.latency_ns = lat_ns,
		.loss = loss,
		.is_up = is_up,
	};

	assert_int_equal(ul_simfab_link_set(w->fab, &w->nis[a].ni.nid,
					    &w->nis[b].ni.nid, &p),
			 0);
}

/* The n-th record of this kind (0 first), or NULL. */
static const struct rec *rec_nth(const struct world *w, enum rec_kind kind,
				 size_t n)
{
	for (size_t i = 0; i < w->nrecs; i++)
		if (w->recs[i].kind == kind && n-- == 0)
			return &w->recs[i];
	return NULL;
}

static size_t rec_count(const struct world *w, enum rec_kind kind)
{
	size_t c = 0;

	for (size_t i = 0; i < w->nrecs; i++)
		c += w->recs[i].kind == kind;
	return c;
}

static void delivery_time_is_latency_plus_size_over_bandwidth(void **state)
{
	struct world *w = world_new(1);
	const struct rec *r;
	struct ul_simlink_stats st;

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	/* 904 + 96 header bytes at 1 MB/s: 1 ms on the wire. */
	link_set(w, 0, 1, 1000000, 5000, 0, true);
	w->heap.now_ns = 100;
	assert_int_equal(send_k(w, 0, 0, 1, 904), 0);
	assert_int_equal(w->nrecs, 0); /* nothing from inside send */
	run_all(w);
	assert_int_equal(w->nrecs, 3);
	r = rec_nth(w, REC_TX_DONE, 0);
	assert_int_equal(r->at_ns, 100 + 1000000);
	assert_int_equal(r->status, 0);
	assert_int_equal(r->hstatus, UL_HSTATUS_OK);
	r = rec_nth(w, REC_PARSE, 0);
	assert_int_equal(r->at_ns, 100 + 1000000 + 5000);
	assert_int_equal(r->ni, 1);
	assert_true(ulnet_nid_same(&r->from, &w->nis[0].ni.nid));
	r = rec_nth(w, REC_RX_DONE, 0);
	assert_int_equal(r->status, 0);
	/*
	 * Intact across three send and two receive fragments, although
	 * the sender's buffer was overwritten at tx_done.
	 */
	for (uint32_t i = 0; i < 904; i++)
		assert_int_equal(w->nis[1].buf[i], (unsigned char)(i * 7 + 3));
	assert_int_equal(w->nis[1].buf[904], 0);
	ul_simfab_link_stats(w->fab, &w->nis[0].ni.nid, &w->nis[1].ni.nid, &st);
	assert_int_equal(st.msgs, 1);
	assert_int_equal(st.bytes, 904);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.drops, 0);
	world_free(w);
}

static void back_to_back_sends_serialize_per_direction(void **state)
{
	struct world *w = world_new(1);

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 1000000, 5000, 0, true);
	for (int k = 0; k < 3; k++)
		assert_int_equal(send_k(w, k, 0, 1, 904), 0);
	/* The other direction has its own wire. */
	assert_int_equal(send_k(w, 3, 1, 0, 904), 0);
	run_all(w);
	assert_int_equal(rec_count(w, REC_TX_DONE), 4);
	assert_int_equal(rec_count(w, REC_PARSE), 4);
	/* Row k: tx k completes at (k + 1) ms, arrives 5 us later. */
	for (int k = 0; k < 3; k++) {
		size_t done = w->nrecs, arrive = w->nrecs;

		for (size_t i = 0; i < w->nrecs; i++) {
			if (w->recs[i].kind == REC_TX_DONE &&
			    w->recs[i].tx == k)
				done = i;
			if (w->recs[i].kind == REC_PARSE &&
			    w->recs[i].match_bits == (uint64_t)k)
				arrive = i;
		}
		assert_true(done < w->nrecs && arrive < w->nrecs);
		assert_int_equal(w->recs[done].at_ns,
				 (uint64_t)(k + 1) * 1000000);
		assert_int_equal(w->recs[arrive].at_ns,
				 (uint64_t)(k + 1) * 1000000 + 5000);
	}
	assert_int_equal(rec_nth(w, REC_TX_DONE, 0)->at_ns, 1000000);
	assert_int_equal(rec_nth(w, REC_TX_DONE, 1)->at_ns, 1000000);
	/* A link idle again starts from now, not from the old backlog. */
	w->nrecs = 0;
	w->heap.now_ns = 10000000;
	assert_int_equal(send_k(w, 4, 0, 1, 904), 0);
	run_all(w);
	assert_int_equal(rec_nth(w, REC_TX_DONE, 0)->at_ns, 11000000);
	world_free(w);
}

static void infinite_bandwidth_costs_latency_only(void **state)
{
	struct world *w = world_new(1);

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 0, 7000, 0, true);
	assert_int_equal(send_k(w, 0, 0, 1, 4000), 0);
	assert_int_equal(send_k(w, 1, 0, 1, 0), 0);
	run_all(w);
	assert_int_equal(rec_nth(w, REC_TX_DONE, 0)->at_ns, 0);
	assert_int_equal(rec_nth(w, REC_TX_DONE, 1)->at_ns, 0);
	assert_int_equal(rec_nth(w, REC_PARSE, 0)->at_ns, 7000);
	assert_int_equal(rec_nth(w, REC_PARSE, 1)->at_ns, 7000);
	/* Messages on one link arrive in the order they were sent. */
	assert_int_equal(rec_nth(w, REC_PARSE, 0)->match_bits, 0);
	assert_int_equal(rec_nth(w, REC_PARSE, 1)->match_bits, 1);
	world_free(w);
}

/* Which of 200 sends over a 50% lossy link arrive, as a bit string. */
static void loss_pattern(uint64_t seed, char *pattern, size_t *delivered)
{
	struct world *w = world_new(seed);
	struct ul_simlink_stats st;

	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 0, 1000, 0.5, true);
	memset(pattern, '0', 200);
	pattern[200] = '\0';
	for (int k = 0; k < 200; k++)
		assert_int_equal(send_k(w, k, 0, 1, 16), 0);
	run_all(w);
	/* Every loss is silent: the sender sees OK each time. */
	assert_int_equal(rec_count(w, REC_TX_DONE), 200);
	for (size_t i = 0; i < w->nrecs; i++) {
		if (w->recs[i].kind == REC_TX_DONE) {
			assert_int_equal(w->recs[i].status, 0);
			assert_int_equal(w->recs[i].hstatus, UL_HSTATUS_OK);
		}
		if (w->recs[i].kind == REC_PARSE)
			pattern[w->recs[i].match_bits] = '1';
	}
	*delivered = rec_count(w, REC_PARSE);
	ul_simfab_link_stats(w->fab, &w->nis[0].ni.nid, &w->nis[1].ni.nid, &st);
	assert_int_equal(st.msgs, 200);
	assert_int_equal(st.delivered, *delivered);
	assert_int_equal(st.drops, 200 - *delivered);
	world_free(w);
}

static void loss_is_the_same_for_the_same_seed(void **state)
{
	char a[201], b[201], c[201];
	size_t na, nb, nc;

	(void)state;
	loss_pattern(42, a, &na);
	loss_pattern(42, b, &nb);
	loss_pattern(43, c, &nc);
	assert_string_equal(a, b);
	assert_int_equal(na, nb);
	assert_string_not_equal(a, c);
	/* Half, give or take: 200 fair draws land in 60..140. */
	assert_in_range(na, 60, 140);
	assert_in_range(nc, 60, 140);
}

static void loss_one_drops_everything_loss_zero_nothing(void **state)
{
	struct world *w = world_new(9);

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	ni_start(w, 2);
	link_set(w, 0, 1, 0, 1000, 1.0, true);
	for (int k = 0; k < 20; k++)
		assert_int_equal(send_k(w, k, 0, k % 2 ? 1 : 2, 16), 0);
	run_all(w);
	assert_int_equal(rec_count(w, REC_TX_DONE), 20);
	assert_int_equal(rec_count(w, REC_PARSE), 10);
	for (size_t i = 0; i < w->nrecs; i++)
		if (w->recs[i].kind == REC_PARSE)
			assert_int_equal(w->recs[i].ni, 2);
	world_free(w);
}

struct fail_row {
	const char *what;
	int how; /* 0 link down, 1 dest cable, 2 own cable, 3 unknown NID */
	enum ul_hstatus hstatus;
};

static const struct fail_row fail_rows[] = {
	/* 0 */ { "link down", 0, UL_HSTATUS_REMOTE_DROPPED },
	/* 1 */ { "peer NI down", 1, UL_HSTATUS_REMOTE_DROPPED },
	/* 2 */ { "own NI down", 2, UL_HSTATUS_LOCAL_DROPPED },
	/* 3 */ { "unknown NID", 3, UL_HSTATUS_REMOTE_DROPPED },
};

static void unreachable_fails_after_latency_with_hstatus(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fail_rows) / sizeof(fail_rows[0]); i++) {
		const struct fail_row *row = &fail_rows[i];
		struct world *w = world_new(1);
		const struct rec *r;

		print_message("row %zu: %s\n", i, row->what);
		ni_start(w, 0);
		if (row->how != 3)
			ni_start(w, 1);
		link_set(w, 0, 1, 1000000, 3000, 0, row->how != 0);
		if (row->how == 1)
			assert_int_equal(ul_simfab_ni_set_up(w->fab,
							     &w->nis[1].ni.nid,
							     false),
					 0);
		if (row->how == 2)
			assert_int_equal(ul_simfab_ni_set_up(w->fab,
							     &w->nis[0].ni.nid,
							     false),
					 0);
		assert_int_equal(send_k(w, 0, 0, 1, 904), 0);
		assert_int_equal(w->nrecs, 0);
		run_all(w);
		assert_int_equal(w->nrecs, 1);
		r = rec_nth(w, REC_TX_DONE, 0);
		assert_int_equal(r->at_ns, 3000);
		assert_int_equal(r->status, -EHOSTUNREACH);
		assert_int_equal(r->hstatus, row->hstatus);
		world_free(w);
	}
}

static void cable_pull_drops_in_flight_and_plug_restores(void **state)
{
	struct world *w = world_new(1);
	struct ul_simlink_stats st;

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 0, 5000, 0, true);
	assert_int_equal(send_k(w, 0, 0, 1, 16), 0);
	/* Transmit completes at 0; pull the far cable while in flight. */
	ul_timer_heap_run(&w->heap, 0);
	assert_int_equal(rec_count(w, REC_TX_DONE), 1);
	assert_int_equal(ul_simfab_ni_set_up(w->fab, &w->nis[1].ni.nid, false),
			 0);
	run_all(w);
	assert_int_equal(rec_count(w, REC_PARSE), 0);
	ul_simfab_link_stats(w->fab, &w->nis[0].ni.nid, &w->nis[1].ni.nid, &st);
	assert_int_equal(st.drops, 1);
	assert_int_equal(ul_simfab_ni_set_up(w->fab, &w->nis[1].ni.nid, true),
			 0);
	assert_int_equal(send_k(w, 1, 0, 1, 16), 0);
	run_all(w);
	assert_int_equal(rec_count(w, REC_PARSE), 1);
	assert_int_equal(ul_simfab_ni_set_up(w->fab, &w->nis[3].ni.nid, false),
			 -ENOENT);
	world_free(w);
}

static void link_cut_while_transmitting_fails_the_tx(void **state)
{
	struct world *w = world_new(1);
	const struct rec *r;

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 1000000, 5000, 0, true);
	assert_int_equal(send_k(w, 0, 0, 1, 904), 0);
	ul_timer_heap_run(&w->heap, 500000);
	link_set(w, 0, 1, 1000000, 5000, 0, false);
	run_all(w);
	assert_int_equal(w->nrecs, 1);
	r = rec_nth(w, REC_TX_DONE, 0);
	assert_int_equal(r->at_ns, 1000000);
	assert_int_equal(r->status, -EHOSTUNREACH);
	assert_int_equal(r->hstatus, UL_HSTATUS_REMOTE_DROPPED);
	world_free(w);
}

static void shutdown_completes_every_tx_exactly_once(void **state)
{
	struct world *w = world_new(1);
	int seen[40] = { 0 };

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	ni_start(w, 2);
	link_set(w, 0, 1, 1000000, 5000, 0, true);
	link_set(w, 0, 2, 0, 5000000, 0, true);
	/* 0..29 queue on a 1 ms per message link; 30..39 go nowhere. */
	for (int k = 0; k < 30; k++)
		assert_int_equal(send_k(w, k, 0, 1, 904), 0);
	for (int k = 30; k < 40; k++)
		assert_int_equal(send_k(w, k, 0, 3, 904), 0);
	/* A message in flight to NI 0 when it stops is dropped. */
	assert_int_equal(send_k(w, 40, 2, 0, 16), 0);
	ul_timer_heap_run(&w->heap, 2500000);
	assert_int_equal(rec_count(w, REC_TX_DONE), 10 + 2 + 1);
	ni_stop(w, 0);
	assert_int_equal(rec_count(w, REC_TX_DONE), 41);
	for (size_t i = 0; i < w->nrecs; i++) {
		const struct rec *r = &w->recs[i];

		if (r->kind != REC_TX_DONE || r->ni != 0)
			continue;
		seen[r->tx]++;
		if (r->tx >= 2 && r->tx < 30) {
			assert_int_equal(r->status, -ESHUTDOWN);
			assert_int_equal(r->hstatus, UL_HSTATUS_LOCAL_DROPPED);
			assert_int_equal(r->at_ns, 2500000);
		}
	}
	for (int k = 0; k < 40; k++)
		assert_int_equal(seen[k], 1);
	/* left: the news of NI 0's end for NIs 1 and 2, its peers */
	assert_int_equal(ul_simfab_pending(w->fab), 2);
	run_all(w);
	assert_int_equal(ul_simfab_pending(w->fab), 0);
	/* Nothing more, ever; the two delivered before stay delivered. */
	assert_int_equal(rec_count(w, REC_TX_DONE), 41);
	assert_int_equal(rec_count(w, REC_PARSE), 2);
	for (size_t i = 0; i < w->nrecs; i++)
		if (w->recs[i].kind == REC_PARSE)
			assert_int_equal(w->recs[i].ni, 1);
	/* The NI is gone: sends on it are refused, its NID is free. */
	assert_int_equal(send_k(w, 0, 0, 1, 16), -ESHUTDOWN);
	ni_start(w, 0);
	world_free(w);
}

static void restarted_nid_never_gets_the_old_traffic(void **state)
{
	struct world *w = world_new(1);

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	link_set(w, 0, 1, 1000000, 5000, 0, true);
	assert_int_equal(send_k(w, 0, 0, 1, 904), 0);
	/* NI 1 restarts while the message is still transmitting. */
	ni_stop(w, 1);
	ni_start(w, 1);
	run_all(w);
	assert_int_equal(rec_count(w, REC_TX_DONE), 1);
	assert_int_equal(rec_count(w, REC_PARSE), 0);
	world_free(w);
}

static void startup_refuses_a_nid_already_there(void **state)
{
	struct world *w = world_new(1);
	struct mock_ni twin;
	struct ul_err err = { 0 };

	(void)state;
	ni_start(w, 0);
	twin = w->nis[0];
	twin.lni.data = NULL;
	assert_int_equal(ul_simlnd_ops.startup(&twin.lni, &err), -EADDRINUSE);
	assert_int_equal(err.code, -EADDRINUSE);
	assert_non_null(strstr(err.msg, "10.0.0.1@tcp"));
	assert_null(twin.lni.data);
	assert_int_equal(ul_simfab_nis(w->fab), 1);
	world_free(w);
}

static void parse_error_drops_without_rx_done(void **state)
{
	struct world *w = world_new(1);
	struct ul_simlink_stats st;

	(void)state;
	ni_start(w, 0);
	ni_start(w, 1);
	w->parse_rc = -EPROTO;
	assert_int_equal(send_k(w, 0, 0, 1, 64), 0);
	run_all(w);
	assert_int_equal(rec_count(w, REC_PARSE), 1);
	assert_int_equal(rec_count(w, REC_RX_DONE), 0);
	ul_simfab_link_stats(w->fab, &w->nis[0].ni.nid, &w->nis[1].ni.nid, &st);
	assert_int_equal(st.drops, 1);
	world_free(w);
}

static void link_set_refuses_bad_loss_and_defaults_apply(void **state)
{
	struct world *w = world_new(1);
	struct ul_simlink_props p = { .loss = 1.5, .is_up = true };
	struct ul_simlink_props got;
	const struct ulnet_nid *a = &w->nis[0].ni.nid;
	const struct ulnet_nid *b = &w->nis[1].ni.nid;

	(void)state;
	assert_int_equal(ul_simfab_link_set(w->fab, a, b, &p), -EINVAL);
	ul_simfab_link_get(w->fab, a, b, &got);
	assert_int_equal(got.latency_ns, 1000);
	assert_int_equal(got.bandwidth, 0);
	assert_true(got.is_up);
	p.loss = 0;
	p.latency_ns = 77;
	ul_simfab_default_set(w->fab, &p);
	ul_simfab_link_get(w->fab, b, a, &got);
	assert_int_equal(got.latency_ns, 77);
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			delivery_time_is_latency_plus_size_over_bandwidth),
		cmocka_unit_test(back_to_back_sends_serialize_per_direction),
		cmocka_unit_test(infinite_bandwidth_costs_latency_only),
		cmocka_unit_test(loss_is_the_same_for_the_same_seed),
		cmocka_unit_test(loss_one_drops_everything_loss_zero_nothing),
		cmocka_unit_test(unreachable_fails_after_latency_with_hstatus),
		cmocka_unit_test(cable_pull_drops_in_flight_and_plug_restores),
		cmocka_unit_test(link_cut_while_transmitting_fails_the_tx),
		cmocka_unit_test(shutdown_completes_every_tx_exactly_once),
		cmocka_unit_test(restarted_nid_never_gets_the_old_traffic),
		cmocka_unit_test(startup_refuses_a_nid_already_there),
		cmocka_unit_test(parse_error_drops_without_rx_done),
		cmocka_unit_test(link_set_refuses_bad_loss_and_defaults_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
