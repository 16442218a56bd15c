/* A reply document printed in one of lnetctl's output engines. */
#include <errno.h>
#include <string.h>

#include "ctl/doc_yaml.h"
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
		return print_libyaml(out, doc, 6);
	case UL_DOC_B:
		return print_libyaml(out, doc, 2);
	case UL_DOC_C:
	default:
		c_map(out, doc, 0, NULL);
		return ferror(out) ? -EIO : 0;
	}
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
