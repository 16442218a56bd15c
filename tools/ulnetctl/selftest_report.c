/*
 * What `ulnetctl selftest run` prints (selftest.h): YAML in lnetctl's
 * style, or the text of lst stat; and the per-rail rates over time as a
 * TSV file and a gnuplot chart.
 *
 * A node's rates are its counters' change over the run time (from the
 * first sample to the one taken when the run time was over), so the
 * drain after it does not dilute them. lst stat's "LNet Rates" are LNet
 * messages a second, received [R] and sent [W]; "LNet Bandwidth" their
 * payload bytes. A test's MiB/s and RPC/s add up what each sender's
 * stream completed within its own sending time (runtime/perf.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/show_yaml.h"
#include "ctl/yemit.h"
#include "runtime/perf.h"

#include "cmd.h"
#include "ctl.h"
#include "selftest.h"

/* A node's totals over the run time. */
struct node_rates {
	double send_mibs, recv_mibs, send_mps, recv_mps;
	double rail_send[ST_RAILS_MAX], rail_recv[ST_RAILS_MAX];
	size_t nrails;
};

static double per_s(uint64_t a, uint64_t b, uint64_t ns)
{
	return b > a && ns ? (double)(b - a) / ((double)ns / 1e9) : 0.0;
}

static void node_rates(const struct st_node *nd, struct node_rates *r)
{
	const struct st_stat *a = &nd->first, *b = &nd->end;
	uint64_t ns = b->t_ns > a->t_ns ? b->t_ns - a->t_ns : 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < b->nrails && i < a->nrails; i++) {
		const struct st_rail *x = &a->rails[i], *y = &b->rails[i];

		r->rail_send[i] = per_s(x->send_bytes, y->send_bytes, ns) /
				  (1024.0 * 1024.0);
		r->rail_recv[i] = per_s(x->recv_bytes, y->recv_bytes, ns) /
				  (1024.0 * 1024.0);
		r->send_mibs += r->rail_send[i];
		r->recv_mibs += r->rail_recv[i];
		r->send_mps += per_s(x->send_count, y->send_count, ns);
		r->recv_mps += per_s(x->recv_count, y->recv_count, ns);
	}
	r->nrails = i;
}

static void distribution(const struct st_test *t, char *buf, size_t size)
{
	if (t->span)
		snprintf(buf, size, "%u:%u", t->dist, t->span);
	else
		snprintf(buf, size, "%u:all", t->dist);
}

static void emit_test(struct ul_yemit *y, const struct st_batch *b,
		      const struct st_test *t)
{
	const struct st_result *r = &t->res;
	char dist[32], name[32];
	size_t i;

	distribution(t, dist, sizeof(dist));
	ul_yemit_map_start(y);
	ul_yemit_kv(y, "test", "%s", t->spec);
	ul_yemit_kv(y, "from", "%s", b->groups[t->from].name);
	ul_yemit_kv(y, "to", "%s", b->groups[t->to].name);
	ul_yemit_kv(y, "concurrency", "%u", t->concurrency);
	ul_yemit_kv(y, "distribute", "%s", dist);
	ul_yemit_kv(y, "senders", "%zu", b->groups[t->from].n);
	ul_yemit_kv(y, "started", "%llu", (unsigned long long)r->started);
	ul_yemit_kv(y, "completed", "%llu", (unsigned long long)r->completed);
	ul_yemit_kv(y, "failed", "%llu", (unsigned long long)r->failed);
	if (r->nfails) {
		ul_yemit_str(y, "failures");
		ul_yemit_map_start(y);
		for (i = 0; i < r->nfails; i++)
			ul_yemit_kv(y,
				    ulnetctl_status_name(r->fails[i].status,
							 name, sizeof(name)),
				    "%llu",
				    (unsigned long long)r->fails[i].count);
		ul_yemit_map_end(y);
	}
	if (t->check)
		ul_yemit_kv(y, "check_errors", "%llu",
			    (unsigned long long)r->check_errors);
	if (r->nerrors)
		ul_yemit_kv(y, "error", "%s", r->error);
	ul_yemit_kv(y, "RPC/s", "%.0f", r->rpcs);
	ul_yemit_kv(y, "MiB/s", "%.1f", r->mibs);
	ul_yemit_map_end(y);
}

static void emit_node(struct ul_yemit *y, const struct st_node *nd)
{
	char nid[ULNET_NIDSTR_SIZE];
	struct node_rates r;
	double total;
	size_t i;

	node_rates(nd, &r);
	total = r.send_mibs + r.recv_mibs;
	ul_yemit_map_start(y);
	ul_yemit_kv(y, "node", "%s", nd->name);
	if (nd->has_nid)
		ul_yemit_kv(y, "nid", "%s",
			    ulnet_nid_format(&nd->nid, nid, sizeof(nid)));
	ul_yemit_kv(y, "sent msgs/s", "%.0f", r.send_mps);
	ul_yemit_kv(y, "received msgs/s", "%.0f", r.recv_mps);
	ul_yemit_kv(y, "sent MiB/s", "%.1f", r.send_mibs);
	ul_yemit_kv(y, "received MiB/s", "%.1f", r.recv_mibs);
	if (nd->end.sink_checked > nd->first.sink_checked)
		ul_yemit_kv(y, "check_errors", "%llu",
			    (unsigned long long)(nd->end.sink_check_errors -
						 nd->first.sink_check_errors));
	ul_yemit_str(y, "rails");
	ul_yemit_seq_start(y);
	for (i = 0; i < r.nrails; i++) {
		ul_yemit_map_start(y);
		ul_yemit_kv(y, "nid", "%s",
			    ulnet_nid_format(&nd->end.rails[i].nid, nid,
					     sizeof(nid)));
		ul_yemit_kv(y, "sent MiB/s", "%.1f", r.rail_send[i]);
		ul_yemit_kv(y, "received MiB/s", "%.1f", r.rail_recv[i]);
		ul_yemit_kv(
			y, "share", "%.1f%%",
			total > 0 ? 100.0 * (r.rail_send[i] + r.rail_recv[i]) /
					    total
				  : 0.0);
		ul_yemit_map_end(y);
	}
	ul_yemit_seq_end(y);
	ul_yemit_map_end(y);
}

int st_report_yaml(const struct st_batch *b)
{
	struct ul_yemit y;
	size_t i;

	if (ul_yemit_open(&y, stdout, 4, false))
		return -EIO;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, "selftest");
	ul_yemit_map_start(&y);
	ul_yemit_kv(&y, "seconds", "%u", b->seconds);
	ul_yemit_str(&y, "tests");
	ul_yemit_seq_start(&y);
	for (i = 0; i < b->ntests; i++)
		emit_test(&y, b, &b->tests[i]);
	ul_yemit_seq_end(&y);
	ul_yemit_str(&y, "nodes");
	ul_yemit_seq_start(&y);
	for (i = 0; i < b->nnodes; i++)
		if (b->nodes[i].ctl)
			emit_node(&y, &b->nodes[i]);
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y) ? -EIO : 0;
}

/* Average, least and most of one figure over a group's ulnetds. */
struct spread {
	double sum, min, max;
	size_t n;
};

static void spread_add(struct spread *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

static void print_spread(char rw, const struct spread *s, const char *unit,
			 int prec)
{
	double avg = s->n ? s->sum / (double)s->n : 0.0;

	printf("[%c] Avg: %-8.*f %s Min: %-8.*f %s Max: %-8.*f %s\n", rw, prec,
	       avg, unit, prec, s->min, unit, prec, s->max, unit);
}

/* lst stat's two blocks for one group. */
static void text_group(const struct st_batch *b, const struct st_group *g)
{
	struct spread rr = { 0 }, wr = { 0 }, rb = { 0 }, wb = { 0 };
	struct node_rates r;
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct st_node *nd = &b->nodes[g->nodes[i]];

		if (!nd->ctl)
			continue;
		node_rates(nd, &r);
		spread_add(&rr, r.recv_mps);
		spread_add(&wr, r.send_mps);
		spread_add(&rb, r.recv_mibs);
		spread_add(&wb, r.send_mibs);
	}
	if (!rr.n)
		return; /* bare NIDs only: nothing sampled */
	printf("[LNet Rates of %s]\n", g->name);
	print_spread('R', &rr, "RPC/s", 0);
	print_spread('W', &wr, "RPC/s", 0);
	printf("[LNet Bandwidth of %s]\n", g->name);
	print_spread('R', &rb, "MiB/s", 2);
	print_spread('W', &wb, "MiB/s", 2);
}

int st_report_text(const struct st_batch *b)
{
	char nid[ULNET_NIDSTR_SIZE], dist[32];
	struct node_rates r;
	size_t i, k;

	for (i = 0; i < b->ngroups; i++)
		text_group(b, &b->groups[i]);
	for (i = 0; i < b->ntests; i++) {
		const struct st_test *t = &b->tests[i];
		const struct st_result *res = &t->res;

		distribution(t, dist, sizeof(dist));
		printf("[Test %zu: %s, %s -> %s, distribute %s, concurrency "
		       "%u]\n",
		       i + 1, t->spec, b->groups[t->from].name,
		       b->groups[t->to].name, dist, t->concurrency);
		printf("    completed %llu, failed %llu, check errors %llu, "
		       "%.0f RPC/s, %.2f MiB/s\n",
		       (unsigned long long)res->completed,
		       (unsigned long long)res->failed,
		       (unsigned long long)res->check_errors, res->rpcs,
		       res->mibs);
		if (res->nerrors)
			printf("    error: %s\n", res->error);
	}
	for (i = 0; i < b->nnodes; i++) {
		const struct st_node *nd = &b->nodes[i];

		if (!nd->ctl)
			continue;
		node_rates(nd, &r);
		printf("[Rails of %s]\n", nd->name);
		for (k = 0; k < r.nrails; k++)
			printf("    %-24s [R] %-8.2f MiB/s [W] %-8.2f MiB/s\n",
			       ulnet_nid_format(&nd->end.rails[k].nid, nid,
						sizeof(nid)),
			       r.rail_recv[k], r.rail_send[k]);
	}
	return fflush(stdout) ? -EIO : 0;
}

/*
 * One block per node and rail (gnuplot's "index"), two blank lines
 * between blocks: seconds, sent MiB/s, received MiB/s.
 */
int st_write_rates(const struct st_batch *b, const char *path)
{
	char nid[ULNET_NIDSTR_SIZE];
	size_t i, k, p, nblocks = 0;
	FILE *f = fopen(path, "w");

	if (!f) {
		ul_show_yaml_err(stderr, "selftest", "run", -errno,
				 "cannot write the rates file");
		return ULNETCTL_RC_BAD_PARAM;
	}
	fprintf(f,
		"# ulnetctl selftest: MiB/s per rail, sampled every "
		"%u ms\n",
		b->interval_ms);
	for (i = 0; i < b->nnodes; i++) {
		const struct st_node *nd = &b->nodes[i];

		if (!nd->ctl)
			continue;
		for (k = 0; k < nd->first.nrails; k++) {
			if (nblocks++)
				fprintf(f, "\n\n");
			fprintf(f, "# node %s rail %s\n", nd->name,
				ulnet_nid_format(&nd->first.rails[k].nid, nid,
						 sizeof(nid)));
			fprintf(f, "# seconds\tsent_MiB/s\treceived_MiB/s\n");
			for (p = 0; p < nd->npoints; p++)
				fprintf(f, "%.3f\t%.2f\t%.2f\n",
					nd->points[p].t,
					nd->points[p].send_mibs[k],
					nd->points[p].recv_mibs[k]);
		}
	}
	if (fclose(f)) {
		ul_show_yaml_err(stderr, "selftest", "run", -EIO,
				 "cannot write the rates file");
		return ULNETCTL_RC_BAD_PARAM;
	}
	return 0;
}

/* gnuplot quotes with '...'; a quote inside is doubled. */
static void gp_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * A PNG of every rail's traffic (sent + received MiB/s) over time,
 * drawn by gnuplot (Debian's gnuplot-nox) from the rates file.
 */
int st_plot(const struct st_batch *b, const char *rates, const char *png)
{
	char nid[ULNET_NIDSTR_SIZE], label[ULNET_NIDSTR_SIZE + 256];
	size_t i, k, block = 0;
	FILE *gp;
	int status;

	gp = popen("gnuplot 2>&1", "w");
	if (!gp) {
		ul_show_yaml_err(stderr, "selftest", "run", -errno,
				 "cannot run gnuplot");
		return ULNETCTL_RC_BAD_PARAM;
	}
	fprintf(gp,
		"set terminal pngcairo noenhanced size 900,500\nset output ");
	gp_quoted(gp, png);
	fprintf(gp, "\nset title 'ulnetctl selftest: traffic per rail'\n"
		    "set xlabel 'seconds'\nset ylabel 'MiB/s (sent + "
		    "received)'\nset key outside right\nset grid\n"
		    "set yrange [0:*]\nplot ");
	for (i = 0; i < b->nnodes; i++) {
		const struct st_node *nd = &b->nodes[i];

		if (!nd->ctl)
			continue;
		for (k = 0; k < nd->first.nrails; k++, block++) {
			snprintf(label, sizeof(label), "%s %s", nd->name,
				 ulnet_nid_format(&nd->first.rails[k].nid, nid,
						  sizeof(nid)));
			if (block)
				fprintf(gp, ", \\\n     ");
			gp_quoted(gp, rates);
			fprintf(gp,
				" index %zu using 1:($2+$3) with "
				"linespoints title ",
				block);
			gp_quoted(gp, label);
		}
	}
	if (!block)
		fprintf(gp, "0 notitle");
	fprintf(gp, "\n");
	status = pclose(gp);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ul_show_yaml_err(stderr, "selftest", "run", -ENOEXEC,
				 WIFEXITED(status) && WEXITSTATUS(status) == 127
					 ? "the plot needs gnuplot (Debian: "
					   "gnuplot-nox)"
					 : "gnuplot failed to draw the plot");
		return ULNETCTL_RC_BAD_PARAM;
	}
	return 0;
}
