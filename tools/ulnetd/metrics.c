/*
 * The /metrics page (metrics.h): the show documents, walked into
 * Prometheus samples, grouped by family, served by libmicrohttpd on the
 * loop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/doc_yaml.h"
#include "ctl/proto.h"
#include "ctl/proto_doc.h"
#include "ctl/ytree.h"
#include "runtime/ctlsrv_int.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/list.h"
#include "util/loop.h"

#include "metrics.h"

#define NSEC_PER_SEC 1000000000.0
#define MSEC_PER_NSEC 1000000u

/* Scrapes the workers may print at once; more get 503. */
#define UL_METRICS_SCRAPES_MAX 4

struct ul_metrics {
	struct ul_loop *loop;
	struct ul_ctlsrv *srv;
	struct MHD_Daemon *mhd;
	struct ul_io io;
	struct ul_timer timer;
	uint64_t scrapes;
	double last_build_s;	     /* loop time of the last scrape */
	double last_print_s;	     /* worker time of the last one answered */
	struct ul_list scrapes_list; /* struct scrape, started */
	unsigned int nscrapes;
	struct ul_metrics_snap *spare; /* the last snapshot, for the next */
	/*
	 * A worker that resumed its request rings this, so that the loop
	 * runs libmicrohttpd (its own wakeup does not always reach the loop
	 * through its epoll descriptor).
	 */
	int wake_fd;
	struct ul_io wake_io;
};

/* ---- Samples --------------------------------------------------------- */

enum kind { GAUGE, COUNTER, SUMMARY };

struct sample {
	char *family; /* owned */
	enum kind kind;
	char *line; /* "name{labels} value", owned */
	size_t seq; /* order of arrival, for a stable sort */
};

struct page {
	struct sample *s;
	size_t n, cap;
	int err;
};

static void add(struct page *p, const char *family, const char *suffix,
		enum kind kind, const char *labels, double v)
{
	struct sample *s;
	char num[64];
	int len;

	if (p->err)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct sample *ns = realloc(p->s, cap * sizeof(*ns));

		if (!ns) {
			p->err = -ENOMEM;
			return;
		}
		p->s = ns;
		p->cap = cap;
	}
	s = &p->s[p->n];
	/* Integers as integers: counters stay exact past 2^53 in text. */
	if (v == (double)(int64_t)v && v > -9.0e15 && v < 9.0e15)
		snprintf(num, sizeof(num), "%" PRId64, (int64_t)v);
	else
		snprintf(num, sizeof(num), "%.9g", v);
	s->family = strdup(family);
	len = asprintf(&s->line, "%s%s%s%s%s %s", family, suffix,
		       labels[0] ? "{" : "", labels, labels[0] ? "}" : "", num);
	if (!s->family || len < 0) {
		free(s->family);
		if (len >= 0)
			free(s->line);
		p->err = -ENOMEM;
		return;
	}
	s->kind = kind;
	s->seq = p->n++;
}

static int by_family(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The exposition text: each family's samples together, its TYPE first. */
static int render(struct page *p, char **out, size_t *len)
{
	static const char *const type[] = { "gauge", "counter", "summary" };
	FILE *f;
	size_t i;

	if (p->err)
		return p->err;
	qsort(p->s, p->n, sizeof(*p->s), by_family);
	f = open_memstream(out, len);
	if (!f)
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		if (i == 0 || strcmp(p->s[i].family, p->s[i - 1].family) != 0)
			fprintf(f, "# TYPE %s %s\n", p->s[i].family,
				type[p->s[i].kind]);
		fprintf(f, "%s\n", p->s[i].line);
	}
	return fclose(f) ? -ENOMEM : 0;
}

static void page_fini(struct page *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->s[i].family);
		free(p->s[i].line);
	}
	free(p->s);
}

/* ---- From documents to samples ------------------------------------- */

/* A key as a metric name part: lower case, [a-z0-9_] only. */
static void norm(const char *key, char *out, size_t len)
{
	size_t i = 0;

	for (; *key && i + 1 < len; key++) {
		char ch = *key;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			ch = '_';
		if (ch == '_' && (i == 0 || out[i - 1] == '_'))
			continue;
		out[i++] = ch;
	}
	while (i && out[i - 1] == '_')
		i--;
	out[i] = '\0';
}

static bool number(const struct ul_ynode *v, double *out)
{
	char *end;

	if (!v || v->type != UL_YNODE_SCALAR || !v->str[0])
		return false;
	*out = strtod(v->str, &end);
	return *end == '\0';
}

/*
 * How a key of an NI's or peer NI's document is named on the page:
 * block ("" for the top level) and key as net show prints them, the
 * family's name after "ulnet_ni_" / "ulnet_peer_ni_", and its kind. A
 * key not listed becomes a gauge named after block and key.
 */
static const struct rename {
	const char *block, *key, *name;
	enum kind kind;
} renames[] = {
	{ "statistics", "send_count", "messages_sent_total", COUNTER },
	{ "statistics", "recv_count", "messages_received_total", COUNTER },
	{ "statistics", "drop_count", "messages_dropped_total", COUNTER },
	{ "health stats", "health value", "health_value", GAUGE },
	{ "health stats", "fatal_error", "fatal_error", GAUGE },
	{ "health stats", "interrupts", "health_interrupts_total", COUNTER },
	{ "health stats", "dropped", "health_dropped_total", COUNTER },
	{ "health stats", "aborted", "health_aborted_total", COUNTER },
	{ "health stats", "no route", "health_no_route_total", COUNTER },
	{ "health stats", "timeouts", "health_timeouts_total", COUNTER },
	{ "health stats", "timeout", "health_timeouts_total", COUNTER },
	{ "health stats", "error", "health_errors_total", COUNTER },
	{ "health stats", "network timeout", "health_network_timeouts_total",
	  COUNTER },
	{ "health stats", "ping_count", "recovery_pings", GAUGE },
	{ "health stats", "next_ping", "recovery_next_ping", GAUGE },
	{ "", "max_ni_tx_credits", "max_tx_credits", GAUGE },
	{ "", "available_tx_credits", "tx_credits", GAUGE },
	{ "", "min_tx_credits", "min_tx_credits", GAUGE },
	{ "", "tx_q_num_of_buf", "tx_queue_bytes", GAUGE },
	{ "", "available_rtr_credits", "rtr_credits", GAUGE },
	{ "", "min_rtr_credits", "min_rtr_credits", GAUGE },
	{ "", "dev cpt", "dev_cpt", GAUGE },
};

/* sent_stats etc.: one family, the message type as a label. */
static const struct {
	const char *block, *name;
} by_type[] = {
	{ "sent_stats", "sent_messages_by_type_total" },
	{ "received_stats", "received_messages_by_type_total" },
	{ "dropped_stats", "dropped_messages_by_type_total" },
};

/* The three latencies a statistics block carries (lnetctl.md §6.3). */
static const char *const lats[] = { "put_egress", "get_rtt", "put_ack" };

/* One latency as a summary (count, sum) and its min and max, in s. */
static void latency(struct page *p, const char *pre, const char *labels,
		    const struct ul_ynode *st, const char *lat)
{
	double samples = 0, min = 0, max = 0, avg = 0;
	char key[64], fam[128];

	snprintf(key, sizeof(key), "%s_samples", lat);
	(void)number(ul_doc_get(st, key), &samples);
	snprintf(key, sizeof(key), "%s_min_nsec", lat);
	(void)number(ul_doc_get(st, key), &min);
	snprintf(key, sizeof(key), "%s_max_nsec", lat);
	(void)number(ul_doc_get(st, key), &max);
	snprintf(key, sizeof(key), "%s_avg_nsec", lat);
	(void)number(ul_doc_get(st, key), &avg);
	snprintf(fam, sizeof(fam), "%s%s_latency_seconds", pre, lat);
	add(p, fam, "_count", SUMMARY, labels, samples);
	add(p, fam, "_sum", SUMMARY, labels, avg * samples / NSEC_PER_SEC);
	snprintf(fam, sizeof(fam), "%s%s_latency_min_seconds", pre, lat);
	add(p, fam, "", GAUGE, labels, min / NSEC_PER_SEC);
	snprintf(fam, sizeof(fam), "%s%s_latency_max_seconds", pre, lat);
	add(p, fam, "", GAUGE, labels, max / NSEC_PER_SEC);
}

static bool is_latency_key(const char *key)
{
	for (size_t i = 0; i < sizeof(lats) / sizeof(lats[0]); i++)
		if (strncmp(key, lats[i], strlen(lats[i])) == 0)
			return true;
	return false;
}

/* One numeric key of block (an NI's or peer NI's) as its sample. */
static void scalar(struct page *p, const char *pre, const char *labels,
		   const char *block, const char *key, double v)
{
	char fam[160], a[64], b[64];
	size_t i;

	for (i = 0; i < sizeof(renames) / sizeof(renames[0]); i++)
		if (!strcmp(renames[i].block, block) &&
		    !strcmp(renames[i].key, key)) {
			snprintf(fam, sizeof(fam), "%s%s", pre,
				 renames[i].name);
			add(p, fam, "", renames[i].kind, labels, v);
			return;
		}
	norm(block, a, sizeof(a));
	norm(key, b, sizeof(b));
	snprintf(fam, sizeof(fam), "%s%s%s%s", pre, a, a[0] ? "_" : "", b);
	add(p, fam, "", GAUGE, labels, v);
}

/* Every numeric value of an NI's or peer NI's map, nested blocks too. */
static void object(struct page *p, const char *pre, const char *labels,
		   const struct ul_ynode *map)
{
	char lab[512], fam[160];
	size_t i, j, t;
	double v;

	for (i = 0; i + 1 < map->nr; i += 2) {
		const char *key = map->kids[i]->str;
		const struct ul_ynode *val = map->kids[i + 1];

		if (number(val, &v)) {
			scalar(p, pre, labels, "", key, v);
			continue;
		}
		if (val->type != UL_YNODE_MAP)
			continue;
		for (t = 0; t < sizeof(by_type) / sizeof(by_type[0]); t++)
			if (!strcmp(key, by_type[t].block))
				break;
		for (j = 0; j + 1 < val->nr; j += 2) {
			const char *k2 = val->kids[j]->str;

			if (!number(val->kids[j + 1], &v))
				continue;
			if (t < sizeof(by_type) / sizeof(by_type[0])) {
				snprintf(lab, sizeof(lab), "%s,type=\"%s\"",
					 labels, k2);
				snprintf(fam, sizeof(fam), "%s%s", pre,
					 by_type[t].name);
				add(p, fam, "", COUNTER, lab, v);
			} else if (!strcmp(key, "statistics") &&
				   is_latency_key(k2)) {
				continue; /* latency() below */
			} else {
				scalar(p, pre, labels, key, k2, v);
			}
		}
		if (!strcmp(key, "statistics"))
			for (j = 0; j < sizeof(lats) / sizeof(lats[0]); j++)
				latency(p, pre, labels, val, lats[j]);
	}
}

static const char *str_of(const struct ul_ynode *map, const char *key)
{
	const struct ul_ynode *v = ul_doc_get(map, key);

	return v && v->type == UL_YNODE_SCALAR ? v->str : "";
}

static const struct ul_ynode *seq_of(const struct ul_ynode *map,
				     const char *key)
{
	const struct ul_ynode *v = ul_doc_get(map, key);

	return v && v->type == UL_YNODE_SEQ ? v : NULL;
}

static void nets(struct page *p, const struct ul_ynode *doc)
{
	const struct ul_ynode *ns = seq_of(doc, "net"), *nis;
	char labels[256];
	size_t i, j;

	for (i = 0; ns && i < ns->nr; i++) {
		const char *net = str_of(ns->kids[i], "net type");

		nis = seq_of(ns->kids[i], "local NI(s)");
		for (j = 0; nis && j < nis->nr; j++) {
			const struct ul_ynode *ni = nis->kids[j];

			snprintf(labels, sizeof(labels),
				 "nid=\"%s\",net=\"%s\"", str_of(ni, "nid"),
				 net);
			add(p, "ulnet_ni_up", "", GAUGE, labels,
			    !strcmp(str_of(ni, "status"), "up"));
			object(p, "ulnet_ni_", labels, ni);
		}
	}
}

/* stats show: a count is a counter, a length bytes; the rest gauges. */
static void globals(struct page *p, const struct ul_ynode *doc)
{
	const struct ul_ynode *st = ul_doc_get(doc, "statistics");
	char name[96], fam[128];
	size_t i, n;
	double v;

	for (i = 0; st && st->type == UL_YNODE_MAP && i + 1 < st->nr; i += 2) {
		const char *key = st->kids[i]->str;

		if (!number(st->kids[i + 1], &v))
			continue;
		norm(key, name, sizeof(name));
		n = strlen(name);
		if (n > 6 && !strcmp(name + n - 6, "_count")) {
			name[n - 6] = '\0';
			snprintf(fam, sizeof(fam), "ulnet_%s_total", name);
			add(p, fam, "", COUNTER, "", v);
		} else if (n > 7 && !strcmp(name + n - 7, "_length")) {
			name[n - 7] = '\0';
			snprintf(fam, sizeof(fam), "ulnet_%s_bytes_total",
				 name);
			add(p, fam, "", COUNTER, "", v);
		} else if (!strcmp(name, "errors") ||
			   !strcmp(name, "failed_resends") ||
			   !strcmp(name, "successful_resends")) {
			snprintf(fam, sizeof(fam), "ulnet_%s_total", name);
			add(p, fam, "", COUNTER, "", v);
		} else {
			snprintf(fam, sizeof(fam), "ulnet_%s", name);
			add(p, fam, "", GAUGE, "", v);
		}
	}
}

static void routes(struct page *p, const struct ul_ynode *doc)
{
	const struct ul_ynode *rs = seq_of(doc, "route");
	char labels[256];
	size_t i;

	for (i = 0; rs && i < rs->nr; i++) {
		const struct ul_ynode *r = rs->kids[i];

		snprintf(labels, sizeof(labels),
			 "net=\"%s\",gateway=\"%s\",priority=\"%s\","
			 "hops=\"%s\"",
			 str_of(r, "net"), str_of(r, "gateway"),
			 str_of(r, "priority"), str_of(r, "hop"));
		add(p, "ulnet_route_up", "", GAUGE, labels,
		    !strcmp(str_of(r, "state"), "up"));
		add(p, "ulnet_route_single_hop", "", GAUGE, labels,
		    !strcmp(str_of(r, "type"), "single-hop"));
	}
}

/* A document the server built, as the tree ulnetctl would decode. */
static struct ul_ynode *tree_of(const struct ul_ctl_msg *d, uint16_t op)
{
	struct ul_ctl_reply r;
	struct ul_ynode *doc = NULL;
	struct ul_ctl_msg m;

	if (ul_ctl_doc_reply(d, op, &m) == 0 &&
	    ul_ctl_reply_decode(m.buf, m.len, op, &r, NULL) == 0) {
		doc = r.doc;
		r.doc = NULL;
		ul_ctl_reply_fini(&r);
	}
	ul_ctl_msg_fini(&m);
	return doc;
}

typedef int (*generic_fn)(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err);

/* Build one show's document and walk it with fn. */
static void show(struct page *p, struct ul_ctlsrv *srv, uint16_t op,
		 generic_fn gen,
		 void (*fn)(struct page *, const struct ul_ynode *))
{
	struct ul_ctl_net_show_req nreq = { .verbose = 2 };
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_ctl_msg d = { 0 };
	struct ul_err err = { 0 };
	struct ul_ctl_reply r;
	struct ul_ynode *doc;
	int rc;

	if (!a) {
		p->err = -ENOMEM;
		return;
	}
	a->verbose = 1;
	if (op == UL_CTL_OP_NET_SHOW) {
		rc = ul_ctlsrv_net_show(srv, &nreq, &d, &r);
	} else {
		ul_ctl_doc_init(&d);
		rc = gen(srv, a, &d, &err);
	}
	free(a);
	if (rc == 0) {
		doc = tree_of(&d, op);
		if (doc)
			fn(p, doc);
		else
			p->err = -ENOMEM;
		ul_ytree_free(doc);
	}
	ul_ctl_msg_fini(&d);
}

size_t ul_metrics_peer_nis(struct ul_ctlsrv *srv)
{
	const struct ul_core *c = ul_node_core(srv->node);
	const struct ul_peer *p;
	size_t n = 0;

	ul_list_for_each_entry(p, &c->peers, core_link)
		n += p->nnis;
	return n;
}

/* Everything but the peer NIs, from the show documents (on the loop). */
static int head_page(struct ul_ctlsrv *srv, char **out, size_t *len)
{
	struct page p = { 0 };
	int rc;

	if (ul_node_lnet_is_configured(srv->node)) {
		show(&p, srv, UL_CTL_OP_NET_SHOW, NULL, nets);
		show(&p, srv, UL_CTL_OP_STATS_SHOW, ul_ctlsrv_stats_show,
		     globals);
		show(&p, srv, UL_CTL_OP_ROUTE_SHOW, ul_ctlsrv_route_show,
		     routes);
	}
	add(&p, "ulnet_lnet_configured", "", GAUGE, "",
	    ul_node_lnet_is_configured(srv->node));
	rc = render(&p, out, len);
	page_fini(&p);
	return rc;
}

/* ---- HTTP ------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     char *body, size_t len, const char *type)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * One scrape: what the loop took (the page but its peer NIs, and a copy
 * of their numbers), then what the worker made of it.
 */
struct scrape {
	struct ul_list link; /* ul_metrics.scrapes_list */
	struct ul_metrics *m;
	struct MHD_Connection *conn;
	pthread_t worker;
	bool has_worker; /* started, not joined yet */
	char *head;	 /* loop part, rendered */
	size_t head_len;
	struct ul_metrics_snap *snap; /* NULL: peer NIs left out */
	uint64_t scrapes; /* the trailer's numbers, as of the loop */
	double last_build_s, last_print_s;
	int page_fd; /* the worker's result (a memfd), -1 on failure */
	size_t page_len;
	bool is_gzip;	/* the client takes gzip: the page is compressed */
	double print_s; /* what the worker took */
};

static void scrape_free(struct scrape *sc)
{
	if (sc->has_worker)
		pthread_join(sc->worker, NULL);
	ul_list_del(&sc->link);
	sc->m->nscrapes--;
	free(sc->head);
	if (sc->page_fd >= 0)
		close(sc->page_fd);
	if (sc->snap && !sc->m->spare)
		sc->m->spare = sc->snap;
	else
		ul_metrics_snap_free(sc->snap);
	free(sc);
}

/* A stdio stream that deflates into fd (gzip), for fopencookie(). */
struct gz_sink {
	z_stream z;
	int fd;
	int err;
};

static int gz_out(struct gz_sink *g, int flush)
{
	unsigned char out[65536];
	int rc;

	do {
		g->z.next_out = out;
		g->z.avail_out = sizeof(out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		if (write(g->fd, out, sizeof(out) - g->z.avail_out) !=
		    (ssize_t)(sizeof(out) - g->z.avail_out))
			return -1;
	} while (g->z.avail_out == 0);
	return 0;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t len)
{
	struct gz_sink *g = cookie;

	g->z.next_in = (unsigned char *)(uintptr_t)buf;
	g->z.avail_in = (uInt)len;
	if (g->err || gz_out(g, Z_NO_FLUSH)) {
		g->err = 1;
		return -1;
	}
	return (ssize_t)len;
}

static int gz_close(void *cookie)
{
	struct gz_sink *g = cookie;
	int rc = g->err;

	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if (!rc && gz_out(g, Z_FINISH))
		rc = 1;
	deflateEnd(&g->z);
	free(g);
	return rc ? EOF : 0;
}

/* A stream onto fd: plain, or gzip level 1 (fast; text shrinks ~10x). */
static FILE *page_stream(int fd, bool is_gzip)
{
	cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	struct gz_sink *g;
	FILE *f;

	if (!is_gzip)
		return fdopen(dup(fd), "w");
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->fd = fd;
	/* 16 + 15 window bits: a gzip wrapper, not zlib's. */
	if (deflateInit2(&g->z, 1, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	f = fopencookie(g, "w", io);
	if (!f) {
		deflateEnd(&g->z);
		free(g);
	}
	return f;
}

/*
 * The worker: the page into a memfd (the peer NIs, the scrapes' own
 * lines), gzip'd when the client takes it, then resume. libmicrohttpd sends a file with sendfile(), so
 * the loop does not copy a big page through user space.
 */
static void *print_page(void *arg)
{
	struct scrape *sc = arg;
	uint64_t t0 = ul_clock_monotonic_ns(), one = 1;
	int fd, wake_fd;
	bool is_bad;
	off_t len;
	FILE *f;

	fd = memfd_create("ulnet-metrics", MFD_CLOEXEC);
	f = fd >= 0 ? page_stream(fd, sc->is_gzip) : NULL;
	if (f) {
		fwrite(sc->head, 1, sc->head_len, f);
		if (sc->snap)
			(void)ul_metrics_snap_print(sc->snap, f);
		fprintf(f,
			"# TYPE ulnet_metrics_scrapes_total counter\n"
			"ulnet_metrics_scrapes_total %" PRIu64 "\n"
			"# TYPE ulnet_metrics_last_build_seconds gauge\n"
			"ulnet_metrics_last_build_seconds %.9f\n"
			"# TYPE ulnet_metrics_last_print_seconds gauge\n"
			"ulnet_metrics_last_print_seconds %.9f\n"
			"# TYPE ulnet_metrics_peer_nis_omitted gauge\n"
			"ulnet_metrics_peer_nis_omitted %d\n",
			sc->scrapes, sc->last_build_s, sc->last_print_s,
			!sc->snap);
		is_bad = ferror(f) != 0;
		/* Closing flushes (and finishes the gzip stream) into fd. */
		is_bad = fclose(f) != 0 || is_bad;
		len = lseek(fd, 0, SEEK_END);
		sc->page_fd = is_bad || len < 0 ? -1 : fd;
		sc->page_len = len < 0 ? 0 : (size_t)len;
		if (sc->page_fd < 0)
			close(fd);
	} else if (fd >= 0) {
		close(fd);
	}
	sc->print_s = (double)(ul_clock_monotonic_ns() - t0) / NSEC_PER_SEC;
	wake_fd = sc->m->wake_fd;
	/* The loop takes it from here; nothing of sc is touched after. */
	MHD_resume_connection(sc->conn);
	(void)!write(wake_fd, &one, sizeof(one));
	return NULL;
}

/* Whether Accept-Encoding names gzip (without q=0, which nobody sends). */
static bool accepts_gzip(struct MHD_Connection *conn)
{
	const char *ae = MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return ae && strstr(ae, "gzip") != NULL;
}

/* The first call of a scrape: the loop's part, then the worker's. */
static enum MHD_Result scrape_start(struct ul_metrics *m,
				    struct MHD_Connection *conn, void **con_cls)
{
	uint64_t t0 = ul_clock_monotonic_ns();
	struct scrape *sc;
	const char *peers;
	bool is_peers;
	int rc;

	if (m->nscrapes >= UL_METRICS_SCRAPES_MAX)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			     strdup("scrapes in progress, try later\n"), 31,
			     "text/plain");
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     strdup("out of memory\n"), 14, "text/plain");
	ul_list_add_tail(&m->scrapes_list, &sc->link);
	m->nscrapes++;
	sc->m = m;
	sc->page_fd = -1;
	sc->is_gzip = accepts_gzip(conn);
	sc->conn = conn;
	m->scrapes++;
	/*
	 * ?peers=1 / ?peers=0 ask for the peer NIs or not; without either
	 * they come while the node has at most UL_METRICS_PEER_NIS_MAX
	 * (metrics.h gives the cost of a page).
	 */
	peers = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
					    "peers");
	if (peers)
		is_peers = strcmp(peers, "0") != 0;
	else
		is_peers = ul_metrics_peer_nis(m->srv) <=
			   UL_METRICS_PEER_NIS_MAX;
	rc = head_page(m->srv, &sc->head, &sc->head_len);
	if (!rc && is_peers && ul_node_lnet_is_configured(m->srv->node)) {
		rc = ul_metrics_snap_take(m->srv, m->spare, &sc->snap);
		m->spare = NULL;
	}
	sc->scrapes = m->scrapes;
	sc->last_build_s = m->last_build_s;
	sc->last_print_s = m->last_print_s;
	m->last_build_s = (double)(ul_clock_monotonic_ns() - t0) / NSEC_PER_SEC;
	if (!rc) {
		/* Suspended first: the worker may resume it at once. */
		MHD_suspend_connection(conn);
		if (pthread_create(&sc->worker, NULL, print_page, sc) == 0) {
			sc->has_worker = true;
			*con_cls = sc;
			return MHD_YES;
		}
		MHD_resume_connection(conn);
	}
	scrape_free(sc);
	return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		     strdup("out of memory\n"), 14, "text/plain");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct ul_metrics *m = cls;
	struct scrape *sc = *con_cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	bool gzip;

	(void)version;
	(void)upload;
	(void)upload_len;
	if (sc) {
		/* Resumed: the worker is done with it. */
		pthread_join(sc->worker, NULL);
		sc->has_worker = false;
		m->last_print_s = sc->print_s;
		*con_cls = NULL;
		resp = sc->page_fd < 0
			       ? NULL
			       : MHD_create_response_from_fd64(sc->page_len,
							       sc->page_fd);
		if (!resp) {
			scrape_free(sc);
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     strdup("cannot build the page\n"), 22,
				     "text/plain");
		}
		sc->page_fd = -1; /* the response's now */
		gzip = sc->is_gzip;
		scrape_free(sc);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; version=0.0.4; "
					"charset=utf-8");
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
					MHD_HTTP_HEADER_ACCEPT_ENCODING);
		if (gzip)
			MHD_add_response_header(
				resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
		ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			     strdup("GET only\n"), 9, "text/plain");
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND,
			     strdup("ulnet: metrics are at /metrics\n"), 31,
			     "text/plain");
	return scrape_start(m, conn, con_cls);
}

/* A request ended, answered or not (the client left, the daemon stops). */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	if (*con_cls) {
		scrape_free(*con_cls);
		*con_cls = NULL;
	}
}

/* Let libmicrohttpd work, then arm its next timeout on the loop. */
static void run(struct ul_metrics *m)
{
	struct ul_timer_heap *h = ul_loop_timers(m->loop);
	MHD_UNSIGNED_LONG_LONG ms;

	(void)MHD_run(m->mhd);
	ul_timer_cancel(h, &m->timer);
	if (MHD_get_timeout(m->mhd, &ms) == MHD_YES)
		(void)ul_timer_arm(h, &m->timer,
				   h->now_ns + (uint64_t)ms * MSEC_PER_NSEC);
}

static void on_io(struct ul_io *io, uint32_t events)
{
	(void)events;
	run(ul_container_of(io, struct ul_metrics, io));
}

static void on_wake(struct ul_io *io, uint32_t events)
{
	struct ul_metrics *m = ul_container_of(io, struct ul_metrics, wake_io);
	uint64_t n;

	(void)events;
	(void)!read(m->wake_fd, &n, sizeof(n));
	run(m);
}

static void on_timer(struct ul_timer *t, uint64_t now_ns)
{
	(void)now_ns;
	run(ul_container_of(t, struct ul_metrics, timer));
}

static int parse_addr(const char *s, struct sockaddr_in *sin)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon || (size_t)(colon - s) >= sizeof(host) || colon == s)
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		return -EINVAL;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -EINVAL;
}

int ul_metrics_create(struct ul_loop *loop, struct ul_ctlsrv *srv,
		      const char *addr, struct ul_metrics **out,
		      struct ul_err *err)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_in sin;
	struct ul_metrics *m;
	int rc;

	if (parse_addr(addr, &sin))
		return ul_err_set(err, -EINVAL,
				  "metrics address '%s': want IPv4:PORT", addr);
	m = calloc(1, sizeof(*m));
	if (!m)
		return ul_err_set(err, -ENOMEM, "out of memory");
	m->loop = loop;
	m->srv = srv;
	ul_list_init(&m->scrapes_list);
	ul_timer_init(&m->timer, on_timer);
	m->mhd = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME,
		ntohs(sin.sin_port), NULL, NULL, on_request, m,
		MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, m, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)10, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
		MHD_OPTION_END);
	if (!m->mhd) {
		free(m);
		return ul_err_set(err, -EADDRINUSE,
				  "metrics: cannot listen on %s", addr);
	}
	info = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	rc = info ? ul_io_start(loop, &m->io, info->epoll_fd, EPOLLIN, on_io)
		  : -EINVAL;
	m->wake_fd = rc ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!rc && m->wake_fd < 0)
		rc = -errno;
	if (!rc) {
		rc = ul_io_start(loop, &m->wake_io, m->wake_fd, EPOLLIN,
				 on_wake);
		if (rc)
			close(m->wake_fd);
	}
	if (rc) {
		ul_io_stop(&m->io);
		MHD_stop_daemon(m->mhd);
		free(m);
		return ul_err_set(err, rc, "metrics: cannot watch the server");
	}
	*out = m;
	return 0;
}

void ul_metrics_destroy(struct ul_metrics *m)
{
	struct scrape *sc, *tmp;

	if (!m)
		return;
	ul_io_stop(&m->io);
	ul_io_stop(&m->wake_io);
	ul_timer_cancel(ul_loop_timers(m->loop), &m->timer);
	/* The workers end on their own (they wait on nothing). */
	ul_list_for_each_entry(sc, &m->scrapes_list, link) {
		if (sc->has_worker) {
			pthread_join(sc->worker, NULL);
			sc->has_worker = false;
		}
	}
	MHD_stop_daemon(m->mhd);
	ul_list_for_each_entry_safe(sc, tmp, &m->scrapes_list, link)
		scrape_free(sc);
	close(m->wake_fd);
	ul_metrics_snap_free(m->spare);
	free(m);
}
