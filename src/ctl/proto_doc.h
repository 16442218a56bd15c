/*
 * The reply document of the generic ops (proto.h): the server writes the
 * YAML tree a command prints — lnetctl's key names, order and nesting —
 * and ulnetctl prints it in the command's output engine (doc_yaml.h).
 * This mirrors LNet, whose kernel sends netlink key tables that lnetctl
 * turns into YAML without knowing the fields.
 *
 * Building (server side): ul_ctl_doc_init() opens the root mapping in a
 * message of its own; every call below adds one entry to the innermost
 * open mapping (key given) or sequence (key NULL); ul_ctl_doc_end()
 * closes the innermost collection. ul_ctl_doc_reply() then wraps the
 * document in a reply. Errors are the message's sticky error.
 *
 * Decoding (client side) is part of ul_ctl_reply_decode(): the document
 * becomes a struct ul_ynode tree (ctl/ytree.h) in reply->doc, every
 * scalar a string ("true"/"false" for booleans, decimal for integers),
 * with is_quoted set for a Y_QSTR. A map must alternate a key and a
 * value; anything else is -EPROTO.
 */
#ifndef UL_CTL_PROTO_DOC_H
#define UL_CTL_PROTO_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl/proto.h"

void ul_ctl_doc_init(struct ul_ctl_msg *d);
void ul_ctl_doc_map(struct ul_ctl_msg *d, const char *key);
void ul_ctl_doc_seq(struct ul_ctl_msg *d, const char *key);
void ul_ctl_doc_end(struct ul_ctl_msg *d);
void ul_ctl_doc_str(struct ul_ctl_msg *d, const char *key, const char *v);
/* A double-quoted scalar, as lnetctl prints CPT: "[0,1]". */
void ul_ctl_doc_qstr(struct ul_ctl_msg *d, const char *key, const char *v);
void ul_ctl_doc_int(struct ul_ctl_msg *d, const char *key, int64_t v);
void ul_ctl_doc_uint(struct ul_ctl_msg *d, const char *key, uint64_t v);
void ul_ctl_doc_bool(struct ul_ctl_msg *d, const char *key, bool v);
/* A NID's text form as a plain scalar. */
void ul_ctl_doc_nid(struct ul_ctl_msg *d, const char *key,
		    const struct ulnet_nid *nid);

/*
 * Build in m (initialised here) the reply to op carrying document d (which
 * stays the caller's). 0, or the sticky error of d or m.
 */
int ul_ctl_doc_reply(const struct ul_ctl_msg *d, uint16_t op,
		     struct ul_ctl_msg *m);

/*
 * Walking a received document (a Y_MAP or any node in one) in order,
 * checked as the decoder checks it: start() opens a collection of count
 * items (a mapping counts keys and values; counted, at the cost of a
 * second pass over the items, only for an is_counted visitor, else 0),
 * scalar() gives a key or a value as the text the tree would hold,
 * end() closes the innermost collection. A callback's -errno (-ENOMEM)
 * stops the walk with it. v NULL only checks. 0, -EPROTO (err says why)
 * or -ENOMEM. What ulnetctl prints a large reply with, without building
 * its tree.
 */
struct ul_ctl_doc_visit {
	int (*scalar)(void *ctx, const char *s, bool is_quoted);
	int (*start)(void *ctx, bool is_map, size_t count);
	void (*end)(void *ctx, bool is_map);
	bool is_counted;
	void *ctx;
};

int ul_ctl_doc_walk(const struct ul_ctl_attr *a,
		    const struct ul_ctl_doc_visit *v, struct ul_err *err);

#endif /* UL_CTL_PROTO_DOC_H */
