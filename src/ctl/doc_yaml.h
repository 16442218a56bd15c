/*
 * Printing a generic op's reply document (proto_doc.h) in the output
 * engine of the command (reference/lnetctl.md §2):
 *
 *	UL_DOC_A  libyaml, indent 6, no document markers: net/peer/route
 *	          show, peer list, fault show, debug recovery
 *	UL_DOC_B  libyaml, indent 2: ping, discover, cpt-of-nid
 *	UL_DOC_C  lnetctl's cYAML printer, 4 columns a level: global show,
 *	          stats show, routing show, udsp show
 *
 * An empty document (a root mapping without entries) prints nothing, as
 * lnetctl prints nothing for an empty table.
 */
#ifndef UL_CTL_DOC_YAML_H
#define UL_CTL_DOC_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ul_ynode;

enum ul_doc_engine {
	UL_DOC_A,
	UL_DOC_B,
	UL_DOC_C,
};

/* 0, or -EIO when out could not be written. NULL doc prints nothing. */
int ul_doc_print(FILE *out, const struct ul_ynode *doc, enum ul_doc_engine e);
/*
 * The same for a document kept raw (proto.h, UL_CTL_REPLY_RAW_DOC: len
 * bytes, its Y_MAP attribute), printed as it is walked, without a tree:
 * what a reply of 100,000 peers is printed with. 0, -EIO, -ENOMEM or
 * -EPROTO.
 */
int ul_doc_print_raw(FILE *out, const uint8_t *raw, size_t len,
		     enum ul_doc_engine e);

/*
 * A paged table (proto.h, CURSOR) printed page by page as one document:
 * each page's raw document is a mapping of one key whose value is a
 * sequence (the first page's key is printed, the items of every page
 * make its one list). ul_doc_pages_print() takes a page as it comes; a
 * page without the key adds nothing; ul_doc_pages_close() ends the
 * document (nothing at all when no page had an item). Engines A and B
 * only. 0, -EIO, -ENOMEM, or -EPROTO for a page of another shape.
 */
struct ul_doc_pages {
	FILE *out;
	enum ul_doc_engine engine;
	bool is_open;
	void *emit; /* internal */
};

void ul_doc_pages_init(struct ul_doc_pages *p, FILE *out, enum ul_doc_engine e);
int ul_doc_pages_print(struct ul_doc_pages *p, const uint8_t *raw, size_t len);
int ul_doc_pages_close(struct ul_doc_pages *p);

struct ul_yemit;
/* Emit node n (and what it holds) into an open libyaml stream. */
void ul_doc_emit(struct ul_yemit *y, const struct ul_ynode *n);

/* The value under key in mapping map, or NULL. */
const struct ul_ynode *ul_doc_get(const struct ul_ynode *map, const char *key);

#endif /* UL_CTL_DOC_YAML_H */
