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

/* ---- Decoding -------------------------------------------------------- */

struct doc_dec {
	size_t nodes;
	struct ul_err *err;
};

static int add_kid(struct ul_ynode *parent, struct ul_ynode *kid)
{
	struct ul_ynode **kids;

	if (parent->nr == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;

		kids = realloc(parent->kids, cap * sizeof(struct ul_ynode *));
		if (!kids)
			return -ENOMEM;
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->nr++] = kid;
	return 0;
}

static struct ul_ynode *scalar(const char *s, bool is_quoted)
{
	struct ul_ynode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = UL_YNODE_SCALAR;
	n->is_quoted = is_quoted;
	n->str = strdup(s);
	if (!n->str) {
		free(n);
		return NULL;
	}
	return n;
}

static int dec_node(struct doc_dec *dd, const struct ul_ctl_attr *a,
		    struct ul_ynode **out);

static int dec_coll(struct doc_dec *dd, const struct ul_ctl_attr *a,
		    struct ul_ynode *n)
{
	bool is_map = n->type == UL_YNODE_MAP;
	bool want_key = is_map;
	struct ul_ctl_iter it;
	struct ul_ctl_attr k;
	struct ul_ynode *kid;
	int rc;

	ul_ctl_iter_nested(&it, a);
	while ((rc = ul_ctl_iter_next(&it, &k, dd->err)) > 0) {
		if ((k.type == UL_CTL_A_Y_KEY) != want_key)
			return ul_err_set(dd->err, -EPROTO,
					  "control reply: document %s where "
					  "a %s belongs",
					  k.type == UL_CTL_A_Y_KEY ? "key"
								   : "value",
					  want_key ? "key" : "value");
		if (k.type == UL_CTL_A_Y_KEY)
			kid = scalar(ul_ctl_attr_str(&k), false);
		else if ((rc = dec_node(dd, &k, &kid)))
			return rc;
		if (!kid)
			return ul_err_set(dd->err, -ENOMEM, "out of memory");
		if (add_kid(n, kid)) {
			ul_ytree_free(kid);
			return ul_err_set(dd->err, -ENOMEM, "out of memory");
		}
		if (++dd->nodes > DOC_MAX_NODES)
			return ul_err_set(dd->err, -EPROTO,
					  "control reply: document of more "
					  "than %d nodes",
					  DOC_MAX_NODES);
		if (is_map)
			want_key = !want_key;
	}
	if (rc < 0)
		return rc;
	if (is_map && !want_key)
		return ul_err_set(dd->err, -EPROTO,
				  "control reply: document key without value");
	return 0;
}

static int dec_node(struct doc_dec *dd, const struct ul_ctl_attr *a,
		    struct ul_ynode **out)
{
	struct ul_ynode *n;
	char num[32];
	int rc;

	*out = NULL;
	switch (a->type) {
	case UL_CTL_A_Y_MAP:
	case UL_CTL_A_Y_SEQ:
		n = calloc(1, sizeof(*n));
		if (!n)
			return ul_err_set(dd->err, -ENOMEM, "out of memory");
		n->type = a->type == UL_CTL_A_Y_MAP ? UL_YNODE_MAP
						    : UL_YNODE_SEQ;
		rc = dec_coll(dd, a, n);
		if (rc) {
			ul_ytree_free(n);
			return rc;
		}
		*out = n;
		return 0;
	case UL_CTL_A_Y_STR:
	case UL_CTL_A_Y_QSTR:
		*out = scalar(ul_ctl_attr_str(a), a->type == UL_CTL_A_Y_QSTR);
		return 0;
	case UL_CTL_A_Y_INT:
		snprintf(num, sizeof(num), "%" PRId64, ul_ctl_attr_s64(a));
		*out = scalar(num, false);
		return 0;
	case UL_CTL_A_Y_UINT:
		snprintf(num, sizeof(num), "%" PRIu64, ul_ctl_attr_u64(a));
		*out = scalar(num, false);
		return 0;
	case UL_CTL_A_Y_BOOL:
		*out = scalar(ul_ctl_attr_u32(a) ? "true" : "false", false);
		return 0;
	default:
		return ul_err_set(dd->err, -EPROTO,
				  "control reply: attribute 0x%04x in a "
				  "document",
				  a->type);
	}
}

int ul_ctl_doc_decode(const struct ul_ctl_attr *a, struct ul_ynode **out,
		      struct ul_err *err)
{
	struct doc_dec dd = { 0, err };

	return dec_node(&dd, a, out);
}
