/*
 * The "peer" section of lnet.conf: peers by primary NID and their NIs.
 * lnetctl streams it to LNet; what LNet refuses inside a peer request
 * (a bad Multi-Rail word, a "health stats" block it cannot set, a peer
 * without primary NID) is refused here with LNet's words, as the peer's
 * error (lnetctl.md §17.3). Keys LNet does not read are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl/conf_walk.h"

/* LNet's refusal of a peer item, as the netlink import reports it. */
static int peer_refusal(struct ul_conf_walk *w, const struct ul_ynode *n,
			int errnum, const char *descr, const char *why)
{
	if (w->dialect == UL_CONF_NETLINK) {
		ul_conf_walk_report_as(w, NULL, "peer", errnum, -EINVAL);
		ul_conf_walk_report_descr(w, "%s", descr);
	}
	return ul_conf_walk_fail(w, n, "%s", why);
}

/* "health stats" of an export: only "health value" is tolerated. */
static int walk_peer_health(struct ul_conf_walk *w, const struct ul_ynode *key,
			    const struct ul_ynode *m)
{
	size_t i, n;
	int rc;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++)
		if (strcmp(m->kids[2 * i]->str, "health value") != 0)
			rc = peer_refusal(w, m->kids[2 * i], -EINVAL,
					  "wrong health config format",
					  "wrong health config format");
	return rc ? rc : ul_conf_walk_skip(w, key, "health value skipped");
}

/* The value of key in mapping m, when it is a scalar; else NULL. */
static const char *map_str(const struct ul_ynode *m, const char *key)
{
	size_t i;

	for (i = 0; m && m->type == UL_YNODE_MAP && i + 1 < m->nr; i += 2)
		if (m->kids[i]->str && !strcmp(m->kids[i]->str, key) &&
		    m->kids[i + 1]->type == UL_YNODE_SCALAR)
			return m->kids[i + 1]->str;
	return NULL;
}

/*
 * --old-api: a "peer ni" NID that is not one. The legacy path joins the
 * item's NIDs but the primary with spaces and parses that as a nidlist:
 * lnetctl's words name the whole string.
 */
static void old_bad_nids(struct ul_conf_walk *w, const struct ul_ynode *m)
{
	const struct ul_ynode *nis = NULL;
	const char *prim = map_str(m, "primary nid"), *nid;
	char list[UL_ERR_MSG_SIZE] = "";
	size_t i, off = 0;

	for (i = 0; m->type == UL_YNODE_MAP && i + 1 < m->nr; i += 2)
		if (m->kids[i]->str && !strcmp(m->kids[i]->str, "peer ni"))
			nis = m->kids[i + 1];
	for (i = 0; nis && nis->type == UL_YNODE_SEQ && i < nis->nr; i++) {
		nid = map_str(nis->kids[i], "nid");
		if (!nid || (prim && !strcmp(nid, prim)) ||
		    off + 1 >= sizeof(list))
			continue;
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					off ? " " : "", nid);
	}
	ul_conf_walk_report_descr(w, "\"Unable to parse nidlist from: %.128s\"",
				  list);
}

/* "peer ni" (v) of the peer item m. */
static int walk_peer_nis(struct ul_conf_walk *w, const struct ul_ynode *m,
			 const struct ul_ynode *v, struct ul_conf_peer *p)
{
	struct ulnet_nid *nid;
	const struct ul_ynode *ni, *key;
	size_t i, j, nr, n, old, old2;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		ni = v->kids[i];
		old = ul_conf_walk_push_idx(w, i);
		rc = ul_conf_walk_want_map(w, ni, &n);
		for (j = 0; !rc && j < n; j++) {
			key = ni->kids[2 * j];
			old2 = ul_conf_walk_push_key(w, key->str);
			if (!strcmp(key->str, "nid")) {
				nid = ul_conf_walk_grow(w, &p->nis, &p->nr_nis,
							sizeof(*nid));
				rc = nid ? ul_conf_walk_get_peer_nid(
						   w, ni->kids[2 * j + 1], nid)
					 : -ENOMEM;
				if (rc && nid)
					p->nr_nis--;
				if (rc == -EINVAL &&
				    w->dialect == UL_CONF_OLD_API)
					old_bad_nids(w, m);
			} else if (!strcmp(key->str, "health stats")) {
				rc = walk_peer_health(w, key,
						      ni->kids[2 * j + 1]);
			} else {
				/* an export's state and counters */
				rc = ul_conf_walk_skip(w, key,
						       "not settable; skipped");
			}
			ul_conf_walk_pop(w, old2);
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

/*
 * "Multi-Rail": LNet's yes/no words; --old-api's legacy parser takes
 * True/False/true/false as booleans, which it then reads as absent (the
 * peer is Multi-Rail), and refuses any other text (lnetctl.md §16).
 */
static int walk_multi_rail(struct ul_conf_walk *w, const struct ul_ynode *v,
			   struct ul_conf_peer *p)
{
	static const char *const words[] = { "True", "False", "true", "false",
					     NULL };
	struct ul_err e;
	const char *s;
	int rc;

	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	p->flags |= UL_CONF_PEER_HAS_MULTI_RAIL;
	if (w->dialect == UL_CONF_OLD_API) {
		if (ul_conf_walk_key_index(words, s) < 0) {
			ul_conf_walk_report_as(w, "peer", "add", -EINVAL,
					       -EINVAL);
			ul_conf_walk_report_descr(w,
						  "Multi-Rail must be set to "
						  "'True' or 'False' found "
						  "'%.64s'",
						  s);
			return ul_conf_walk_fail(w, v,
						 "Multi-Rail must be set to "
						 "'True' or 'False' found "
						 "'%.64s'",
						 s);
		}
		p->is_multi_rail = true;
		return 0;
	}
	if (ul_conf_parse_bool(s, &p->is_multi_rail, &e))
		return peer_refusal(w, v, -EINVAL, "invalid MR flag param",
				    e.msg);
	return 0;
}

/* "primary nid": --old-api refuses a bad one in lnetctl's words. */
static int walk_primary(struct ul_conf_walk *w, const struct ul_ynode *v,
			struct ul_conf_peer *p)
{
	int rc = ul_conf_walk_get_peer_nid(w, v, &p->primary_nid);

	if (rc == -EINVAL && w->dialect == UL_CONF_OLD_API)
		ul_conf_walk_report_descr(w,
					  "\"badly formatted primary NID: "
					  "%.64s\"",
					  v->type == UL_YNODE_SCALAR ? v->str
								     : "");
	return rc;
}

static int walk_peer(struct ul_conf_walk *w, const struct ul_ynode *m,
		     struct ul_conf_peer *p)
{
	size_t i, n, old;
	bool has_primary = false;
	int rc;

	p->line = m->line;
	p->seq_no = ul_conf_walk_seq_no(m);
	/* the legacy path's errors of a peer carry its seq_no */
	w->seq_no = p->seq_no;
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		if (!strcmp(key->str, "primary nid")) {
			rc = walk_primary(w, v, p);
			has_primary = true;
		} else if (!strcmp(key->str, "Multi-Rail")) {
			rc = walk_multi_rail(w, v, p);
		} else if (!strcmp(key->str, "peer ni")) {
			rc = walk_peer_nis(w, m, v, p);
		} else if (strcmp(key->str, "seq_no") != 0) {
			/* "peer state" of an export, and any other key */
			rc = ul_conf_walk_skip(w, key, "not settable; skipped");
		}
		ul_conf_walk_pop(w, old);
	}
	if (rc || has_primary)
		return rc;
	if (w->dialect == UL_CONF_OLD_API) {
		ul_conf_walk_report_as(w, "peer", "add", -EINVAL, -EINVAL);
		ul_conf_walk_report_descr(w, "the 'primary nid' must be "
					     "specified");
		return ul_conf_walk_fail(w, m,
					 "the 'primary nid' must be specified");
	}
	return peer_refusal(w, m, -ENOMSG, "no configuration",
			    "missing 'primary nid'");
}

int ul_conf_walk_peers(struct ul_conf_walk *w, const struct ul_ynode *key,
		       const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_step s = { .sec = UL_CONF_SEC_PEER, .key = -1 };
	struct ul_conf_peer *p;
	size_t i, nr, old;
	int rc, rc2;

	s.first = c->nr_peers;
	s.line = key->line;
	s.seq_no = -1;
	ul_conf_walk_report_as(w, w->dialect == UL_CONF_OLD_API ? "peer" : NULL,
			       w->dialect == UL_CONF_OLD_API ? "add" : "peer",
			       -EINVAL, -EINVAL);
	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		p = ul_conf_walk_grow(w, &c->peers, &c->nr_peers, sizeof(*p));
		if (!p)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, i);
		rc = walk_peer(w, v->kids[i], p);
		ul_conf_walk_pop(w, old);
		if (rc) {
			/* LNet removes the half-created peer (§7.1) */
			ul_conf_peer_fini(p);
			c->nr_peers--;
		}
	}
	s.nr = c->nr_peers - s.first;
	s.is_cut = rc != 0;
	if (rc == -ENOMEM)
		return rc;
	rc2 = ul_conf_walk_step(w, &s);
	return rc ? rc : rc2;
}
