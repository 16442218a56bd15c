/*
 * The instance: creation with LNet's defaults, teardown, the observer
 * hooks, the seeded generator for route placement and the NUMA distance
 * table. Teardown goes top down (routes, then peers, then nets) so every
 * object's references are dropped before what it points at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

int ul_core_create(struct ul_core **out)
{
	struct ul_core *c = calloc(1, sizeof(*c));
	int rc = -ENOMEM;

	if (!c)
		return -ENOMEM;
	ul_tunables_init(&c->tun);
	ul_list_init(&c->nets);
	ul_list_init(&c->peers);
	ul_list_init(&c->rnets);
	c->numa_max = 20;
	if (ul_hash_init(&c->peer_ni_hash, 6))
		goto err_free;
	rc = ul_ni_add_lo(c);
	if (rc)
		goto err_hash;
	*out = c;
	return 0;

err_hash:
	ul_hash_fini(&c->peer_ni_hash);
err_free:
	free(c);
	return rc;
}

void ul_core_destroy(struct ul_core *c)
{
	if (!c)
		return;
	ul_route_del_all(c);
	ul_peer_del_all(c);
	ul_net_del_all(c);
	ul_routing_fini(&c->routing);
	ul_hash_fini(&c->peer_ni_hash);
	free(c->numa_dist);
	free(c);
}

void ul_core_set_observer(struct ul_core *c, const struct ul_core_observer *obs)
{
	if (obs)
		c->obs = *obs;
	else
		memset(&c->obs, 0, sizeof(c->obs));
}

void ul_core_seed(struct ul_core *c, uint64_t seed)
{
	c->rng_state = seed;
}

/* splitmix64: any seed, including 0, gives a full-period sequence. */
uint32_t ul_core_random(struct ul_core *c)
{
	uint64_t z = (c->rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

void ul_core_set_route_append(struct ul_core *c, bool is_append)
{
	c->is_route_append = is_append;
}

int ul_core_set_numa_table(struct ul_core *c, uint32_t nnodes,
			   const uint32_t *dist)
{
	uint32_t *copy;
	uint32_t max = 0;

	if (nnodes == 0) {
		free(c->numa_dist);
		c->numa_dist = NULL;
		c->numa_nnodes = 0;
		c->numa_max = 20;
		return 0;
	}
	if (nnodes > UL_NUMA_MAX_NODES || !dist)
		return -EINVAL;
	copy = malloc((size_t)nnodes * nnodes * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (uint32_t i = 0; i < nnodes * nnodes; i++) {
		copy[i] = dist[i];
		if (dist[i] > max)
			max = dist[i];
	}
	free(c->numa_dist);
	c->numa_dist = copy;
	c->numa_nnodes = nnodes;
	c->numa_max = max;
	return 0;
}

uint32_t ul_core_numa_distance(const struct ul_core *c, int node_a, int node_b)
{
	if (node_a < 0 || node_b < 0)
		return c->numa_max;
	if (!c->numa_dist)
		return node_a == node_b ? 10 : 20;
	if ((uint32_t)node_a >= c->numa_nnodes ||
	    (uint32_t)node_b >= c->numa_nnodes)
		return c->numa_max;
	return c->numa_dist[(uint32_t)node_a * c->numa_nnodes +
			    (uint32_t)node_b];
}
