/*
 * The lnet.conf configuration model: what `lnetctl import` reads
 * (reference/lnetctl.md §16, §17; udsp.md §7.2), parsed into plain data
 * and checked, but applied to nothing. Applying is a separate step that
 * walks this data; "set" semantics work because every optional value has a
 * presence flag (the *_HAS_* bits, as wireguard-tools containers.h), so an
 * apply changes only what the file gave.
 *
 * Parsing (conf_yaml.c) accepts any YAML 1.1 that libyaml reads: block or
 * flow style, any indentation, lnetctl's own "-     " export layout. Keys
 * are case-sensitive. Sections may come in any order and more than once:
 * repeated net/ip2nets/route/peer/udsp sections append, repeated scalar
 * settings overwrite (later wins). The order in which sections first
 * appear is kept in ul_conf.order because lnetctl applies in document
 * order.
 *
 * What is refused (-EINVAL, one message naming line, column, the field
 * path and the bad value, e.g. "line 7, column 29: net[0].local NI(s)[1].
 * tunables.peer_credits: 'abc' is not an integer"): YAML syntax errors,
 * aliases, unknown sections and keys, a block whose first key is not
 * 'net type' / 'net-spec', bad nets, NIDs, interfaces, CPT expressions,
 * ip-ranges and UDSP descriptors, integers out of lnetctl's ranges, an
 * unrecognised Multi-Rail word, "net type: lo", and input past the limits
 * below. What lnetctl accepts but ulnet does not apply (read-only fields
 * of an export, o2iblnd tunables, lnd_timeout, UDSP rules without idx,
 * unrecognised tunables keys) is kept or skipped and always reported in
 * ul_conf.warnings: nothing is dropped silently.
 *
 * Where ulnet is stricter than lnetctl, or drops one of its quirks:
 * "routing: enable" must be 0 or 1 (lnetctl reads anything else as 0);
 * discovery and drop_asym_route must be 0 or 1; a UDSP rule's priority is
 * not carried over to the next rule (udsp.md §7.2); a route, peer or NID
 * must be one NID, never a range (--old-api only); an interface name must
 * fit IFNAMSIZ; a plain empty value where a mapping or sequence belongs
 * ("tunables:") reads as an empty one.
 *
 * Everything here is pure and keeps no state; a struct ul_conf belongs to
 * whoever initialised it and is freed with ul_conf_fini().
 */
#ifndef UL_CTL_CONF_H
#define UL_CTL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nid/expr.h"
#include "ulnet/nid.h"
#include "util/err.h"

/*
 * Limits on untrusted input, set well above what a real configuration
 * holds: `export --backup` of a node with 100,000 configured peers of 4
 * NIDs each (about 20 MiB, 2 million nodes) must import again.
 */
#define UL_CONF_MAX_BYTES (64 * 1024 * 1024) /* whole document */
#define UL_CONF_MAX_DEPTH 64		     /* nested collections */
#define UL_CONF_MAX_ITEMS (1024 * 1024)	     /* items of one sequence or map */
#define UL_CONF_MAX_NODES (8 * 1024 * 1024)  /* YAML nodes in the document */
#define UL_CONF_MAX_WARNINGS 256	     /* further ones are only counted */

/* Linux interface names are shorter than IFNAMSIZ (16). */
#define UL_CONF_IFNAME_SIZE 16
/* Highest CPT number an expression may name. */
#define UL_CONF_CPT_MAX 65535u
#define UL_CONF_WARNING_SIZE 256

/* Top-level sections, in the order lnetctl's export writes them. */
enum ul_conf_section {
	UL_CONF_SEC_NET,
	UL_CONF_SEC_IP2NETS,
	UL_CONF_SEC_ROUTE,
	UL_CONF_SEC_PEER,
	UL_CONF_SEC_ROUTING,
	UL_CONF_SEC_BUFFERS,
	UL_CONF_SEC_NUMA,
	UL_CONF_SEC_GLOBAL, /* also global keys written at top level */
	UL_CONF_SEC_UDSP,
	UL_CONF_SEC_NR,
};

/* Common tunables ("tunables"): per net in LNet (lnetctl.md §6.1). */
enum {
	UL_CONF_TUN_HAS_PEER_TIMEOUT = 1U << 0,
	UL_CONF_TUN_HAS_PEER_CREDITS = 1U << 1,
	UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS = 1U << 2,
	UL_CONF_TUN_HAS_CREDITS = 1U << 3,
};

struct ul_conf_tunables {
	unsigned int flags;	 /* UL_CONF_TUN_HAS_* */
	int peer_timeout;	 /* seconds, -1..INT_MAX; -1: LND default */
	int peer_credits;	 /* -1..INT_MAX; <= 0: LND default */
	int peer_buffer_credits; /* -1..INT_MAX; <= 0: LND default */
	int credits;		 /* -1..INT_MAX; <= 0: LND default */
};

/* LND tunables ("lnd tunables"); per NI in LNet. */
enum {
	UL_CONF_LND_HAS_CONNS_PER_PEER = 1U << 0,
	UL_CONF_LND_HAS_TOS = 1U << 1,
};

/*
 * An LND tunable that user space has no LND for (o2iblnd's
 * peercredits_hiw, map_on_demand, concurrent_sends, fmr_pool_size,
 * fmr_flush_trigger, fmr_cache, ntx). Kept so that nothing is lost; each
 * one also produced a warning.
 */
struct ul_conf_lnd_param {
	char *key;	   /* as written; owned */
	long long value;   /* map_on_demand's yes/no words read as 1/0 */
	unsigned int line; /* 1-based */
};

struct ul_conf_lnd_tunables {
	unsigned int flags;		 /* UL_CONF_LND_HAS_* */
	int conns_per_peer;		 /* 0..127; 0: LND default */
	int tos;			 /* -1..255; -1: LND default */
	struct ul_conf_lnd_param *other; /* not applicable to user space */
	size_t nr_other;
};

/*
 * One local NI to create. An interface entry ("interfaces: {0: eth1[0,1]}")
 * gives one NI by interface name with the CPTs of its bracket suffix. A
 * "nid:" key gives an NI by NID, but only in a group that has no
 * interfaces: lnetctl ignores "nid:" on import (it is what an export
 * prints), ulnet uses it to define an NI where no interface is named, for
 * example for a dry run. When both are given the interfaces win and the
 * NID is kept in the group only as information.
 */
enum ul_conf_ni_by {
	UL_CONF_NI_BY_IFACE,
	UL_CONF_NI_BY_NID,
};

struct ul_conf_ni {
	enum ul_conf_ni_by by;
	char ifname[UL_CONF_IFNAME_SIZE]; /* BY_IFACE: "eth1" */
	struct ul_expr *cpt;  /* BY_IFACE: "[0,1]" suffix, NULL if none */
	struct ulnet_nid nid; /* BY_NID: on the block's net */
	unsigned int line;
};

/* One item of "local NI(s)". */
enum {
	UL_CONF_GROUP_HAS_NID = 1U << 0,	  /* group.nid is set */
	UL_CONF_GROUP_HAS_TUNABLES = 1U << 1,	  /* "tunables" given */
	UL_CONF_GROUP_HAS_LND_TUNABLES = 1U << 2, /* "lnd tunables" given */
	UL_CONF_GROUP_HAS_DEV_CPT = 1U << 3,	  /* "dev cpt" given */
};

struct ul_conf_ni_group {
	unsigned int flags;	/* UL_CONF_GROUP_HAS_* */
	struct ul_conf_ni *nis; /* one per interface, or one by NID; may be
				 * empty (lnetctl then creates nothing) */
	size_t nr_nis;
	struct ulnet_nid nid; /* the "nid:" key */
	struct ul_conf_tunables tunables;
	struct ul_conf_lnd_tunables lnd_tunables;
	struct ul_expr *cpt; /* "CPT", NULL if absent */
	/*
	 * "dev cpt": the partition of the NI's device, as `net show -v`
	 * exports it. ulnet has no CPTs; it reads the value as the NUMA node
	 * of the NI's device, which is what a dry run of selection needs
	 * for its NUMA distances. -1 when absent.
	 */
	int dev_cpt;
	unsigned int line;
};

/* An IPv4 octet-expression or IPv6 prefix of an ip2nets rule. */
struct ul_conf_ip_range {
	bool is_ipv6;
	struct ul_expr *oct[4];	 /* IPv4: 192.168.*.[1-9/2], most
				  * significant octet first */
	uint32_t addr6[4];	 /* IPv6: host-order words */
	unsigned int prefix_len; /* IPv6: 1..128, 128 when not written */
	char *text;		 /* as written; owned */
	unsigned int line;
};

/*
 * A "net" block or an "ip2nets" rule; both name a net and the NIs to
 * configure on it. The net-level interfaces, tunables, lnd tunables and
 * CPT are what the block says outside "local NI(s)"; the netlink import
 * merges them with the groups' (lnetctl.md §17.2), --old-api does not.
 */
enum {
	UL_CONF_NET_HAS_TUNABLES = 1U << 0,
	UL_CONF_NET_HAS_LND_TUNABLES = 1U << 1,
};

struct ul_conf_net {
	uint32_t net;			 /* net id; never lo */
	unsigned int flags;		 /* UL_CONF_NET_HAS_* */
	struct ul_conf_ni_group *groups; /* "local NI(s)"; net only */
	size_t nr_groups;
	struct ul_conf_ni *nis; /* "interfaces" at block level */
	size_t nr_nis;
	struct ul_conf_ip_range *ranges; /* "ip-range"; ip2nets only */
	size_t nr_ranges;
	struct ul_conf_tunables tunables;
	struct ul_conf_lnd_tunables lnd_tunables;
	struct ul_expr *cpt; /* NULL if absent */
	unsigned int line;
};

enum {
	UL_CONF_ROUTE_HAS_HOP = 1U << 0,
	UL_CONF_ROUTE_HAS_PRIORITY = 1U << 1,
};

struct ul_conf_route {
	unsigned int flags;	  /* UL_CONF_ROUTE_HAS_* */
	uint32_t net;		  /* remote net; never lo */
	struct ulnet_nid gateway; /* one NID, not on net, not 0@lo */
	int hop;		  /* 1..255, or -1 (default) */
	unsigned int priority;	  /* 0..INT_MAX, default 0 (highest) */
	unsigned int line;
};

enum {
	UL_CONF_PEER_HAS_MULTI_RAIL = 1U << 0,
};

struct ul_conf_peer {
	unsigned int flags;	      /* UL_CONF_PEER_HAS_* */
	struct ulnet_nid primary_nid; /* "primary nid", required */
	bool is_multi_rail;	      /* "Multi-Rail" */
	struct ulnet_nid *nis;	      /* "peer ni" NIDs, as written */
	size_t nr_nis;
	unsigned int line;
};

/*
 * Global parameters (lnetctl.md §9), by index into ul_conf_global.value.
 * "numa: {range: N}" sets UL_CONF_GLOBAL_NUMA_RANGE too, and "max_intf" is
 * read as max_interfaces. lnd_timeout is read-only: accepted, checked as
 * an integer, reported as ignored and not stored.
 */
enum ul_conf_global_key {
	UL_CONF_GLOBAL_NUMA_RANGE,		   /* >= 0 */
	UL_CONF_GLOBAL_MAX_INTERFACES,		   /* >= 0; < 16 means 4096 */
	UL_CONF_GLOBAL_DISCOVERY,		   /* 0, 1 */
	UL_CONF_GLOBAL_DROP_ASYM_ROUTE,		   /* 0, 1 */
	UL_CONF_GLOBAL_RETRY_COUNT,		   /* >= 0 */
	UL_CONF_GLOBAL_TRANSACTION_TIMEOUT,	   /* seconds, > 0 */
	UL_CONF_GLOBAL_HEALTH_SENSITIVITY,	   /* 0..1000 */
	UL_CONF_GLOBAL_RECOVERY_INTERVAL,	   /* >= 0, deprecated */
	UL_CONF_GLOBAL_ROUTER_SENSITIVITY,	   /* 0..100 */
	UL_CONF_GLOBAL_RESPONSE_TRACKING,	   /* 0..3 */
	UL_CONF_GLOBAL_RECOVERY_LIMIT,		   /* seconds, >= 0 */
	UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL, /* seconds, > 0 */
	UL_CONF_GLOBAL_NR,
};

struct ul_conf_global {
	unsigned int flags; /* bit (1U << key) set: value[key] given */
	int value[UL_CONF_GLOBAL_NR];
};

enum {
	UL_CONF_UDSP_HAS_PRIORITY = 1U << 0,
};

/*
 * A UDSP rule. src/dst/rte are kept as written (each parsed once by
 * ul_nid_descr_parse() to check it); at least one is set, and src never
 * comes with rte (udsp.md §10.23).
 */
struct ul_conf_udsp {
	unsigned int flags;    /* UL_CONF_UDSP_HAS_* */
	unsigned int idx;      /* 0..INT_MAX, required */
	char *src, *dst, *rte; /* owned; NULL when absent */
	unsigned int priority; /* 0..UINT32_MAX ("priority" or
				* "action: {priority: N}") */
	unsigned int line;
};

/* Something accepted but not applied, or skipped. */
struct ul_conf_warning {
	unsigned int line, column;	 /* 1-based */
	char text[UL_CONF_WARNING_SIZE]; /* "<path>: <what>" */
};

enum {
	UL_CONF_HAS_ROUTING = 1U << 0, /* routing_enable is set */
	UL_CONF_HAS_BUFFERS = 1U << 1, /* a buffers section was given: a
					* pool without its flag below goes
					* back to its default */
	UL_CONF_HAS_TINY_BUFFERS = 1U << 2,
	UL_CONF_HAS_SMALL_BUFFERS = 1U << 3,
	UL_CONF_HAS_LARGE_BUFFERS = 1U << 4,
};

struct ul_conf {
	unsigned int flags; /* UL_CONF_HAS_* */

	struct ul_conf_net *nets; /* "net" */
	size_t nr_nets;
	struct ul_conf_net *ip2nets; /* "ip2nets" */
	size_t nr_ip2nets;
	struct ul_conf_route *routes;
	size_t nr_routes;
	struct ul_conf_peer *peers;
	size_t nr_peers;
	struct ul_conf_udsp *udsps; /* rules with an idx, in file order */
	size_t nr_udsps;

	bool routing_enable; /* "routing: {enable: 0|1}" */
	int tiny_buffers;    /* totals over CPTs, >= 0; 0: default */
	int small_buffers;
	int large_buffers;
	struct ul_conf_global global;

	enum ul_conf_section order[UL_CONF_SEC_NR]; /* first appearance */
	unsigned int nr_order;

	struct ul_conf_warning *warnings;
	size_t nr_warnings;
	size_t nr_warnings_dropped; /* past UL_CONF_MAX_WARNINGS */
};

/* Zero conf: no sections, no warnings. */
void ul_conf_init(struct ul_conf *conf);
/* Free everything conf holds and zero it; accepts a zeroed struct. */
void ul_conf_fini(struct ul_conf *conf);

/*
 * Parse the lnet.conf document text[0..len) (need not be NUL-terminated;
 * at most UL_CONF_MAX_BYTES). conf must be initialised; on success what
 * it held is freed and replaced and 0 is returned. On failure conf is left
 * as it was and -EINVAL (bad input) or -ENOMEM comes back with err set.
 */
int ul_conf_parse(const char *text, size_t len, struct ul_conf *conf,
		  struct ul_err *err);
/*
 * ul_conf_parse() on a file's contents. An unopenable file gives -errno
 * and lnetctl's "cannot open '<path>': <strerror>".
 */
int ul_conf_parse_file(const char *path, struct ul_conf *conf,
		       struct ul_err *err);

/*
 * Validation helpers, shared with the CLI's `set` and `net add` so that
 * both read values the same way. Each returns 0 and sets its output only
 * on success, else -EINVAL (-ENOMEM where it allocates) with a reason in
 * err that quotes the value.
 */

/*
 * An integer as lnetctl reads one (strtol base 0: decimal, 0x hex, 0
 * octal, optional sign, nothing around it) within [min, max].
 */
int ul_conf_parse_int(const char *s, long long min, long long max,
		      long long *out, struct ul_err *err);
/*
 * A yes/no word as LNet reads "Multi-Rail": yes/true/on/y or
 * no/false/off/n in any case; anything else is "invalid MR flag param".
 */
int ul_conf_parse_bool(const char *s, bool *out, struct ul_err *err);
/*
 * A CPT expression "[0,1]", "[0-3]" or a single number, values
 * 0..UL_CONF_CPT_MAX; "[]" and "[1-0]" are refused. Free with
 * ul_expr_free().
 */
int ul_conf_parse_cpt(const char *s, struct ul_expr **out, struct ul_err *err);
/*
 * "<ifname>[<cpt-expr>]" as in `net add --if` and "interfaces:": a name of
 * 1..15 characters without blanks, '/' or brackets, then an optional CPT
 * expression that must end the string. *cpt is NULL without one.
 */
int ul_conf_parse_ifname(const char *s, char ifname[UL_CONF_IFNAME_SIZE],
			 struct ul_expr **cpt, struct ul_err *err);
/*
 * An ip2nets ip-range: four octet expressions ("10.20.*.[1-9/2]"), or an
 * IPv6 address with an optional "/prefix" of 1..128. Fills *out except
 * line; free with ul_conf_ip_range_fini().
 */
int ul_conf_parse_ip_range(const char *s, struct ul_conf_ip_range *out,
			   struct ul_err *err);
void ul_conf_ip_range_fini(struct ul_conf_ip_range *r);

/*
 * Global parameter by its YAML name (lnetctl's list, max_intf included);
 * lnd_timeout is not one (it is read-only). Returns the key or -EINVAL.
 */
int ul_conf_global_lookup(const char *name);
/* The YAML name of a key ("max_interfaces" for the alias too). */
const char *ul_conf_global_name(enum ul_conf_global_key key);
/* Check value against the key's range; the message names the key. */
int ul_conf_global_check(enum ul_conf_global_key key, long long value,
			 struct ul_err *err);

/* Section name as written in lnet.conf ("net", "ip2nets", ...). */
const char *ul_conf_section_name(enum ul_conf_section sec);

#endif /* UL_CTL_CONF_H */
