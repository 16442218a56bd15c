/*
 * A small tree built from a YAML text with libyaml: scalars, sequences and
 * mappings, each node stamped with its line and column, for code that
 * walks untrusted YAML (lnet.conf, control requests) and quotes the
 * offending place when it refuses something.
 *
 * Building is where the limits on untrusted input are enforced: the size
 * of the text, the depth of nested collections, the items of one
 * collection and the nodes of the whole document. Aliases are refused, so
 * a tree cannot grow past the text it came from. One document is read,
 * or every document of a stream as the items of one sequence. Every
 * error names the line and column ("line 3, column 7: ...").
 */
#ifndef UL_CTL_YTREE_H
#define UL_CTL_YTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum ul_ynode_type {
	UL_YNODE_SCALAR,
	UL_YNODE_SEQ,
	UL_YNODE_MAP,
};

struct ul_ynode {
	enum ul_ynode_type type;
	bool is_null;		   /* plain "", "~", "null", "Null" or "NULL" */
	bool is_quoted;		   /* written double-quoted (proto_doc.h) */
	unsigned int line, column; /* 1-based */
	char *str;		   /* SCALAR: NUL-terminated, owned */
	struct ul_ynode **kids;	   /* SEQ: items; MAP: key, value... */
	size_t nr, cap;
	/*
	 * A tree built in an arena (below): its root holds the arena and
	 * frees it whole; the other nodes, their strings and item arrays
	 * are freed with it, never alone.
	 */
	struct ul_yarena *arena;
	bool is_in_arena;
};

struct ul_ytree_limits {
	size_t max_bytes;	/* of the whole text */
	unsigned int max_depth; /* nested collections */
	unsigned int max_items; /* items of one sequence or mapping */
	size_t max_nodes;	/* nodes of the whole document */
};

/*
 * Build the tree of text[0..len) within lim. On success *root is the
 * caller's, to free with ul_ytree_free(), or NULL for an empty document.
 * Returns 0, -EINVAL (err says where and why) or -ENOMEM.
 */
int ul_ytree_parse(const char *text, size_t len,
		   const struct ul_ytree_limits *lim, struct ul_ynode **root,
		   struct ul_err *err);
/*
 * Every document of text, each built as ul_ytree_parse() builds one:
 * *docs is a sequence (line 1, column 1) whose items are the documents'
 * roots in order, an empty document a null scalar; a text without any
 * document gives an empty sequence. The limits hold for the whole text
 * (the depth under each document). Returns as ul_ytree_parse().
 */
int ul_ytree_parse_stream(const char *text, size_t len,
			  const struct ul_ytree_limits *lim,
			  struct ul_ynode **docs, struct ul_err *err);
/*
 * An arena for a tree of many nodes that is built once and freed whole
 * (a decoded reply document): nodes, item arrays and strings are carved
 * from large blocks instead of one allocation each. ul_yarena_alloc()
 * gives n zeroed bytes aligned for any node, or NULL.
 */
struct ul_yarena;
struct ul_yarena *ul_yarena_new(void);
void *ul_yarena_alloc(struct ul_yarena *a, size_t n);
void ul_yarena_free(struct ul_yarena *a);

/*
 * Free a node and everything under it; NULL is fine. For a tree built in
 * an arena, only its root frees (all of it); a node under it is no-op.
 */
void ul_ytree_free(struct ul_ynode *n);
/* "a mapping", "a sequence" or "a scalar", for messages. */
const char *ul_ytree_type_name(const struct ul_ynode *n);

#endif /* UL_CTL_YTREE_H */
