/*
 * The import engine (conf_import.h): the steps in document order, and
 * the net blocks and ip2nets rules (lnetctl.md §17.2).
 *
 * A net block goes as lnetctl's netlink import sends it: its interfaces
 * resolved on this host first, then one request with every NI of the
 * block, the block's last-seen tunables and LND tunables and the union
 * of all its CPT lists. NIs given by NID (ulnet's "nid:") go as a second
 * request, as `net add` takes either. --old-api sends each "local NI(s)"
 * item with its own values, as lnetctl's legacy path does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_import_int.h"

/* CPT numbers a union may name (LNet has far fewer CPTs). */
#define IMP_CPT_MAX 256

const char *ul_imp_op(const struct imp *im)
{
	return im->o->is_del ? "del" : "add";
}

void ul_imp_reset(struct imp *im)
{
	memset(im->a, 0, sizeof(*im->a));
}

/* The request got no answer: the import's one error, naming the socket. */
static void lost(struct imp *im, int rc, const struct ul_err *err)
{
	const char *object = ul_conf_section_name(im->sec);
	struct ul_conf_report r = {
		im->is_old ? ul_imp_op(im) : NULL,
		ul_imp_op(im),
		object,
		rc,
		-1,
		err->msg[0] ? err->msg : NULL,
		0,
		false,
		false,
	};

	im->o->ops.report(im->o->ops.ctx, &r);
	im->is_lost = true;
	im->lost_rc = rc;
}

int ul_imp_call(struct imp *im, uint16_t op, struct ul_err *err)
{
	bool is_lost = false;
	int rc;

	memset(err, 0, sizeof(*err));
	if (im->is_lost)
		return ul_err_set(err, im->lost_rc, "no answer from ulnetd");
	rc = im->o->ops.call(im->o->ops.ctx, op, im->a, err, &is_lost);
	if (rc && is_lost)
		lost(im, rc, err);
	return rc;
}

bool ul_imp_can_batch(const struct imp *im)
{
	return im->o->ops.batch_add && im->o->ops.batch_send &&
	       !im->is_unbatched;
}

int ul_imp_queue(struct imp *im, uint16_t op)
{
	return im->o->ops.batch_add(im->o->ops.ctx, op, im->a);
}

int ul_imp_send(struct imp *im, size_t *done, struct ul_err *err)
{
	bool is_lost = false, is_unsupported = false;
	int rc;

	memset(err, 0, sizeof(*err));
	*done = 0;
	if (im->is_lost)
		return ul_err_set(err, im->lost_rc, "no answer from ulnetd");
	rc = im->o->ops.batch_send(im->o->ops.ctx, done, err, &is_lost,
				   &is_unsupported);
	if (rc && is_lost)
		lost(im, rc, err);
	else if (rc && is_unsupported) {
		im->is_unbatched = true;
		return -EOPNOTSUPP;
	}
	return rc;
}

int ul_imp_d1(struct imp *im, const char *object, int errnum, const char *descr,
	      unsigned int line, int status)
{
	struct ul_conf_report r = { NULL,  ul_imp_op(im), object, errnum, -1,
				    descr, line,	  false,  false };

	if (!im->is_lost)
		im->o->ops.report(im->o->ops.ctx, &r);
	return status;
}

void ul_imp_d2(struct imp *im, const char *op, const char *entity, int seq_no,
	       int errnum, const char *descr, unsigned int line, int status)
{
	struct ul_conf_report r = { op,	   op,	 entity, errnum, seq_no,
				    descr, line, false,	 false };

	if (!im->is_lost)
		im->o->ops.report(im->o->ops.ctx, &r);
	im->status = status;
}

void ul_imp_silent(struct imp *im, const char *object, int errnum,
		   const char *descr, unsigned int line, bool is_ignored)
{
	struct ul_conf_report r = { NULL,  ul_imp_op(im), object, errnum,    -1,
				    descr, line,	  true,	  is_ignored };

	if (!im->is_lost)
		im->o->ops.report(im->o->ops.ctx, &r);
}

/* "[0,1]" of an expression ("0" alone reads back the same). */
static void cpt_text(const struct ul_expr *e, char *buf, size_t len)
{
	char tmp[UL_CTL_NAME_MAX - 2];

	ul_expr_format(e, tmp, sizeof(tmp));
	snprintf(buf, len, tmp[0] == '[' ? "%s" : "[%s]", tmp);
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

static void put_if(struct ul_ctl_args *a, const char *ifname,
		   const struct ul_expr *cpt)
{
	char suffix[UL_CTL_NAME_MAX] = "";
	char *dst;
	int n;

	if (a->nifs == UL_CTL_ARGS_IFS_MAX)
		return;
	if (cpt)
		cpt_text(cpt, suffix, sizeof(suffix));
	dst = a->ifs[a->nifs++];
	n = snprintf(dst, UL_CTL_IFNAME_MAX, "%s%s", ifname, suffix);
	/* Too long for the request: no name, which the daemon refuses. */
	if (n < 0 || n >= UL_CTL_IFNAME_MAX)
		dst[0] = '\0';
	a->has |= UL_CTL_ARG_IFS;
}

/* What one net request carries besides its NIs. */
struct net_req {
	uint32_t net;
	const struct ul_conf_tunables *tun;
	const struct ul_conf_lnd_tunables *lnd;
	const char *cpt; /* "[...]" or NULL */
};

/* Finish im->a as a net add (or del) of r and send it. */
static int send_net(struct imp *im, const struct net_req *r, struct ul_err *err)
{
	struct ul_ctl_args *a = im->a;

	if (!a->nnids) {
		ulnet_net_format(r->net, a->net, sizeof(a->net));
		a->has |= UL_CTL_ARG_NET;
	}
	if (im->o->is_del)
		return ul_imp_call(im, UL_CTL_OP_NET_DEL, err);
	put_tunables(a, r->tun);
	put_lnd(a, r->lnd);
	if (r->cpt) {
		snprintf(a->cpt, sizeof(a->cpt), "%s", r->cpt);
		a->has |= UL_CTL_ARG_CPT;
	}
	return ul_imp_call(im, UL_CTL_OP_NET_ADD, err);
}

/*
 * LNet refused a block's NIs: its error, then lnetctl's own second
 * document (handle_net_config_sequence).
 */
static int net_refused(struct imp *im, uint32_t net, int rc,
		       const struct ul_err *err, unsigned int line)
{
	char netstr[ULNET_NIDSTR_SIZE], descr[ULNET_NIDSTR_SIZE + 64];

	ul_imp_d1(im, "net", rc, err->msg[0] ? err->msg : NULL, line, rc);
	snprintf(descr, sizeof(descr),
		 "Failed to configure NI on net '%s' rc = %d",
		 ulnet_net_format(net, netstr, sizeof(netstr)), -EINVAL);
	return ul_imp_d1(im, "import", -EINVAL, descr, line, -EINVAL);
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

/* The CPT numbers an expression names, added to a set. */
static void merge_cpt(uint8_t *set, bool *has, const struct ul_expr *e)
{
	uint32_t v;

	if (!e)
		return;
	*has = true;
	for (v = 0; v < IMP_CPT_MAX; v++)
		if (ul_expr_match(e, v))
			set[v / 8] |= (uint8_t)(1U << (v % 8));
}

static void cpt_set_text(const uint8_t *set, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t v;

	buf[0] = '\0';
	for (v = 0; v < IMP_CPT_MAX && off + 1 < len; v++)
		if (set[v / 8] & (1U << (v % 8)))
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
						off ? "," : "[", v);
	if (off && off + 1 < len)
		snprintf(buf + off, len - off, "]");
}

/*
 * A block's NIs, sorted by how they are given, with the NUMA node of
 * each (its group's "dev cpt", -1 for none).
 */
struct block_nis {
	const struct ul_conf_ni **by_if, **by_nid;
	int *if_numa, *nid_numa;
	size_t nif, nnid;
	struct ul_conf_ni *by_group_nid; /* is_nid_over_iface: made here */
};

static int group_numa(const struct ul_conf_ni_group *g)
{
	return (g->flags & UL_CONF_GROUP_HAS_DEV_CPT) && g->dev_cpt >= 0
		       ? g->dev_cpt
		       : -1;
}

/*
 * A dry run's reading of a group with both "nid:" and "interfaces:" (what
 * export writes): one NI by that NID, so that a file from another
 * machine loads whatever interfaces this one has (ctl/node_req.h).
 */
static bool group_by_nid(const struct ul_conf_ni_group *g, bool is_nid_first)
{
	return is_nid_first && (g->flags & UL_CONF_GROUP_HAS_NID) &&
	       g->nr_nis && g->nis[0].by == UL_CONF_NI_BY_IFACE;
}

static int block_nis_collect(const struct ul_conf_net *cn, struct block_nis *b,
			     bool is_nid_first)
{
	size_t g, k, total = cn->nr_nis;

	for (g = 0; g < cn->nr_groups; g++)
		total += cn->groups[g].nr_nis;
	memset(b, 0, sizeof(*b));
	b->by_if = calloc(total + 1, sizeof(const struct ul_conf_ni *));
	b->by_nid = calloc(total + 1, sizeof(const struct ul_conf_ni *));
	b->if_numa = calloc(total + 1, sizeof(int));
	b->nid_numa = calloc(total + 1, sizeof(int));
	b->by_group_nid = calloc(cn->nr_groups + 1, sizeof(*b->by_group_nid));
	if (!b->by_if || !b->by_nid || !b->if_numa || !b->nid_numa ||
	    !b->by_group_nid)
		return -ENOMEM;
	for (k = 0; k < cn->nr_nis; k++)
		if (cn->nis[k].by == UL_CONF_NI_BY_NID) {
			b->nid_numa[b->nnid] = -1;
			b->by_nid[b->nnid++] = &cn->nis[k];
		} else {
			b->if_numa[b->nif] = -1;
			b->by_if[b->nif++] = &cn->nis[k];
		}
	for (g = 0; g < cn->nr_groups; g++) {
		if (group_by_nid(&cn->groups[g], is_nid_first)) {
			struct ul_conf_ni *ni = &b->by_group_nid[g];

			ni->by = UL_CONF_NI_BY_NID;
			ni->nid = cn->groups[g].nid;
			ni->line = cn->groups[g].line;
			b->nid_numa[b->nnid] = group_numa(&cn->groups[g]);
			b->by_nid[b->nnid++] = ni;
			continue;
		}
		for (k = 0; k < cn->groups[g].nr_nis; k++)
			if (cn->groups[g].nis[k].by == UL_CONF_NI_BY_NID) {
				b->nid_numa[b->nnid] =
					group_numa(&cn->groups[g]);
				b->by_nid[b->nnid++] = &cn->groups[g].nis[k];
			} else {
				b->if_numa[b->nif] = group_numa(&cn->groups[g]);
				b->by_if[b->nif++] = &cn->groups[g].nis[k];
			}
	}
	return 0;
}

static void block_nis_free(struct block_nis *b)
{
	free(b->by_group_nid);
	free(b->by_if);
	free(b->by_nid);
	free(b->if_numa);
	free(b->nid_numa);
}

/*
 * The end of the run of NIs from first on that one request carries:
 * all of them, as lnetctl sends a block, or with is_numa_from_dev_cpt
 * those of one NUMA node (a request has one).
 */
static size_t numa_run(const struct imp *im, const int *numa, size_t first,
		       size_t n)
{
	size_t end = first + 1;

	if (!im->o->is_numa_from_dev_cpt)
		return n;
	while (end < n && numa[end] == numa[first])
		end++;
	return end;
}

static void put_numa(struct ul_ctl_args *a, int numa)
{
	if (numa < 0)
		return;
	a->numa = numa;
	a->has |= UL_CTL_ARG_NUMA;
}

/* Resolve named interfaces (pointers into a block) on this host. */
static int resolve(struct imp *im, const struct ul_conf_ni *const *nis,
		   size_t nr, const struct ul_conf_net *rule,
		   struct ul_conf_resolved *out, size_t *nout,
		   struct ul_err *err)
{
	struct ul_conf_ni *flat = NULL;
	size_t i;
	int rc;

	if (nr) {
		flat = calloc(nr, sizeof(*flat));
		if (!flat)
			return ul_err_set(err, -ENOMEM, "out of memory");
		for (i = 0; i < nr; i++)
			flat[i] = *nis[i];
	}
	rc = ul_conf_resolve(im->o->addrs, im->o->nr_addrs, flat, nr,
			     rule ? rule->ranges : NULL,
			     rule ? rule->nr_ranges : 0, out,
			     UL_CTL_ARGS_IFS_MAX, nout, err);
	free(flat);
	return rc;
}

/* lnetctl's netlink import of one net block (§17.2). */
static int nl_net_block(struct imp *im, const struct ul_conf_net *cn)
{
	struct ul_conf_resolved res[UL_CTL_ARGS_IFS_MAX];
	struct ul_conf_lnd_tunables lnd = { 0 };
	struct ul_conf_tunables tun = { 0 };
	uint8_t set[IMP_CPT_MAX / 8] = { 0 };
	struct net_req r = { cn->net, &tun, &lnd, NULL };
	struct ul_err err = { 0 };
	char cpt[UL_CTL_NAME_MAX];
	struct block_nis b;
	bool has_cpt = false;
	size_t g, k, first, end, nres = 0;
	int rc;

	rc = block_nis_collect(cn, &b, im->o->is_nid_over_iface);
	if (rc) {
		rc = ul_imp_d1(im, "import", rc, NULL, cn->line, rc);
		goto out;
	}
	merge_tunables(&tun, &cn->tunables);
	merge_lnd(&lnd, &cn->lnd_tunables);
	merge_cpt(set, &has_cpt, cn->cpt);
	for (g = 0; g < cn->nr_groups; g++) {
		const struct ul_conf_ni_group *grp = &cn->groups[g];

		merge_tunables(&tun, &grp->tunables);
		merge_lnd(&lnd, &grp->lnd_tunables);
		merge_cpt(set, &has_cpt, grp->cpt);
	}
	cpt_set_text(set, cpt, sizeof(cpt));
	r.cpt = has_cpt && cpt[0] ? cpt : NULL;
	for (first = 0; first < b.nnid; first = end) {
		end = numa_run(im, b.nid_numa, first, b.nnid);
		ul_imp_reset(im);
		for (k = first; k < end && im->a->nnids < UL_CTL_ARGS_NIDS_MAX;
		     k++)
			im->a->nids[im->a->nnids++] = b.by_nid[k]->nid;
		im->a->has |= UL_CTL_ARG_NIDS;
		put_numa(im->a, b.nid_numa[first]);
		rc = send_net(im, &r, &err);
		if (rc) {
			rc = net_refused(im, cn->net, rc, &err, cn->line);
			goto out;
		}
	}
	if (!b.nif && b.nnid)
		goto out;
	/* No interface at all: the first up one, as lnetctl picks it. */
	first = 0;
	do {
		end = b.nif ? numa_run(im, b.if_numa, first, b.nif) : 0;
		rc = resolve(im, b.by_if + first, end - first, NULL, res, &nres,
			     &err);
		if (rc) {
			rc = ul_imp_d1(im, "import", rc, err.msg, cn->line, rc);
			goto out;
		}
		ul_imp_reset(im);
		for (k = 0; k < nres; k++)
			put_if(im->a, res[k].ifname, res[k].cpt);
		if (b.nif)
			put_numa(im->a, b.if_numa[first]);
		rc = send_net(im, &r, &err);
		if (rc) {
			rc = net_refused(im, cn->net, rc, &err, cn->line);
			goto out;
		}
		first = end;
	} while (first < b.nif);
out:
	block_nis_free(&b);
	return rc;
}

/* The NIs of a legacy item as written, with no resolution. */
static void put_nis_as_written(struct ul_ctl_args *a,
			       const struct ul_conf_ni *nis, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (nis[i].by == UL_CONF_NI_BY_IFACE) {
			put_if(a, nis[i].ifname, nis[i].cpt);
		} else if (a->nnids < UL_CTL_ARGS_NIDS_MAX) {
			a->nids[a->nnids++] = nis[i].nid;
			a->has |= UL_CTL_ARG_NIDS;
		}
	}
}

/* lnetctl's legacy check of conns_per_peer, before anything is sent. */
static bool old_conns_ok(struct imp *im, const struct ul_conf_net *cn,
			 const struct ul_conf_lnd_tunables *l)
{
	if (!(l->flags & UL_CONF_LND_HAS_CONNS_PER_PEER) ||
	    (l->conns_per_peer >= 0 && l->conns_per_peer <= 127))
		return true;
	ul_imp_d2(im, "ni", "add", -1, -1,
		  "invalid conns-per-peer value (valid range 0-127)", cn->line,
		  -ERANGE);
	return false;
}

/*
 * --old-api: each "local NI(s)" item with its own tunables (the block's
 * when it has none) and its own CPT; "local NI(s)" is mandatory (a block
 * without it fails without a word); --del sends every NI of the block at
 * once.
 */
static void old_net_block(struct imp *im, const struct ul_conf_net *cn)
{
	struct ul_err err = { 0 };
	char cpt[UL_CTL_NAME_MAX];
	struct net_req r;
	size_t g;
	int rc;

	if (!(cn->flags & UL_CONF_NET_HAS_LOCAL_NIS)) {
		im->status = -EFAULT;
		return;
	}
	if (!old_conns_ok(im, cn, &cn->lnd_tunables))
		return;
	if (im->o->is_del) {
		ul_imp_reset(im);
		for (g = 0; g < cn->nr_groups; g++)
			put_nis_as_written(im->a, cn->groups[g].nis,
					   cn->groups[g].nr_nis);
		r = (struct net_req){ cn->net, &cn->tunables, &cn->lnd_tunables,
				      NULL };
		rc = send_net(im, &r, &err);
		if (rc)
			ul_imp_d2(im, "del", "net", cn->seq_no, rc, err.msg,
				  cn->line, rc);
		return;
	}
	for (g = 0; g < cn->nr_groups; g++) {
		const struct ul_conf_ni_group *grp = &cn->groups[g];

		if (!grp->nr_nis)
			continue;
		if (!old_conns_ok(im, cn, &grp->lnd_tunables))
			return;
		r.net = cn->net;
		r.tun = (grp->flags & UL_CONF_GROUP_HAS_TUNABLES)
				? &grp->tunables
				: &cn->tunables;
		r.lnd = (grp->flags & UL_CONF_GROUP_HAS_LND_TUNABLES)
				? &grp->lnd_tunables
				: &cn->lnd_tunables;
		r.cpt = NULL;
		if (grp->cpt) {
			cpt_text(grp->cpt, cpt, sizeof(cpt));
			r.cpt = cpt;
		}
		ul_imp_reset(im);
		put_nis_as_written(im->a, grp->nis, grp->nr_nis);
		rc = send_net(im, &r, &err);
		if (rc) {
			ul_imp_d2(im, "add", "net", cn->seq_no, rc, err.msg,
				  grp->line, rc);
			return;
		}
	}
}

/* A failure of an ip2nets rule: the netlink import stops there. */
static int rule_failed(struct imp *im, const struct ul_conf_net *r, int rc,
		       const char *descr)
{
	if (im->is_old) {
		ul_imp_d2(im, "add", "ip2nets", r->seq_no, rc, descr, r->line,
			  rc);
		return 0;
	}
	return ul_imp_d1(im, "import", rc, descr, r->line, rc);
}

/*
 * ip2nets (§17.2): each rule resolved on this host; a rule that matches
 * nothing is skipped, as is one for a net an earlier rule of the section
 * configured; a section of which no rule applied fails. --old-api's
 * --del leaves ip2nets alone.
 */
static int import_ip2nets(struct imp *im, const struct ul_conf_step *st)
{
	struct ul_conf_resolved res[UL_CTL_ARGS_IFS_MAX];
	const struct ul_conf_ni **nis = NULL;
	size_t i, k, nres, applied = 0;
	uint32_t *done = NULL;
	struct ul_err err;
	int rc = 0;

	if (im->is_old && im->o->is_del)
		return 0;
	done = calloc(st->nr + 1, sizeof(*done));
	if (!done)
		return ul_imp_d1(im, "import", -ENOMEM, NULL, st->line,
				 -ENOMEM);
	for (i = st->first; i < st->first + st->nr; i++) {
		const struct ul_conf_net *r = &im->conf->ip2nets[i];
		char cpt[UL_CTL_NAME_MAX];
		struct net_req req = { r->net, &r->tunables, &r->lnd_tunables,
				       NULL };
		bool is_dup = false;

		free(nis);
		nis = calloc(r->nr_nis + 1, sizeof(const struct ul_conf_ni *));
		if (!nis) {
			rc = ul_imp_d1(im, "import", -ENOMEM, NULL, r->line,
				       -ENOMEM);
			goto out;
		}
		for (k = 0; k < r->nr_nis; k++)
			nis[k] = &r->nis[k];
		memset(&err, 0, sizeof(err));
		rc = resolve(im, nis, r->nr_nis, r, res, &nres, &err);
		if (rc == -ENOMSG) {
			rc = 0;
			continue;
		}
		if (rc) {
			rc = rule_failed(im, r, rc, err.msg);
			if (rc)
				goto out;
			continue;
		}
		for (k = 0; k < applied && !is_dup; k++)
			is_dup = done[k] == r->net;
		if (is_dup)
			continue;
		ul_imp_reset(im);
		for (k = 0; k < nres; k++)
			put_if(im->a, res[k].ifname, res[k].cpt);
		if (r->cpt) {
			cpt_text(r->cpt, cpt, sizeof(cpt));
			req.cpt = cpt;
		}
		rc = send_net(im, &req, &err);
		if (rc && im->is_old) {
			ul_imp_d2(im, ul_imp_op(im), "net", r->seq_no, rc,
				  err.msg, r->line, rc);
			rc = 0;
			continue;
		}
		if (rc) {
			rc = net_refused(im, r->net, rc, &err, r->line);
			goto out;
		}
		done[applied++] = r->net;
	}
	if (!st->is_cut && !applied)
		rc = rule_failed(im,
				 &(struct ul_conf_net){ .line = st->line,
							.seq_no = -1 },
				 -EINVAL, "No ip2nets rules applied");
out:
	free(nis);
	free(done);
	return rc;
}

static int run_step(struct imp *im, const struct ul_conf_step *st)
{
	size_t i;
	int rc;

	im->sec = st->sec;
	switch (st->sec) {
	case UL_CONF_SEC_NET:
		for (i = st->first; i < st->first + st->nr; i++) {
			if (im->is_old) {
				old_net_block(im, &im->conf->nets[i]);
				continue;
			}
			rc = nl_net_block(im, &im->conf->nets[i]);
			if (rc)
				return rc;
		}
		return 0;
	case UL_CONF_SEC_IP2NETS:
		return import_ip2nets(im, st);
	case UL_CONF_SEC_ROUTE:
		return ul_imp_routes(im, st);
	case UL_CONF_SEC_PEER:
		return ul_imp_peers(im, st);
	case UL_CONF_SEC_UDSP:
		return ul_imp_udsp(im, st);
	default:
		return ul_imp_setting(im, st);
	}
}

/* The document's notes up to step (included), in order. */
static void notes_upto(struct imp *im, size_t step, size_t *next)
{
	const struct ul_conf *c = im->conf;

	for (; *next < c->nr_warnings && c->warnings[*next].step <= step;
	     (*next)++)
		if (im->o->ops.note)
			im->o->ops.note(im->o->ops.ctx, &c->warnings[*next]);
}

/* The parse's refusal, where the document stopped. */
static int refused(struct imp *im)
{
	const struct ul_conf_refusal *f = &im->conf->refusal;
	struct ul_conf_report r = { f->d2_op,  ul_imp_op(im), f->object,
				    f->errnum, f->seq_no,     f->msg,
				    f->line,   false,	      false };

	im->o->ops.report(im->o->ops.ctx, &r);
	return f->status;
}

int ul_conf_import(const struct ul_conf *conf,
		   const struct ul_conf_import_opts *o)
{
	struct imp im = { conf,	 o,
			  NULL,	 conf->dialect == UL_CONF_OLD_API,
			  0,	 UL_CONF_SEC_NET,
			  false, 0,
			  false };
	size_t i, next = 0;
	int rc = 0;

	im.a = calloc(1, sizeof(*im.a));
	if (!im.a)
		return ul_imp_d1(&im, "import", -ENOMEM, NULL, 0, -ENOMEM);
	for (i = 0; i < conf->nr_steps && !rc && !im.is_lost; i++) {
		notes_upto(&im, i, &next);
		rc = run_step(&im, &conf->steps[i]);
	}
	if (!rc && !im.is_lost) {
		notes_upto(&im, (size_t)-1, &next);
		if (conf->refusal.is_set)
			rc = refused(&im);
		if (rc)
			im.status = rc;
	}
	/* --old-api: the last failure's status (lustre_yaml_cb_helper) */
	if (im.is_old)
		rc = im.status;
	/* no daemon is no LNet refusal: a failure in every section */
	if (im.is_lost)
		rc = -EINVAL;
	free(im.a);
	return rc;
}
