/*
 * The peer NI part of the /metrics page (metrics.h): a copy of every peer
 * NI's numbers taken on the loop (ul_ctlsrv_pni_vals, the same values
 * `peer show -v 2` prints), printed family by family on a worker thread.
 *
 * The names are the ones the show-document walk in metrics.c gives the
 * same keys (its renames table): the statistics block's counts, the
 * latencies as summaries in seconds with min and max gauges, the counts
 * by message type with a type label, the health stats and credits. A
 * key peer show learns needs a line here too; tests/cli/metrics_daemon.sh
 * checks the whole list of families.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/core.h"
#include "core/node.h"
#include "core/discovery_sm.h"
#include "core/peer.h"
#include "runtime/ctlsrv_int.h"
#include "util/list.h"

#include "metrics.h"

#define LABELS_SIZE (3 * ULNET_NIDSTR_SIZE + 48)

/*
 * Taken on the loop: numbers and NIDs only, formatting is the worker's
 * (labels is filled there, pni by pni, while printing).
 */
struct snap_pni {
	struct ulnet_nid primary, nid;
	bool is_first; /* its peer's first NI: carries the peer's families */
	bool is_mr;
	uint32_t peer_state; /* peer show -v 3's "peer state" bits */
	struct ul_ctlsrv_pni_vals v;
};

struct ul_metrics_snap {
	size_t n, cap;
	struct snap_pni *p;
	char (*labels)[LABELS_SIZE]; /* the worker's, one per pni */
};

static void snap_unmap(struct ul_metrics_snap *s)
{
	if (s->p)
		munmap(s->p, s->cap * sizeof(*s->p));
	s->p = NULL;
	s->cap = 0;
}

int ul_metrics_snap_take(struct ul_ctlsrv *srv, struct ul_metrics_snap *reuse,
			 struct ul_metrics_snap **out)
{
	const struct ul_core *core = ul_node_core(srv->node);
	struct ul_metrics_snap *s = reuse;
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;
	struct ul_peer **peers = NULL;
	size_t npeers = 0, i, n = 0;
	int rc;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
	}
	s->n = 0;
	free(s->labels);
	s->labels = NULL;
	rc = ul_ctlsrv_peers_by_cpt(srv, &peers, &npeers);
	if (rc) {
		ul_metrics_snap_free(s);
		return rc;
	}
	for (i = 0; i < npeers; i++)
		n += peers[i]->nnis;
	if (n > s->cap) {
		/* Room for some growth, so that the next scrape reuses it. */
		size_t cap = n + n / 8 + 16;
		/*
		 * Populated at once: faulting 17 MB in page by page while
		 * copying doubled the first scrape's loop time at 40,000
		 * peer NIs.
		 */
		void *np =
			mmap(NULL, cap * sizeof(*s->p), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (np == MAP_FAILED) {
			free(peers);
			ul_metrics_snap_free(s);
			return -ENOMEM;
		}
		snap_unmap(s);
		s->p = np;
		s->cap = cap;
	}
	for (i = 0; i < npeers; i++) {
		const struct ul_peer *p = peers[i];
		bool is_first = true;

		ul_list_for_each_entry(lpn, &p->peer_nets, peer_link) {
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link) {
				struct snap_pni *sp = &s->p[s->n];

				if (s->n == n)
					break;
				sp->is_first = is_first;
				sp->is_mr = p->is_mr;
				sp->peer_state = ul_disc_state_bits(p);
				is_first = false;
				sp->primary = p->primary_nid;
				sp->nid = lpni->nid;
				ul_ctlsrv_pni_vals(core, lpni, &sp->v);
				s->n++;
			}
		}
	}
	free(peers);
	*out = s;
	return 0;
}

void ul_metrics_snap_free(struct ul_metrics_snap *s)
{
	if (!s)
		return;
	snap_unmap(s);
	free(s->labels);
	free(s);
}

/* A value as metrics.c's pages print them: integers exactly. */
static void value(FILE *f, double v)
{
	if (v == (double)(int64_t)v && v > -9.0e15 && v < 9.0e15)
		fprintf(f, "%" PRId64 "\n", (int64_t)v);
	else
		fprintf(f, "%.9g\n", v);
}

/* Which number of a peer NI a family prints. */
typedef double (*pni_get)(const struct ul_ctlsrv_pni_vals *v);

static uint64_t sum4(const uint64_t c[4])
{
	return c[0] + c[1] + c[2] + c[3];
}

#define GET(fn, expr)                                                          \
	static double fn(const struct ul_ctlsrv_pni_vals *v)                   \
	{                                                                      \
		return (double)(expr);                                         \
	}

GET(g_max_tx, v->max_tx)
GET(g_tx, v->tx)
GET(g_min_tx, v->min_tx)
GET(g_txq, v->txq)
GET(g_rtr, v->rtr)
GET(g_min_rtr, v->min_rtr)
GET(g_refcount, v->refcount)
GET(g_sent, sum4(v->st.send_count))
GET(g_recv, sum4(v->st.recv_count))
GET(g_drop, sum4(v->st.drop_count))
GET(g_healthv, v->healthv)
GET(g_hs_dropped, v->hs_dropped)
GET(g_hs_timeout, v->hs_timeout)
GET(g_hs_error, v->hs_error)
GET(g_hs_nettimeout, v->hs_network_timeout)
GET(g_pings, v->ping_count)
GET(g_next_ping, v->next_ping)

static const struct {
	const char *name, *type;
	pni_get get;
} plain[] = {
	{ "ulnet_peer_ni_health_dropped_total", "counter", g_hs_dropped },
	{ "ulnet_peer_ni_health_errors_total", "counter", g_hs_error },
	{ "ulnet_peer_ni_health_network_timeouts_total", "counter",
	  g_hs_nettimeout },
	{ "ulnet_peer_ni_health_timeouts_total", "counter", g_hs_timeout },
	{ "ulnet_peer_ni_health_value", "gauge", g_healthv },
	{ "ulnet_peer_ni_max_tx_credits", "gauge", g_max_tx },
	{ "ulnet_peer_ni_messages_dropped_total", "counter", g_drop },
	{ "ulnet_peer_ni_messages_received_total", "counter", g_recv },
	{ "ulnet_peer_ni_messages_sent_total", "counter", g_sent },
	{ "ulnet_peer_ni_min_rtr_credits", "gauge", g_min_rtr },
	{ "ulnet_peer_ni_min_tx_credits", "gauge", g_min_tx },
	{ "ulnet_peer_ni_recovery_next_ping", "gauge", g_next_ping },
	{ "ulnet_peer_ni_recovery_pings", "gauge", g_pings },
	{ "ulnet_peer_ni_refcount", "gauge", g_refcount },
	{ "ulnet_peer_ni_rtr_credits", "gauge", g_rtr },
	{ "ulnet_peer_ni_tx_credits", "gauge", g_tx },
	{ "ulnet_peer_ni_tx_queue_bytes", "gauge", g_txq },
};

/* The by-type families: ulnet_msg_stats row, message type labels. */
static const struct {
	const char *name;
	size_t off; /* of the row in struct ulnet_msg_stats */
} by_type[] = {
	{ "ulnet_peer_ni_dropped_messages_by_type_total",
	  offsetof(struct ulnet_msg_stats, drop_count) },
	{ "ulnet_peer_ni_received_messages_by_type_total",
	  offsetof(struct ulnet_msg_stats, recv_count) },
	{ "ulnet_peer_ni_sent_messages_by_type_total",
	  offsetof(struct ulnet_msg_stats, send_count) },
};

/* As net show and peer show list them: put, get, reply, ack, hello. */
static const struct {
	const char *type;
	int idx; /* -1: hello, which ulnet never counts */
} types[] = { { "put", 1 },
	      { "get", 2 },
	      { "reply", 3 },
	      { "ack", 0 },
	      { "hello", -1 } };

static const struct {
	const char *name;
	int idx;
} lats[] = {
	{ "get_rtt", UL_LAT_GET_RTT },
	{ "put_ack", UL_LAT_PUT_ACK },
	{ "put_egress", UL_LAT_PUT_EGRESS },
};

static void print_latency(FILE *f, const struct ul_metrics_snap *s,
			  const char *lat, int idx)
{
	size_t i;

	fprintf(f, "# TYPE ulnet_peer_ni_%s_latency_max_seconds gauge\n", lat);
	for (i = 0; i < s->n; i++) {
		fprintf(f, "ulnet_peer_ni_%s_latency_max_seconds{%s} ", lat,
			s->labels[i]);
		value(f, (double)s->p[i].v.lat[idx].max_ns / 1e9);
	}
	fprintf(f, "# TYPE ulnet_peer_ni_%s_latency_min_seconds gauge\n", lat);
	for (i = 0; i < s->n; i++) {
		fprintf(f, "ulnet_peer_ni_%s_latency_min_seconds{%s} ", lat,
			s->labels[i]);
		value(f, (double)s->p[i].v.lat[idx].min_ns / 1e9);
	}
	fprintf(f, "# TYPE ulnet_peer_ni_%s_latency_seconds summary\n", lat);
	for (i = 0; i < s->n; i++) {
		const struct ul_lat *l = &s->p[i].v.lat[idx];

		fprintf(f, "ulnet_peer_ni_%s_latency_seconds_count{%s} ", lat,
			s->labels[i]);
		value(f, (double)l->samples);
		fprintf(f, "ulnet_peer_ni_%s_latency_seconds_sum{%s} ", lat,
			s->labels[i]);
		value(f, (double)ul_lat_avg_ns(l) * (double)l->samples / 1e9);
	}
}

/* Each pni's labels, once for every family. */
static int make_labels(struct ul_metrics_snap *s)
{
	char prim[ULNET_NIDSTR_SIZE], nid[ULNET_NIDSTR_SIZE];
	const char *at;
	size_t i;

	s->labels = malloc(s->n * sizeof(*s->labels));
	if (!s->labels)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		ulnet_nid_format(&s->p[i].primary, prim, sizeof(prim));
		ulnet_nid_format(&s->p[i].nid, nid, sizeof(nid));
		at = strchr(nid, '@');
		snprintf(s->labels[i], LABELS_SIZE,
			 "primary_nid=\"%s\",nid=\"%s\",net=\"%s\"", prim, nid,
			 at ? at + 1 : "");
	}
	return 0;
}

int ul_metrics_snap_print(struct ul_metrics_snap *s, FILE *f)
{
	char prim[ULNET_NIDSTR_SIZE];
	size_t i, k, t;

	if (!s->n)
		return 0;
	if (!s->labels && make_labels(s))
		return -ENOMEM;
	fprintf(f, "# TYPE ulnet_peer_multi_rail gauge\n");
	for (i = 0; i < s->n; i++)
		if (s->p[i].is_first)
			fprintf(f, "ulnet_peer_multi_rail{primary_nid=\"%s\"} %d\n",
				ulnet_nid_format(&s->p[i].primary, prim,
						 sizeof(prim)),
				s->p[i].is_mr);
	/* The discovery state bits, as peer show -v 3 prints them. */
	fprintf(f, "# TYPE ulnet_peer_state gauge\n");
	for (i = 0; i < s->n; i++)
		if (s->p[i].is_first)
			fprintf(f,
				"ulnet_peer_state{primary_nid=\"%s\"} %" PRIu32
				"\n",
				ulnet_nid_format(&s->p[i].primary, prim,
						 sizeof(prim)),
				s->p[i].peer_state);
	for (k = 0; k < sizeof(by_type) / sizeof(by_type[0]); k++) {
		fprintf(f, "# TYPE %s counter\n", by_type[k].name);
		for (i = 0; i < s->n; i++) {
			const uint64_t *row =
				(const uint64_t *)((const char *)&s->p[i].v.st +
						   by_type[k].off);

			for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
				fprintf(f, "%s{%s,type=\"%s\"} %" PRIu64 "\n",
					by_type[k].name, s->labels[i],
					types[t].type,
					types[t].idx < 0 ? 0
							 : row[types[t].idx]);
		}
	}
	for (k = 0; k < sizeof(lats) / sizeof(lats[0]); k++)
		print_latency(f, s, lats[k].name, lats[k].idx);
	for (k = 0; k < sizeof(plain) / sizeof(plain[0]); k++) {
		fprintf(f, "# TYPE %s %s\n", plain[k].name, plain[k].type);
		for (i = 0; i < s->n; i++) {
			fprintf(f, "%s{%s} ", plain[k].name, s->labels[i]);
			value(f, plain[k].get(&s->p[i].v));
		}
	}
	/* up/down only where LNet tracks it, else absent */
	for (i = 0, t = 0; i < s->n; i++) {
		if (strcmp(s->p[i].v.state, "NA") == 0)
			continue;
		if (!t++)
			fprintf(f, "# TYPE ulnet_peer_ni_up gauge\n");
		fprintf(f, "ulnet_peer_ni_up{%s} %d\n", s->labels[i],
			strcmp(s->p[i].v.state, "up") == 0);
	}
	/* Only printing needs them; a snapshot kept for reuse does not. */
	free(s->labels);
	s->labels = NULL;
	return ferror(f) ? -EIO : 0;
}
