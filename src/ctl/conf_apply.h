/*
 * Applying an lnet.conf model (ctl/conf.h) straight to a core instance
 * (core/core.h), with no control server: for a program that embeds ulnet
 * (ulnet_create() with a configuration) and for `ulnetctl debug select`'s
 * dry run. ulnetd applies its --config through its control server
 * instead, exactly as `ulnetctl import` does (conf_import.h). The steps go
 * in document order, each item through LNet's checks, and the first
 * failure (or the parse's refusal) ends it with what came before applied.
 *
 * What a step asks for that a bare core cannot do is reported through the
 * notes callback, never dropped silently: router buffers, CPT bindings
 * (a core keeps no CPT count), o2iblnd tunables. UDSP rules are applied
 * only when a UDSP set is given; otherwise each rule is reported.
 *
 * Interfaces are the host's business: a local NI given by interface, and
 * every ip2nets rule, need the interface list, which the caller supplies
 * (ulnetctl reads it with getifaddrs). A NI given by NID (`nid:`) needs
 * nothing, which is what a dry run on another machine's file uses.
 */
#ifndef UL_CTL_CONF_APPLY_H
#define UL_CTL_CONF_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/conf.h"
#include "util/err.h"

struct ul_core;
struct ul_net_tunables;
struct ulnet_nid;
struct ul_udsp_set;

/* One IPv4 address of an interface that is up. */
struct ul_conf_ifaddr {
	char ifname[UL_CONF_IFNAME_SIZE];
	uint32_t ipv4;	  /* host order */
	bool is_loopback; /* IFF_LOOPBACK: LNet never uses these */
};

/*
 * The host's up interfaces with an IPv4 address, loopback ones last:
 * 0 with a malloc'd array (caller frees) and its length, or -errno.
 */
int ul_conf_host_ifaddrs(struct ul_conf_ifaddr **out, size_t *n);

struct ul_conf_apply_opts {
	/* The host's up interfaces with IPv4 addresses (may be empty). */
	const struct ul_conf_ifaddr *ifaddrs;
	size_t nr_ifaddrs;
	/* Where UDSP rules go; NULL: they are only reported. */
	struct ul_udsp_set *udsp;
	/*
	 * How an NI is added (may be NULL: ul_ni_add() on the core alone).
	 * A running instance passes ul_node_ni_add() so its LND starts the
	 * NI too. ctx is the note's.
	 */
	int (*ni_add)(void *ctx, const struct ulnet_nid *nid,
		      const char *ifname, int numa_node,
		      const struct ul_net_tunables *tun, struct ul_err *err);
	/* Called for every note (may be NULL); line 0 when not from a line. */
	void (*note)(void *ctx, unsigned int line, const char *text);
	void *ctx;
};

/*
 * Apply conf to c. Returns 0, or the first failure's negative errno with
 * err saying which line and item failed and why (the core's own text);
 * what was applied before it stays, as with lnetctl import.
 */
int ul_conf_apply(struct ul_core *c, const struct ul_conf *conf,
		  const struct ul_conf_apply_opts *opts, struct ul_err *err);

#endif /* UL_CTL_CONF_APPLY_H */
