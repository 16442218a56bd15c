/*
 * An intrusive hash table with chained buckets, keyed by a 32-bit hash
 * that the caller computes (ul_nid_hash() for NIDs). An object embeds a
 * struct ul_hnode; lookups walk one bucket and compare keys themselves,
 * so the table never needs to know the key type:
 *
 *	for (n = ul_hash_bucket(h, hv); n; n = n->next)
 *		if (n->hash == hv && same_key(container_of(n), key)) ...
 *
 * The table doubles its bucket array when it holds more entries than
 * buckets; if that allocation fails it keeps working with longer chains.
 * Not thread-safe: the owner of the table serialises access.
 */
#ifndef UL_UTIL_HASH_H
#define UL_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "ulnet/nid.h"

struct ul_hnode {
	struct ul_hnode *next; /* next in the bucket chain */
	uint32_t hash;	       /* the key's full hash, kept for regrowth */
};

struct ul_hash {
	struct ul_hnode **buckets; /* 2^n chain heads */
	uint32_t mask;		   /* number of buckets - 1 */
	uint32_t count;		   /* entries in the table */
};

/* Set up an empty table of 2^log2_buckets buckets. 0 or -ENOMEM. */
int ul_hash_init(struct ul_hash *h, unsigned int log2_buckets);
/* Free the bucket array; the entries belong to the caller. */
void ul_hash_fini(struct ul_hash *h);
/* Insert node under hash (duplicates are the caller's business). */
void ul_hash_add(struct ul_hash *h, struct ul_hnode *node, uint32_t hash);
/* Remove node, which must be in the table. */
void ul_hash_del(struct ul_hash *h, struct ul_hnode *node);

static inline struct ul_hnode *ul_hash_bucket(const struct ul_hash *h,
					      uint32_t hash)
{
	return h->buckets[hash & h->mask];
}

/* Hash of every field of a NID (ulnet_nid_same() NIDs hash alike). */
uint32_t ul_nid_hash(const struct ulnet_nid *nid);

#endif /* UL_UTIL_HASH_H */
