/*
 * Routing states and router buffer pools; the state diagram is in
 * routing.h.
 */
#include <errno.h>
#include <string.h>

#include "core/routing.h"

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

/*
 * Ask every CPT's pool of kind for its share: a pool grows at once, and
 * shrinks only as its buffers come back, which nothing forwarded means
 * never (lnet_rtrpool_adjust_bufs).
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
		r->ncpt = ncpt < 1		      ? 1
			  : ncpt > UL_ROUTING_CPT_MAX ? UL_ROUTING_CPT_MAX
						      : ncpt;
		memset(r->pools, 0, sizeof(r->pools));
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

static bool pools_are_free(const struct ul_routing *r)
{
	unsigned int cpt;
	int kind;

	for (cpt = 0; cpt < r->ncpt; cpt++)
		for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
			if (r->pools[cpt][kind].credits <
			    r->pools[cpt][kind].nbuffers)
				return false;
	return true;
}

bool ul_routing_tick(struct ul_routing *r, uint64_t now_ns)
{
	unsigned int cpt;

	if (r->state == UL_ROUTING_STARTING && now_ns >= r->min_ns) {
		r->state = UL_ROUTING_ENABLED;
		return true;
	}
	if (r->state != UL_ROUTING_STOPPING || now_ns < r->min_ns ||
	    (now_ns < r->max_ns && !pools_are_free(r)))
		return false;
	/* lnet_rtrpools_free(1): the buffers go, the pools stay. */
	for (cpt = 0; cpt < r->ncpt; cpt++)
		memset(r->pools[cpt], 0, sizeof(r->pools[cpt]));
	r->state = UL_ROUTING_DISABLED;
	return true;
}

uint64_t ul_routing_deadline(const struct ul_routing *r)
{
	if (r->state == UL_ROUTING_STARTING)
		return r->min_ns;
	if (r->state == UL_ROUTING_STOPPING)
		return pools_are_free(r) ? r->min_ns : r->max_ns;
	return 0;
}

void ul_routing_reset(struct ul_routing *r)
{
	r->state = UL_ROUTING_DISABLED;
	r->ncpt = 0;
	memset(r->pools, 0, sizeof(r->pools));
	r->min_ns = 0;
	r->max_ns = 0;
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
