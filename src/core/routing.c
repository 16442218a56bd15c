/*
 * Routing states and router buffer pools; the state diagram is in
 * routing.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/routing.h"
#include "ulnet/ulnet.h"

/* LNet's default totals and the totals it warns below (routing.md §7.2). */
static const int nbufs_default[UL_RTRPOOL_NR] = { 2048, 16384, 1024 };
static const int nbufs_min[UL_RTRPOOL_NR] = { 512, 4096, 256 };

/* Buffers each CPT's pool of kind should hold (lnet_nrb_*_calculate). */
static int per_cpt(const struct ul_routing *r, enum ul_rtrpool_kind kind,
		   unsigned int *warn)
{
	int n = nbufs_default[kind];

	if (r->nbufs[kind] > 0) {
		if (r->nbufs[kind] < nbufs_min[kind])
			*warn |= 1u << kind;
		n = r->nbufs[kind];
	}
	n /= (int)r->ncpt;
	return n > 1 ? n : 1;
}

/* Bytes a buffer of kind holds: none, a page, LNET_MTU. */
static uint32_t buf_bytes(enum ul_rtrpool_kind kind)
{
	switch (kind) {
	case UL_RTRPOOL_TINY:
		return 0;
	case UL_RTRPOOL_SMALL:
		return UL_RTRBUF_PAGE_BYTES;
	default:
		return ULNET_MTU;
	}
}

static void pool_init(struct ul_rtrpool *p)
{
	memset(p, 0, sizeof(*p));
	ul_list_init(&p->free);
	ul_list_init(&p->waitq);
}

/* Free up to count buffers of p's free list; how many went. */
static int pool_free_some(struct ul_rtrpool *p, int count)
{
	struct ul_rtrbuf *b, *tmp;
	int k = 0;

	ul_list_for_each_entry_safe(b, tmp, &p->free, link) {
		if (k == count)
			break;
		ul_list_del(&b->link);
		free(b);
		p->nfree--;
		k++;
	}
	return k;
}

/*
 * Ask every CPT's pool of kind for its share: a pool grows at once, and
 * shrinks only as its buffers come back (lnet_rtrpool_adjust_bufs).
 */
static void pools_adjust(struct ul_routing *r, enum ul_rtrpool_kind kind,
			 unsigned int *warn)
{
	int n = per_cpt(r, kind, warn);
	unsigned int cpt;

	for (cpt = 0; cpt < r->ncpt; cpt++) {
		struct ul_rtrpool *p = &r->pools[cpt][kind];

		p->req = n;
		if (n <= p->nbuffers)
			continue;
		p->credits += n - p->nbuffers;
		p->nbuffers = n;
		p->mincredits = p->credits;
	}
}

/*
 * Pools without buffers: the free ones go, lent ones go as they come
 * back, and waiters keep what they are owed until they are dropped.
 */
static void pools_empty(struct ul_routing *r)
{
	unsigned int cpt;
	int kind;

	for (cpt = 0; cpt < r->ncpt; cpt++) {
		for (kind = 0; kind < UL_RTRPOOL_NR; kind++) {
			struct ul_rtrpool *p = &r->pools[cpt][kind];

			pool_free_some(p, p->nfree);
			p->req = 0;
			p->nbuffers = p->nlent;
			p->credits = -p->nwait;
			p->mincredits = p->credits;
		}
	}
}

static bool pools_are_idle(const struct ul_routing *r)
{
	unsigned int cpt;
	int kind;

	for (cpt = 0; cpt < r->ncpt; cpt++)
		for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
			if (r->pools[cpt][kind].nlent ||
			    r->pools[cpt][kind].nwait)
				return false;
	return true;
}

int ul_routing_enable(struct ul_routing *r, unsigned int ncpt, uint64_t now_ns,
		      uint64_t wait_ns, unsigned int *warn)
{
	int kind;

	*warn = 0;
	if (r->state == UL_ROUTING_STOPPING)
		return -EBUSY;
	if (r->state != UL_ROUTING_DISABLED)
		return 0;
	if (!r->ncpt) {
		unsigned int cpt;

		r->ncpt = ncpt < 1		      ? 1
			  : ncpt > UL_ROUTING_CPT_MAX ? UL_ROUTING_CPT_MAX
						      : ncpt;
		for (cpt = 0; cpt < r->ncpt; cpt++)
			for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
				pool_init(&r->pools[cpt][kind]);
	}
	for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
		pools_adjust(r, (enum ul_rtrpool_kind)kind, warn);
	r->state = UL_ROUTING_STARTING;
	r->min_ns = now_ns + wait_ns;
	r->max_ns = r->min_ns;
	return 0;
}

bool ul_routing_disable(struct ul_routing *r, uint64_t now_ns, uint64_t wait_ns)
{
	if (r->state == UL_ROUTING_DISABLED || r->state == UL_ROUTING_STOPPING)
		return false;
	/* A wait that STARTING began runs on, as LNet's monitor keeps it. */
	if (r->state == UL_ROUTING_ENABLED)
		r->min_ns = now_ns + wait_ns;
	r->max_ns = r->min_ns + 2 * wait_ns;
	r->state = UL_ROUTING_STOPPING;
	return true;
}

int ul_routing_set_buffers(struct ul_routing *r, enum ul_rtrpool_kind kind,
			   int64_t total, unsigned int *warn)
{
	*warn = 0;
	if (total < -1)
		return -ERANGE;
	/* lnet_rtrpools_adjust(): nothing kept while routing is off. */
	if (total == -1 || r->state == UL_ROUTING_DISABLED)
		return 0;
	r->nbufs[kind] = total > INT32_MAX ? INT32_MAX : (int)total;
	pools_adjust(r, kind, warn);
	return 0;
}

bool ul_routing_tick(struct ul_routing *r, uint64_t now_ns)
{
	if (r->state == UL_ROUTING_STARTING && now_ns >= r->min_ns) {
		r->state = UL_ROUTING_ENABLED;
		return true;
	}
	if (r->state != UL_ROUTING_STOPPING || now_ns < r->min_ns ||
	    (now_ns < r->max_ns && !pools_are_idle(r)))
		return false;
	/* lnet_rtrpools_free(1): the buffers go, the pools stay. */
	pools_empty(r);
	r->state = UL_ROUTING_DISABLED;
	return true;
}

uint64_t ul_routing_deadline(const struct ul_routing *r)
{
	if (r->state == UL_ROUTING_STARTING)
		return r->min_ns;
	if (r->state == UL_ROUTING_STOPPING)
		return pools_are_idle(r) ? r->min_ns : r->max_ns;
	return 0;
}

void ul_routing_reset(struct ul_routing *r)
{
	r->state = UL_ROUTING_DISABLED;
	pools_empty(r);
	if (pools_are_idle(r)) {
		r->ncpt = 0;
		memset(r->pools, 0, sizeof(r->pools));
	}
	r->min_ns = 0;
	r->max_ns = 0;
}

void ul_routing_fini(struct ul_routing *r)
{
	unsigned int cpt;
	int kind;

	for (cpt = 0; cpt < r->ncpt; cpt++)
		for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
			pool_free_some(&r->pools[cpt][kind],
				       r->pools[cpt][kind].nfree);
	r->ncpt = 0;
}

enum ul_rtrpool_kind ul_rtrpool_kind_of(uint32_t nob)
{
	if (nob == 0)
		return UL_RTRPOOL_TINY;
	return nob <= UL_RTRBUF_PAGE_BYTES ? UL_RTRPOOL_SMALL
					   : UL_RTRPOOL_LARGE;
}

struct ul_rtrpool *ul_routing_pool(struct ul_routing *r,
				   const struct ulnet_nid *nid,
				   enum ul_rtrpool_kind kind)
{
	uint32_t h = 2166136261u;
	size_t i;

	if (!r->ncpt)
		return NULL;
	/* The CPT of a NID: a hash of it, as lnet_cpt_of_nid spreads them. */
	for (i = 0; i < sizeof(nid->nid_addr); i++)
		h = (h ^ ((const unsigned char *)nid->nid_addr)[i]) * 16777619u;
	h = (h ^ nid->nid_num) * 16777619u;
	return &r->pools[h % r->ncpt][kind];
}

int ul_rtrpool_get(struct ul_rtrpool *p, enum ul_rtrpool_kind kind,
		   struct ul_rtrbuf **out)
{
	struct ul_rtrbuf *b;

	*out = NULL;
	if (p->credits <= 0) {
		p->credits--;
		p->nwait++;
		if (p->credits < p->mincredits)
			p->mincredits = p->credits;
		return -EAGAIN;
	}
	if (!ul_list_empty(&p->free)) {
		b = ul_list_first_entry(&p->free, struct ul_rtrbuf, link);
		ul_list_del(&b->link);
		p->nfree--;
	} else {
		b = malloc(sizeof(*b) + buf_bytes(kind));
		if (!b)
			return -ENOMEM;
		ul_list_init(&b->link);
		b->size_bytes = buf_bytes(kind);
	}
	p->credits--;
	p->nlent++;
	if (p->credits < p->mincredits)
		p->mincredits = p->credits;
	*out = b;
	return 0;
}

struct ul_rtrbuf *ul_rtrpool_put(struct ul_rtrpool *p, struct ul_rtrbuf *buf)
{
	if (p->nbuffers > p->req) {
		/* Shrinking (or routing stopped): this one goes. */
		free(buf);
		p->nbuffers--;
		p->nlent--;
		return NULL;
	}
	p->credits++;
	if (p->nwait > 0) {
		/* Lent straight on to the first waiter: still lent. */
		p->nwait--;
		return buf;
	}
	p->nlent--;
	ul_list_add_head(&p->free, &buf->link);
	p->nfree++;
	return NULL;
}

void ul_rtrpool_unwait(struct ul_rtrpool *p)
{
	p->nwait--;
	p->credits++;
}

int ul_routing_min_nbufs(enum ul_rtrpool_kind kind)
{
	return nbufs_min[kind];
}

int ul_routing_total(const struct ul_routing *r, enum ul_rtrpool_kind kind)
{
	unsigned int cpt;
	int n = 0;

	for (cpt = 0; cpt < r->ncpt; cpt++)
		n += r->pools[cpt][kind].nbuffers;
	return n;
}
