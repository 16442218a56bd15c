/*
 * The import engine (src/ctl/conf_import.h) against a recording server:
 * each case imports a file and compares, line by line, the requests it
 * sends, the errors it reports and the notes it passes on, and the
 * import's status, with what lnetctl does (reference/lnetctl.md §16,
 * §17; udsp.md §7.2). The host has lo and eth1 (192.168.1.2) up, eth2
 * down.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/udsp.h"
#include "wire/udsp_block.h"
#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/conf_import.h"

static const struct ul_conf_hostaddr host[] = {
	{ "lo", true, UL_CONF_ADDR_LINK, 0, { 0 }, true },
	{ "eth1", true, UL_CONF_ADDR_LINK, 0, { 0 }, false },
	{ "eth2", false, UL_CONF_ADDR_LINK, 0, { 0 }, false },
	{ "lo", true, UL_CONF_ADDR_IPV4, 0x7f000001, { 0 }, true },
	{ "eth1", true, UL_CONF_ADDR_IPV4, 0xc0a80102, { 0 }, false },
	{ "eth2", false, UL_CONF_ADDR_IPV4, 0xc0a80202, { 0 }, false },
};

/* A request the server refuses: the first whose text starts so. */
struct refusal {
	const char *prefix;
	int rc;
	const char *msg;
	bool is_lost; /* no answer (ops.call's is_lost) */
};

struct rec {
	char log[4096];
	size_t len;
	const struct refusal *refuse;
	/* batches (ops.batch_add): how many fit one, the queued ones */
	size_t batch_cap;
	bool is_unbatched; /* a daemon without batches */
	size_t nq;
	uint16_t q_ops[4];
	char q[4][128];
};

__attribute__((format(printf, 2, 3))) static void add(struct rec *r,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->len += (size_t)vsnprintf(r->log + r->len, sizeof(r->log) - r->len,
				    fmt, ap);
	va_end(ap);
	assert_true(r->len < sizeof(r->log));
}

static const char *op_name(uint16_t op)
{
	switch (op) {
	case UL_CTL_OP_NET_ADD:
		return "net add";
	case UL_CTL_OP_NET_DEL:
		return "net del";
	case UL_CTL_OP_ROUTE_ADD:
		return "route add";
	case UL_CTL_OP_ROUTE_DEL:
		return "route del";
	case UL_CTL_OP_PEER_ADD:
		return "peer add";
	case UL_CTL_OP_PEER_DEL:
		return "peer del";
	case UL_CTL_OP_SET:
		return "set";
	case UL_CTL_OP_UDSP_ADD:
		return "udsp add";
	case UL_CTL_OP_UDSP_DEL:
		return "udsp del";
	default:
		return "?";
	}
}

/* One request as a line: "net add tcp if eth1 cpt [0,1]". */
static void describe(char *buf, size_t len, uint16_t op,
		     const struct ul_ctl_args *a)
{
	char nid[ULNET_NIDSTR_SIZE];
	struct ul_udsp_rule *rule;
	size_t off, i;

	off = (size_t)snprintf(buf, len, "%s", op_name(op));
	if (a->has & UL_CTL_ARG_NET)
		off += (size_t)snprintf(buf + off, len - off, " %s", a->net);
	if (a->has & UL_CTL_ARG_NID)
		off += (size_t)snprintf(buf + off, len - off, " %s",
					ulnet_nid_format(&a->nid, nid,
							 sizeof(nid)));
	for (i = 0; i < a->nifs; i++)
		off += (size_t)snprintf(buf + off, len - off, " if %s",
					a->ifs[i]);
	for (i = 0; i < a->nnids; i++)
		off += (size_t)snprintf(buf + off, len - off, " nid %s",
					ulnet_nid_format(&a->nids[i], nid,
							 sizeof(nid)));
	if (a->has & UL_CTL_ARG_PEER_CREDITS)
		off += (size_t)snprintf(buf + off, len - off, " pc %d",
					a->peer_credits);
	if (a->has & UL_CTL_ARG_CONNS_PER_PEER)
		off += (size_t)snprintf(buf + off, len - off, " cpp %d",
					a->conns_per_peer);
	if (a->has & UL_CTL_ARG_CPT)
		off += (size_t)snprintf(buf + off, len - off, " cpt %s",
					a->cpt);
	if (a->has & UL_CTL_ARG_HOP)
		off += (size_t)snprintf(buf + off, len - off, " hop %d",
					a->hop);
	if (a->flags & UL_CTL_ARGF_NON_MR)
		off += (size_t)snprintf(buf + off, len - off, " non_mr");
	if (a->has & UL_CTL_ARG_NAME)
		off += (size_t)snprintf(buf + off, len - off, " %s %lld",
					a->name, (long long)a->value);
	if (a->has & UL_CTL_ARG_IDX)
		off += (size_t)snprintf(buf + off, len - off, " idx %d",
					a->idx);
	if ((a->has & UL_CTL_ARG_UDSP_BLOCK) &&
	    ul_udsp_rule_decode(a->udsp_block, a->udsp_len, &rule, NULL) == 0) {
		snprintf(buf + off, len - off, " idx %d prio %u", rule->idx,
			 rule->priority);
		ul_udsp_rule_free(rule);
	}
}

static int call(void *ctx, uint16_t op, const struct ul_ctl_args *a,
		struct ul_err *err, bool *is_lost)
{
	struct rec *r = ctx;
	const struct refusal *f;
	char line[512];

	describe(line, sizeof(line), op, a);
	add(r, "%s\n", line);
	for (f = r->refuse; f && f->prefix; f++)
		if (strncmp(line, f->prefix, strlen(f->prefix)) == 0) {
			/* no answer at all: the daemon is not there */
			*is_lost = f->is_lost;
			return ul_err_set(err, f->rc, "%s", f->msg);
		}
	return 0;
}

static int batch_add(void *ctx, uint16_t op, const struct ul_ctl_args *a)
{
	struct rec *r = ctx;

	assert_true(r->batch_cap <= 4);
	if (r->nq == r->batch_cap)
		return -ENOSPC;
	r->q_ops[r->nq] = op;
	describe(r->q[r->nq++], sizeof(r->q[0]), op, a);
	return 0;
}

/* "batch of N", its items; a refusal or no answer stops at its item. */
static int batch_send(void *ctx, size_t *done, struct ul_err *err,
		      bool *is_lost, bool *is_unsupported)
{
	struct rec *r = ctx;
	const struct refusal *f;
	size_t i, n = r->nq;

	r->nq = 0;
	add(r, "batch of %zu\n", n);
	if (r->is_unbatched) {
		*is_unsupported = true;
		return ul_err_set(err, -EOPNOTSUPP, "unknown op");
	}
	for (i = 0; i < n; i++) {
		add(r, "  %s\n", r->q[i]);
		for (f = r->refuse; f && f->prefix; f++)
			if (strncmp(r->q[i], f->prefix, strlen(f->prefix)) ==
			    0) {
				*is_lost = f->is_lost;
				*done = i;
				return ul_err_set(err, f->rc, "%s", f->msg);
			}
	}
	*done = n;
	return 0;
}

static void report(void *ctx, const struct ul_conf_report *e)
{
	struct rec *r = ctx;

	if (e->is_silent)
		add(r, "silent%s %s %d %s\n", e->is_ignored ? " ignored" : "",
		    e->object, e->errnum, e->descr ? e->descr : "-");
	else if (e->d2_op)
		add(r, "D2 %s %s seq %d %d %s\n", e->d2_op, e->object,
		    e->seq_no, e->errnum, e->descr ? e->descr : "-");
	else
		add(r, "D1 %s %s %d %s\n", e->op, e->object, e->errnum,
		    e->descr ? e->descr : "-");
}

static void note(void *ctx, const struct ul_conf_warning *w)
{
	struct rec *r = ctx;

	/* what lnetctl skips without a word is left out of the rows */
	if (w->kind != UL_CONF_NOTE_SKIPPED)
		add(r, "note %d %s\n", w->kind, w->text);
}

struct row {
	const char *yaml;
	enum ul_conf_dialect dialect;
	bool is_del;
	const struct refusal *refuse;
	int status;
	const char *log;
};

static const struct refusal exists[] = {
	{ "net add tcp1", -EEXIST, "cannot add LNet NI", false },
	{ NULL, 0, NULL, false },
};
static const struct refusal setter[] = {
	{ "set retry_count", -EINVAL, "retry_count too high", false },
	{ "set numa_range", -ERANGE, "", false },
	{ "udsp add idx 1", -EEXIST, "", false },
	{ "udsp del idx 0", -ENOENT, "no rule at idx 0", false },
	{ NULL, 0, NULL, false },
};
static const struct refusal old_refusals[] = {
	{ "route add tcp8", -EHOSTUNREACH, "", false },
	{ "route add tcp9 nid 192.168.1.11@tcp", -EEXIST, "", false },
	{ "net add tcp1", -EEXIST, "cannot add LNet NI", false },
	{ NULL, 0, NULL, false },
};

/* No daemon at the socket: no request gets an answer. */
#define NO_DAEMON                                                              \
	"cannot connect to ulnetd at /x.ctl: No such file or directory (is "   \
	"ulnetd running? see --ctl)"
static const struct refusal lost[] = {
	{ "", -ENOENT, NO_DAEMON, true },
	{ NULL, 0, NULL, false },
};

static const struct row rows[] = {
	/*
	 * 0: a block's NIs in one request: the last tunables seen, the
	 * union of the CPTs; a block naming no interface takes the first up
	 * IPv4 one but lo, for add and del (§17.2).
	 */
	{ "net:\n  - net type: tcp\n    local NI(s):\n"
	  "      - interfaces: {0: eth1}\n        tunables: {peer_credits: 8}\n"
	  "        CPT: '[0]'\n"
	  "      - interfaces: {0: 'lo[1]'}\n        tunables: {peer_credits: "
	  "16}\n        CPT: '[1]'\n"
	  "  - net type: tcp2\n    lnd tunables: {conns_per_peer: 4}\n",
	  UL_CONF_NETLINK, false, NULL, 0,
	  "net add tcp if eth1 if lo[1] pc 16 cpt [0,1]\n"
	  "net add tcp2 if eth1 cpp 4\n" },
	{ "net:\n  - net type: tcp2\n    local NI(s):\n      - tunables: {}\n",
	  UL_CONF_NETLINK, true, NULL, 0, "net del tcp2 if eth1\n" },
	/* 2: LNet refuses a block: its error, lnetctl's second, the end */
	{ "net:\n  - net type: tcp1\n    interfaces: {0: eth1}\n"
	  "global: {retry_count: 1}\n",
	  UL_CONF_NETLINK, false, exists, -EINVAL,
	  "net add tcp1 if eth1\n"
	  "D1 add net -17 cannot add LNet NI\n"
	  "D1 add import -22 Failed to configure NI on net 'tcp1' rc = -22\n" },
	/* 3: an interface lnetctl cannot use: -ENOMSG, nothing sent */
	{ "net:\n  - net type: tcp\n    interfaces: {0: eth2}\n",
	  UL_CONF_NETLINK, false, NULL, -ENOMSG,
	  "D1 add import -42 Matched interface 'eth2' is not UP\n" },
	/* 4: ip2nets: no match skipped, a net twice once, none: an error */
	{ "ip2nets:\n  - net-spec: tcp3\n    ip-range: {0: 10.*.*.*}\n"
	  "  - net-spec: tcp4\n    ip-range: {0: 192.168.*.*}\n"
	  "  - net-spec: tcp4\n    interfaces: {0: lo}\n"
	  "ip2nets:\n  - net-spec: tcp5\n    ip-range: {0: 10.*.*.*}\n",
	  UL_CONF_NETLINK, false, NULL, -EINVAL,
	  "net add tcp4 if eth1\n"
	  "D1 add import -22 No ip2nets rules applied\n" },
	/*
	 * 5: §16 Quirk: a global value refused fails without a word (only
	 * a daemon's log hears why); lnetctl's own checks
	 * (response_tracking) send nothing; a value LNet refuses is
	 * -ENODATA; what came before stays.
	 */
	{ "global: {discovery: 7, response_tracking: 10}\n", UL_CONF_NETLINK,
	  false, NULL, -EINVAL,
	  "set discovery 1\n"
	  "silent response_tracking -22 Valid values are: 0, 1, 2, or 3\n" },
	{ "global: {retry_count: 300}\n", UL_CONF_NETLINK, false, setter,
	  -ENODATA,
	  "set retry_count 300\nsilent retry_count -61 retry_count too "
	  "high\n" },
	/* a streamed section LNet refuses: its error, as the import's */
	{ "numa: {range: 9}\n", UL_CONF_NETLINK, false, setter, -EINVAL,
	  "set numa_range 9\nD1 add import -34 -\n" },
	/* 8: --del: three keys back to their defaults, the others alone */
	{ "global: {numa_range: 2, max_intf: 50, discovery: 0, "
	  "retry_count: 1, lnd_timeout: 5}\n",
	  UL_CONF_NETLINK, true, NULL, 0,
	  "set numa_range 0\nset max_interfaces 4096\nset discovery 1\n" },
	/*
	 * 9: routing and buffers in file order (§8.4: pools set before
	 * routing is on are not kept); a negative count leaves its pool.
	 */
	{ "buffers: {tiny: 4096, large: -5}\nrouting: {enable: 2}\n",
	  UL_CONF_NETLINK, false, NULL, 0,
	  "note 2 buffers: counts are kept and shown only while routing is on "
	  "(LNet drops them while it is off)\n"
	  "set tiny_buffers 4096\nset small_buffers 0\nset large_buffers -1\n"
	  "set routing 0\n" },
	/* 10: UDSP: priority carried, UINT32_MAX before any, 0 refused */
	{ "udsp:\n  - {idx: 0, src: tcp}\n  - {idx: 1, dst: tcp1, priority: "
	  "2}\n  - {idx: 2, dst: tcp2}\n  - {idx: 3, src: tcp3, priority: 0}\n"
	  "  - {idx: 4, src: tcp4, priority: 1}\n",
	  UL_CONF_NETLINK, false, setter, -EINVAL,
	  "udsp add idx 0 prio 4294967295\nudsp add idx 1 prio 2\n"
	  "silent ignored udsp -17 rule idx 1: cannot add udsp: File exists\n"
	  "udsp add idx 2 prio 2\n"
	  "silent udsp -22 rule idx 3: priority 0 gives no action\n" },
	/* 11: --del from the highest index; a refusal: silent, -1 */
	{ "udsp:\n  - {idx: 2, src: tcp}\n  - {idx: 0, src: tcp2}\n"
	  "  - {idx: 5, dst: tcp}\n",
	  UL_CONF_NETLINK, true, setter, -1,
	  "udsp del idx 5\nudsp del idx 2\nudsp del idx 0\n"
	  "silent udsp -1 rule idx 0: cannot del udsp: no rule at idx 0\n" },
	/* 12: the parse's refusal comes after what precedes it */
	{ "peer:\n  - primary nid: 1.2.3.4@tcp\n    Multi-Rail: false\n"
	  "  - primary nid: 1.2.3.5@tcp\n    Multi-Rail: maybe\n",
	  UL_CONF_NETLINK, false, NULL, -EINVAL,
	  "peer add 1.2.3.4@tcp non_mr\n"
	  "D1 add peer -22 invalid MR flag param\n" },
	/* 13: notes reach the user before the step they belong to */
	{ "net:\n  - net type: tcp\n    interfaces: {0: eth1}\n"
	  "    tunables: {foo: 1}\n",
	  UL_CONF_NETLINK, false, NULL, 0,
	  "note 1 Ignoring unrecognized key 'foo' for 'tunables'\n"
	  "net add tcp if eth1\n" },
	/*
	 * 14: --old-api: gateway ranges expanded, an existing route and an
	 * unreachable gateway tolerated, each item attempted, errors in
	 * D2 with seq_no, the status the last failure's.
	 */
	{ "route:\n  - net: tcp9\n    gateway: 192.168.1.[10-11]@tcp\n"
	  "  - net: tcp8\n    gateway: 10.0.0.1@tcp7\n"
	  "  - net: tcp7\n    gateway: 1.2.3.4@tcp\n    hop: 300\n"
	  "    seq_no: 4\n"
	  "net:\n  - net type: tcp1\n    local NI(s):\n"
	  "      - interfaces: {0: eth1}\n        CPT: '[1]'\n"
	  "  - net type: tcp2\n    interfaces: {0: eth1}\n"
	  "peer:\n  - primary nid: 1.2.3.4@tcp\n    Multi-Rail: False\n"
	  "    peer ni: [{nid: 1.2.3.4@tcp}, {nid: 1.2.3.5@tcp}]\n",
	  UL_CONF_OLD_API, false, old_refusals, -EFAULT,
	  "route add tcp9 nid 192.168.1.10@tcp hop -1\n"
	  "route add tcp9 nid 192.168.1.11@tcp hop -1\n"
	  "route add tcp8 nid 10.0.0.1@tcp7 hop -1\n"
	  "D2 add route seq 4 -34 invalid hop count 300, must be between 1 "
	  "and 255\n"
	  "net add tcp1 if eth1 cpt [1]\n"
	  "D2 add net seq -1 -17 cannot add LNet NI\n"
	  "peer add 1.2.3.4@tcp nid 1.2.3.5@tcp\n" },
	/* 15: --old-api UDSP: no priority is no action; LNet's positive rc */
	{ "udsp:\n  - {idx: 0, src: tcp}\n  - {idx: 1, src: tcp1, action: "
	  "{priority: 0}}\n",
	  UL_CONF_OLD_API, false, setter, EEXIST,
	  "D2 add udsp seq -1 -22 \"bad action type specified: \"\n"
	  "udsp add idx 1 prio 0\n"
	  "D2 add udsp seq -1 17 \"cannot add udsp: File exists\"\n" },
	/*
	 * 16: no daemon is no LNet refusal: not the §16 silence of a
	 * global value nor the ignored UDSP refusal, but the section's
	 * error naming the socket, -EINVAL, and nothing more is sent.
	 */
	{ "global: {retry_count: 3}\nudsp:\n  - {idx: 0, src: tcp, "
	  "priority: 3}\n",
	  UL_CONF_NETLINK, false, lost, -EINVAL,
	  "set retry_count 3\nD1 add global -2 " NO_DAEMON "\n" },
	{ "udsp:\n  - {idx: 0, src: tcp, priority: 3}\n  - {idx: 1, src: "
	  "tcp1, priority: 3}\nglobal: {retry_count: 3}\n",
	  UL_CONF_NETLINK, false, lost, -EINVAL,
	  "udsp add idx 0 prio 3\nD1 add udsp -2 " NO_DAEMON "\n" },
	/* --old-api: the D2 entry, and the import ends there too */
	{ "peer:\n  - primary nid: 1.2.3.4@tcp\n  - primary nid: 1.2.3.5@tcp\n",
	  UL_CONF_OLD_API, false, lost, -EINVAL,
	  "peer add 1.2.3.4@tcp\nD2 add peer seq -1 -2 " NO_DAEMON "\n" },
	/*
	 * 19: --old-api global values: the setters' texts and errnos
	 * (lnetctl.md §9), the block's seq_no on each.
	 */
	{ "global:\n    seq_no: 4\n    numa_range: 9\n    retry_count: 999\n"
	  "    response_tracking: 10\n",
	  UL_CONF_OLD_API, false, setter, -EINVAL,
	  "set numa_range 9\n"
	  "D2 add numa_range seq 4 -34 \"cannot configure numa_range to 9: "
	  "Numerical result out of range\"\n"
	  "set retry_count 999\n"
	  "D2 add retry_count seq 4 -61 \"cannot configure retry count: "
	  "Invalid argument\"\n"
	  "D2 add response_tracking seq 4 -22 \"Valid values are: 0, 1, 2, "
	  "or 3\"\n" },
	/* 20: --old-api peer refusals in lnetctl's words, with seq_no */
	{ "peer:\n  - primary nid: foo\n    seq_no: 7\n", UL_CONF_OLD_API,
	  false, NULL, -EINVAL,
	  "D2 peer add seq 7 -22 \"badly formatted primary NID: foo\"\n" },
	{ "peer:\n  - primary nid: 1.2.3.7@tcp\n    seq_no: 5\n"
	  "    Multi-Rail: Foobar\n",
	  UL_CONF_OLD_API, false, NULL, -EINVAL,
	  "D2 peer add seq 5 -22 Multi-Rail must be set to 'True' or 'False' "
	  "found 'Foobar'\n" },
	{ "peer:\n  - seq_no: 3\n    peer ni: [{nid: 1.2.3.8@tcp}]\n",
	  UL_CONF_OLD_API, false, NULL, -EINVAL,
	  "D2 peer add seq 3 -22 the 'primary nid' must be specified\n" },
	/* the peer's NIDs but the primary, as the nidlist lnetctl parses */
	{ "peer:\n  - primary nid: 1.2.3.4@tcp\n    seq_no: 2\n    peer ni:\n"
	  "      - nid: 1.2.3.4@tcp\n      - nid: 1.2.3.5@tcp\n"
	  "      - nid: foo\n",
	  UL_CONF_OLD_API, false, NULL, -EINVAL,
	  "D2 peer add seq 2 -22 \"Unable to parse nidlist from: 1.2.3.5@tcp "
	  "foo\"\n" },
	/* 24: a legacy gateway list lnetctl cannot expand, in its words */
	{ "route:\n  - {net: tcp9, gateway: foo, seq_no: 3}\n"
	  "  - {net: tcp9, gateway: '1.2.3.*@tcp'}\n"
	  "  - {net: tcp9, gateway: '1.2.[1-200].1@tcp'}\n",
	  UL_CONF_OLD_API, false, NULL, -EINVAL,
	  "D2 add route seq 3 -22 \"Unable to parse nidlist from: foo\"\n"
	  "D2 add route seq -1 -22 asterisk not allowed in nidstring "
	  "'1.2.3.*@tcp'\n"
	  "D2 add route seq -1 -22 \"'1.2.[1-200].1@tcp' specifies more than "
	  "the 128 NIDs allowed by this operation\"\n" },
};

/* The engine's options against the recorder r (no batches). */
static void recorder_opts(struct ul_conf_import_opts *o, struct rec *r)
{
	memset(o, 0, sizeof(*o));
	o->addrs = host;
	o->nr_addrs = sizeof(host) / sizeof(host[0]);
	o->ops.call = call;
	o->ops.report = report;
	o->ops.note = note;
	o->ops.ctx = r;
}

/*
 * Import yaml (row i) into the recorder; fails the test unless it gives
 * status and exactly the log want.
 */
static void import_row(size_t i, const char *yaml, enum ul_conf_dialect d,
		       const struct ul_conf_import_opts *o, const struct rec *r,
		       int status, const char *want)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	int rc;

	ul_conf_init(&c);
	rc = ul_conf_read(yaml, strlen(yaml), d, &c, &err);
	if (rc)
		fail_msg("row %zu: read: %s", i, err.msg);
	rc = ul_conf_import(&c, o);
	if (rc != status || strcmp(r->log, want) != 0)
		fail_msg("row %zu: status %d (want %d)\n%s", i, rc, status,
			 r->log);
	ul_conf_fini(&c);
}

static void every_row_imports_as_lnetctl(void **state)
{
	struct ul_conf_import_opts o;
	struct rec r;
	size_t i;

	(void)state;
	recorder_opts(&o, &r);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.refuse = rows[i].refuse;
		o.is_del = rows[i].is_del;
		import_row(i, rows[i].yaml, rows[i].dialect, &o, &r,
			   rows[i].status, rows[i].log);
	}
}

/* A peer section with batches of at most cap; what rows[] compares. */
struct batch_row {
	size_t cap;
	bool is_unbatched;
	enum ul_conf_dialect dialect;
	const struct refusal *refuse;
	int status;
	const char *log;
};

#define FIVE_PEERS                                                             \
	"peer:\n  - primary nid: 1.2.3.1@tcp\n  - primary nid: 1.2.3.2@tcp\n"  \
	"  - primary nid: 1.2.3.3@tcp\n  - primary nid: 1.2.3.4@tcp\n"         \
	"  - primary nid: 1.2.3.5@tcp\n"

static const struct refusal fourth[] = {
	{ "peer add 1.2.3.4@tcp", -EEXIST, "failed to add peer", false },
	{ NULL, 0, NULL, false },
};

static const struct batch_row batch_rows[] = {
	/* 0: full batches, then what is left */
	{ 2, false, UL_CONF_NETLINK, NULL, 0,
	  "batch of 2\n  peer add 1.2.3.1@tcp\n  peer add 1.2.3.2@tcp\n"
	  "batch of 2\n  peer add 1.2.3.3@tcp\n  peer add 1.2.3.4@tcp\n"
	  "batch of 1\n  peer add 1.2.3.5@tcp\n" },
	/*
	 * 1: a refusal inside a batch is that peer's, as one request's
	 * would be: its error, the section's end, nothing after it sent
	 */
	{ 2, false, UL_CONF_NETLINK, fourth, -EINVAL,
	  "batch of 2\n  peer add 1.2.3.1@tcp\n  peer add 1.2.3.2@tcp\n"
	  "batch of 2\n  peer add 1.2.3.3@tcp\n  peer add 1.2.3.4@tcp\n"
	  "D1 add peer -17 failed to add peer\n" },
	/* 2: a daemon without batches: one request at a time from the first */
	{ 2, true, UL_CONF_NETLINK, fourth, -EINVAL,
	  "batch of 2\npeer add 1.2.3.1@tcp\npeer add 1.2.3.2@tcp\n"
	  "peer add 1.2.3.3@tcp\npeer add 1.2.3.4@tcp\n"
	  "D1 add peer -17 failed to add peer\n" },
	/* 3: no answer to a batch: the section's error naming the socket */
	{ 4, false, UL_CONF_NETLINK, lost, -EINVAL,
	  "batch of 4\n  peer add 1.2.3.1@tcp\nD1 add peer -2 " NO_DAEMON
	  "\n" },
	/* 4: --old-api goes on after a refusal: never batched */
	{ 2, false, UL_CONF_OLD_API, fourth, -EEXIST,
	  "peer add 1.2.3.1@tcp\npeer add 1.2.3.2@tcp\npeer add 1.2.3.3@tcp\n"
	  "peer add 1.2.3.4@tcp\n"
	  "D2 add peer_ni seq -1 -17 \"add peer ni operation failed: File "
	  "exists\"\n"
	  "peer add 1.2.3.5@tcp\n" },
};

static void peers_go_in_batches(void **state)
{
	struct ul_conf_import_opts o;
	struct rec r;
	size_t i;

	(void)state;
	recorder_opts(&o, &r);
	o.ops.batch_add = batch_add;
	o.ops.batch_send = batch_send;
	for (i = 0; i < sizeof(batch_rows) / sizeof(batch_rows[0]); i++) {
		const struct batch_row *b = &batch_rows[i];

		memset(&r, 0, sizeof(r));
		r.refuse = b->refuse;
		r.batch_cap = b->cap;
		r.is_unbatched = b->is_unbatched;
		import_row(i, FIVE_PEERS, b->dialect, &o, &r, b->status,
			   b->log);
		assert_int_equal(r.nq, 0); /* nothing left queued */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_imports_as_lnetctl),
		cmocka_unit_test(peers_go_in_batches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
