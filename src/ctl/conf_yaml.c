/*
 * lnet.conf YAML -> struct ul_conf (conf.h).
 *
 * Two passes. First the text is built into a tree (ytree.c), which is
 * where the limits on untrusted input are enforced (size, depth, items per
 * collection, total nodes) and where aliases are refused: a tree without
 * aliases cannot grow past the text it came from. Then the tree is walked
 * section by section (conf_walk.h: conf_net.c, conf_route.c, conf_peer.c,
 * conf_global.c, conf_udsp.c) into a scratch ul_conf, in document
 * order, in the dialect asked for; the first refusal ends the walk and is
 * kept with what came before it (conf.h). The scratch conf replaces the
 * caller's unless the text is not YAML or memory runs out.
 *
 * Every error names the line and column of the offending node, the field
 * path ("net[0].local NI(s)[1].tunables.peer_credits") and quotes the
 * value. A plain empty scalar, "~" or "null" where a mapping or sequence
 * is expected reads as an empty one ("tunables:" with nothing under it).
 */
#include <errno.h>
#include <stdio.h>
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

/* The sections of lnetctl's netlink import, by exact name. */
static const char *const nl_names[UL_CONF_SEC_NR + 1] = {
	"net",	   "ip2nets", "route",	"peer", "routing",
	"buffers", "numa",    "global", "udsp", NULL,
};

/*
 * The legacy parser's table: a key is looked up by prefix, in this
 * order ("networks" is "net", "discovery" is "discover").
 */
static const struct {
	const char *name;
	int sec; /* -1: read and ignored */
} old_names[] = {
	{ "route", UL_CONF_SEC_ROUTE },
	{ "net", UL_CONF_SEC_NET },
	{ "ip2nets", UL_CONF_SEC_IP2NETS },
	{ "peer", UL_CONF_SEC_PEER },
	{ "routing", UL_CONF_SEC_ROUTING },
	{ "buffers", UL_CONF_SEC_BUFFERS },
	{ "statistics", -1 },
	{ "global", UL_CONF_SEC_GLOBAL },
	{ "numa", UL_CONF_SEC_NUMA },
	{ "ping", -1 },
	{ "discover", -1 },
	{ "udsp", UL_CONF_SEC_UDSP },
};

/* Where a top-level key goes: a section, -1 to skip it, -2 unknown. */
static int old_api_section(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(old_names) / sizeof(old_names[0]); i++)
		if (!strncmp(key, old_names[i].name, strlen(old_names[i].name)))
			return old_names[i].sec;
	return -2;
}

/* The walk state of the top level. */
struct top {
	/*
	 * The netlink import streams a peer, route, routing, buffers or
	 * numa section into one request, and every key after it until the
	 * next section it knows (lnetctl.md §16): they go unread.
	 */
	const char *streaming;
};

static int walk_section(struct ul_conf_walk *w, int sec,
			const struct ul_ynode *key, const struct ul_ynode *v)
{
	switch (sec) {
	case UL_CONF_SEC_NET:
	case UL_CONF_SEC_IP2NETS:
		return ul_conf_walk_nets(w, key, v, sec == UL_CONF_SEC_IP2NETS);
	case UL_CONF_SEC_ROUTE:
		return ul_conf_walk_routes(w, key, v);
	case UL_CONF_SEC_PEER:
		return ul_conf_walk_peers(w, key, v);
	case UL_CONF_SEC_ROUTING:
		return ul_conf_walk_routing(w, key, v);
	case UL_CONF_SEC_BUFFERS:
		return ul_conf_walk_buffers(w, key, v);
	case UL_CONF_SEC_NUMA:
		return ul_conf_walk_numa(w, key, v);
	case UL_CONF_SEC_GLOBAL:
		return ul_conf_walk_global(w, key, v);
	default:
		return ul_conf_walk_udsps(w, key, v);
	}
}

/* A section's value, its path starting with the section's name. */
static int walk_section_value(struct ul_conf_walk *w, int sec,
			      const struct ul_ynode *key,
			      const struct ul_ynode *v)
{
	size_t old = ul_conf_walk_push_key(w, key->str);
	int rc = walk_section(w, sec, key, v);

	ul_conf_walk_pop(w, old);
	return rc;
}

static int walk_netlink_key(struct ul_conf_walk *w, struct top *t,
			    const struct ul_ynode *key,
			    const struct ul_ynode *v)
{
	bool known;
	int rc, sec;

	sec = ul_conf_walk_key_index(nl_names, key->str);
	if (sec < 0 && t->streaming)
		return ul_conf_walk_note(w, key, UL_CONF_NOTE_SKIPPED,
					 "'%.64s' goes into the '%s' request; "
					 "skipped",
					 key->str, t->streaming);
	if (sec < 0) {
		if (!strcmp(key->str, "ping") || !strcmp(key->str, "discover"))
			return ul_conf_walk_note(w, key, UL_CONF_NOTE_SKIPPED,
						 "'%s' is only run by import "
						 "--exec; skipped",
						 key->str);
		rc = ul_conf_walk_global_param(w, key, v, &known);
		if (rc || known)
			return rc;
		/* lnetctl reads any other key as a global one (§16). */
		return ul_conf_walk_fail(w, key, "invalid key '%.64s'",
					 key->str);
	}
	switch (sec) {
	case UL_CONF_SEC_ROUTE:
	case UL_CONF_SEC_PEER:
	case UL_CONF_SEC_ROUTING:
	case UL_CONF_SEC_BUFFERS:
	case UL_CONF_SEC_NUMA:
		t->streaming = nl_names[sec];
		break;
	default:
		t->streaming = NULL;
		break;
	}
	return walk_section_value(w, sec, key, v);
}

static int walk_old_api_key(struct ul_conf_walk *w, const struct ul_ynode *key,
			    const struct ul_ynode *v)
{
	struct ul_ynode *kid = (struct ul_ynode *)v;
	struct ul_ynode one = { .type = UL_YNODE_SEQ };
	int sec = old_api_section(key->str);

	if (sec == -1)
		return ul_conf_walk_note(w, key, UL_CONF_NOTE_SKIPPED,
					 "'%.64s' skipped", key->str);
	if (sec == -2) {
		ul_conf_walk_report_as(w, "yaml", "helper", -EINVAL, -EINVAL);
		ul_conf_walk_report_descr(w, "call back for '%.64s' not found",
					  key->str);
		return ul_conf_walk_fail(
			w, key, "call back for '%.64s' not found", key->str);
	}
	/* the legacy parser hands a lone mapping over as one item */
	if (v->type == UL_YNODE_MAP && sec != UL_CONF_SEC_ROUTING &&
	    sec != UL_CONF_SEC_BUFFERS && sec != UL_CONF_SEC_NUMA &&
	    sec != UL_CONF_SEC_GLOBAL) {
		one.line = v->line;
		one.column = v->column;
		one.kids = &kid;
		one.nr = 1;
		v = &one;
	}
	return walk_section_value(w, sec, key, v);
}

/* The refusal w made, as lnetctl reports it (conf.h). */
static void keep_refusal(struct ul_conf_walk *w, const struct ul_err *err)
{
	struct ul_conf_refusal *r = &w->conf->refusal;
	bool is_old = w->dialect == UL_CONF_OLD_API;

	r->is_set = true;
	r->line = w->fail_line;
	snprintf(r->where, sizeof(r->where), "%s", err->msg);
	snprintf(r->msg, sizeof(r->msg), "%s",
		 w->descr[0] ? w->descr : err->msg);
	r->d2_op = w->d2_op ? w->d2_op : is_old ? "yaml" : NULL;
	r->object = w->object ? w->object : is_old ? "builder" : "import";
	r->errnum = w->object ? w->errnum : is_old ? -1 : -EINVAL;
	r->seq_no = r->d2_op && w->object ? w->seq_no : -1;
	r->status = w->object ? w->status : -EINVAL;
}

/*
 * The sections of one document, in order, into w's conf (t: the top
 * level's state, which runs on from the document before). 0, -EINVAL
 * for a refusal (kept in the conf: the document up to there stands), or
 * -ENOMEM.
 */
static int walk_document(struct ul_conf_walk *w, struct top *t,
			 const struct ul_ynode *root, struct ul_err *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; root && root->type == UL_YNODE_MAP && i < root->nr / 2;
	     i++) {
		const struct ul_ynode *key = root->kids[2 * i];
		const struct ul_ynode *v = root->kids[2 * i + 1];

		w->d2_op = NULL;
		w->object = NULL;
		w->seq_no = -1;
		w->descr[0] = '\0';
		if (w->dialect == UL_CONF_OLD_API)
			rc = walk_old_api_key(w, key, v);
		else
			rc = walk_netlink_key(w, t, key, v);
		if (rc == -EINVAL) {
			/* the document up to here stands (conf.h) */
			keep_refusal(w, err);
			return rc;
		}
		if (rc)
			return rc;
	}
	return 0;
}

int ul_conf_read(const char *text, size_t len, enum ul_conf_dialect dialect,
		 struct ul_conf *conf, struct ul_err *err)
{
	struct ul_ynode *root = NULL, **docs;
	struct top t = { NULL };
	struct ul_conf tmp;
	struct ul_conf_walk w;
	size_t i, nr;
	int rc;

	/*
	 * lnetctl's netlink import reads every document of the stream in
	 * turn; its legacy parser builds one tree.
	 */
	if (dialect == UL_CONF_NETLINK)
		rc = ul_ytree_parse_stream(text, len, &conf_limits, &root, err);
	else
		rc = ul_ytree_parse(text, len, &conf_limits, &root, err);
	if (rc)
		return rc;
	ul_conf_init(&tmp);
	tmp.dialect = dialect;
	memset(&w, 0, sizeof(w));
	w.conf = &tmp;
	w.err = err;
	w.dialect = dialect;
	docs = dialect == UL_CONF_NETLINK ? root->kids : &root;
	nr = dialect == UL_CONF_NETLINK ? root->nr : 1;
	/* a document that is no mapping is not lnet.conf: nothing applies */
	for (i = 0; i < nr && !rc; i++)
		if (docs[i] && docs[i]->type != UL_YNODE_MAP &&
		    !docs[i]->is_null)
			rc = ul_conf_walk_fail(
				&w, docs[i],
				"expected a mapping of sections, found %s",
				ul_ytree_type_name(docs[i]));
	/*
	 * A streamed section runs on into the next document, as lnetctl's
	 * request does: only a section it knows ends it.
	 */
	for (i = 0; i < nr && !rc && !tmp.refusal.is_set; i++)
		rc = walk_document(&w, &t, docs[i], err);
	/* a refusal: the documents up to it stand (conf.h) */
	if (rc == -EINVAL && tmp.refusal.is_set)
		rc = 0;
	ul_ytree_free(root);
	if (rc) {
		ul_conf_fini(&tmp);
		return rc;
	}
	ul_conf_fini(conf);
	*conf = tmp;
	return 0;
}
