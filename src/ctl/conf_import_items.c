/*
 * The import engine (conf_import.h), continued: routes, peers, the
 * settings (routing, buffers, numa, global parameters) and UDSP rules,
 * each as lnetctl's netlink import or its legacy path (--old-api) hands
 * them to LNet (lnetctl.md §16, §17.3; udsp.md §7.2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/udsp.h"
#include "wire/udsp_block.h"
#include "ctl/conf_import_int.h"
#include "nid/nidrange.h"

/*
 * Why the legacy path could not expand a NID list (rc from
 * ul_nidrange_expand()), in lnetctl's words (lustre_lnet_parse_nidstr():
 * the list with its commas made blanks).
 */
static void old_nidlist_error(const char *text, int rc, char *descr, size_t len)
{
	char list[UL_ERR_MSG_SIZE];
	char *c;

	snprintf(list, sizeof(list), "%s", text);
	for (c = list; *c; c++)
		if (*c == ',')
			*c = ' ';
	if (strchr(list, '*'))
		snprintf(descr, len, "asterisk not allowed in nidstring '%s'",
			 list);
	else if (rc == -E2BIG)
		snprintf(descr, len,
			 "\"'%s' specifies more than the %d NIDs allowed by "
			 "this operation\"",
			 list, UL_NIDRANGE_MAX_PER_PEER);
	else if (rc == -ENOENT)
		snprintf(descr, len, "\"'%s' did not expand to any nids\"",
			 list);
	else if (rc == -ENOMEM)
		snprintf(descr, len, "\"Failed to expand nidstr: %s\"",
			 strerror(-rc));
	else
		snprintf(descr, len, "\"Unable to parse nidlist from: %s\"",
			 list);
}

/*
 * The request's net, and the gateway NIDs of a legacy route into gws (of
 * UL_NIDRANGE_MAX_PER_PEER): 0, or reported.
 */
static int old_route_args(struct imp *im, const struct ul_conf_route *r,
			  struct ulnet_nid *gws, size_t *n)
{
	struct ul_ctl_args *a = im->a;
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ul_err err = { 0 };
	int rc;

	if (!r->net_text || !r->gateway_text) {
		snprintf(descr, sizeof(descr),
			 "\"missing mandatory parameter:'%s'\"",
			 !r->net_text && !r->gateway_text ? "network, gateway"
			 : !r->net_text			  ? "network"
							  : "gateway");
		ul_imp_d2(im, ul_imp_op(im), "route", r->seq_no, -EFAULT, descr,
			  r->line, -EFAULT);
		return -EFAULT;
	}
	if (!(r->flags & UL_CONF_ROUTE_HAS_NET_ID)) {
		snprintf(descr, sizeof(descr), "\"cannot parse remote net %s\"",
			 r->net_text);
		ul_imp_d2(im, ul_imp_op(im), "route", r->seq_no, -EINVAL, descr,
			  r->line, -EINVAL);
		return -EINVAL;
	}
	/* the legacy path expands a gateway range itself (§4.3) */
	rc = strchr(r->gateway_text, '*')
		     ? -EINVAL
		     : ul_nidrange_expand(r->gateway_text, gws,
					  UL_NIDRANGE_MAX_PER_PEER, n, &err);
	if (rc) {
		old_nidlist_error(r->gateway_text, rc, descr, sizeof(descr));
		ul_imp_d2(im, ul_imp_op(im), "route", r->seq_no,
			  rc == -ENOMEM ? rc : -EINVAL, descr, r->line,
			  rc == -ENOMEM ? rc : -EINVAL);
		return -EINVAL;
	}
	snprintf(a->net, sizeof(a->net), "%s", r->net_text);
	a->has |= UL_CTL_ARG_NET;
	return 0;
}

/*
 * --old-api: lnetctl checks hop and priority itself, sends one route per
 * gateway NID, and goes on when a route exists already or its gateway is
 * unreachable (lnetctl.md §16).
 */
static void old_route(struct imp *im, const struct ul_conf_route *r)
{
	struct ul_ctl_args *a = im->a;
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ulnet_nid *gws;
	struct ul_err err;
	size_t i, n = 0;
	int rc;

	if (!im->o->is_del && (r->flags & UL_CONF_ROUTE_HAS_HOP) &&
	    r->hop != -1 && (r->hop < 1 || r->hop > 255)) {
		snprintf(descr, sizeof(descr),
			 "invalid hop count %d, must be between 1 and 255",
			 r->hop);
		ul_imp_d2(im, "add", "route", r->seq_no, -ERANGE, descr,
			  r->line, -ERANGE);
		return;
	}
	if (!im->o->is_del && (r->flags & UL_CONF_ROUTE_HAS_PRIORITY) &&
	    r->priority < -1) {
		snprintf(descr, sizeof(descr),
			 "invalid priority %d, must be greater than 0",
			 r->priority);
		ul_imp_d2(im, "add", "route", r->seq_no, -ERANGE, descr,
			  r->line, -ERANGE);
		return;
	}
	gws = calloc(UL_NIDRANGE_MAX_PER_PEER, sizeof(*gws));
	if (!gws) {
		ul_imp_d2(im, ul_imp_op(im), "route", r->seq_no, -ENOMEM,
			  "out of memory", r->line, -ENOMEM);
		return;
	}
	ul_imp_reset(im);
	if (old_route_args(im, r, gws, &n))
		goto out;
	if (!im->o->is_del) {
		a->hop = r->hop;
		a->priority = r->priority < 0 ? 0 : r->priority;
		a->has |= UL_CTL_ARG_HOP | UL_CTL_ARG_PRIORITY;
	}
	a->has |= UL_CTL_ARG_NIDS;
	a->nnids = 1;
	for (i = 0; i < n; i++) {
		a->nids[0] = gws[i];
		rc = ul_imp_call(im,
				 im->o->is_del ? UL_CTL_OP_ROUTE_DEL
					       : UL_CTL_OP_ROUTE_ADD,
				 &err);
		if (!rc || rc == -EEXIST || rc == -EHOSTUNREACH)
			continue;
		snprintf(descr, sizeof(descr), "\"route operation failed: %s\"",
			 strerror(-rc));
		ul_imp_d2(im, ul_imp_op(im), "route", r->seq_no, rc, descr,
			  r->line, rc);
		break;
	}
out:
	free(gws);
}

int ul_imp_routes(struct imp *im, const struct ul_conf_step *st)
{
	struct ul_ctl_args *a = im->a;
	struct ul_err err;
	size_t i;
	int rc;

	for (i = st->first; i < st->first + st->nr; i++) {
		const struct ul_conf_route *r = &im->conf->routes[i];

		if (im->is_old) {
			old_route(im, r);
			continue;
		}
		/* as written: LNet checks the net, gateway, hop, priority */
		ul_imp_reset(im);
		if (r->net_text) {
			snprintf(a->net, sizeof(a->net), "%s", r->net_text);
			a->has |= UL_CTL_ARG_NET;
		}
		a->has |= UL_CTL_ARG_NIDS;
		if (r->flags & UL_CONF_ROUTE_HAS_GW_NID)
			a->nids[a->nnids++] = r->gateway;
		if (!im->o->is_del && (r->flags & UL_CONF_ROUTE_HAS_HOP)) {
			a->hop = r->hop;
			a->has |= UL_CTL_ARG_HOP;
		}
		if (!im->o->is_del && (r->flags & UL_CONF_ROUTE_HAS_PRIORITY)) {
			a->priority = r->priority;
			a->has |= UL_CTL_ARG_PRIORITY;
		}
		rc = ul_imp_call(im,
				 im->o->is_del ? UL_CTL_OP_ROUTE_DEL
					       : UL_CTL_OP_ROUTE_ADD,
				 &err);
		if (rc)
			return ul_imp_d1(im, "route", rc,
					 err.msg[0] ? err.msg : NULL, r->line,
					 -EINVAL);
	}
	return 0;
}

/* The request of one peer item in im->a. */
static void peer_args(struct imp *im, const struct ul_conf_peer *p)
{
	struct ul_ctl_args *a = im->a;
	size_t k;

	ul_imp_reset(im);
	a->nid = p->primary_nid;
	a->has = UL_CTL_ARG_NID;
	for (k = 0; k < p->nr_nis && a->nnids < UL_CTL_ARGS_NIDS_MAX; k++) {
		/* the legacy path leaves the primary out */
		if (im->is_old && ulnet_nid_same(&p->nis[k], &p->primary_nid))
			continue;
		a->nids[a->nnids++] = p->nis[k];
	}
	if (a->nnids)
		a->has |= UL_CTL_ARG_NIDS;
	/* ulnet honours the word (design-notes.md, lnet.conf) */
	if ((p->flags & UL_CONF_PEER_HAS_MULTI_RAIL) && !p->is_multi_rail)
		a->flags |= UL_CTL_ARGF_NON_MR;
	a->flags |= UL_CTL_ARGF_IMPORT; /* gateways come back as is */
}

/* LNet refused peer item p: 0 to go on (--old-api), else the status. */
static int peer_refused(struct imp *im, const struct ul_conf_peer *p, int rc,
			const struct ul_err *err)
{
	char descr[UL_ERR_MSG_SIZE + 64];

	if (!im->is_old)
		return ul_imp_d1(im, "peer", rc, err->msg[0] ? err->msg : NULL,
				 p->line, -EINVAL);
	snprintf(descr, sizeof(descr), "\"%s peer ni operation failed: %s\"",
		 ul_imp_op(im), strerror(-rc));
	ul_imp_d2(im, ul_imp_op(im), "peer_ni", p->seq_no, rc, descr, p->line,
		  rc);
	return 0;
}

/*
 * The items from *next on in batches, up to the first refusal, which
 * ends the section as one request's refusal does. *next: the first item
 * not sent, where one request at a time goes on if the daemon has no
 * batches.
 */
static int peers_batched(struct imp *im, const struct ul_conf_step *st,
			 uint16_t op, size_t *next)
{
	size_t end = st->first + st->nr, i = *next, done;
	struct ul_err err;
	int rc;

	while (*next < end) {
		for (; i < end; i++) {
			peer_args(im, &im->conf->peers[i]);
			if (ul_imp_queue(im, op))
				break; /* full */
		}
		if (i == *next)
			return 0; /* not even one fits: one at a time */
		rc = ul_imp_send(im, &done, &err);
		if (rc && im->is_unbatched)
			return 0;
		if (rc)
			return peer_refused(im, &im->conf->peers[*next + done],
					    rc, &err);
		*next = i;
	}
	return 0;
}

int ul_imp_peers(struct imp *im, const struct ul_conf_step *st)
{
	uint16_t op = im->o->is_del ? UL_CTL_OP_PEER_DEL : UL_CTL_OP_PEER_ADD;
	size_t i = st->first;
	struct ul_err err;
	int rc;

	/* --old-api goes on after a refusal: one request at a time */
	if (!im->is_old && ul_imp_can_batch(im)) {
		rc = peers_batched(im, st, op, &i);
		if (rc)
			return rc;
	}
	for (; i < st->first + st->nr; i++) {
		const struct ul_conf_peer *p = &im->conf->peers[i];

		peer_args(im, p);
		rc = ul_imp_call(im, op, &err);
		if (rc && (rc = peer_refused(im, p, rc, &err)))
			return rc;
	}
	return 0;
}

/* `set <name> <value>` on the daemon: 0 or its failure (err). */
static int set_value(struct imp *im, const char *name, long long v,
		     struct ul_err *err)
{
	struct ul_ctl_args *a = im->a;

	ul_imp_reset(im);
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->value = v;
	a->has = UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE;
	return ul_imp_call(im, UL_CTL_OP_SET, err);
}

/*
 * lnetctl's own check of a global value, made before it calls the setter
 * (lnetctl.md §9): its text (with the quotes lnetctl writes), or NULL.
 */
static const char *global_check(int key, long long v)
{
	if (key == UL_CONF_GLOBAL_RESPONSE_TRACKING && (v < 0 || v > 3))
		return "\"Valid values are: 0, 1, 2, or 3\"";
	if (key == UL_CONF_GLOBAL_RECOVERY_LIMIT && v < 0)
		return "\"Must be greater than or equal to 0\"";
	if (key == UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL && v <= 0)
		return "\"must be strictly positive\"";
	return NULL;
}

/* How lnetctl's setters name each parameter: "cannot configure <what>". */
static const char *global_what(int key)
{
	static const char *const what[UL_CONF_GLOBAL_NR] = {
		[UL_CONF_GLOBAL_NUMA_RANGE] = "numa_range",
		[UL_CONF_GLOBAL_MAX_INTERFACES] = "max interfaces",
		[UL_CONF_GLOBAL_DISCOVERY] = "discovery",
		[UL_CONF_GLOBAL_DROP_ASYM_ROUTE] = "drop asym route",
		[UL_CONF_GLOBAL_RETRY_COUNT] = "retry count",
		[UL_CONF_GLOBAL_TRANSACTION_TIMEOUT] = "transaction timeout",
		[UL_CONF_GLOBAL_HEALTH_SENSITIVITY] = "health sensitivity",
		[UL_CONF_GLOBAL_RECOVERY_INTERVAL] = "recovery interval",
		[UL_CONF_GLOBAL_ROUTER_SENSITIVITY] =
			"router health sensitivity",
		[UL_CONF_GLOBAL_RESPONSE_TRACKING] = "response tracking",
		[UL_CONF_GLOBAL_RECOVERY_LIMIT] = "recovery limit",
		[UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL] =
			"maximum recovery ping interval",
	};

	return what[key];
}

/*
 * A global value LNet refused (rc), as lnetctl's setter reports it:
 * numa_range's ioctl gives the errno and "cannot configure numa_range to
 * <v>: <strerror>", a sysfs write -ENODATA and "cannot configure <what>:
 * <strerror>" (lnetctl.md §9). Returns the errno of the report.
 */
static int global_refusal(int key, long long v, int rc, char *descr, size_t len)
{
	if (key == UL_CONF_GLOBAL_NUMA_RANGE) {
		snprintf(descr, len,
			 "\"cannot configure numa_range to %d: %s\"", (int)v,
			 strerror(-rc));
		return rc;
	}
	snprintf(descr, len, "\"cannot configure %s: %s\"", global_what(key),
		 strerror(-rc));
	return -ENODATA;
}

/* One global parameter (a key of "global", or at top level). */
static int import_global(struct imp *im, const struct ul_conf_step *st)
{
	const char *name = ul_conf_global_name(st->key);
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ul_err err = { 0 };
	const char *check;
	long long v = st->value;
	int rc, errnum;

	if (st->key < 0)
		return 0; /* lnd_timeout: read-only, lnetctl sets nothing */
	if (im->o->is_del) {
		/* §16: these three go back to their defaults */
		if (st->key == UL_CONF_GLOBAL_NUMA_RANGE)
			v = 0;
		else if (st->key == UL_CONF_GLOBAL_MAX_INTERFACES)
			v = 4096;
		else if (st->key == UL_CONF_GLOBAL_DISCOVERY)
			v = 1;
		else
			return 0;
	}
	/* LNet reads any non-zero value of these two as 1 (§9) */
	if ((st->key == UL_CONF_GLOBAL_DISCOVERY ||
	     st->key == UL_CONF_GLOBAL_DROP_ASYM_ROUTE) &&
	    v)
		v = 1;
	check = global_check(st->key, v);
	if (check) {
		rc = errnum = -EINVAL;
		snprintf(descr, sizeof(descr), "%s", check);
	} else {
		rc = set_value(im, name, v, &err);
		if (!rc)
			return 0;
		if (im->is_lost)
			return rc;
		errnum = global_refusal(st->key, v, rc, descr, sizeof(descr));
		rc = errnum;
	}
	/* --old-api: the setter's error, gathered */
	if (im->is_old) {
		ul_imp_d2(im, "add", name, st->seq_no, errnum, descr, st->line,
			  errnum);
		return 0;
	}
	/*
	 * §16 Quirk: the netlink import fails without a word, with the
	 * setter's status; whoever logs hears LNet's reason (unquoted).
	 */
	if (err.msg[0])
		snprintf(descr, sizeof(descr), "%s", err.msg);
	else if (check)
		snprintf(descr, sizeof(descr), "%.*s", (int)strlen(check) - 2,
			 check + 1);
	ul_imp_silent(im, name, errnum, descr, st->line, false);
	return rc;
}

/* A setting the netlink import streams to LNet failed: its error. */
static int setting_failed(struct imp *im, const struct ul_conf_step *st,
			  const char *entity, int rc, const struct ul_err *err)
{
	if (!im->is_old)
		return ul_imp_d1(im, "import", rc,
				 err->msg[0] ? err->msg : NULL, st->line,
				 -EINVAL);
	ul_imp_d2(im, ul_imp_op(im), entity, st->seq_no, rc,
		  err->msg[0] ? err->msg : strerror(-rc), st->line, rc);
	return 0;
}

/*
 * "buffers": the three totals; a negative one leaves its pool alone
 * (LNet's check, lnetctl.md §8.4). --old-api checks for >= -1 itself,
 * and its --del leaves buffers alone.
 */
static int import_buffers(struct imp *im, const struct ul_conf_step *st)
{
	static const char *const names[] = { "tiny_buffers", "small_buffers",
					     "large_buffers" };
	struct ul_err err = { 0 };
	long long v;
	int i, rc;

	if (im->is_old && im->o->is_del)
		return 0;
	for (i = 0; im->is_old && i < 3; i++)
		if (st->buffers[i] < -1) {
			ul_imp_d2(im, "add", "buf", st->seq_no, -ERANGE,
				  "\"tiny, small and large must be >= 0\"",
				  st->line, -ERANGE);
			return 0;
		}
	for (i = 0; i < 3; i++) {
		v = st->buffers[i] < 0 ? -1 : st->buffers[i];
		rc = set_value(im, names[i], v, &err);
		if (rc)
			return setting_failed(im, st, "buf", rc, &err);
	}
	return 0;
}

int ul_imp_setting(struct imp *im, const struct ul_conf_step *st)
{
	struct ul_err err = { 0 };
	long long v;
	int rc;

	switch (st->sec) {
	case UL_CONF_SEC_ROUTING:
		/*
		 * LNet enables routing for 1 and disables it otherwise; the
		 * netlink --del sends the file's value as --add does, the
		 * legacy one disables.
		 */
		if (im->is_old)
			v = !im->o->is_del && st->value != 0;
		else
			v = st->value == 1;
		rc = set_value(im, "routing", v, &err);
		return rc ? setting_failed(im, st, "routing", rc, &err) : 0;
	case UL_CONF_SEC_BUFFERS:
		return import_buffers(im, st);
	case UL_CONF_SEC_NUMA:
		v = im->is_old && im->o->is_del ? 0 : st->value;
		rc = set_value(im, "numa_range", v, &err);
		return rc ? setting_failed(im, st, "numa_range", rc, &err) : 0;
	default:
		return import_global(im, st);
	}
}

/*
 * Send rule as the kernel's binary block (UDSP_ADD); the rule is freed.
 * 0, the daemon's refusal (err says why), or -ENOMEM.
 */
static int udsp_send(struct imp *im, struct ul_udsp_rule *rule,
		     struct ul_err *err)
{
	size_t len = ul_udsp_rule_block_size(rule);
	uint8_t *block = malloc(len);
	int rc;

	rc = block ? ul_udsp_rule_encode(rule, block, len, err) : -ENOMEM;
	ul_udsp_rule_free(rule);
	if (!rc) {
		ul_imp_reset(im);
		im->a->has = UL_CTL_ARG_UDSP_BLOCK;
		im->a->udsp_block = block;
		im->a->udsp_len = len;
		rc = ul_imp_call(im, UL_CTL_OP_UDSP_ADD, err);
		im->a->udsp_block = NULL;
	} else if (rc != -ENOMEM) {
		rc = -EINVAL; /* a rule we built always encodes */
	}
	free(block);
	return rc;
}

/* One rule of the netlink import: 0, or the import's status. */
static int nl_udsp_add(struct imp *im, const struct ul_conf_udsp *u)
{
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ul_udsp_rule *rule;
	struct ul_err err = { 0 };
	int rc;

	/*
	 * §17.3: a priority of 0 names no action, which lnetctl's library
	 * refuses without a word, as it does a rule it cannot build.
	 */
	if (u->priority == 0) {
		snprintf(descr, sizeof(descr),
			 "rule idx %d: priority 0 gives no action", u->idx);
		ul_imp_silent(im, "udsp", -EINVAL, descr, u->line, false);
		return -EINVAL;
	}
	if (ul_udsp_rule_from_strings(u->src, u->dst, u->rte, true,
				      (uint32_t)u->priority, u->idx, &rule,
				      &err)) {
		snprintf(descr, sizeof(descr), "rule idx %d: %s", u->idx,
			 err.msg);
		ul_imp_silent(im, "udsp", -EINVAL, descr, u->line, false);
		return -EINVAL;
	}
	rc = udsp_send(im, rule, &err);
	if (!rc || im->is_lost || rc == -ENOMEM)
		return rc;
	/*
	 * LNet's refusal comes back as a positive errno, which lnetctl's
	 * netlink import does not take for a failure: it goes on.
	 */
	snprintf(descr, sizeof(descr), "rule idx %d: cannot add udsp: %s",
		 u->idx, err.msg[0] ? err.msg : strerror(rc < 0 ? -rc : rc));
	ul_imp_silent(im, "udsp", rc, descr, u->line, true);
	return 0;
}

/* One rule of the legacy path, its failures gathered. */
static void old_udsp_add(struct imp *im, const struct ul_conf_udsp *u)
{
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ul_udsp_rule *rule;
	struct ul_err err = { 0 };
	int rc;

	if (!(u->flags & UL_CONF_UDSP_HAS_PRIORITY)) {
		ul_imp_d2(im, "add", "udsp", u->seq_no, -EINVAL,
			  "\"bad action type specified: \"", u->line, -EINVAL);
		return;
	}
	if (ul_udsp_rule_from_strings(u->src, u->dst, u->rte, true,
				      (uint32_t)u->priority, u->idx, &rule,
				      &err)) {
		snprintf(descr, sizeof(descr), "\"%s\"", err.msg);
		ul_imp_d2(im, "add", "udsp", u->seq_no, -EINVAL, descr, u->line,
			  -EINVAL);
		return;
	}
	rc = udsp_send(im, rule, &err);
	if (!rc)
		return;
	/* lustre_lnet_add_udsp() reports the ioctl's positive errno */
	snprintf(descr, sizeof(descr), "\"cannot add udsp: %s\"",
		 strerror(-rc));
	ul_imp_d2(im, "add", "udsp", u->seq_no, -rc, descr, u->line, -rc);
}

static int by_idx_down(const void *x, const void *y)
{
	const struct ul_conf_udsp *a = *(const struct ul_conf_udsp *const *)x;
	const struct ul_conf_udsp *b = *(const struct ul_conf_udsp *const *)y;

	return (a->idx < b->idx) - (a->idx > b->idx);
}

/*
 * --del: from the highest index down, so that deleting one rule does not
 * move the index of another the file names (a difference from lnetctl,
 * which goes in file order). A refusal ends the netlink import without a
 * word, with lnetctl's status -1.
 */
static int udsp_del(struct imp *im, const struct ul_conf_step *st)
{
	const struct ul_conf_udsp **order;
	char descr[UL_ERR_MSG_SIZE + 64];
	struct ul_err err;
	size_t i;
	int rc = 0;

	order = calloc(st->nr + 1, sizeof(const struct ul_conf_udsp *));
	if (!order)
		return ul_imp_d1(im, "import", -ENOMEM, NULL, st->line,
				 -ENOMEM);
	for (i = 0; i < st->nr; i++)
		order[i] = &im->conf->udsps[st->first + i];
	qsort(order, st->nr, sizeof(const struct ul_conf_udsp *), by_idx_down);
	for (i = 0; i < st->nr && !rc; i++) {
		ul_imp_reset(im);
		im->a->has = UL_CTL_ARG_IDX;
		im->a->idx = order[i]->idx;
		if (!ul_imp_call(im, UL_CTL_OP_UDSP_DEL, &err))
			continue;
		if (im->is_lost)
			break;
		if (!im->is_old) {
			snprintf(descr, sizeof(descr),
				 "rule idx %d: cannot del udsp: %s",
				 order[i]->idx,
				 err.msg[0] ? err.msg : "failed");
			ul_imp_silent(im, "udsp", -1, descr, order[i]->line,
				      false);
			rc = -1;
			break;
		}
		snprintf(descr, sizeof(descr), "\"cannot del udsp: %s\"",
			 err.msg[0] ? err.msg : "failed");
		ul_imp_d2(im, "add", "udsp", order[i]->seq_no, -1, descr,
			  order[i]->line, -1);
	}
	free(order);
	return rc;
}

int ul_imp_udsp(struct imp *im, const struct ul_conf_step *st)
{
	size_t i;
	int rc;

	if (im->o->is_del)
		return udsp_del(im, st);
	for (i = st->first; i < st->first + st->nr; i++) {
		if (im->is_old) {
			old_udsp_add(im, &im->conf->udsps[i]);
			continue;
		}
		rc = nl_udsp_add(im, &im->conf->udsps[i]);
		if (rc)
			return rc;
	}
	return 0;
}
