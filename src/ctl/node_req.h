/*
 * lnetctl's configuration requests run as node operations (core/node.h):
 * the one place where `net add|del|set`, `peer add|del|set`, `route
 * add|del`, `set`, and `udsp add|del` turn from a request (ctl/proto.h,
 * struct ul_ctl_args) into what LNet does, with LNet's checks and texts.
 *
 * Whoever applies configuration goes through here: ulnetd's control
 * server for each command, and every lnet.conf, whoever asks
 * (ul_node_req_apply: `ulnetd --config`, `lnet configure --all`,
 * ulnet_create() with a configuration, `ulnetctl debug select`'s dry run
 * and the simulator). The file's steps become requests through the one
 * import engine (conf_import.h), exactly as `ulnetctl import` sends them
 * to ulnetd, so the paths cannot drift apart.
 */
#ifndef UL_CTL_NODE_REQ_H
#define UL_CTL_NODE_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/conf_import.h"
#include "core/tunables.h"
#include "ctl/proto.h"
#include "util/err.h"

struct ul_node;

struct ul_node_req_env {
	struct ul_node *node;
	unsigned int ncpt; /* CPTs a binding may name (0 taken as 1) */
	/*
	 * The host's interfaces (conf_host.h); NULL: read with getifaddrs
	 * at each request that needs them. Tests and the simulator give
	 * a made-up host.
	 */
	const struct ul_conf_hostaddr *addrs;
	size_t nr_addrs;
	/*
	 * A dry run (`debug select`, the simulator): a net of any LND type
	 * is taken (nothing starts an LND), and an lnet.conf's "dev cpt"
	 * is the NUMA node of its NIs.
	 */
	bool is_dry_run;
};

/*
 * Run one request: 0, or LNet's negative errno with its text in err.
 * -EOPNOTSUPP for an op that is not a configuration request. While LNet
 * is unconfigured (`lnet unconfigure`) each op answers as LNet does then.
 */
int ul_node_req_call(const struct ul_node_req_env *env, uint16_t op,
		     const struct ul_ctl_args *a, struct ul_err *err);

/*
 * The tunables `set` may change, lnetctl's names in `global show`'s
 * order (lnetctl.md §9); *n their count.
 */
const enum ul_tunable *ul_node_req_settable(size_t *n);

/*
 * LNet's default networks="tcp" as an lnet.conf: a net block with no
 * interface takes the first up IPv4 interface but a loopback one.
 */
#define UL_NODE_REQ_DEFAULT_NET "net:\n  - net type: tcp\n"

/* Where an apply's errors and notes go (each may be NULL). */
struct ul_node_req_apply_ops {
	void (*report)(void *ctx, const struct ul_conf_report *r);
	void (*note)(void *ctx, const struct ul_conf_warning *w);
	void *ctx;
};

/*
 * One error of an apply as a log line: "<where> line <n>: <op> <object>:
 * errno <e>: <text>", a warning when the import goes past it (lnetctl
 * keeps some to itself; a daemon still says why it did not come up).
 */
struct ul_log;
void ul_node_req_log_report(const struct ul_log *log, const char *where,
			    const struct ul_conf_report *r);

/*
 * Apply a read lnet.conf (either dialect, conf.h) to env's node through
 * the import engine, as `ulnetctl import` would over a control socket:
 * in document order, stopping at the first failure (the netlink dialect)
 * with what came before it applied. 0, or the import's status with the
 * first failure in err as "line <n>: <what LNet said>".
 */
int ul_node_req_apply(const struct ul_node_req_env *env,
		      const struct ul_conf *conf,
		      const struct ul_node_req_apply_ops *ops,
		      struct ul_err *err);

#endif /* UL_CTL_NODE_REQ_H */
