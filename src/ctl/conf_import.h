/*
 * An lnet.conf import as lnetctl performs it (reference/lnetctl.md §16,
 * §17): the steps of a read document (conf.h) turned into ulnetd's
 * control requests, in document order, with lnetctl's resolution of
 * interfaces (§17.2, conf_host.h), its per-section semantics, and its
 * error reports and exit statuses. One engine for every path that
 * applies a file, so that they cannot drift apart: `ulnetctl import`
 * sends the requests over the control socket, ulnetd's --config and
 * `lnet configure --all` hand them to the control server's handlers in
 * the daemon itself.
 *
 * The netlink dialect stops at the first failure, with what came before
 * it applied; --old-api (the legacy dialect) attempts every item and
 * gathers its failures. Errors go out through ops->report as lnetctl
 * words them (D1 documents or D2 entries, lnetctl.md §2.4, §2.5), the
 * notes of the document through ops->note as their steps are reached.
 */
#ifndef UL_CTL_CONF_IMPORT_H
#define UL_CTL_CONF_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/proto.h"
#include "util/err.h"

/* One error, as lnetctl prints it. */
struct ul_conf_report {
	const char *d2_op;  /* NULL: a D1 document "<op>: - <object>:" */
	const char *op;	    /* D1: "add" or "del" */
	const char *object; /* D1 object, D2 entity */
	int errnum;
	int seq_no; /* D2: -1 for none */
	const char *descr;
	unsigned int line; /* where in the file, 0 if nowhere */
	/*
	 * lnetctl prints nothing for this one (the quirks of lnetctl.md
	 * §16 and §17.3): a command line stays silent, a daemon still
	 * says why. is_ignored: the import also goes on past it (an UDSP
	 * rule LNet refuses); else it is the import's failure.
	 */
	bool is_silent;
	bool is_ignored;
};

struct ul_conf_import_ops {
	/*
	 * Send one request; 0, or its failure as a negative errno with
	 * the server's text in err (empty when it gave none). *is_lost:
	 * the request got no answer at all (no daemon at the socket, a
	 * broken connection, a reply that is not one), err saying so and
	 * naming the socket; the import then ends there, with that as its
	 * error whatever lnetctl would do with a refusal of the request.
	 */
	int (*call)(void *ctx, uint16_t op, const struct ul_ctl_args *a,
		    struct ul_err *err, bool *is_lost);
	/*
	 * Optional, both or neither: many requests of one op in one round
	 * trip (proto.h, UL_CTL_OP_BATCH), which the engine uses for the
	 * items of a peer section. batch_add queues a request: 0, or
	 * -ENOSPC when the batch is full (send it, then add again).
	 * batch_send sends what is queued and empties the batch: 0 when
	 * all were applied, else the failure of the first one that was not
	 * (err as call's) and *done the count applied before it, or lost
	 * as call. *is_unsupported: the daemon does not take batches (of
	 * this op; nothing was applied); the engine goes on with call.
	 */
	int (*batch_add)(void *ctx, uint16_t op, const struct ul_ctl_args *a);
	int (*batch_send)(void *ctx, size_t *done, struct ul_err *err,
			  bool *is_lost, bool *is_unsupported);
	void (*report)(void *ctx, const struct ul_conf_report *r);
	/* A note of the document, when its step is reached (may be NULL). */
	void (*note)(void *ctx, const struct ul_conf_warning *w);
	void *ctx;
};

struct ul_conf_import_opts {
	bool is_del; /* --del: take the file's items away */
	/*
	 * A dry run's extension (ctl/node_req.h): a group's "dev cpt",
	 * which lnetctl ignores, goes with its NIs as their NUMA node, one
	 * net request per run of NIs on the same node.
	 */
	bool is_numa_from_dev_cpt;
	/*
	 * A dry run's too: a "local NI(s)" item with both "nid:" and
	 * "interfaces:" (what export writes) is one NI by that NID, the
	 * interfaces not looked up on this host, so that a file exported
	 * on another machine loads here.
	 */
	bool is_nid_over_iface;
	/* The host's interfaces (ul_conf_host_addrs()). */
	const struct ul_conf_hostaddr *addrs;
	size_t nr_addrs;
	struct ul_conf_import_ops ops;
};

/*
 * Import conf (read in either dialect). Returns 0, or the import's
 * status: the negative errno lnetctl exits with (-22 gives 234), or for
 * a refused UDSP rule under --old-api LNet's positive errno. -ENOMEM
 * when memory runs out (reported first). A request that got no answer
 * (ops.call's is_lost) ends the import with one error naming the
 * section ("<add|del>: - <section>:", a D2 entry under --old-api) and
 * -EINVAL, in every section.
 */
int ul_conf_import(const struct ul_conf *conf,
		   const struct ul_conf_import_opts *o);

#endif /* UL_CTL_CONF_IMPORT_H */
