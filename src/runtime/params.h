/*
 * Module parameters: the values the kernel's lnet and ksocklnd modules
 * take as parameters (modprobe options at load, and those with mode 0644
 * written in /sys/module/<module>/parameters at run time), plus ulnet's
 * own socklnd limits and loop settings, by one name each:
 * "lnet.alive_router_check_interval", "ksocklnd.sock_timeout",
 * "ulnet.max_handshakes", "ulnet.busy_poll".
 *
 * `ulnetd --param NAME=V` sets any of them before the NIs start (as
 * modprobe would); `ulnetctl param set NAME=V` on a running daemon only
 * those the kernel lets an operator write (0644), the others are refused
 * as sysfs refuses them. A change takes effect where the value is read:
 * the router timers at the next routing enable and the next check,
 * sock_timeout on every connection at its next tick, reconnect intervals
 * at the next failure, the handshake limits at the next connection,
 * busy_poll at the loop's next sleep.
 * Everything here runs on the loop thread (or before the loop starts).
 */
#ifndef UL_RUNTIME_PARAMS_H
#define UL_RUNTIME_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ul_err;
struct ul_loop;
struct ul_node;
struct ul_socklnd;

/* Where the values live: the node, its socklnd (may be NULL), its loop. */
struct ul_params_env {
	struct ul_node *node;
	struct ul_socklnd *socklnd;
	struct ul_loop *loop;
};

/* Number of parameters; ul_params_name(i) names each, in order. */
size_t ul_params_count(void);
/* "module.name" of parameter i, NULL past the end. */
const char *ul_params_name(size_t i);
/*
 * The index of a name: "module.name", or a bare lnet parameter name
 * ("alive_router_check_interval", as `ulnetd --param` always took them).
 * -ENOENT for one ulnet does not model.
 */
int ul_params_find(const char *name);
/* The kernel lets it be written at run time (sysfs mode 0644). */
bool ul_params_is_writable(size_t i);

/*
 * The checks of ul_params_set() that need no running node (range, LNet's
 * own for a tunable taken alone): ulnetd runs them on its --param values
 * before it detaches. 0 or -EINVAL with err set.
 */
int ul_params_check(size_t i, int64_t value, struct ul_err *err);

/* Current value of parameter i. 0, or -ENODEV (no socklnd here). */
int ul_params_get(const struct ul_params_env *env, size_t i, int64_t *out);
/*
 * Set parameter i. is_running: a daemon already up, where only writable
 * parameters may change (-EPERM otherwise, as sysfs). 0, or -EINVAL
 * (out of range, LNet's checks), -EPERM, -ENODEV, with err set.
 */
int ul_params_set(const struct ul_params_env *env, size_t i, int64_t value,
		  bool is_running, struct ul_err *err);

#endif /* UL_RUNTIME_PARAMS_H */
