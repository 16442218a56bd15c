/*
 * Local nets and NIs: add, delete, find, and their reference counts.
 *
 * Checks and error texts follow lnetctl net add/del (reference/lnetctl.md
 * §6.1, §6.2). A net's tunables are fixed by its first NI; later NIs keep
 * the net's values, as LNet does, and the node logs LNet's warning "All
 * tunables of NIs of a net should be the same" when one asked for others
 * (ul_net_tunables_match()). The lo net is created once by
 * ul_core_create() and never configured or deleted through this
 * interface.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "util/err.h"

void ul_net_tunables_default(struct ul_net_tunables *tun)
{
	tun->peer_tx_credits = 8;
	tun->credits = 256;
	tun->peer_timeout_sec = 180;
	tun->peer_buffer_credits = 0;
}

/* What a request asks for: a given tunable overrides the default. */
static void net_tunables_asked(struct ul_net_tunables *dst,
			       const struct ul_net_tunables *src)
{
	ul_net_tunables_default(dst);
	if (!src)
		return;
	if (src->peer_tx_credits >= 0)
		dst->peer_tx_credits = src->peer_tx_credits;
	if (src->credits >= 0)
		dst->credits = src->credits;
	if (src->peer_timeout_sec >= 0)
		dst->peer_timeout_sec = src->peer_timeout_sec;
	if (src->peer_buffer_credits >= 0)
		dst->peer_buffer_credits = src->peer_buffer_credits;
}

/*
 * A new net's tunables: the request's, with peer credits never above the
 * NI's credits, as the socklnd lowers them when it starts the net's first
 * NI (lnetctl.md §6.1).
 */
static void net_tunables_merge(struct ul_net_tunables *dst,
			       const struct ul_net_tunables *src)
{
	net_tunables_asked(dst, src);
	if (dst->peer_tx_credits > dst->credits)
		dst->peer_tx_credits = dst->credits;
}

bool ul_net_tunables_match(const struct ul_net *net,
			   const struct ul_net_tunables *tun)
{
	struct ul_net_tunables asked;

	net_tunables_asked(&asked, tun);
	return asked.peer_tx_credits == net->tun.peer_tx_credits &&
	       asked.credits == net->tun.credits &&
	       asked.peer_timeout_sec == net->tun.peer_timeout_sec &&
	       asked.peer_buffer_credits == net->tun.peer_buffer_credits;
}

void ul_lat_record(struct ul_lat *l, uint64_t ns)
{
	if (!ns)
		return;
	if (!l->samples || ns < l->min_ns)
		l->min_ns = ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
	l->samples++;
	l->sum_ns += ns;
}

uint64_t ul_lat_avg_ns(const struct ul_lat *l)
{
	return l->samples ? l->sum_ns / l->samples : 0;
}

void ul_net_get(struct ul_net *net)
{
	net->refcount++;
}

void ul_net_put(struct ul_net *net)
{
	if (--net->refcount == 0)
		free(net);
}

void ul_ni_get(struct ul_ni *ni)
{
	ni->refcount++;
}

void ul_ni_put(struct ul_ni *ni)
{
	if (--ni->refcount == 0) {
		ul_net_put(ni->net);
		free(ni);
	}
}

struct ul_net *ul_net_find(const struct ul_core *c, uint32_t net_id)
{
	struct ul_net *net;

	ul_list_for_each_entry(net, &c->nets, core_link)
		if (net->net_id == net_id)
			return net;
	return NULL;
}

struct ul_ni *ul_ni_find(const struct ul_core *c, const struct ulnet_nid *nid)
{
	struct ul_net *net = ul_net_find(c, ulnet_nid_net(nid));
	struct ul_ni *ni;

	if (!net)
		return NULL;
	ul_list_for_each_entry(ni, &net->nis, net_link)
		if (ulnet_nid_same(&ni->nid, nid))
			return ni;
	return NULL;
}

struct ul_ni *ul_ni_find_by_ifname(const struct ul_net *net, const char *ifname)
{
	struct ul_ni *ni;

	if (!ifname || !ifname[0])
		return NULL;
	ul_list_for_each_entry(ni, &net->nis, net_link)
		if (strcmp(ni->ifname, ifname) == 0)
			return ni;
	return NULL;
}

struct ul_ni *ul_core_lo_ni(const struct ul_core *c)
{
	return c->lo_ni;
}

int ul_net_healthv(const struct ul_net *net)
{
	const struct ul_ni *ni;
	int best = 0;

	ul_list_for_each_entry(ni, &net->nis, net_link) {
		if (!ni->is_fatal && ni->healthv > best)
			best = ni->healthv;
	}
	return best;
}

static struct ul_net *net_create(struct ul_core *c, uint32_t net_id,
				 const struct ul_net_tunables *tun)
{
	struct ul_net *net = calloc(1, sizeof(*net));

	if (!net)
		return NULL;
	ul_list_init(&net->nis);
	net->net_id = net_id;
	net->sel_priority = UL_PRIO_UNSET;
	net_tunables_merge(&net->tun, tun);
	net->refcount = 1; /* the instance's list */
	ul_list_add_tail(&c->nets, &net->core_link);
	return net;
}

static struct ul_ni *ni_create(struct ul_net *net, const struct ulnet_nid *nid,
			       const char *ifname, int numa_node)
{
	struct ul_ni *ni = calloc(1, sizeof(*ni));

	if (!ni)
		return NULL;
	ni->nid = *nid;
	if (ifname)
		snprintf(ni->ifname, sizeof(ni->ifname), "%s", ifname);
	ni->numa_node = numa_node < 0 ? UL_NUMA_ANY : numa_node;
	ni->tx_credits = net->tun.credits;
	ni->healthv = UL_HEALTH_MAX;
	ni->tos = -1;
	ni->status = UL_NI_STATUS_UP;
	ni->sel_priority = UL_PRIO_UNSET;
	ni->refcount = 1; /* the net's list */
	ni->net = net;
	ul_net_get(net);
	ul_list_add_tail(&net->nis, &ni->net_link);
	net->nnis++;
	return ni;
}

int ul_ni_add_lo(struct ul_core *c)
{
	struct ulnet_nid lo = { .nid_type = ULNET_LND_LO };
	struct ul_net *net = net_create(c, ulnet_nid_net(&lo), NULL);

	if (!net)
		return -ENOMEM;
	c->lo_ni = ni_create(net, &lo, NULL, UL_NUMA_ANY);
	if (!c->lo_ni) {
		ul_list_del(&net->core_link);
		ul_net_put(net);
		return -ENOMEM;
	}
	return 0;
}

int ul_ni_add(struct ul_core *c, const struct ulnet_nid *nid,
	      const char *ifname, int numa_node,
	      const struct ul_net_tunables *tun, struct ul_ni **out,
	      struct ul_err *err)
{
	uint32_t net_id;
	struct ul_net *net;
	struct ul_ni *ni;
	bool is_new_net = false;

	if (ulnet_nid_is_any(nid))
		return ul_err_set(err, -EINVAL, "cannot add LNet NI: ANY NID");
	if (nid->nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	net_id = ulnet_nid_net(nid);
	if (ul_rnet_find(c, net_id))
		return ul_err_set(err, -EUSERS,
				  "cannot add LNet NI: a route to its net "
				  "exists");
	/*
	 * lnet_startup_lndni: lnet_interfaces_max bounds every NI, 0@lo
	 * included, so the NIs besides lo stop one short of it (nnis does
	 * not count lo).
	 */
	if (c->nnis >= c->tun.max_interfaces - 1)
		return ul_err_set(err, -ENOSPC,
				  "too many NIs, check lnet_interfaces_max");
	if (ifname && strlen(ifname) >= UL_IFNAME_SIZE)
		return ul_err_set(err, -EINVAL,
				  "cannot add LNet NI: interface name '%.64s' "
				  "is longer than %d characters",
				  ifname, UL_IFNAME_SIZE - 1);
	net = ul_net_find(c, net_id);
	if (net && ul_ni_find(c, nid))
		return ul_err_set(err, -EEXIST,
				  "cannot add LNet NI: NID exists");
	if (net && ul_ni_find_by_ifname(net, ifname))
		return ul_err_set(err, -EEXIST,
				  "cannot add LNet NI: interface '%s' is "
				  "already on this net",
				  ifname);
	if (!net) {
		net = net_create(c, net_id, tun);
		if (!net)
			return ul_err_set(err, -ENOMEM, "cannot add LNet NI");
		is_new_net = true;
	}
	ni = ni_create(net, nid, ifname, numa_node);
	if (!ni) {
		if (is_new_net) {
			ul_list_del(&net->core_link);
			ul_net_put(net);
		}
		return ul_err_set(err, -ENOMEM, "cannot add LNet NI");
	}
	c->nnis++;
	/* Peer NIs created before their net existed get its credits now. */
	if (is_new_net)
		ul_peer_on_net_added(c, net);
	if (is_new_net && c->obs.on_net_add)
		c->obs.on_net_add(c->obs.ctx, net);
	if (c->obs.on_ni_add)
		c->obs.on_ni_add(c->obs.ctx, ni);
	if (out)
		*out = ni;
	return 0;
}

/* Unlink ni from its net and drop the list's reference. */
static void ni_unlink(struct ul_ni *ni)
{
	ni->is_dead = true;
	ul_list_del(&ni->net_link);
	ni->net->nnis--;
	ul_ni_put(ni);
}

static void net_unlink(struct ul_core *c, struct ul_net *net)
{
	struct ul_ni *ni, *tmp;

	ul_list_for_each_entry_safe(ni, tmp, &net->nis, net_link) {
		if (ni != c->lo_ni)
			c->nnis--;
		ni_unlink(ni);
	}
	net->is_dead = true;
	ul_list_del(&net->core_link);
	ul_net_put(net);
}

/*
 * A local net has gone (already unlinked). A net that was up takes the
 * peers and routes on it (LNet's lnet_shutdown_lndnet() cleans the peer
 * tables); one that never started only gives back the credits its peer
 * NIs got.
 */
static void net_gone(struct ul_core *c, uint32_t net_id, bool was_up)
{
	if (was_up)
		ul_peer_on_net_del(c, net_id);
	else
		ul_peer_on_net_undo(c, net_id);
}

static int ni_del(struct ul_core *c, const struct ulnet_nid *nid, bool was_up,
		  struct ul_err *err)
{
	struct ul_ni *ni;
	struct ul_net *net;
	uint32_t net_id;

	if (nid->nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	ni = ul_ni_find(c, nid);
	if (!ni)
		return ul_err_set(err, -ENOENT, "cannot del LNet NI");
	net = ni->net;
	if (net->nnis == 1) {
		net_id = net->net_id;
		net_unlink(c, net);
		net_gone(c, net_id, was_up);
		return 0;
	}
	c->nnis--;
	ni_unlink(ni);
	return 0;
}

int ul_ni_del(struct ul_core *c, const struct ulnet_nid *nid,
	      struct ul_err *err)
{
	return ni_del(c, nid, true, err);
}

int ul_ni_add_undo(struct ul_core *c, const struct ulnet_nid *nid)
{
	return ni_del(c, nid, false, NULL);
}

int ul_net_del(struct ul_core *c, uint32_t net_id, struct ul_err *err)
{
	struct ul_net *net;

	if (ulnet_net_type(net_id) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	net = ul_net_find(c, net_id);
	if (!net)
		return ul_err_set(err, -EINVAL, "cannot del network");
	net_unlink(c, net);
	net_gone(c, net_id, true);
	return 0;
}

void ul_net_del_all(struct ul_core *c)
{
	struct ul_net *net, *tmp;

	ul_list_for_each_entry_safe(net, tmp, &c->nets, core_link)
		net_unlink(c, net);
	c->lo_ni = NULL;
}

/*
 * Linux's multiplicative hashes (include/linux/hash.h), generic versions:
 * the top bits of the product with the golden ratio constant.
 */
#define GOLDEN_RATIO_32 UINT32_C(0x61C88647)
#define GOLDEN_RATIO_64 UINT64_C(0x61C8864680B583EB)

static uint32_t hash_32(uint32_t val, unsigned int bits)
{
	return (uint32_t)(val * GOLDEN_RATIO_32) >> (32 - bits);
}

static uint64_t hash_64(uint64_t val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

/*
 * An address word as LNet reads it: nid_addr[] holds big-endian words
 * (__be32) and lnet_nid_cpt_hash() uses them as the CPU's own u32, which
 * on a little-endian node (x86_64, aarch64) is the byte-swapped value.
 */
static uint32_t le_word(uint32_t host_word)
{
	return (host_word >> 24) | ((host_word >> 8) & 0xff00) |
	       ((host_word << 8) & 0xff0000) | (host_word << 24);
}

unsigned int ul_nid_cpt_hash(const struct ulnet_nid *nid, unsigned int ncpt)
{
	unsigned int bits = 0, i;
	uint64_t key, sum;
	uint32_t net, h = 0, val;

	if (ncpt <= 1)
		return 0;
	/* LNET_CPT_BITS: enough bits to number every CPT */
	while ((1u << bits) < ncpt)
		bits++;
	net = ulnet_nid_is_any(nid) ? ULNET_NET_ANY : ulnet_nid_net(nid);
	if (nid->nid_size == 0) {
		key = (uint64_t)net << 32 | nid->nid_addr[0];
		if (nid->nid_type == ULNET_LND_KFI) {
			val = (uint32_t)hash_64(key, bits);
			if (val < ncpt)
				return val;
			/* the count of CPTs need not be a power of 2 */
			return (unsigned int)((key + val + (val >> 1)) % ncpt);
		}
		/* the sum of the 64-bit NID's eight bytes */
		for (sum = 0, i = 0; i < 8; i++)
			sum += (key >> (8 * i)) & 0xff;
		return (unsigned int)(sum % ncpt);
	}
	/* a large NID (IPv6): every address word, then the net */
	for (i = 0; i < 4; i++)
		h = hash_32(le_word(nid->nid_addr[i]) ^ h, 32);
	val = hash_32(net ^ h, bits);
	if (val < ncpt)
		return val;
	return (uint32_t)(h + val + (val >> 1)) % ncpt;
}
