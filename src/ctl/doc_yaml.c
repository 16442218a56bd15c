/* A reply document printed in one of lnetctl's output engines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/proto_doc.h"
#include "ctl/proto_int.h"
#include "ctl/yemit.h"
#include "ctl/ytree.h"

void ul_doc_emit(struct ul_yemit *y, const struct ul_ynode *n)
{
	size_t i;

	switch (n->type) {
	case UL_YNODE_SCALAR:
		if (n->is_quoted)
			ul_yemit_quoted(y, n->str, false,
					YAML_DOUBLE_QUOTED_SCALAR_STYLE);
		else
			ul_yemit_str(y, n->str);
		break;
	case UL_YNODE_MAP:
		ul_yemit_map_start(y);
		for (i = 0; i + 1 < n->nr; i += 2) {
			ul_doc_emit(y, n->kids[i]);
			ul_doc_emit(y, n->kids[i + 1]);
		}
		ul_yemit_map_end(y);
		break;
	case UL_YNODE_SEQ:
		ul_yemit_seq_start(y);
		for (i = 0; i < n->nr; i++)
			ul_doc_emit(y, n->kids[i]);
		ul_yemit_seq_end(y);
		break;
	}
}

/* libyaml's indent of engines A and B. */
static int engine_indent(enum ul_doc_engine e)
{
	return e == UL_DOC_A ? 6 : 2;
}

static int print_libyaml(FILE *out, const struct ul_ynode *doc, int indent)
{
	struct ul_yemit y;
	int rc = ul_yemit_open(&y, out, indent, false);

	if (rc)
		return rc;
	ul_doc_emit(&y, doc);
	return ul_yemit_close(&y);
}

/*
 * cYAML (lnetctl.md §2.3): a mapping's keys at col, nested mappings 4
 * further; a sequence's items start with "- " 4 columns right of their
 * key, the item's other fields 2 further.
 */
static void c_map(FILE *out, const struct ul_ynode *map, int col,
		  const char *first_prefix);

static void c_value(FILE *out, const struct ul_ynode *v, int col)
{
	size_t i;

	if (v->type == UL_YNODE_SCALAR) {
		fprintf(out, " %s\n", v->str);
		return;
	}
	fputc('\n', out);
	if (v->type == UL_YNODE_MAP) {
		c_map(out, v, col + 4, NULL);
		return;
	}
	for (i = 0; i < v->nr; i++) {
		const struct ul_ynode *item = v->kids[i];

		if (item->type == UL_YNODE_MAP && item->nr) {
			c_map(out, item, col + 6, "- ");
		} else if (item->type == UL_YNODE_SCALAR) {
			fprintf(out, "%*s- %s\n", col + 4, "", item->str);
		}
	}
}

static void c_map(FILE *out, const struct ul_ynode *map, int col,
		  const char *first_prefix)
{
	size_t i;

	for (i = 0; i + 1 < map->nr; i += 2) {
		if (i == 0 && first_prefix)
			fprintf(out, "%*s%s%s:", col - 2, "", first_prefix,
				map->kids[i]->str);
		else
			fprintf(out, "%*s%s:", col, "", map->kids[i]->str);
		c_value(out, map->kids[i + 1], col);
	}
}

int ul_doc_print(FILE *out, const struct ul_ynode *doc, enum ul_doc_engine e)
{
	if (!doc || doc->type != UL_YNODE_MAP || doc->nr == 0)
		return 0;
	switch (e) {
	case UL_DOC_A:
	case UL_DOC_B:
		return print_libyaml(out, doc, engine_indent(e));
	case UL_DOC_C:
	default:
		c_map(out, doc, 0, NULL);
		return ferror(out) ? -EIO : 0;
	}
}

/* ---- Raw documents ---------------------------------------------------- */

/* The walk's visitor (proto_doc.h) for a libyaml stream. */
static int raw_scalar(void *ctx, const char *s, bool is_quoted)
{
	struct ul_yemit *y = ctx;

	if (is_quoted)
		ul_yemit_quoted(y, s, false, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	else
		ul_yemit_str(y, s);
	return 0;
}

static int raw_start(void *ctx, bool is_map, size_t count)
{
	struct ul_yemit *y = ctx;

	(void)count;
	if (is_map)
		ul_yemit_map_start(y);
	else
		ul_yemit_seq_start(y);
	return 0;
}

static void raw_end(void *ctx, bool is_map)
{
	struct ul_yemit *y = ctx;

	if (is_map)
		ul_yemit_map_end(y);
	else
		ul_yemit_seq_end(y);
}

/*
 * The root mapping of a raw document in *a: 1, or 0 when there is none
 * or it is empty (nothing to print), or -EPROTO.
 */
static int raw_root(const uint8_t *raw, size_t len, struct ul_ctl_attr *a)
{
	struct ul_err err = { 0 };
	struct ul_ctl_iter it;
	int rc;

	if (!raw)
		return 0;
	ul_ctl_iter_init(&it, raw, len);
	rc = ul_ctl_iter_next(&it, a, &err);
	if (rc <= 0 || a->type != UL_CTL_A_Y_MAP)
		return rc < 0 ? rc : -EPROTO;
	return a->len ? 1 : 0;
}

int ul_doc_print_raw(FILE *out, const uint8_t *raw, size_t len,
		     enum ul_doc_engine e)
{
	struct ul_err err = { 0 };
	struct ul_yemit y;
	struct ul_ctl_doc_visit v = { raw_scalar, raw_start, raw_end, false,
				      &y };
	struct ul_ynode *doc;
	struct ul_ctl_attr a;
	int rc = raw_root(raw, len, &a);

	if (rc <= 0)
		return rc; /* an empty table prints nothing */
	if (e == UL_DOC_C) {
		/* cYAML looks ahead at its items: the tree */
		rc = ul_ctl_doc_decode(&a, &doc, &err);
		if (rc)
			return rc;
		rc = ul_doc_print(out, doc, e);
		ul_ytree_free(doc);
		return rc;
	}
	rc = ul_yemit_open(&y, out, engine_indent(e), false);
	if (rc)
		return rc;
	rc = ul_ctl_doc_walk(&a, &v, &err);
	if (rc) {
		ul_yemit_abort(&y);
		return rc;
	}
	return ul_yemit_close(&y);
}

void ul_doc_pages_init(struct ul_doc_pages *p, FILE *out, enum ul_doc_engine e)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->engine = e;
}

int ul_doc_pages_print(struct ul_doc_pages *p, const uint8_t *raw, size_t len)
{
	struct ul_yemit *y = p->emit;
	struct ul_ctl_doc_visit v = { raw_scalar, raw_start, raw_end, false,
				      NULL };
	struct ul_ctl_attr a, key, seq, item;
	struct ul_ctl_iter it, items;
	struct ul_err err = { 0 };
	int rc = raw_root(raw, len, &a);

	if (rc <= 0)
		return rc; /* nothing from here on */
	ul_ctl_iter_nested(&it, &a);
	if (ul_ctl_iter_next(&it, &key, &err) <= 0 ||
	    key.type != UL_CTL_A_Y_KEY ||
	    ul_ctl_iter_next(&it, &seq, &err) <= 0 ||
	    seq.type != UL_CTL_A_Y_SEQ || ul_ctl_iter_next(&it, &a, &err) != 0)
		return -EPROTO;
	if (p->engine == UL_DOC_C)
		return -EINVAL;
	if (!p->is_open) {
		y = calloc(1, sizeof(*y));
		if (!y)
			return -ENOMEM;
		rc = ul_yemit_open(y, p->out, engine_indent(p->engine), false);
		if (rc) {
			free(y);
			return rc;
		}
		p->emit = y;
		p->is_open = true;
		ul_yemit_map_start(y);
		ul_yemit_str(y, ul_ctl_attr_str(&key));
		ul_yemit_seq_start(y);
	}
	v.ctx = y;
	ul_ctl_iter_nested(&items, &seq);
	while ((rc = ul_ctl_iter_next(&items, &item, &err)) > 0)
		if ((rc = ul_ctl_doc_walk(&item, &v, &err)))
			return rc;
	return rc;
}

int ul_doc_pages_close(struct ul_doc_pages *p)
{
	struct ul_yemit *y = p->emit;
	int rc;

	if (!p->is_open)
		return 0;
	ul_yemit_seq_end(y);
	ul_yemit_map_end(y);
	rc = ul_yemit_close(y);
	free(y);
	p->emit = NULL;
	p->is_open = false;
	return rc;
}

const struct ul_ynode *ul_doc_get(const struct ul_ynode *map, const char *key)
{
	size_t i;

	if (!map || map->type != UL_YNODE_MAP)
		return NULL;
	for (i = 0; i + 1 < map->nr; i += 2)
		if (map->kids[i]->type == UL_YNODE_SCALAR &&
		    strcmp(map->kids[i]->str, key) == 0)
			return map->kids[i + 1];
	return NULL;
}
