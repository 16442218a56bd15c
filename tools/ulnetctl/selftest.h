/*
 * ulnetctl selftest: lnet_selftest's concepts over ulnetd's control
 * sockets (selftest.c runs a batch, selftest_report.c prints it).
 *
 * A node is a ulnetd reached through its control socket, a node
 * selftest runs itself (local:N), or a bare NID (a ulnet node that only
 * serves, through the perf sink every ulnetd posts; a kernel node has
 * none). Groups name nodes; a batch is tests that run at once; a test
 * sends from every node of one group to nodes of another as the
 * distribution says, `concurrency` operations in flight per sender.
 */
#ifndef ULNETCTL_SELFTEST_H
#define ULNETCTL_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/proto.h"
#include "ulnet/ulnet.h"

#define ST_GROUPS_MAX 16
#define ST_NODES_MAX 64
#define ST_TESTS_MAX 16
#define ST_RAILS_MAX 32
/* Samples of one node's counters: an hour at the finest interval. */
#define ST_SAMPLES_MAX 36000

/* One local NI's counters (SELFTEST_STAT). */
struct st_rail {
	struct ulnet_nid nid;
	uint64_t send_count, send_bytes;
	uint64_t recv_count, recv_bytes;
};

/* One SELFTEST_STAT answer and when it came (ns since the start). */
struct st_stat {
	uint64_t t_ns;
	size_t nrails;
	struct st_rail rails[ST_RAILS_MAX];
	bool has_sink;
	uint64_t sink_checked, sink_check_errors;
};

/* A rail's rates between two samples, for the rates file and the plot. */
struct st_point {
	double t; /* seconds since the start, at the sample's end */
	double send_mibs[ST_RAILS_MAX];
	double recv_mibs[ST_RAILS_MAX];
};

struct st_node {
	char *name; /* as given: a control socket path, a NID, local:N */
	char *ctl;  /* the control socket, NULL for a bare NID */
	unsigned int local_idx; /* local:N: N (selftest_local.c), else 0 */
	bool has_nid;		/* nid: whom others send to */
	struct ulnet_nid nid;
	struct st_stat first; /* at the start */
	struct st_stat end;   /* when the run time was over */
	struct st_stat prev;  /* the last sample taken */
	bool has_end;
	size_t npoints;
	struct st_point *points;
};

struct st_group {
	char *name;
	size_t n;
	size_t nodes[ST_NODES_MAX]; /* indexes into st_batch.nodes */
};

/* What the senders of one test reported, added up. */
struct st_result {
	uint64_t started, completed, failed, bytes, check_errors;
	double mibs, rpcs; /* each sender's rate, added up */
	size_t nfails;
	struct ul_ctl_perf_fail fails[UL_CTL_PERF_FAILS_MAX];
	size_t nerrors; /* senders whose request itself failed */
	char error[UL_CTL_STR_MAX];
};

struct st_test {
	char *spec;	/* as written: "brw write size=1M check=simple" */
	uint32_t op;	/* enum ul_perf_op */
	uint32_t check; /* enum ul_perf_check */
	uint32_t size;
	uint32_t concurrency;
	uint32_t dist, span; /* --distribute dist:span; span 0: all */
	size_t from, to;     /* groups */
	struct st_result res;
};

struct st_batch {
	uint32_t seconds;
	uint32_t interval_ms;
	size_t nnodes, ngroups, ntests;
	struct st_node nodes[ST_NODES_MAX];
	struct st_group groups[ST_GROUPS_MAX];
	struct st_test tests[ST_TESTS_MAX];
	/* selftest's own loopback nodes (local:N; selftest_local.c) */
	unsigned int nlocal;	  /* the highest N named */
	unsigned int local_rails; /* NIs each, 1..ST_LOCAL_RAILS_MAX */
	uint16_t local_port;
	char local_dir[256]; /* their control sockets' directory */
	char local_err[384];
	struct st_local *locals; /* nlocal of them, by N - 1 */
};

#define ST_LOCAL_MAX 16
#define ST_LOCAL_RAILS_MAX 8

/*
 * selftest_local.c: start every local:N node the batch names, each with
 * its control socket (nd->ctl) in a new temporary directory; 0 or
 * -errno (local_err says which node and why). Stop them all, and remove
 * the directory, whatever start did.
 */
struct st_local;
int st_local_start(struct st_batch *b);
void st_local_stop(struct st_batch *b);

/* selftest_report.c */
int st_report_yaml(const struct st_batch *b);
int st_report_text(const struct st_batch *b);
/* The rates file (TSV, a block per node and rail) and its gnuplot PNG. */
int st_write_rates(const struct st_batch *b, const char *path);
int st_plot(const struct st_batch *b, const char *rates, const char *png);

#endif /* ULNETCTL_SELFTEST_H */
