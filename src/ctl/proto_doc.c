/*
 * The reply document of the generic ops: builder and decoder (see
 * proto_doc.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto_doc.h"
#include "ctl/proto_int.h"
#include "ctl/ytree.h"
#include "util/err.h"

/*
 * Nodes one decoded document may hold: bounds what a reply of up to
 * UL_CTL_MAX_REPLY makes ulnetctl allocate (half a million routes fit).
 */
#define DOC_MAX_NODES (4 * 1024 * 1024)

void ul_ctl_doc_init(struct ul_ctl_msg *d)
{
	ul_ctl_msg_init(d, 0);
	d->max = UL_CTL_MAX_REPLY; /* a document only travels in a reply */
	ul_ctl_nest_start(d, UL_CTL_A_Y_MAP);
}

static void key(struct ul_ctl_msg *d, const char *k)
{
	if (k)
		ul_ctl_put_str(d, UL_CTL_A_Y_KEY, k);
}

void ul_ctl_doc_map(struct ul_ctl_msg *d, const char *k)
{
	key(d, k);
	ul_ctl_nest_start(d, UL_CTL_A_Y_MAP);
}

void ul_ctl_doc_seq(struct ul_ctl_msg *d, const char *k)
{
	key(d, k);
	ul_ctl_nest_start(d, UL_CTL_A_Y_SEQ);
}

void ul_ctl_doc_end(struct ul_ctl_msg *d)
{
	ul_ctl_nest_end(d);
}

void ul_ctl_doc_str(struct ul_ctl_msg *d, const char *k, const char *v)
{
	key(d, k);
	ul_ctl_put_str(d, UL_CTL_A_Y_STR, v);
}

void ul_ctl_doc_qstr(struct ul_ctl_msg *d, const char *k, const char *v)
{
	key(d, k);
	ul_ctl_put_str(d, UL_CTL_A_Y_QSTR, v);
}

void ul_ctl_doc_int(struct ul_ctl_msg *d, const char *k, int64_t v)
{
	key(d, k);
	ul_ctl_put_s64(d, UL_CTL_A_Y_INT, v);
}

void ul_ctl_doc_uint(struct ul_ctl_msg *d, const char *k, uint64_t v)
{
	key(d, k);
	ul_ctl_put_u64(d, UL_CTL_A_Y_UINT, v);
}

void ul_ctl_doc_bool(struct ul_ctl_msg *d, const char *k, bool v)
{
	key(d, k);
	ul_ctl_put_u32(d, UL_CTL_A_Y_BOOL, v ? 1 : 0);
}

void ul_ctl_doc_nid(struct ul_ctl_msg *d, const char *k,
		    const struct ulnet_nid *nid)
{
	char s[ULNET_NIDSTR_SIZE];

	ul_ctl_doc_str(d, k, ulnet_nid_format(nid, s, sizeof(s)));
}

int ul_ctl_doc_reply(const struct ul_ctl_msg *d, uint16_t op,
		     struct ul_ctl_msg *m)
{
	size_t n;

	ul_ctl_msg_init(m, (uint16_t)(op | UL_CTL_OP_REPLY));
	ul_ctl_put_s32(m, UL_CTL_A_RC, 0);
	if (d->err || d->depth != 1) {
		if (!m->err)
			m->err = d->err ? d->err : -EINVAL;
		return m->err;
	}
	/* The root mapping is still open in d: copy what it holds. */
	n = d->len - UL_CTL_HDR_SIZE - UL_CTL_ATTR_HDR_SIZE;
	ul_ctl_nest_start(m, UL_CTL_A_Y_MAP);
	ul_ctl_put_raw(m, d->buf + UL_CTL_HDR_SIZE + UL_CTL_ATTR_HDR_SIZE, n);
	ul_ctl_nest_end(m);
	return ul_ctl_msg_finish(m);
}

/* ---- Walking --------------------------------------------------------- */

struct doc_walk {
	size_t nodes;
	const struct ul_ctl_doc_visit *v; /* NULL: check only */
	struct ul_err *err;
};

static int walk_node(struct doc_walk *w, const struct ul_ctl_attr *a);

/* A visitor's failure: -ENOMEM, or -EPROTO for what cannot be. */
static int visit_failed(struct doc_walk *w, int rc)
{
	return ul_err_set(w->err, rc,
			  rc == -ENOMEM ? "out of memory"
					: "control reply: malformed document");
}

static int walk_scalar(struct doc_walk *w, const char *s, bool is_quoted)
{
	int rc = w->v ? w->v->scalar(w->v->ctx, s, is_quoted) : 0;

	return rc ? visit_failed(w, rc) : 0;
}

static int walk_coll(struct doc_walk *w, const struct ul_ctl_attr *a)
{
	bool is_map = a->type == UL_CTL_A_Y_MAP;
	bool want_key = is_map;
	struct ul_ctl_iter it;
	struct ul_ctl_attr k;
	size_t count = 0;
	int rc;

	/* counted first for a visitor that sizes its node at once */
	if (w->v && w->v->is_counted) {
		ul_ctl_iter_nested(&it, a);
		while ((rc = ul_ctl_iter_next(&it, &k, w->err)) > 0)
			count++;
		if (rc < 0)
			return rc;
	}
	if (w->v && (rc = w->v->start(w->v->ctx, is_map, count)))
		return visit_failed(w, rc);
	ul_ctl_iter_nested(&it, a);
	while ((rc = ul_ctl_iter_next(&it, &k, w->err)) > 0) {
		if (++w->nodes > DOC_MAX_NODES)
			return ul_err_set(w->err, -EPROTO,
					  "control reply: document of more "
					  "than %d nodes",
					  DOC_MAX_NODES);
		if ((k.type == UL_CTL_A_Y_KEY) != want_key)
			return ul_err_set(w->err, -EPROTO,
					  "control reply: document %s where "
					  "a %s belongs",
					  k.type == UL_CTL_A_Y_KEY ? "key"
								   : "value",
					  want_key ? "key" : "value");
		if (k.type == UL_CTL_A_Y_KEY)
			rc = walk_scalar(w, ul_ctl_attr_str(&k), false);
		else
			rc = walk_node(w, &k);
		if (rc)
			return rc;
		if (is_map)
			want_key = !want_key;
	}
	if (rc < 0)
		return rc;
	if (is_map && !want_key)
		return ul_err_set(w->err, -EPROTO,
				  "control reply: document key without value");
	if (w->v)
		w->v->end(w->v->ctx, is_map);
	return 0;
}

static int walk_node(struct doc_walk *w, const struct ul_ctl_attr *a)
{
	char num[32];

	switch (a->type) {
	case UL_CTL_A_Y_MAP:
	case UL_CTL_A_Y_SEQ:
		return walk_coll(w, a);
	case UL_CTL_A_Y_STR:
	case UL_CTL_A_Y_QSTR:
		return walk_scalar(w, ul_ctl_attr_str(a),
				   a->type == UL_CTL_A_Y_QSTR);
	case UL_CTL_A_Y_INT:
		snprintf(num, sizeof(num), "%" PRId64, ul_ctl_attr_s64(a));
		return walk_scalar(w, num, false);
	case UL_CTL_A_Y_UINT:
		snprintf(num, sizeof(num), "%" PRIu64, ul_ctl_attr_u64(a));
		return walk_scalar(w, num, false);
	case UL_CTL_A_Y_BOOL:
		return walk_scalar(w, ul_ctl_attr_u32(a) ? "true" : "false",
				   false);
	default:
		return ul_err_set(w->err, -EPROTO,
				  "control reply: attribute 0x%04x in a "
				  "document",
				  a->type);
	}
}

int ul_ctl_doc_walk(const struct ul_ctl_attr *a,
		    const struct ul_ctl_doc_visit *v, struct ul_err *err)
{
	struct doc_walk w = { 1, v, err };

	return walk_node(&w, a);
}

/* ---- Decoding into a tree --------------------------------------------- */

/*
 * The tree is built in one arena (ytree.h): a document of 100,000 peers
 * is millions of nodes, and one allocation each was most of `peer
 * show`'s time. A collection's item array is allocated once, at the
 * size the walk counted.
 */
struct doc_tree {
	struct ul_yarena *arena;
	struct ul_ynode *root;
	struct ul_ynode *open[UL_CTL_NEST_MAX + 1]; /* innermost last */
	unsigned int depth;
};

static int tree_add(struct doc_tree *t, struct ul_ynode *n)
{
	struct ul_ynode *parent;

	if (!t->depth) {
		t->root = n;
		return 0;
	}
	parent = t->open[t->depth - 1];
	if (parent->nr == parent->cap)
		return -EPROTO; /* more than counted: cannot be */
	parent->kids[parent->nr++] = n;
	return 0;
}

static struct ul_ynode *tree_node(struct doc_tree *t, enum ul_ynode_type type)
{
	struct ul_ynode *n = ul_yarena_alloc(t->arena, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->is_in_arena = true;
	return tree_add(t, n) ? NULL : n;
}

static int tree_scalar(void *ctx, const char *s, bool is_quoted)
{
	struct doc_tree *t = ctx;
	struct ul_ynode *n = tree_node(t, UL_YNODE_SCALAR);
	size_t len = strlen(s);

	if (!n)
		return -ENOMEM;
	n->is_quoted = is_quoted;
	n->str = ul_yarena_alloc(t->arena, len + 1);
	if (!n->str)
		return -ENOMEM;
	memcpy(n->str, s, len);
	return 0;
}

static int tree_start(void *ctx, bool is_map, size_t count)
{
	struct doc_tree *t = ctx;
	struct ul_ynode *n;

	if (t->depth == UL_CTL_NEST_MAX + 1)
		return -EPROTO; /* the frame's check allows no deeper */
	n = tree_node(t, is_map ? UL_YNODE_MAP : UL_YNODE_SEQ);
	if (!n)
		return -ENOMEM;
	if (count) {
		n->kids = ul_yarena_alloc(t->arena,
					  count * sizeof(struct ul_ynode *));
		if (!n->kids)
			return -ENOMEM;
		n->cap = count;
	}
	t->open[t->depth++] = n;
	return 0;
}

static void tree_end(void *ctx, bool is_map)
{
	struct doc_tree *t = ctx;

	(void)is_map;
	t->depth--;
}

int ul_ctl_doc_decode(const struct ul_ctl_attr *a, struct ul_ynode **out,
		      struct ul_err *err)
{
	struct doc_tree t = { ul_yarena_new(), NULL, { NULL }, 0 };
	struct ul_ctl_doc_visit v = { tree_scalar, tree_start, tree_end, true,
				      &t };
	int rc;

	*out = NULL;
	if (!t.arena)
		return ul_err_set(err, -ENOMEM, "out of memory");
	rc = ul_ctl_doc_walk(a, &v, err);
	if (rc) {
		ul_yarena_free(t.arena);
		return rc;
	}
	t.root->arena = t.arena;
	*out = t.root;
	return 0;
}
