/*
 * Module parameters (params.h): one table, the kernel's names and modes
 * (lustre-release lnet/lnet/router.c, api-ni.c, acceptor.c and
 * lnet/klnds/socklnd/socklnd_modparams.c: module_param(..., 0644) is
 * writable, 0444 is not), each mapped onto the value ulnet reads.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/tunables.h"
#include "lnd/socklnd.h"
#include "runtime/params.h"
#include "util/err.h"
#include "util/loop.h"

enum param_kind {
	PK_TUNABLE,	 /* core tunable, through ul_node_tunable_set */
	PK_TUNABLE_NOT,	 /* the same, 0 and 1 swapped (discovery_disabled) */
	PK_SOCK_TIMEOUT, /* the node's socklnd timeout parameter */
	PK_SOCK_OPT,	 /* an unsigned int of struct ul_socklnd_opts */
	PK_SOCK_NAGLE,	 /* !opts.nodelay */
	PK_BUSY_POLL,	 /* the loop's busy-poll window, microseconds */
};

struct param_def {
	const char *name; /* module.name */
	bool is_writable; /* 0644 */
	enum param_kind kind;
	int tunable;	    /* PK_TUNABLE*: enum ul_tunable */
	size_t off;	    /* PK_SOCK_OPT: offset in ul_socklnd_opts */
	unsigned int scale; /* PK_SOCK_OPT: stored = value * scale */
	int64_t min, max;   /* PK_SOCK_*: accepted range */
};

#define TUN(n, w, id)                                                          \
	{                                                                      \
		n, w, PK_TUNABLE, id, 0, 1, 0, 0                               \
	}
#define SOCK(n, w, field, scale, lo, hi)                                       \
	{                                                                      \
		n, w, PK_SOCK_OPT, 0, offsetof(struct ul_socklnd_opts, field), \
			scale, lo, hi                                          \
	}

static const struct param_def defs[] = {
	/* lnet.ko: router.c */
	TUN("lnet.alive_router_check_interval", true,
	    UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL),
	TUN("lnet.router_ping_timeout", true, UL_TUNABLE_ROUTER_PING_TIMEOUT),
	TUN("lnet.avoid_asym_router_failure", true,
	    UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE),
	TUN("lnet.check_routers_before_use", false,
	    UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE),
	TUN("lnet.router_sensitivity_percentage", true,
	    UL_TUNABLE_ROUTER_SENSITIVITY),
	/* api-ni.c */
	TUN("lnet.lnet_numa_range", false, UL_TUNABLE_NUMA_RANGE),
	TUN("lnet.lnet_health_sensitivity", true,
	    UL_TUNABLE_HEALTH_SENSITIVITY),
	TUN("lnet.lnet_recovery_interval", true, UL_TUNABLE_RECOVERY_INTERVAL),
	TUN("lnet.lnet_recovery_limit", true, UL_TUNABLE_RECOVERY_LIMIT),
	TUN("lnet.lnet_max_recovery_ping_interval", true,
	    UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL),
	TUN("lnet.lnet_interfaces_max", true, UL_TUNABLE_MAX_INTERFACES),
	{ "lnet.lnet_peer_discovery_disabled", true, PK_TUNABLE_NOT,
	  UL_TUNABLE_DISCOVERY, 0, 1, 0, INT32_MAX },
	TUN("lnet.lnet_drop_asym_route", true, UL_TUNABLE_DROP_ASYM_ROUTE),
	TUN("lnet.lnet_transaction_timeout", true,
	    UL_TUNABLE_TRANSACTION_TIMEOUT),
	TUN("lnet.lnet_retry_count", true, UL_TUNABLE_RETRY_COUNT),
	TUN("lnet.lnet_response_tracking", true, UL_TUNABLE_RESPONSE_TRACKING),
	TUN("lnet.lock_prim_nid", false, UL_TUNABLE_LOCK_PRIM_NID),
	/* acceptor.c */
	SOCK("lnet.accept_timeout", true, accept_timeout_ms, 1000, 1, 3600),
	/* ksocklnd.ko: socklnd_modparams.c */
	{ "ksocklnd.sock_timeout", true, PK_SOCK_TIMEOUT, 0, 0, 1, 0,
	  INT32_MAX },
	SOCK("ksocklnd.min_reconnectms", true, min_reconnect_ms, 1, 1,
	     INT32_MAX),
	SOCK("ksocklnd.max_reconnectms", true, max_reconnect_ms, 1, 1,
	     INT32_MAX),
	SOCK("ksocklnd.keepalive", true, keepalive_sec, 1, 0, INT32_MAX),
	SOCK("ksocklnd.conns_per_peer", true, conns_per_peer, 1, 0, 127),
	SOCK("ksocklnd.typed_conns", false, typed_conns, 1, 0, 1),
	{ "ksocklnd.nagle", true, PK_SOCK_NAGLE, 0, 0, 1, 0, 1 },
	SOCK("ksocklnd.skip_mr_route_setup", false, skip_mr_route_setup, 1, 0,
	     1),
	SOCK("ksocklnd.nscheds", false, nscheds, 1, 0, 64),
	/* ulnet's own socklnd limits (socklnd.h) */
	SOCK("ulnet.max_handshakes", true, max_handshakes, 1, 0, 1000000),
	SOCK("ulnet.max_handshakes_per_addr", true, max_handshakes_per_addr, 1,
	     0, 1000000),
	SOCK("ulnet.max_hello_peers", true, max_hello_peers, 1, 0, 100000000),
	SOCK("ulnet.sched_min_conns", false, sched_min_conns, 1, 1, 1000000),
	/* ulnet's loop (util/loop.h): spin this long after activity */
	{ "ulnet.busy_poll", true, PK_BUSY_POLL, 0, 0, 1, 0, 1000000 },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

size_t ul_params_count(void)
{
	return NDEFS;
}

const char *ul_params_name(size_t i)
{
	return i < NDEFS ? defs[i].name : NULL;
}

int ul_params_find(const char *name)
{
	size_t i;

	for (i = 0; i < NDEFS; i++) {
		if (strcmp(defs[i].name, name) == 0)
			return (int)i;
		if (strncmp(defs[i].name, "lnet.", 5) == 0 &&
		    strcmp(defs[i].name + 5, name) == 0)
			return (int)i;
	}
	return -ENOENT;
}

bool ul_params_is_writable(size_t i)
{
	return i < NDEFS && defs[i].is_writable;
}

static unsigned int *sock_field(const struct ul_params_env *env,
				const struct param_def *d)
{
	return (unsigned int *)((char *)ul_socklnd_live_opts(env->socklnd) +
				d->off);
}

int ul_params_get(const struct ul_params_env *env, size_t i, int64_t *out)
{
	const struct param_def *d;
	const struct ul_tunables *t;

	if (i >= NDEFS)
		return -ENOENT;
	d = &defs[i];
	t = &ul_node_core(env->node)->tun;
	switch (d->kind) {
	case PK_TUNABLE:
		*out = ul_tunables_get(t, (enum ul_tunable)d->tunable);
		return 0;
	case PK_TUNABLE_NOT:
		*out = !ul_tunables_get(t, (enum ul_tunable)d->tunable);
		return 0;
	case PK_SOCK_TIMEOUT:
		*out = ul_node_lnd_timeout_param(env->node);
		return 0;
	case PK_SOCK_OPT:
		if (!env->socklnd)
			return -ENODEV;
		*out = *sock_field(env, d) / d->scale;
		return 0;
	case PK_SOCK_NAGLE:
		if (!env->socklnd)
			return -ENODEV;
		*out = !ul_socklnd_live_opts(env->socklnd)->nodelay;
		return 0;
	case PK_BUSY_POLL:
		if (!env->loop)
			return -ENODEV;
		*out = ul_loop_busy_poll(env->loop);
		return 0;
	}
	return -ENOENT;
}

/* The reconnect interval pair stays ordered, as ul_socklnd_create checks. */
static int check_reconnect(const struct ul_params_env *env,
			   const struct param_def *d, int64_t v,
			   struct ul_err *err)
{
	const struct ul_socklnd_opts *o = ul_socklnd_live_opts(env->socklnd);

	if (d->off == offsetof(struct ul_socklnd_opts, min_reconnect_ms) &&
	    v > o->max_reconnect_ms)
		return ul_err_set(err, -EINVAL,
				  "%s: %lld is above max_reconnectms (%u)",
				  d->name, (long long)v, o->max_reconnect_ms);
	if (d->off == offsetof(struct ul_socklnd_opts, max_reconnect_ms) &&
	    v < o->min_reconnect_ms)
		return ul_err_set(err, -EINVAL,
				  "%s: %lld is below min_reconnectms (%u)",
				  d->name, (long long)v, o->min_reconnect_ms);
	return 0;
}

static int check_range(const struct param_def *d, int64_t value,
		       struct ul_err *err)
{
	if (d->kind == PK_TUNABLE)
		return 0;
	if (value < d->min || value > d->max)
		return ul_err_set(err, -EINVAL,
				  "%s: %lld is out of range %lld..%lld",
				  d->name, (long long)value, (long long)d->min,
				  (long long)d->max);
	return 0;
}

int ul_params_check(size_t i, int64_t value, struct ul_err *err)
{
	struct ul_tunables scratch;
	const struct param_def *d;
	int rc;

	if (i >= NDEFS)
		return ul_err_set(err, -ENOENT, "no such parameter");
	d = &defs[i];
	rc = check_range(d, value, err);
	if (rc || (d->kind != PK_TUNABLE && d->kind != PK_TUNABLE_NOT))
		return rc;
	ul_tunables_init(&scratch);
	return ul_tunables_set(&scratch, (enum ul_tunable)d->tunable,
			       d->kind == PK_TUNABLE_NOT ? !value : value, err);
}

int ul_params_set(const struct ul_params_env *env, size_t i, int64_t value,
		  bool is_running, struct ul_err *err)
{
	const struct param_def *d;
	int rc;

	if (i >= NDEFS)
		return ul_err_set(err, -ENOENT, "no such parameter");
	d = &defs[i];
	if (is_running && !d->is_writable)
		return ul_err_set(err, -EPERM,
				  "%s is read-only once running (the kernel's "
				  "mode 0444: a load-time option); give it to "
				  "ulnetd with --param",
				  d->name);
	rc = check_range(d, value, err);
	if (rc)
		return rc;
	switch (d->kind) {
	case PK_TUNABLE:
		return ul_node_tunable_set(env->node, d->tunable, value, err);
	case PK_TUNABLE_NOT:
		return ul_node_tunable_set(env->node, d->tunable, !value, err);
	case PK_SOCK_TIMEOUT:
		ul_node_lnd_timeout_param_set(env->node, (uint32_t)value);
		return 0;
	case PK_SOCK_OPT:
		if (!env->socklnd)
			return ul_err_set(err, -ENODEV, "%s: no socklnd here",
					  d->name);
		rc = check_reconnect(env, d, value, err);
		if (rc)
			return rc;
		*sock_field(env, d) = (unsigned int)value * d->scale;
		return 0;
	case PK_SOCK_NAGLE:
		if (!env->socklnd)
			return ul_err_set(err, -ENODEV, "%s: no socklnd here",
					  d->name);
		ul_socklnd_live_opts(env->socklnd)->nodelay = !value;
		return 0;
	case PK_BUSY_POLL:
		if (!env->loop)
			return ul_err_set(err, -ENODEV, "%s: no loop here",
					  d->name);
		ul_loop_set_busy_poll(env->loop, (uint32_t)value);
		return 0;
	}
	return ul_err_set(err, -ENOENT, "no such parameter");
}
