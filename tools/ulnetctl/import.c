/*
 * ulnetctl import (reference/lnetctl.md §16, §17): an lnet.conf read with
 * the same parser ulnetd uses (ctl/conf.h), then applied section by
 * section in document order with one request per item, stopping at the
 * first failure, as lnetctl does over netlink. What the file says that a
 * user-space node does not apply is printed on stderr, one line each.
 *
 * A net block goes as lnetctl's netlink import sends it: its NIs in one
 * request with the last tunables seen and the union of its CPT lists;
 * --old-api keeps each "local NI(s)" item's own values, as lnetctl's
 * legacy path does, and attempts every item, errors gathered in one D2
 * tree.
 */
#include <errno.h>
#include <net/if.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/udsp.h"
#include "core/udsp_block.h"
#include "ctl/conf.h"
#include "ctl/conf_apply.h"
#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "ctl/ytree.h"
#include "nid/expr.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

enum import_mode { IMPORT_ADD, IMPORT_DEL, IMPORT_SHOW, IMPORT_EXEC };

struct import {
	enum import_mode mode;
	/*
	 * --old-api: lnetctl's legacy whole-file path. Every item is
	 * attempted; failures go into one D2 tree instead of ending the
	 * import with D1.
	 */
	bool old_api;
	int old_rc; /* the last failure under --old-api, else 0 */
	struct ul_cyaml_errs errs;
	struct ul_ctl_args *a; /* scratch request */
	const struct ul_conf *conf;
	/* The host's up IPv4 interfaces, read at the first need. */
	struct ul_conf_ifaddr *ifs;
	size_t nr_ifs;
	bool has_ifs;
};

/* The operation key of an import's own D1 errors (lnetctl: the flags). */
static const char *import_op(const struct import *im)
{
	return im->mode == IMPORT_DEL ? "del" : "add";
}

static void args_reset(struct import *im)
{
	memset(im->a, 0, sizeof(*im->a));
}

/* "[0,1]" from an expression ("0" alone reads back the same). */
static void cpt_text(const struct ul_expr *e, char *buf, size_t len)
{
	char tmp[UL_CTL_NAME_MAX - 2];

	ul_expr_format(e, tmp, sizeof(tmp));
	snprintf(buf, len, tmp[0] == '[' ? "%s" : "[%s]", tmp);
}

/*
 * A failure of one item: D1 and the end of the import, or under
 * --old-api a D2 entry and on to the next item.
 */
static int import_fail(struct import *im, const char *op, const char *object,
		       int rc, const char *descr)
{
	if (!im->old_api)
		return ulnetctl_d1(op, object, rc, descr);
	ul_cyaml_err_add(&im->errs, op, object, rc,
			 descr && *descr ? descr : strerror(-rc));
	im->old_rc = -EINVAL;
	return 0;
}

/*
 * One request; its failure as import_fail(). is_quiet: lnetctl's netlink
 * import prints nothing when a global setter refuses a value (§16 Quirk)
 * and only fails.
 */
static int send_req(struct import *im, uint16_t op, const char *d1_op,
		    const char *object, bool is_quiet)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	if (!im->old_api && !is_quiet)
		return ulnetctl_do(op, im->a, d1_op, object, -1);
	rc = ulnetctl_call(op, im->a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return import_fail(im, d1_op, object, rc, err.msg);
	rc = reply.rc;
	if (rc && im->old_api)
		rc = import_fail(im, d1_op, object, rc, reply.err_msg);
	else if (rc)
		rc = -EINVAL;
	ul_ctl_reply_fini(&reply);
	return rc;
}

static int send_op(struct import *im, uint16_t op, const char *d1_op,
		   const char *object)
{
	return send_req(im, op, d1_op, object, false);
}

static void put_tunables(struct ul_ctl_args *a,
			 const struct ul_conf_tunables *t)
{
	if (t->flags & UL_CONF_TUN_HAS_PEER_TIMEOUT) {
		a->peer_timeout = t->peer_timeout;
		a->has |= UL_CTL_ARG_PEER_TIMEOUT;
	}
	if (t->flags & UL_CONF_TUN_HAS_PEER_CREDITS) {
		a->peer_credits = t->peer_credits;
		a->has |= UL_CTL_ARG_PEER_CREDITS;
	}
	if (t->flags & UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS) {
		a->peer_buffer_credits = t->peer_buffer_credits;
		a->has |= UL_CTL_ARG_PEER_BUF_CREDITS;
	}
	if (t->flags & UL_CONF_TUN_HAS_CREDITS) {
		a->credits = t->credits;
		a->has |= UL_CTL_ARG_CREDITS;
	}
}

static void put_lnd(struct ul_ctl_args *a, const struct ul_conf_lnd_tunables *l)
{
	if (l->flags & UL_CONF_LND_HAS_CONNS_PER_PEER) {
		a->conns_per_peer = l->conns_per_peer;
		a->has |= UL_CTL_ARG_CONNS_PER_PEER;
	}
	if (l->flags & UL_CONF_LND_HAS_TOS) {
		a->tos = l->tos;
		a->has |= UL_CTL_ARG_TOS;
	}
}

/* The NIs of one group (or of the block itself) into the request. */
static void put_nis(struct ul_ctl_args *a, const struct ul_conf_ni *nis,
		    size_t nr)
{
	char cpt[UL_CTL_NAME_MAX];
	size_t i;

	for (i = 0; i < nr; i++) {
		if (nis[i].by == UL_CONF_NI_BY_NID) {
			if (a->nnids < UL_CTL_ARGS_NIDS_MAX)
				a->nids[a->nnids++] = nis[i].nid;
			a->has |= UL_CTL_ARG_NIDS;
			continue;
		}
		if (a->nifs == UL_CTL_ARGS_IFS_MAX)
			continue;
		cpt[0] = '\0';
		if (nis[i].cpt)
			cpt_text(nis[i].cpt, cpt, sizeof(cpt));
		snprintf(a->ifs[a->nifs++], UL_CTL_IFNAME_MAX, "%s%s",
			 nis[i].ifname, cpt);
		a->has |= UL_CTL_ARG_IFS;
	}
}

/*
 * The failure of a net block's resolution: as import_fail(), but under
 * --old-api 1, so that the caller skips the block and goes on.
 */
static int block_fail(struct import *im, int rc, const char *descr)
{
	return import_fail(im, import_op(im), "import", rc, descr) ?: 1;
}

/* 0, or block_fail()'s. */
static int host_ifs(struct import *im)
{
	int rc;

	if (im->has_ifs)
		return 0;
	rc = ul_conf_host_ifaddrs(&im->ifs, &im->nr_ifs);
	if (rc)
		return block_fail(im, rc, "cannot read interfaces");
	im->has_ifs = true;
	return 0;
}

static bool host_has(const struct import *im, const char *ifname)
{
	size_t i;

	for (i = 0; i < im->nr_ifs; i++)
		if (strcmp(im->ifs[i].ifname, ifname) == 0)
			return true;
	return false;
}

/*
 * §17.2: an interface a net block names must be up with an address here
 * (lnetctl checks before it sends, with these texts); a block naming no
 * NI at all takes the first such interface other than lo.
 */
static int check_ifs(struct import *im, const struct ul_conf_ni *nis, size_t nr)
{
	char msg[UL_CONF_IFNAME_SIZE + 48];
	size_t i;
	int rc;

	for (i = 0; i < nr; i++) {
		if (nis[i].by != UL_CONF_NI_BY_IFACE)
			continue;
		rc = host_ifs(im);
		if (rc || host_has(im, nis[i].ifname))
			return rc;
		snprintf(msg, sizeof(msg),
			 if_nametoindex(nis[i].ifname)
				 ? "Matched interface '%s' is not UP"
				 : "No interface matching '%s'",
			 nis[i].ifname);
		return block_fail(im, -ENOMSG, msg);
	}
	return 0;
}

static int first_if(struct import *im, struct ul_ctl_args *a)
{
	size_t i;
	int rc = host_ifs(im);

	if (rc)
		return rc;
	for (i = 0; i < im->nr_ifs; i++) {
		if (strcmp(im->ifs[i].ifname, "lo") == 0)
			continue;
		snprintf(a->ifs[0], UL_CTL_IFNAME_MAX, "%s", im->ifs[i].ifname);
		a->nifs = 1;
		a->has |= UL_CTL_ARG_IFS;
		return 0;
	}
	return block_fail(im, -ENOMSG, "No UP interfaces were found");
}

/* One net add (or del) for some NIs of a net block. */
static int net_request(struct import *im, const struct ul_conf_net *cn,
		       const struct ul_conf_ni *nis, size_t nr,
		       const struct ul_conf_tunables *tun,
		       const struct ul_conf_lnd_tunables *lnd, const char *cpt)
{
	struct ul_ctl_args *a = im->a;
	int rc;

	rc = check_ifs(im, nis, nr);
	if (rc)
		return rc > 0 ? 0 : rc;
	args_reset(im);
	put_nis(a, nis, nr);
	/* A block without "local NI(s)" nor "interfaces" (§17.2). */
	if (!nr && nis == cn->nis && !cn->nr_groups) {
		rc = first_if(im, a);
		if (rc)
			return rc > 0 ? 0 : rc;
		nr = 1;
	}
	if (!a->nnids) {
		ulnet_net_format(cn->net, a->net, sizeof(a->net));
		a->has |= UL_CTL_ARG_NET;
	}
	if (im->mode == IMPORT_DEL)
		return send_op(im, UL_CTL_OP_NET_DEL, "del", "net");
	if (!nr)
		return 0; /* a group naming no NI creates nothing (§6.1) */
	put_tunables(a, tun);
	put_lnd(a, lnd);
	if (cpt) {
		snprintf(a->cpt, sizeof(a->cpt), "%s", cpt);
		a->has |= UL_CTL_ARG_CPT;
	}
	return send_op(im, UL_CTL_OP_NET_ADD, "add", "net");
}

/* "[...]" of e, or NULL for none. */
static const char *cpt_or_null(const struct ul_expr *e, char *buf, size_t len)
{
	if (!e)
		return NULL;
	cpt_text(e, buf, len);
	return buf;
}

/* Later tunables win, field by field (lnetctl reads them as they come). */
static void merge_tunables(struct ul_conf_tunables *to,
			   const struct ul_conf_tunables *t)
{
	if (t->flags & UL_CONF_TUN_HAS_PEER_TIMEOUT)
		to->peer_timeout = t->peer_timeout;
	if (t->flags & UL_CONF_TUN_HAS_PEER_CREDITS)
		to->peer_credits = t->peer_credits;
	if (t->flags & UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS)
		to->peer_buffer_credits = t->peer_buffer_credits;
	if (t->flags & UL_CONF_TUN_HAS_CREDITS)
		to->credits = t->credits;
	to->flags |= t->flags;
}

static void merge_lnd(struct ul_conf_lnd_tunables *to,
		      const struct ul_conf_lnd_tunables *l)
{
	if (l->flags & UL_CONF_LND_HAS_CONNS_PER_PEER)
		to->conns_per_peer = l->conns_per_peer;
	if (l->flags & UL_CONF_LND_HAS_TOS)
		to->tos = l->tos;
	to->flags |= l->flags &
		     (UL_CONF_LND_HAS_CONNS_PER_PEER | UL_CONF_LND_HAS_TOS);
}

/* The CPT numbers an expression names, added to a 256-bit set. */
#define IMPORT_CPT_MAX 256

static void merge_cpt(uint8_t *set, bool *has, const struct ul_expr *e)
{
	uint32_t v;

	if (!e)
		return;
	*has = true;
	for (v = 0; v < IMPORT_CPT_MAX; v++)
		if (ul_expr_match(e, v))
			set[v / 8] |= (uint8_t)(1U << (v % 8));
}

static void cpt_set_text(const uint8_t *set, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t v;

	buf[0] = '\0';
	for (v = 0; v < IMPORT_CPT_MAX && off + 1 < len; v++)
		if (set[v / 8] & (1U << (v % 8)))
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
						off ? "," : "[", v);
	if (off && off + 1 < len)
		snprintf(buf + off, len - off, "]");
}

/*
 * lnetctl's netlink import of one net block (§17.2 step 4): one request
 * with every NI of the block, the block's last-seen tunables and LND
 * tunables and the union of all its CPT lists (NIs by NID and NIs by
 * interface go as two requests, as `net add` takes either).
 */
static int net_block(struct import *im, const struct ul_conf_net *cn)
{
	struct ul_conf_lnd_tunables lnd = { 0 };
	struct ul_conf_tunables tun = { 0 };
	uint8_t set[IMPORT_CPT_MAX / 8] = { 0 };
	char cpt[UL_CTL_NAME_MAX];
	struct ul_conf_ni *by_if, *by_nid;
	size_t g, k, nif = 0, nnid = 0, total = cn->nr_nis;
	bool has_cpt = false;
	int rc = 0;

	for (g = 0; g < cn->nr_groups; g++)
		total += cn->groups[g].nr_nis;
	if (!total)
		/* No NI anywhere: the first up interface (or nothing). */
		return net_request(im, cn, cn->nis, 0, &cn->tunables,
				   &cn->lnd_tunables,
				   cpt_or_null(cn->cpt, cpt, sizeof(cpt)));
	by_if = calloc(total, sizeof(*by_if));
	by_nid = calloc(total, sizeof(*by_nid));
	if (!by_if || !by_nid) {
		rc = import_fail(im, import_op(im), "import", -ENOMEM, NULL);
		goto out;
	}
	merge_tunables(&tun, &cn->tunables);
	merge_lnd(&lnd, &cn->lnd_tunables);
	merge_cpt(set, &has_cpt, cn->cpt);
	for (k = 0; k < cn->nr_nis; k++)
		if (cn->nis[k].by == UL_CONF_NI_BY_NID)
			by_nid[nnid++] = cn->nis[k];
		else
			by_if[nif++] = cn->nis[k];
	for (g = 0; g < cn->nr_groups; g++) {
		const struct ul_conf_ni_group *grp = &cn->groups[g];

		if (grp->flags & UL_CONF_GROUP_HAS_TUNABLES)
			merge_tunables(&tun, &grp->tunables);
		if (grp->flags & UL_CONF_GROUP_HAS_LND_TUNABLES)
			merge_lnd(&lnd, &grp->lnd_tunables);
		merge_cpt(set, &has_cpt, grp->cpt);
		for (k = 0; k < grp->nr_nis; k++)
			if (grp->nis[k].by == UL_CONF_NI_BY_NID)
				by_nid[nnid++] = grp->nis[k];
			else
				by_if[nif++] = grp->nis[k];
	}
	cpt_set_text(set, cpt, sizeof(cpt));
	if (nnid)
		rc = net_request(im, cn, by_nid, nnid, &tun, &lnd,
				 has_cpt && cpt[0] ? cpt : NULL);
	if (!rc && nif)
		rc = net_request(im, cn, by_if, nif, &tun, &lnd,
				 has_cpt && cpt[0] ? cpt : NULL);
out:
	free(by_if);
	free(by_nid);
	return rc;
}

static int import_nets(struct import *im)
{
	const struct ul_conf *c = im->conf;
	char cpt[UL_CTL_NAME_MAX];
	size_t i, g;
	int rc;

	for (i = 0; i < c->nr_nets; i++) {
		const struct ul_conf_net *cn = &c->nets[i];

		if (!im->old_api) {
			rc = net_block(im, cn);
			if (rc)
				return rc;
			continue;
		}
		/*
		 * --old-api: each "local NI(s)" item with its own tunables
		 * and CPT, the block's for an item without them.
		 */
		if (cn->nr_nis || !cn->nr_groups) {
			rc = net_request(im, cn, cn->nis, cn->nr_nis,
					 &cn->tunables, &cn->lnd_tunables,
					 cpt_or_null(cn->cpt, cpt,
						     sizeof(cpt)));
			if (rc)
				return rc;
		}
		for (g = 0; g < cn->nr_groups; g++) {
			const struct ul_conf_ni_group *grp = &cn->groups[g];

			rc = net_request(
				im, cn, grp->nis, grp->nr_nis,
				(grp->flags & UL_CONF_GROUP_HAS_TUNABLES)
					? &grp->tunables
					: &cn->tunables,
				(grp->flags & UL_CONF_GROUP_HAS_LND_TUNABLES)
					? &grp->lnd_tunables
					: &cn->lnd_tunables,
				cpt_or_null(grp->cpt ? grp->cpt : cn->cpt, cpt,
					    sizeof(cpt)));
			if (rc)
				return rc;
		}
	}
	return 0;
}

static bool in_ranges(const struct ul_conf_net *r,
		      const struct ul_conf_ifaddr *ifa)
{
	size_t k;

	if (!r->nr_ranges)
		return true;
	for (k = 0; k < r->nr_ranges; k++)
		if (!r->ranges[k].is_ipv6 &&
		    ul_expr_match_octets(r->ranges[k].oct, ifa->ipv4))
			return true;
	return false;
}

static bool has_if(const struct ul_ctl_args *a, const char *ifname)
{
	size_t n = strlen(ifname);
	uint32_t i;

	for (i = 0; i < a->nifs; i++)
		if (strncmp(a->ifs[i], ifname, n) == 0 &&
		    (a->ifs[i][n] == '\0' || a->ifs[i][n] == '['))
			return true;
	return false;
}

/*
 * The interfaces of an ip2nets rule (§17.2) into a: without names every
 * up interface with an address in a range; with names each of them, and
 * each must be up and (with ranges) in a range, else the rule does not
 * apply. false: it does not.
 */
static bool rule_ifs(const struct import *im, const struct ul_conf_net *r,
		     struct ul_ctl_args *a)
{
	char cpt[UL_CTL_NAME_MAX];
	size_t i, k;
	bool found;

	if (!r->nr_nis && !r->nr_ranges) {
		for (k = 0; k < im->nr_ifs; k++) {
			if (strcmp(im->ifs[k].ifname, "lo") == 0)
				continue;
			snprintf(a->ifs[0], UL_CTL_IFNAME_MAX, "%s",
				 im->ifs[k].ifname);
			a->nifs = 1;
			return true;
		}
		return false;
	}
	if (!r->nr_nis) {
		for (k = 0; k < im->nr_ifs && a->nifs < UL_CTL_ARGS_IFS_MAX;
		     k++)
			if (in_ranges(r, &im->ifs[k]) &&
			    !has_if(a, im->ifs[k].ifname))
				snprintf(a->ifs[a->nifs++], UL_CTL_IFNAME_MAX,
					 "%s", im->ifs[k].ifname);
		return a->nifs > 0;
	}
	for (i = 0; i < r->nr_nis; i++) {
		found = false;
		for (k = 0; k < im->nr_ifs && !found; k++)
			found = strcmp(im->ifs[k].ifname, r->nis[i].ifname) ==
					0 &&
				in_ranges(r, &im->ifs[k]);
		if (!found)
			return false;
		if (has_if(a, r->nis[i].ifname) ||
		    a->nifs == UL_CTL_ARGS_IFS_MAX)
			continue;
		cpt[0] = '\0';
		if (r->nis[i].cpt)
			cpt_text(r->nis[i].cpt, cpt, sizeof(cpt));
		snprintf(a->ifs[a->nifs++], UL_CTL_IFNAME_MAX, "%s%s",
			 r->nis[i].ifname, cpt);
	}
	return true;
}

/*
 * ip2nets (§17.2): each rule matched against this host's interfaces here;
 * a rule for a net an earlier rule configured is skipped, and a section
 * of which no rule applied fails.
 */
static int import_ip2nets(struct import *im)
{
	const struct ul_conf *c = im->conf;
	size_t i, k, applied = 0;
	uint32_t *done;
	int rc;

	rc = host_ifs(im);
	if (rc)
		return rc > 0 ? 0 : rc;
	done = calloc(c->nr_ip2nets + 1, sizeof(*done));
	if (!done)
		return import_fail(im, import_op(im), "import", -ENOMEM, NULL);
	for (i = 0; i < c->nr_ip2nets && !rc; i++) {
		const struct ul_conf_net *r = &c->ip2nets[i];
		struct ul_ctl_args *a = im->a;
		bool is_dup = false;

		for (k = 0; k < applied && !is_dup; k++)
			is_dup = done[k] == r->net;
		args_reset(im);
		if (is_dup || !rule_ifs(im, r, a))
			continue;
		a->has |= UL_CTL_ARG_IFS | UL_CTL_ARG_NET;
		ulnet_net_format(r->net, a->net, sizeof(a->net));
		if (im->mode == IMPORT_DEL) {
			rc = send_op(im, UL_CTL_OP_NET_DEL, "del", "net");
		} else {
			put_tunables(a, &r->tunables);
			put_lnd(a, &r->lnd_tunables);
			if (r->cpt) {
				cpt_text(r->cpt, a->cpt, sizeof(a->cpt));
				a->has |= UL_CTL_ARG_CPT;
			}
			rc = send_op(im, UL_CTL_OP_NET_ADD, "add", "net");
		}
		done[applied++] = r->net;
	}
	free(done);
	if (!rc && c->nr_ip2nets && !applied)
		rc = import_fail(im, import_op(im), "import", -EINVAL,
				 "No ip2nets rules applied");
	return rc;
}

static int import_routes(struct import *im)
{
	const struct ul_conf *c = im->conf;
	size_t i;
	int rc;

	for (i = 0; i < c->nr_routes; i++) {
		const struct ul_conf_route *cr = &c->routes[i];
		struct ul_ctl_args *a = im->a;

		args_reset(im);
		ulnet_net_format(cr->net, a->net, sizeof(a->net));
		a->nids[0] = cr->gateway;
		a->nnids = 1;
		a->has = UL_CTL_ARG_NET | UL_CTL_ARG_NIDS;
		if (im->mode == IMPORT_DEL) {
			rc = send_op(im, UL_CTL_OP_ROUTE_DEL, "del", "route");
		} else {
			if (cr->flags & UL_CONF_ROUTE_HAS_HOP) {
				a->hop = cr->hop;
				a->has |= UL_CTL_ARG_HOP;
			}
			if (cr->flags & UL_CONF_ROUTE_HAS_PRIORITY) {
				a->priority = (int32_t)cr->priority;
				a->has |= UL_CTL_ARG_PRIORITY;
			}
			rc = send_op(im, UL_CTL_OP_ROUTE_ADD, "add", "route");
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int import_peers(struct import *im)
{
	const struct ul_conf *c = im->conf;
	size_t i, k;
	int rc;

	for (i = 0; i < c->nr_peers; i++) {
		const struct ul_conf_peer *cp = &c->peers[i];
		struct ul_ctl_args *a = im->a;

		args_reset(im);
		a->nid = cp->primary_nid;
		a->has = UL_CTL_ARG_NID;
		for (k = 0; k < cp->nr_nis && k < UL_CTL_ARGS_NIDS_MAX; k++)
			a->nids[a->nnids++] = cp->nis[k];
		if (a->nnids)
			a->has |= UL_CTL_ARG_NIDS;
		/* The legacy parser reads the word and then drops it. */
		if ((cp->flags & UL_CONF_PEER_HAS_MULTI_RAIL) &&
		    !cp->is_multi_rail && !im->old_api)
			a->flags |= UL_CTL_ARGF_NON_MR;
		a->flags |= UL_CTL_ARGF_IMPORT; /* gateways come back as is */
		rc = im->mode == IMPORT_DEL
			     ? send_op(im, UL_CTL_OP_PEER_DEL, "del", "peer")
			     : send_op(im, UL_CTL_OP_PEER_ADD, "add", "peer");
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * `set <name> <v>`. A refusal: D1 "import" (a global key: nothing, as
 * lnetctl), or under --old-api lnetctl's legacy D2 entity (entity; NULL:
 * the name itself, as "add: - retry_count:").
 */
static int set_value(struct import *im, const char *name, long long v,
		     const char *entity)
{
	struct ul_ctl_args *a = im->a;
	const char *op = im->mode == IMPORT_DEL ? "del" : "add";

	args_reset(im);
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->value = v;
	a->has = UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE;
	if (!im->old_api)
		return send_req(im, UL_CTL_OP_SET, "add", "import", !entity);
	return send_req(im, UL_CTL_OP_SET, op, entity ? entity : name, false);
}

static int import_routing(struct import *im)
{
	static const char *const pools[] = { "tiny_buffers", "small_buffers",
					     "large_buffers" };
	const struct ul_conf *c = im->conf;
	const int vals[] = { c->tiny_buffers, c->small_buffers,
			     c->large_buffers };
	const unsigned int has[] = { UL_CONF_HAS_TINY_BUFFERS,
				     UL_CONF_HAS_SMALL_BUFFERS,
				     UL_CONF_HAS_LARGE_BUFFERS };
	int i, rc;

	if (c->flags & UL_CONF_HAS_ROUTING) {
		rc = set_value(im, "routing", c->routing_enable, "routing");
		if (rc)
			return rc;
	}
	if (!(c->flags & UL_CONF_HAS_BUFFERS))
		return 0;
	for (i = 0; i < 3; i++) {
		/* A pool the section leaves out goes back to its default. */
		rc = set_value(im, pools[i], (c->flags & has[i]) ? vals[i] : 0,
			       "buf");
		if (rc)
			return rc;
	}
	return 0;
}

static int import_global(struct import *im)
{
	const struct ul_conf_global *g = &im->conf->global;
	unsigned int key;
	long long v;
	int rc;

	for (key = 0; key < UL_CONF_GLOBAL_NR; key++) {
		if (!(g->flags & (1U << key)))
			continue;
		v = g->value[key];
		if (im->mode == IMPORT_DEL) {
			/* §16: these three go back to their defaults. */
			if (key == UL_CONF_GLOBAL_NUMA_RANGE)
				v = 0;
			else if (key == UL_CONF_GLOBAL_MAX_INTERFACES)
				v = 4096;
			else if (key == UL_CONF_GLOBAL_DISCOVERY)
				v = 1;
			else
				continue;
		}
		rc = set_value(im, ul_conf_global_name(key), v, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

static int import_udsp(struct import *im)
{
	const struct ul_conf *c = im->conf;
	struct ul_err err = { 0 };
	struct ul_udsp_rule *rule;
	uint8_t *block;
	size_t i, len;
	bool has_prio = false;
	unsigned int prio = 0;
	int rc = 0;

	for (i = 0; i < c->nr_udsps && !rc; i++) {
		/* Deleting from the last: an index moves when one before
		 * it goes. */
		const struct ul_conf_udsp *cu =
			&c->udsps[im->mode == IMPORT_DEL ? c->nr_udsps - 1 - i
							 : i];
		struct ul_ctl_args *a = im->a;

		args_reset(im);
		if (im->mode == IMPORT_DEL) {
			a->has = UL_CTL_ARG_IDX;
			a->idx = (int32_t)cu->idx;
			rc = send_op(im, UL_CTL_OP_UDSP_DEL, "del", "udsp");
			continue;
		}
		if (cu->flags & UL_CONF_UDSP_HAS_PRIORITY) {
			has_prio = true;
			prio = cu->priority;
		}
		/*
		 * §17.3 Quirk of lnetctl's netlink import: the last priority
		 * seen carries over to the rules after it, and a priority of
		 * 0 makes no action at all, which LNet refuses without a word.
		 */
		if (!im->old_api && has_prio && !prio)
			return -EINVAL;
		rc = ul_udsp_rule_from_strings(
			cu->src, cu->dst, cu->rte,
			im->old_api ? cu->flags & UL_CONF_UDSP_HAS_PRIORITY
				    : has_prio,
			im->old_api ? cu->priority : prio, (int)cu->idx, &rule,
			&err);
		if (rc)
			return import_fail(im, "add",
					   im->old_api ? "udsp" : "import", rc,
					   err.msg);
		len = ul_udsp_block_size(rule);
		block = malloc(len);
		rc = block ? ul_udsp_block_encode(rule, block, len, &err)
			   : -ENOMEM;
		if (!rc) {
			a->has = UL_CTL_ARG_UDSP_BLOCK;
			a->udsp_block = block;
			a->udsp_len = len;
			rc = send_op(im, UL_CTL_OP_UDSP_ADD, "add", "udsp");
		} else {
			rc = import_fail(im, "add",
					 im->old_api ? "udsp" : "import", rc,
					 err.msg);
		}
		free(block);
		ul_udsp_rule_free(rule);
	}
	return rc;
}

/* A typed show request for --show, printed as the show command prints it. */
static int show_call(const struct ul_ctl_req *req, const char *object,
		     int (*print)(FILE *, const struct ul_ctl_reply *,
				  uint32_t),
		     uint32_t level)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	rc = ulnetctl_ctl_call(req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_d1("show", object, rc, err.msg);
	rc = reply.rc ? ulnetctl_d1("show", object, reply.rc, reply.err_msg)
		      : print(stdout, &reply, level);
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* --show of one net: `net show --net NET -v 4` (with its udsp info). */
static int show_net(uint32_t net)
{
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	req.net_show.has_net = true;
	req.net_show.verbose = 4;
	ulnet_net_format(net, req.net_show.net, sizeof(req.net_show.net));
	return show_call(&req, "net", ul_show_yaml_net, 4);
}

/* --show of one peer: `peer show --nid PRIMARY`. */
static int show_peer(struct ulnet_nid nid)
{
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show.has_nid = true;
	req.peer_show.nid = nid;
	return show_call(&req, "peer", ul_show_yaml_peer, 0);
}

/*
 * --show (§16): each item of a section asked for as a query. A net block
 * or an ip2nets rule prints its net, a route or a peer itself; the other
 * sections print nothing, as in lnetctl.
 */
static int import_show(struct import *im, enum ul_conf_section sec)
{
	const struct ul_conf *c = im->conf;
	struct ul_ctl_args *a = im->a;
	size_t i;
	int rc = 0;

	switch (sec) {
	case UL_CONF_SEC_NET:
		for (i = 0; i < c->nr_nets && !rc; i++)
			rc = show_net(c->nets[i].net);
		break;
	case UL_CONF_SEC_IP2NETS:
		for (i = 0; i < c->nr_ip2nets && !rc; i++)
			rc = show_net(c->ip2nets[i].net);
		break;
	case UL_CONF_SEC_ROUTE:
		for (i = 0; i < c->nr_routes && !rc; i++) {
			args_reset(im);
			ulnet_net_format(c->routes[i].net, a->net,
					 sizeof(a->net));
			a->nids[0] = c->routes[i].gateway;
			a->nnids = 1;
			a->has = UL_CTL_ARG_NET | UL_CTL_ARG_NIDS |
				 UL_CTL_ARG_VERBOSE;
			a->verbose = 1;
			rc = ulnetctl_do(UL_CTL_OP_ROUTE_SHOW, a, "show",
					 "route", UL_DOC_A);
		}
		break;
	case UL_CONF_SEC_PEER:
		for (i = 0; i < c->nr_peers && !rc; i++)
			rc = show_peer(c->peers[i].primary_nid);
		break;
	default:
		break;
	}
	return rc;
}

static int apply(struct import *im)
{
	const struct ul_conf *c = im->conf;
	unsigned int i;
	bool done_routing = false, done_global = false;
	int rc = 0;

	for (i = 0; i < c->nr_order && !rc; i++) {
		if (im->mode == IMPORT_SHOW) {
			rc = import_show(im, c->order[i]);
			continue;
		}
		switch (c->order[i]) {
		case UL_CONF_SEC_NET:
			rc = import_nets(im);
			break;
		case UL_CONF_SEC_IP2NETS:
			rc = import_ip2nets(im);
			break;
		case UL_CONF_SEC_ROUTE:
			rc = import_routes(im);
			break;
		case UL_CONF_SEC_PEER:
			rc = import_peers(im);
			break;
		case UL_CONF_SEC_ROUTING:
		case UL_CONF_SEC_BUFFERS:
			if (!done_routing)
				rc = import_routing(im);
			done_routing = true;
			break;
		case UL_CONF_SEC_NUMA:
		case UL_CONF_SEC_GLOBAL:
			if (!done_global)
				rc = import_global(im);
			done_global = true;
			break;
		case UL_CONF_SEC_UDSP:
			rc = import_udsp(im);
			break;
		default:
			break;
		}
	}
	return rc;
}

/* The value of key in mapping n, or NULL. */
static const struct ul_ynode *ymap_get(const struct ul_ynode *n,
				       const char *key)
{
	size_t k;

	for (k = 0; n && n->type == UL_YNODE_MAP && k + 1 < n->nr; k += 2)
		if (n->kids[k]->str && strcmp(n->kids[k]->str, key) == 0)
			return n->kids[k + 1];
	return NULL;
}

/* One ping or discover of --exec; a failure is the D1 "manage:" entry. */
static int exec_one(bool is_ping, const char *text, const struct ul_ynode *sec)
{
	const struct ul_ynode *src = ymap_get(sec, "source");
	const struct ul_ynode *tmo = ymap_get(sec, "timeout");
	const char *what = is_ping ? "ping" : "discover";
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ulnet_nid nid;
	struct ul_ctl_req req;
	uint32_t wait = ULNETCTL_CTL_TIMEOUT_MS;
	char descr[UL_CTL_STR_MAX + 64];
	long ms;
	int rc;

	if (!text || ulnet_nid_parse(text, &nid, NULL, 0)) {
		snprintf(descr, sizeof(descr), "cannot parse NID '%s'",
			 text ? text : "");
		return ulnetctl_d1("manage", what, -EINVAL, descr);
	}
	memset(&req, 0, sizeof(req));
	if (is_ping) {
		req.op = UL_CTL_OP_PING;
		req.ping.target = nid;
		if (src && src->str &&
		    !ulnet_nid_parse(src->str, &req.ping.src, NULL, 0))
			req.ping.has_src = true;
		/* The section's timeout is in milliseconds (§16). */
		ms = tmo && tmo->str ? strtol(tmo->str, NULL, 10) : 0;
		if (ms > 0 && ms <= UINT32_MAX / 2) {
			req.ping.has_timeout = true;
			req.ping.timeout_ms = (uint32_t)ms;
			wait += req.ping.timeout_ms;
		}
		rc = ulnetctl_ctl_call(&req, wait, &reply, &err);
	} else {
		req.args.nid = nid;
		req.args.has = UL_CTL_ARG_NID;
		rc = ulnetctl_call(UL_CTL_OP_DISCOVER, &req.args, wait, &reply,
				   &err);
	}
	if (rc)
		return ulnetctl_d1("manage", what, rc, err.msg);
	/* Results are not printed (§16 --exec); a failure is. */
	rc = reply.rc ? ulnetctl_d1("manage", what, reply.rc, reply.err_msg)
		      : 0;
	ul_ctl_reply_fini(&reply);
	return rc;
}

/*
 * --exec: the ping and discover sections (§16), in document order; their
 * "nids" a mapping (0: nid) or a list.
 */
static int exec_sections(const char *text, size_t len)
{
	static const struct ul_ytree_limits lim = { UL_CONF_MAX_BYTES,
						    UL_CONF_MAX_DEPTH,
						    UL_CONF_MAX_ITEMS,
						    UL_CONF_MAX_NODES };
	const struct ul_ynode *nids, *n;
	struct ul_ynode *root = NULL;
	struct ul_err err = { 0 };
	size_t i, k;
	int rc;

	rc = ul_ytree_parse(text, len, &lim, &root, &err);
	if (rc)
		return ulnetctl_d1("manage", "import", rc, err.msg);
	for (i = 0;
	     root && root->type == UL_YNODE_MAP && i + 1 < root->nr && !rc;
	     i += 2) {
		const char *sec = root->kids[i]->str;
		bool is_ping = sec && strcmp(sec, "ping") == 0;

		if (!sec || (!is_ping && strcmp(sec, "discover") != 0))
			continue;
		nids = ymap_get(root->kids[i + 1], "nids");
		for (k = 0; nids && k < nids->nr && !rc; k++) {
			if (nids->type == UL_YNODE_MAP && ++k >= nids->nr)
				break;
			n = nids->kids[k];
			rc = exec_one(is_ping, n->str, root->kids[i + 1]);
		}
	}
	ul_ytree_free(root);
	return rc;
}

/*
 * A file ul_conf_parse() refuses. lnetctl's kernel refuses a bad
 * Multi-Rail word inside the peer request: that one is the peer's D1
 * with LNet's text; the rest name the line, the field and the reason.
 * --old-api: the legacy parser's D2 "yaml: - builder:".
 */
static int parse_failed(struct import *im, int rc, const char *msg)
{
	static const char mr[] = "invalid MR flag param";
	size_t n = strlen(msg);

	if (im->old_api) {
		ul_cyaml_err_add(&im->errs, "yaml", "builder", -1, msg);
		return -EINVAL;
	}
	if (n >= sizeof(mr) - 1 && strcmp(msg + n - (sizeof(mr) - 1), mr) == 0)
		return ulnetctl_d1("add", "peer", rc, mr);
	return ulnetctl_d1("add", "import", rc, msg);
}

/*
 * A conf warning on stderr. An unknown key under "tunables" or "lnd
 * tunables" in lnetctl's words, the rest as "ulnetctl import: line N:
 * <path>: <what>" (what lnetctl would pass on to LNet or skip without a
 * word, and ulnet does not apply).
 */
static void print_warning(const struct ul_conf_warning *w)
{
	static const char *const secs[] = { "tunables", "lnd tunables" };
	char want[64];
	const char *key;
	size_t i, n = strlen(w->text), k;

	for (i = 0; i < 2; i++) {
		k = (size_t)snprintf(want, sizeof(want),
				     ": unrecognized key for '%s'; ignored",
				     secs[i]);
		if (n < k || strcmp(w->text + n - k, want) != 0)
			continue;
		/* "<path>.<key>: ..." */
		key = memrchr(w->text, '.', n - k);
		if (!key)
			break;
		key++;
		fprintf(stderr, "Ignoring unrecognized key '%.*s' for '%s'\n",
			(int)(w->text + n - k - key), key, secs[i]);
		return;
	}
	fprintf(stderr, "ulnetctl import: line %u: %s\n", w->line, w->text);
}

static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = cap > UL_CONF_MAX_BYTES
					   ? NULL
					   : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -EFBIG;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf)
		return -ENOMEM;
	*out = buf;
	*len = n;
	return 0;
}

int ulnetctl_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "add", no_argument, NULL, 'a' },
		{ "del", no_argument, NULL, 'd' },
		{ "show", no_argument, NULL, 's' },
		{ "exec", no_argument, NULL, 'e' },
		{ "old-api", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct import im = { 0 };
	bool is_opt = false;
	struct ul_err err = { 0 };
	const char *path = NULL;
	struct ul_conf conf;
	char *text = NULL, descr[UL_ERR_MSG_SIZE + 64];
	size_t len = 0, i;
	FILE *f = stdin;
	int opt, rc;

	optind = 0;
	im.mode = IMPORT_ADD;
	while ((opt = getopt_long(argc, argv, "adseoh", opts, NULL)) != -1) {
		is_opt = true;
		switch (opt) {
		case 'a':
			im.mode = IMPORT_ADD;
			break;
		case 'd':
			im.mode = IMPORT_DEL;
			break;
		case 's':
			im.mode = IMPORT_SHOW;
			break;
		case 'e':
			im.mode = IMPORT_EXEC;
			break;
		case 'o':
			im.old_api = true;
			break;
		case 'h':
			printf("import FILE\n"
			       "import < FILE : import a file\n"
			       "\t--add: add configuration\n"
			       "\t--del: delete configuration\n"
			       "\t--show: show configuration\n"
			       "\t--exec: execute command\n"
			       "\t--old-api: do not use netlink (for tests)\n"
			       "\t--help: display this help\n"
			       "If no command option is given then --add"
			       " is assumed by default\n");
			return 0;
		default:
			/* lnetctl: getopt's complaint only, nothing done. */
			return 0;
		}
	}
	/*
	 * lnetctl: the file is the sole argument, or the third word next to
	 * options (getopt has moved the options first); else stdin.
	 */
	if (is_opt && argc == 3)
		path = argv[2];
	else if (!is_opt && argc == 2)
		path = argv[1];
	ul_cyaml_errs_init(&im.errs, stderr);
	if (path) {
		f = fopen(path, "r");
		if (!f) {
			rc = -errno;
			snprintf(descr, sizeof(descr), "cannot open '%s': %s",
				 path, strerror(-rc));
			ul_cyaml_err_add(&im.errs, "yaml", "builder", -1,
					 descr);
			return rc;
		}
	}
	rc = read_all(f, &text, &len);
	if (f != stdin)
		fclose(f);
	if (rc) {
		ul_cyaml_err_add(&im.errs, "yaml", "builder", -1,
				 strerror(-rc));
		return rc;
	}
	if (im.mode == IMPORT_EXEC) {
		rc = exec_sections(text, len);
		free(text);
		return rc;
	}
	ul_conf_init(&conf);
	rc = ul_conf_parse(text, len, &conf, &err);
	free(text);
	if (rc) {
		rc = parse_failed(&im, rc, err.msg);
		ul_conf_fini(&conf);
		return rc;
	}
	for (i = 0; i < conf.nr_warnings; i++)
		print_warning(&conf.warnings[i]);
	if (conf.nr_warnings_dropped)
		fprintf(stderr, "ulnetctl import: %zu more warnings\n",
			conf.nr_warnings_dropped);
	im.conf = &conf;
	im.a = calloc(1, sizeof(*im.a));
	rc = im.a ? apply(&im) : -ENOMEM;
	if (!rc)
		rc = im.old_rc;
	free(im.ifs);
	free(im.a);
	ul_conf_fini(&conf);
	return rc;
}
