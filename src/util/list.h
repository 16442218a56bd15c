/*
 * Intrusive doubly linked lists, circular with a head node, in the shape
 * every Linux and Lustre developer knows (list_head): an object embeds one
 * struct ul_list per list it can be on, and the macros below get from the
 * link back to the object. Nothing here allocates; nothing is thread-safe.
 */
#ifndef UL_UTIL_LIST_H
#define UL_UTIL_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct ul_list {
	struct ul_list *next;
	struct ul_list *prev;
};

#define ul_container_of(ptr, type, member)                                     \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* A head or a link that is on no list points at itself. */
static inline void ul_list_init(struct ul_list *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool ul_list_empty(const struct ul_list *head)
{
	return head->next == head;
}

/* Put node between prev and next, which must be neighbours. */
static inline void ul_list_link(struct ul_list *node, struct ul_list *prev,
				struct ul_list *next)
{
	node->prev = prev;
	node->next = next;
	prev->next = node;
	next->prev = node;
}

/* Put node first on the list. */
static inline void ul_list_add_head(struct ul_list *head, struct ul_list *node)
{
	ul_list_link(node, head, head->next);
}

/* Put node last on the list. */
static inline void ul_list_add_tail(struct ul_list *head, struct ul_list *node)
{
	ul_list_link(node, head->prev, head);
}

/* Put node right after pos (pos may be the head: then node goes first). */
static inline void ul_list_add_after(struct ul_list *pos, struct ul_list *node)
{
	ul_list_link(node, pos, pos->next);
}

/*
 * Take node off its list and leave it pointing at itself, so deleting it
 * twice is harmless and ul_list_empty(node) says it is on no list.
 */
static inline void ul_list_del(struct ul_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	ul_list_init(node);
}

/*
 * Move every entry of from onto to, in order (to need not be
 * initialised; from ends empty): a batch to walk while new entries go on
 * from.
 */
static inline void ul_list_take(struct ul_list *from, struct ul_list *to)
{
	ul_list_init(to);
	if (ul_list_empty(from))
		return;
	ul_list_link(to, from->prev, from->next);
	ul_list_init(from);
}

static inline size_t ul_list_count(const struct ul_list *head)
{
	size_t n = 0;

	for (const struct ul_list *e = head->next; e != head; e = e->next)
		n++;
	return n;
}

#define ul_list_entry(ptr, type, member) ul_container_of(ptr, type, member)

#define ul_list_first_entry(head, type, member)                                \
	ul_list_entry((head)->next, type, member)

/* pos is the loop cursor, a pointer to the embedding type. */
#define ul_list_for_each_entry(pos, head, member)                              \
	for ((pos) = ul_list_entry((head)->next, __typeof__(*(pos)), member);  \
	     &(pos)->member != (head);                                         \
	     (pos) = ul_list_entry((pos)->member.next, __typeof__(*(pos)),     \
				   member))

/* As above, but pos may be unlinked (and freed) inside the loop body. */
#define ul_list_for_each_entry_safe(pos, tmp, head, member)                    \
	for ((pos) = ul_list_entry((head)->next, __typeof__(*(pos)), member),  \
	    (tmp) = ul_list_entry((pos)->member.next, __typeof__(*(pos)),      \
				  member);                                     \
	     &(pos)->member != (head);                                         \
	     (pos) = (tmp), (tmp) = ul_list_entry((tmp)->member.next,          \
						  __typeof__(*(tmp)), member))

#endif /* UL_UTIL_LIST_H */
