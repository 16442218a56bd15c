/*
 * The chained hash table of hash.h. Buckets double when the load passes
 * one entry per bucket, so a lookup walks about one node; the stored hash
 * makes regrowth a relink without touching the keys.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/hash.h"

int ul_hash_init(struct ul_hash *h, unsigned int log2_buckets)
{
	size_t n = (size_t)1 << log2_buckets;

	h->buckets = calloc(n, sizeof(struct ul_hnode *));
	if (!h->buckets)
		return -ENOMEM;
	h->mask = (uint32_t)(n - 1);
	h->count = 0;
	return 0;
}

void ul_hash_fini(struct ul_hash *h)
{
	free(h->buckets);
	h->buckets = NULL;
	h->mask = 0;
	h->count = 0;
}

/* Move every node to a table twice as large; on ENOMEM keep the old one. */
static void grow(struct ul_hash *h)
{
	size_t old_n = (size_t)h->mask + 1;
	size_t new_n = old_n * 2;
	struct ul_hnode **nb;

	if (new_n > UINT32_MAX)
		return;
	nb = calloc(new_n, sizeof(struct ul_hnode *));
	if (!nb)
		return;
	for (size_t i = 0; i < old_n; i++) {
		struct ul_hnode *n = h->buckets[i];

		while (n) {
			struct ul_hnode *next = n->next;
			struct ul_hnode **head = &nb[n->hash & (new_n - 1)];

			n->next = *head;
			*head = n;
			n = next;
		}
	}
	free(h->buckets);
	h->buckets = nb;
	h->mask = (uint32_t)(new_n - 1);
}

void ul_hash_add(struct ul_hash *h, struct ul_hnode *node, uint32_t hash)
{
	struct ul_hnode **head;

	if (h->count >= h->mask + 1)
		grow(h);
	head = &h->buckets[hash & h->mask];
	node->hash = hash;
	node->next = *head;
	*head = node;
	h->count++;
}

void ul_hash_del(struct ul_hash *h, struct ul_hnode *node)
{
	struct ul_hnode **pp = &h->buckets[node->hash & h->mask];

	while (*pp && *pp != node)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = node->next;
		node->next = NULL;
		h->count--;
	}
}

/* Mix each word in (a multiply-xorshift finaliser, as in murmur3's fmix). */
static uint32_t mix(uint32_t h, uint32_t w)
{
	h ^= w;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

uint32_t ul_nid_hash(const struct ulnet_nid *nid)
{
	uint32_t h = 0x9747b28cU;

	h = mix(h, ((uint32_t)nid->nid_size << 24) |
			   ((uint32_t)nid->nid_type << 16) | nid->nid_num);
	h = mix(h, nid->nid_addr[0]);
	if (nid->nid_size) {
		h = mix(h, nid->nid_addr[1]);
		h = mix(h, nid->nid_addr[2]);
		h = mix(h, nid->nid_addr[3]);
	}
	return h;
}
