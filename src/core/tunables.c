/*
 * Tunables: LNet's defaults and the checks LNet applies when one is set
 * (kernel module parameter setters, as reference/lnetctl.md §9 and
 * health.md §2 list them). Each check says which value is refused and
 * why; the message names the tunable with lnetctl's key.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/tunables.h"
#include "util/err.h"

/* Values under this are replaced by the default (LNET_INTERFACES_MIN). */
#define INTERFACES_MIN 16
#define INTERFACES_DEFAULT 4096

void ul_tunables_init(struct ul_tunables *t)
{
	memset(t, 0, sizeof(*t));
	t->numa_range = 0;
	t->max_interfaces = INTERFACES_DEFAULT;
	t->discovery = 1;
	t->drop_asym_route = 0;
	t->retry_count = 2;
	t->transaction_timeout = 150;
	t->health_sensitivity = 100;
	t->recovery_interval = 1;
	t->router_sensitivity = 100;
	t->response_tracking = 3;
	t->recovery_limit = 0;
	t->max_recovery_ping_interval = 900;
	t->routing = 0;
	t->lock_prim_nid = 1;
	t->avoid_asym_router_failure = 1;
	t->check_routers_before_use = 0;
	t->alive_router_check_interval = 60;
	t->router_ping_timeout = 50;
}

static const char *const names[UL_TUNABLE__COUNT] = {
	[UL_TUNABLE_NUMA_RANGE] = "numa_range",
	[UL_TUNABLE_MAX_INTERFACES] = "max_interfaces",
	[UL_TUNABLE_DISCOVERY] = "discovery",
	[UL_TUNABLE_DROP_ASYM_ROUTE] = "drop_asym_route",
	[UL_TUNABLE_RETRY_COUNT] = "retry_count",
	[UL_TUNABLE_TRANSACTION_TIMEOUT] = "transaction_timeout",
	[UL_TUNABLE_HEALTH_SENSITIVITY] = "health_sensitivity",
	[UL_TUNABLE_RECOVERY_INTERVAL] = "recovery_interval",
	[UL_TUNABLE_ROUTER_SENSITIVITY] = "router_sensitivity",
	[UL_TUNABLE_RESPONSE_TRACKING] = "response_tracking",
	[UL_TUNABLE_RECOVERY_LIMIT] = "recovery_limit",
	[UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL] = "max_recovery_ping_interval",
	[UL_TUNABLE_ROUTING] = "routing",
	[UL_TUNABLE_LOCK_PRIM_NID] = "lock_prim_nid",
	[UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE] = "avoid_asym_router_failure",
	[UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE] = "check_routers_before_use",
	[UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL] =
		"alive_router_check_interval",
	[UL_TUNABLE_ROUTER_PING_TIMEOUT] = "router_ping_timeout",
};

const char *ul_tunable_name(enum ul_tunable id)
{
	if ((unsigned int)id >= UL_TUNABLE__COUNT)
		return NULL;
	return names[id];
}

int ul_tunable_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	/* lnetctl import also takes the old key (lnetctl.md §9). */
	if (strcmp(name, "max_intf") == 0)
		return UL_TUNABLE_MAX_INTERFACES;
	for (int i = 0; i < UL_TUNABLE__COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -EINVAL;
}

uint32_t ul_tunables_lnd_timeout(const struct ul_tunables *t)
{
	uint32_t v = (t->transaction_timeout - 1) / (t->retry_count + 1);

	return v ? v : 1;
}

/* The module parameters are unsigned in LNet: refuse what kstrtoul does. */
static int unsigned_value(int64_t value, enum ul_tunable id, struct ul_err *err)
{
	if (value < 0 || value > UINT32_MAX)
		return ul_err_set(err, -EINVAL,
				  "%s: %lld is not a valid unsigned value",
				  names[id], (long long)value);
	return 0;
}

/* The module parameters that LNet declares int (module_param(..., int)). */
static bool is_int_param(enum ul_tunable id)
{
	switch (id) {
	case UL_TUNABLE_LOCK_PRIM_NID:
	case UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE:
	case UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE:
	case UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL:
	case UL_TUNABLE_ROUTER_PING_TIMEOUT:
		return true;
	default:
		return false;
	}
}

static void set_int_param(struct ul_tunables *t, enum ul_tunable id, int32_t v)
{
	switch (id) {
	case UL_TUNABLE_LOCK_PRIM_NID:
		t->lock_prim_nid = v;
		break;
	case UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE:
		t->avoid_asym_router_failure = v;
		break;
	case UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE:
		t->check_routers_before_use = v;
		break;
	case UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL:
		t->alive_router_check_interval = v;
		break;
	default:
		t->router_ping_timeout = v;
		break;
	}
}

int ul_tunables_set(struct ul_tunables *t, enum ul_tunable id, int64_t value,
		    struct ul_err *err)
{
	uint32_t v = (uint32_t)value;

	if ((unsigned int)id >= UL_TUNABLE__COUNT)
		return ul_err_set(err, -EINVAL, "unknown tunable %d", (int)id);
	if (is_int_param(id)) {
		/*
		 * An int module parameter (router.c, api-ni.c): param_set_int
		 * takes any int and LNet stores it as given; the flags count
		 * as on when non-zero.
		 */
		if (value < INT32_MIN || value > INT32_MAX)
			return ul_err_set(err, -EINVAL,
					  "%s: %lld is out of range", names[id],
					  (long long)value);
		set_int_param(t, id, (int32_t)value);
		return 0;
	}
	if (id == UL_TUNABLE_MAX_INTERFACES) {
		/* intf_max_set(): too small means "the default". */
		if (value < INTERFACES_MIN || value > INT32_MAX)
			value = INTERFACES_DEFAULT;
		t->max_interfaces = (uint32_t)value;
		return 0;
	}
	if (id == UL_TUNABLE_NUMA_RANGE) {
		/*
		 * IOC_LIBCFS_SET_NUMA_RANGE carries a __u32 and LNet stores
		 * it unchecked: lnetctl's int -1 becomes 4294967295.
		 */
		if (value < INT32_MIN || value > UINT32_MAX)
			return ul_err_set(err, -EINVAL,
					  "%s: %lld is out of range", names[id],
					  (long long)value);
		t->numa_range = (uint32_t)value;
		return 0;
	}
	if (id == UL_TUNABLE_RECOVERY_INTERVAL) {
		/*
		 * Deprecated: LNet's setter only warns, it never parses the
		 * value, so any value is accepted and the tunable shows 1.
		 */
		return 0;
	}
	if (unsigned_value(value, id, err))
		return -EINVAL;

	switch (id) {
	case UL_TUNABLE_DISCOVERY:
		t->discovery = v ? 1 : 0;
		break;
	case UL_TUNABLE_DROP_ASYM_ROUTE:
		t->drop_asym_route = v ? 1 : 0;
		break;
	case UL_TUNABLE_RETRY_COUNT:
		/* Resends need health to tell a failure (health.md §2). */
		if (t->health_sensitivity == 0 && v > 0)
			return ul_err_set(err, -EINVAL,
					  "retry_count: cannot be set while "
					  "health_sensitivity is 0");
		if (v > t->transaction_timeout)
			return ul_err_set(err, -EINVAL,
					  "retry_count: %u must not exceed "
					  "transaction_timeout (%u)",
					  v, t->transaction_timeout);
		t->retry_count = v;
		break;
	case UL_TUNABLE_TRANSACTION_TIMEOUT:
		if (v == 0 || v <= t->retry_count)
			return ul_err_set(err, -EINVAL,
					  "transaction_timeout: %u must be "
					  "greater than retry_count (%u)",
					  v, t->retry_count);
		t->transaction_timeout = v;
		break;
	case UL_TUNABLE_HEALTH_SENSITIVITY:
		if (v > 1000)
			return ul_err_set(err, -EINVAL,
					  "health_sensitivity: %u is above "
					  "the maximum health 1000",
					  v);
		/* Turning health off turns resends off with it. */
		if (t->health_sensitivity != 0 && v == 0)
			t->retry_count = 0;
		t->health_sensitivity = v;
		break;
	case UL_TUNABLE_ROUTER_SENSITIVITY:
		if (v > 100)
			return ul_err_set(err, -EINVAL,
					  "router_sensitivity: %u is not a "
					  "percentage 0..100",
					  v);
		t->router_sensitivity = v;
		break;
	case UL_TUNABLE_RESPONSE_TRACKING:
		if (v > 3)
			return ul_err_set(err, -EINVAL,
					  "response_tracking: Valid values "
					  "are: 0, 1, 2, or 3");
		t->response_tracking = v;
		break;
	case UL_TUNABLE_RECOVERY_LIMIT:
		t->recovery_limit = v;
		break;
	case UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL:
		if (v == 0)
			return ul_err_set(err, -EINVAL,
					  "max_recovery_ping_interval: must "
					  "be strictly positive");
		t->max_recovery_ping_interval = v;
		break;
	case UL_TUNABLE_ROUTING:
		if (v > 1)
			return ul_err_set(err, -EINVAL,
					  "routing: %u is not 0 or 1", v);
		t->routing = v;
		break;
	default:
		return ul_err_set(err, -EINVAL, "unknown tunable %d", (int)id);
	}
	return 0;
}

int64_t ul_tunables_get(const struct ul_tunables *t, enum ul_tunable id)
{
	switch (id) {
	case UL_TUNABLE_NUMA_RANGE:
		return t->numa_range;
	case UL_TUNABLE_MAX_INTERFACES:
		return t->max_interfaces;
	case UL_TUNABLE_DISCOVERY:
		return t->discovery;
	case UL_TUNABLE_DROP_ASYM_ROUTE:
		return t->drop_asym_route;
	case UL_TUNABLE_RETRY_COUNT:
		return t->retry_count;
	case UL_TUNABLE_TRANSACTION_TIMEOUT:
		return t->transaction_timeout;
	case UL_TUNABLE_HEALTH_SENSITIVITY:
		return t->health_sensitivity;
	case UL_TUNABLE_RECOVERY_INTERVAL:
		return t->recovery_interval;
	case UL_TUNABLE_ROUTER_SENSITIVITY:
		return t->router_sensitivity;
	case UL_TUNABLE_RESPONSE_TRACKING:
		return t->response_tracking;
	case UL_TUNABLE_RECOVERY_LIMIT:
		return t->recovery_limit;
	case UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL:
		return t->max_recovery_ping_interval;
	case UL_TUNABLE_ROUTING:
		return t->routing;
	case UL_TUNABLE_LOCK_PRIM_NID:
		return t->lock_prim_nid;
	case UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE:
		return t->avoid_asym_router_failure;
	case UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE:
		return t->check_routers_before_use;
	case UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL:
		return t->alive_router_check_interval;
	case UL_TUNABLE_ROUTER_PING_TIMEOUT:
		return t->router_ping_timeout;
	default:
		return 0;
	}
}
