/*
 * lnet.conf YAML -> struct ul_conf (conf.h).
 *
 * Two passes. First the text is built into a tree (ytree.c), which is
 * where the limits on untrusted input are enforced (size, depth, items per
 * collection, total nodes) and where aliases are refused: a tree without
 * aliases cannot grow past the text it came from. Then the tree is walked
 * section by section (conf_walk.h: conf_net.c, conf_route.c, conf_peer.c,
 * conf_global.c, conf_udsp.c) into a scratch ul_conf, which replaces the
 * caller's only when everything checked out.
 *
 * Every error names the line and column of the offending node, the field
 * path ("net[0].local NI(s)[1].tunables.peer_credits") and quotes the
 * value. A plain empty scalar, "~" or "null" where a mapping or sequence
 * is expected reads as an empty one ("tunables:" with nothing under it).
 */
#include <string.h>

#include "ctl/conf.h"
#include "ctl/conf_walk.h"
#include "ctl/ytree.h"

static const struct ul_ytree_limits conf_limits = {
	.max_bytes = UL_CONF_MAX_BYTES,
	.max_depth = UL_CONF_MAX_DEPTH,
	.max_items = UL_CONF_MAX_ITEMS,
	.max_nodes = UL_CONF_MAX_NODES,
};

static void note_section(struct ul_conf *c, enum ul_conf_section sec)
{
	unsigned int i;

	for (i = 0; i < c->nr_order; i++)
		if (c->order[i] == sec)
			return;
	c->order[c->nr_order++] = sec;
}

static int walk_section(struct ul_conf_walk *w, const struct ul_ynode *key,
			const struct ul_ynode *v)
{
	static const char *const names[UL_CONF_SEC_NR + 1] = {
		"net",	   "ip2nets", "route",	"peer", "routing",
		"buffers", "numa",    "global", "udsp", NULL,
	};
	size_t old;
	bool known;
	int rc, sec;

	sec = ul_conf_walk_key_index(names, key->str);
	if (sec < 0) {
		rc = ul_conf_walk_global_param(w, key, v, &known);
		if (rc || known) {
			if (!rc)
				note_section(w->conf, UL_CONF_SEC_GLOBAL);
			return rc;
		}
		if (!strcmp(key->str, "ping") || !strcmp(key->str, "discover"))
			return ul_conf_walk_warn(
				w, key,
				"section '%s' is only run by import "
				"--exec; ignored",
				key->str);
		if (!strcmp(key->str, "statistics"))
			return ul_conf_walk_warn(
				w, key, "section 'statistics' ignored");
		/* lnetctl reads any other key as a global one (§16). */
		return ul_conf_walk_fail(w, key, "invalid key '%.64s'",
					 key->str);
	}
	note_section(w->conf, sec);
	old = ul_conf_walk_push_key(w, key->str);
	switch (sec) {
	case UL_CONF_SEC_NET:
	case UL_CONF_SEC_IP2NETS:
		rc = ul_conf_walk_nets(w, v, sec == UL_CONF_SEC_IP2NETS);
		break;
	case UL_CONF_SEC_ROUTE:
		rc = ul_conf_walk_routes(w, v);
		break;
	case UL_CONF_SEC_PEER:
		rc = ul_conf_walk_peers(w, v);
		break;
	case UL_CONF_SEC_ROUTING:
		rc = ul_conf_walk_routing(w, v);
		break;
	case UL_CONF_SEC_BUFFERS:
		rc = ul_conf_walk_buffers(w, v);
		break;
	case UL_CONF_SEC_NUMA:
		rc = ul_conf_walk_numa(w, v);
		break;
	case UL_CONF_SEC_GLOBAL:
		rc = ul_conf_walk_global(w, v);
		break;
	default:
		rc = ul_conf_walk_udsps(w, v);
		break;
	}
	ul_conf_walk_pop(w, old);
	return rc;
}

int ul_conf_parse(const char *text, size_t len, struct ul_conf *conf,
		  struct ul_err *err)
{
	struct ul_ynode *root = NULL;
	struct ul_conf tmp;
	struct ul_conf_walk w;
	size_t i;
	int rc;

	rc = ul_ytree_parse(text, len, &conf_limits, &root, err);
	if (rc)
		return rc;
	ul_conf_init(&tmp);
	memset(&w, 0, sizeof(w));
	w.conf = &tmp;
	w.err = err;
	if (root && root->type != UL_YNODE_MAP && !root->is_null)
		rc = ul_conf_walk_fail(
			&w, root, "expected a mapping of sections, found %s",
			ul_ytree_type_name(root));
	for (i = 0;
	     !rc && root && root->type == UL_YNODE_MAP && i < root->nr / 2; i++)
		rc = walk_section(&w, root->kids[2 * i], root->kids[2 * i + 1]);
	ul_ytree_free(root);
	if (rc) {
		ul_conf_fini(&tmp);
		return rc;
	}
	ul_conf_fini(conf);
	*conf = tmp;
	return 0;
}
