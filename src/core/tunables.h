/*
 * The LNet tunables of one instance: the values `lnetctl set <name>` and
 * `lnetctl global show` handle (reference/lnetctl.md §9), plus the module
 * parameters selection and routing read (reference/selection.md §10,
 * routing.md §3). Names are lnetctl's spelling. Every change goes through
 * ul_tunables_set(), which applies LNet's checks and side effects.
 */
#ifndef UL_CORE_TUNABLES_H
#define UL_CORE_TUNABLES_H

#include <stdint.h>

struct ul_err;

/* One id per tunable; ul_tunable_name() gives lnetctl's key. */
enum ul_tunable {
	UL_TUNABLE_NUMA_RANGE,
	UL_TUNABLE_MAX_INTERFACES,
	UL_TUNABLE_DISCOVERY,
	UL_TUNABLE_DROP_ASYM_ROUTE,
	UL_TUNABLE_RETRY_COUNT,
	UL_TUNABLE_TRANSACTION_TIMEOUT,
	UL_TUNABLE_HEALTH_SENSITIVITY,
	UL_TUNABLE_RECOVERY_INTERVAL,
	UL_TUNABLE_ROUTER_SENSITIVITY,
	UL_TUNABLE_RESPONSE_TRACKING,
	UL_TUNABLE_RECOVERY_LIMIT,
	UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL,
	UL_TUNABLE_ROUTING,
	UL_TUNABLE_LOCK_PRIM_NID,
	UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE,
	UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE,
	UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL,
	UL_TUNABLE_ROUTER_PING_TIMEOUT,
	UL_TUNABLE__COUNT
};

struct ul_tunables {
	uint32_t numa_range;	      /* NUMA distances below it are equal */
	uint32_t max_interfaces;      /* >= 16; ping buffer sizing */
	uint32_t discovery;	      /* 0 or 1 */
	uint32_t drop_asym_route;     /* 0 or 1 */
	uint32_t retry_count;	      /* resends, <= transaction_timeout */
	uint32_t transaction_timeout; /* seconds, > retry_count */
	uint32_t health_sensitivity;  /* health step, 0..1000 */
	uint32_t recovery_interval;   /* seconds; deprecated, always 1 */
	uint32_t router_sensitivity;  /* percent 0..100; stored, unread */
	uint32_t response_tracking;   /* 0..3 */
	uint32_t recovery_limit;      /* seconds, 0 = forever */
	uint32_t max_recovery_ping_interval; /* seconds, > 0 */
	uint32_t routing;		     /* forwarding on: 0 or 1 */
	/* LNet's int module parameters, stored as given (flags: non-zero) */
	int32_t lock_prim_nid;
	int32_t avoid_asym_router_failure;
	int32_t check_routers_before_use;
	int32_t alive_router_check_interval; /* seconds */
	int32_t router_ping_timeout;	     /* seconds */
};

/* Fill t with LNet's defaults (lnetctl.md §9, routing.md §3). */
void ul_tunables_init(struct ul_tunables *t);

/*
 * Set one tunable with LNet's checks: 0, or -EINVAL with a message in err
 * (which may be NULL) and t unchanged. Side effects as in LNet: setting
 * health_sensitivity from non-zero to 0 zeroes retry_count;
 * max_interfaces below 16 becomes 4096; discovery and drop_asym_route
 * store non-zero as 1 (negative values are refused, as the kernel's
 * unsigned parameters refuse them: lnetctl turns both into 0 or 1 before
 * it writes them); numa_range takes any 32-bit value and stores it
 * unsigned (-1 is 4294967295); recovery_interval accepts anything and
 * ignores it. The int module parameters (lock_prim_nid,
 * avoid_asym_router_failure, check_routers_before_use,
 * alive_router_check_interval, router_ping_timeout) take any int, stored
 * as given.
 */
int ul_tunables_set(struct ul_tunables *t, enum ul_tunable id, int64_t value,
		    struct ul_err *err);
/* Current value of one tunable (alive_router_check_interval may be < 0). */
int64_t ul_tunables_get(const struct ul_tunables *t, enum ul_tunable id);
/* lnetctl's key for id ("numa_range", ...), NULL for an unknown id. */
const char *ul_tunable_name(enum ul_tunable id);
/* The id whose lnetctl key is name (also "max_intf"), or -EINVAL. */
int ul_tunable_from_name(const char *name);
/* lnd_timeout: max((transaction_timeout - 1) / (retry_count + 1), 1). */
uint32_t ul_tunables_lnd_timeout(const struct ul_tunables *t);

#endif /* UL_CORE_TUNABLES_H */
