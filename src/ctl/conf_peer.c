/* The "peer" section of lnet.conf: peers by primary NID and their NIs. */
#include <errno.h>
#include <string.h>

#include "ctl/conf_walk.h"

/* Keys of an export that describe a peer NI's state, not configuration. */
static const char *const peer_ni_state_keys[] = {
	"state",
	"max_ni_tx_credits",
	"available_tx_credits",
	"min_tx_credits",
	"tx_q_num_of_buf",
	"available_rtr_credits",
	"min_rtr_credits",
	"refcount",
	"statistics",
	"sent_stats",
	"received_stats",
	"dropped_stats",
	"udsp info",
	NULL,
};

/* "health stats" of an export: only "health value" is tolerated. */
static int walk_peer_health(struct ul_conf_walk *w, const struct ul_ynode *key,
			    const struct ul_ynode *m)
{
	size_t i, n;
	int rc;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++)
		if (strcmp(m->kids[2 * i]->str, "health value") != 0)
			rc = ul_conf_walk_fail(
				w, m->kids[2 * i],
				"wrong health config format: '%.64s'",
				m->kids[2 * i]->str);
	return rc ? rc : ul_conf_walk_ignore_state(w, key);
}

static int walk_peer_nis(struct ul_conf_walk *w, const struct ul_ynode *v,
			 struct ul_conf_peer *p)
{
	struct ulnet_nid *nid;
	const struct ul_ynode *m, *key;
	size_t i, j, nr, n, old, old2;
	bool have_nid;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		m = v->kids[i];
		old = ul_conf_walk_push_idx(w, i);
		rc = ul_conf_walk_want_map(w, m, &n);
		have_nid = false;
		for (j = 0; !rc && j < n; j++) {
			key = m->kids[2 * j];
			old2 = ul_conf_walk_push_key(w, key->str);
			if (!strcmp(key->str, "nid")) {
				if (have_nid) {
					rc = ul_conf_walk_fail(
						w, key, "duplicate key 'nid'");
				} else {
					nid = ul_conf_walk_grow(w, &p->nis,
								&p->nr_nis,
								sizeof(*nid));
					rc = nid ? ul_conf_walk_get_nid(
							   w,
							   m->kids[2 * j + 1],
							   nid)
						 : -ENOMEM;
					have_nid = true;
				}
			} else if (!strcmp(key->str, "health stats")) {
				rc = walk_peer_health(w, key,
						      m->kids[2 * j + 1]);
			} else if (ul_conf_walk_key_index(peer_ni_state_keys,
							  key->str) >= 0) {
				rc = ul_conf_walk_ignore_state(w, key);
			} else {
				rc = ul_conf_walk_fail(w, key,
						       "unknown key '%.64s'",
						       key->str);
			}
			ul_conf_walk_pop(w, old2);
		}
		if (!rc && !have_nid)
			rc = ul_conf_walk_fail(w, m, "missing 'nid'");
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

static int walk_peer(struct ul_conf_walk *w, const struct ul_ynode *m,
		     struct ul_conf_peer *p)
{
	static const char *const keys[] = { "primary nid", "Multi-Rail",
					    "peer ni", NULL };
	unsigned int seen = 0;
	struct ul_err e;
	size_t i, n, old;
	const char *s;
	int rc, k;

	p->line = m->line;
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0) {
			if (!strcmp(key->str, "peer state"))
				rc = ul_conf_walk_ignore_state(w, key);
			else
				rc = ul_conf_walk_fail(w, key,
						       "unknown key '%.64s'",
						       key->str);
			ul_conf_walk_pop(w, old);
			continue;
		}
		rc = ul_conf_walk_once(w, key, &seen, k);
		if (rc) {
			ul_conf_walk_pop(w, old);
			continue;
		}
		switch (k) {
		case 0:
			rc = ul_conf_walk_get_nid(w, v, &p->primary_nid);
			break;
		case 1:
			rc = ul_conf_walk_get_str(w, v, &s);
			if (!rc) {
				rc = ul_conf_parse_bool(s, &p->is_multi_rail,
							&e);
				if (rc)
					rc = ul_conf_walk_fail_err(w, v, rc,
								   &e);
			}
			p->flags |= UL_CONF_PEER_HAS_MULTI_RAIL;
			break;
		default:
			rc = walk_peer_nis(w, v, p);
			break;
		}
		ul_conf_walk_pop(w, old);
	}
	if (!rc && !(seen & 1U << 0))
		rc = ul_conf_walk_fail(w, m, "missing 'primary nid'");
	return rc;
}

int ul_conf_walk_peers(struct ul_conf_walk *w, const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_peer *p;
	size_t i, nr, old;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		p = ul_conf_walk_grow(w, &c->peers, &c->nr_peers, sizeof(*p));
		if (!p)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, c->nr_peers - 1);
		rc = walk_peer(w, v->kids[i], p);
		ul_conf_walk_pop(w, old);
	}
	return rc;
}
