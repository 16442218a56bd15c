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
 * what a reply of 100,000 peers is printed with. 0, -EIO, -ENOMEM.
 */
int ul_doc_print_raw(FILE *out, const uint8_t *raw, size_t len,
		     enum ul_doc_engine e);

struct ul_yemit;
/* Emit node n (and what it holds) into an open libyaml stream. */
void ul_doc_emit(struct ul_yemit *y, const struct ul_ynode *n);

/* The value under key in mapping map, or NULL. */
const struct ul_ynode *ul_doc_get(const struct ul_ynode *map, const char *key);

#endif /* UL_CTL_DOC_YAML_H */
