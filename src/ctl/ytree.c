/*
 * libyaml events to a bounded tree; see ytree.h.
 *
 * The events are read one at a time; each scalar or collection becomes a
 * node and is attached to the innermost open collection, kept on a stack
 * as deep as the depth limit. The limits are checked before anything is
 * allocated for the node that would pass them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "ctl/ytree.h"

/* Blocks of the arena: 1 MiB, or one request's size if larger. */
#define YARENA_BLOCK (1u << 20)

struct yarena_block {
	struct yarena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct ul_yarena {
	struct yarena_block *blocks; /* the newest first */
};

struct ul_yarena *ul_yarena_new(void)
{
	return calloc(1, sizeof(struct ul_yarena));
}

void *ul_yarena_alloc(struct ul_yarena *a, size_t n)
{
	struct yarena_block *b = a->blocks;
	size_t size;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->size - b->used < n) {
		size = n > YARENA_BLOCK ? n : YARENA_BLOCK;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = a->blocks;
		a->blocks = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	return memset(p, 0, n);
}

void ul_yarena_free(struct ul_yarena *a)
{
	struct yarena_block *b, *next;

	if (!a)
		return;
	for (b = a->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

void ul_ytree_free(struct ul_ynode *n)
{
	size_t i;

	if (!n)
		return;
	if (n->arena) {
		ul_yarena_free(n->arena); /* the root with the rest */
		return;
	}
	if (n->is_in_arena)
		return;
	for (i = 0; i < n->nr; i++)
		ul_ytree_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

struct ybuild {
	yaml_parser_t parser;
	const struct ul_ytree_limits *lim;
	struct ul_ynode **stack; /* open collections, innermost last */
	unsigned int depth;
	unsigned int base; /* 1 in a stream: its sequence of documents */
	size_t nr_nodes;
	unsigned int nr_docs;
	struct ul_ynode *root;
	struct ul_err *err;
};

static void build_fail_fmt(struct ybuild *b, const yaml_mark_t *m, int code,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void build_fail_fmt(struct ybuild *b, const yaml_mark_t *m, int code,
			   const char *fmt, ...)
{
	char what[UL_ERR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ul_err_fmt(b->err, code, "line %zu, column %zu: %s", m->line + 1,
		   m->column + 1, what);
}

/*
 * Record a failure at mark m and evaluate to code. Macros, as ul_err_set(),
 * so that the analyser sees the code come back from a variadic helper.
 */
#define build_fail(b, m, code, ...)                                            \
	(build_fail_fmt((b), (m), (code), __VA_ARGS__), (code))

static int syntax_error(struct ybuild *b)
{
	const yaml_parser_t *p = &b->parser;
	const char *problem = p->problem ? p->problem : "unknown problem";

	if (p->error == YAML_MEMORY_ERROR)
		return ul_err_set(b->err, -ENOMEM, "out of memory");
	if (p->error == YAML_READER_ERROR)
		return ul_err_set(b->err, -EINVAL,
				  "byte %zu: YAML reader error: %s",
				  p->problem_offset, problem);
	if (p->context)
		return build_fail(b, &p->problem_mark, -EINVAL,
				  "YAML syntax error: %s %s", p->context,
				  problem);
	return build_fail(b, &p->problem_mark, -EINVAL, "YAML syntax error: %s",
			  problem);
}

static bool scalar_is_null(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    ev->data.scalar.tag)
		return false;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static int attach(struct ybuild *b, struct ul_ynode *n, const yaml_event_t *ev)
{
	struct ul_ynode *parent, **kids;
	size_t cap;

	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (parent->type == UL_YNODE_MAP && parent->nr % 2 == 0 &&
	    n->type != UL_YNODE_SCALAR)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "a mapping key must be a scalar");
	if (parent->nr >=
	    (size_t)(parent->type == UL_YNODE_MAP ? 2 : 1) * b->lim->max_items)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "more than %u items in one collection",
				  b->lim->max_items);
	if (parent->nr == parent->cap) {
		cap = parent->cap ? 2 * parent->cap : 8;
		/* An array of pointers to nodes is what is meant here. */
		/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
		kids = realloc(parent->kids, cap * sizeof(parent->kids[0]));
		if (!kids)
			return ul_err_set(b->err, -ENOMEM, "out of memory");
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->nr++] = n;
	return 0;
}

static int build_event(struct ybuild *b, const yaml_event_t *ev)
{
	struct ul_ynode *n;
	int rc;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->nr_docs++ && !b->base)
			return build_fail(b, &ev->start_mark, -EINVAL,
					  "only one YAML document is allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "YAML aliases are not supported ('*%.64s')",
				  (const char *)ev->data.alias.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		return 0;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		break;
	default:
		return 0;
	}
	if (b->nr_nodes++ >= b->lim->max_nodes)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "more than %zu YAML nodes",
				  b->lim->max_nodes);
	if (ev->type != YAML_SCALAR_EVENT &&
	    b->depth - b->base == b->lim->max_depth)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "nested deeper than %u levels",
				  b->lim->max_depth);
	n = calloc(1, sizeof(*n));
	if (!n)
		return ul_err_set(b->err, -ENOMEM, "out of memory");
	n->line = (unsigned int)ev->start_mark.line + 1;
	n->column = (unsigned int)ev->start_mark.column + 1;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->type = UL_YNODE_SCALAR;
		if (memchr(ev->data.scalar.value, '\0',
			   ev->data.scalar.length)) {
			free(n);
			return build_fail(b, &ev->start_mark, -EINVAL,
					  "a scalar holds a NUL character");
		}
		n->str = strdup((const char *)ev->data.scalar.value);
		if (!n->str) {
			free(n);
			return ul_err_set(b->err, -ENOMEM, "out of memory");
		}
		n->is_null = scalar_is_null(ev);
	} else {
		n->type = ev->type == YAML_SEQUENCE_START_EVENT ? UL_YNODE_SEQ
								: UL_YNODE_MAP;
	}
	rc = attach(b, n, ev);
	if (rc) {
		ul_ytree_free(n);
		return rc;
	}
	if (n->type != UL_YNODE_SCALAR)
		b->stack[b->depth++] = n;
	return 0;
}

static int parse(const char *text, size_t len,
		 const struct ul_ytree_limits *lim, bool is_stream,
		 struct ul_ynode **root, struct ul_err *err)
{
	struct ybuild b;
	yaml_event_t ev;
	bool done = false;
	int rc = 0;

	if (len > lim->max_bytes)
		return ul_err_set(err, -EINVAL,
				  "the document is larger than %zu bytes",
				  lim->max_bytes);
	memset(&b, 0, sizeof(b));
	b.lim = lim;
	b.err = err;
	/*
	 * An array of pointers to nodes, one slot more so that a depth
	 * limit of 0 still allocates.
	 */
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	b.stack = calloc((size_t)lim->max_depth + 2, sizeof(*b.stack));
	if (!b.stack)
		return ul_err_set(err, -ENOMEM, "out of memory");
	if (is_stream) {
		/* the documents are the items of one sequence */
		b.root = calloc(1, sizeof(*b.root));
		if (!b.root) {
			free(b.stack);
			return ul_err_set(err, -ENOMEM, "out of memory");
		}
		b.root->type = UL_YNODE_SEQ;
		b.root->line = 1;
		b.root->column = 1;
		b.stack[b.depth++] = b.root;
		b.base = 1;
	}
	if (!yaml_parser_initialize(&b.parser)) {
		rc = ul_err_set(err, -ENOMEM, "out of memory");
		goto free_stack;
	}
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)text,
				     len);
	while (!done) {
		if (!yaml_parser_parse(&b.parser, &ev)) {
			rc = syntax_error(&b);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = build_event(&b, &ev);
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&b.parser);
free_stack:
	free(b.stack);
	if (rc) {
		ul_ytree_free(b.root);
		return rc;
	}
	*root = b.root;
	return 0;
}

int ul_ytree_parse(const char *text, size_t len,
		   const struct ul_ytree_limits *lim, struct ul_ynode **root,
		   struct ul_err *err)
{
	return parse(text, len, lim, false, root, err);
}

int ul_ytree_parse_stream(const char *text, size_t len,
			  const struct ul_ytree_limits *lim,
			  struct ul_ynode **docs, struct ul_err *err)
{
	return parse(text, len, lim, true, docs, err);
}

const char *ul_ytree_type_name(const struct ul_ynode *n)
{
	if (n->type == UL_YNODE_MAP)
		return "a mapping";
	if (n->type == UL_YNODE_SEQ)
		return "a sequence";
	return "a scalar";
}
