/*
 * The lnet.conf configuration model: what `lnetctl import` reads
 * (reference/lnetctl.md §16, §17; udsp.md §7.2), parsed into plain data,
 * in the order of the document, but applied to nothing. Applying is a
 * separate step that walks this data (conf_import.h turns it into the
 * requests lnetctl sends to LNet, whoever runs them: ctl/node_req.h); "set"
 * semantics work because every optional value has a presence flag (the
 * *_HAS_* bits, as wireguard-tools containers.h), so an apply changes
 * only what the file gave.
 *
 * Parsing (conf_yaml.c) accepts any YAML 1.1 that libyaml reads: block or
 * flow style, any indentation, lnetctl's own "-     " export layout, and
 * in the netlink dialect several documents, read one after the other as
 * lnetctl's import reads them (the legacy parser takes one). Keys are
 * case-sensitive. lnetctl applies a document as it reads it, section
 * after section, and stops at the first failure with what came before it
 * applied; so the parse keeps the document's order in ul_conf.steps, one
 * step per section (one per key for global parameters), and a refusal
 * ends the steps: ul_conf_read() keeps every item before the refused one
 * and says in ul_conf.refusal what lnetctl reports there. Only a document
 * that is not YAML at all is refused before anything (lnetctl would have
 * applied what precedes a syntax error; ulnet reads the whole text
 * first).
 *
 * The parse refuses what lnetctl itself refuses while reading (with
 * lnetctl's words where scripts grep them, prefixed with the line,
 * column and field path): a net block whose first key is not 'net type'
 * or 'net-spec', bad net names, CPT expressions, interfaces and
 * ip-ranges, values that are not integers, unknown top-level keys, a bad
 * Multi-Rail word. What LNet checks (ranges of tunables, hops,
 * priorities, global values, "net type: lo", UDSP descriptors) is kept as
 * written for whoever applies it, as lnetctl passes it on to LNet. Keys
 * lnetctl skips are skipped; each one that is skipped, and everything
 * ulnet does not apply, is a note in ul_conf.warnings (struct
 * ul_conf_warning says which ones a user sees).
 *
 * Two dialects (enum ul_conf_dialect): lnetctl's netlink import, the
 * default, and its legacy "--old-api" parser, which differs in section
 * lookup, Multi-Rail words, UDSP rules and what a refusal looks like.
 *
 * Where ulnet departs from lnetctl: a route, peer or NID given by its
 * NID must be one NID, never a range (gateways: --old-api only); an
 * interface name must fit IFNAMSIZ; YAML aliases are refused (lnetctl's
 * streaming reader does not resolve them either); a plain empty value
 * where a mapping or sequence belongs ("tunables:") reads as an empty
 * one.
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

/* Which of lnetctl's two import parsers a document is read as. */
enum ul_conf_dialect {
	UL_CONF_NETLINK, /* `lnetctl import` (and ulnetd --config) */
	UL_CONF_OLD_API, /* `lnetctl import --old-api` */
};

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

/*
 * Common tunables ("tunables"): per net in LNet (lnetctl.md §6.1). The
 * values are as written; LNet takes >= 0 for peer_timeout and > 0 for the
 * others and uses its default for anything else.
 */
enum {
	UL_CONF_TUN_HAS_PEER_TIMEOUT = 1U << 0,
	UL_CONF_TUN_HAS_PEER_CREDITS = 1U << 1,
	UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS = 1U << 2,
	UL_CONF_TUN_HAS_CREDITS = 1U << 3,
};

struct ul_conf_tunables {
	unsigned int flags; /* UL_CONF_TUN_HAS_* */
	int peer_timeout;   /* seconds */
	int peer_credits;
	int peer_buffer_credits;
	int credits;
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
 * one also produced a note.
 */
struct ul_conf_lnd_param {
	char *key;	   /* as written; owned */
	long long value;   /* map_on_demand's yes/no words read as 1/0 */
	unsigned int line; /* 1-based */
};

struct ul_conf_lnd_tunables {
	unsigned int flags;		 /* UL_CONF_LND_HAS_* */
	int conns_per_peer;		 /* as written; LNet takes 0..127 */
	int tos;			 /* as written; LNet takes -1..255 */
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
 * NID is kept in the group only as information, except in a dry run
 * (`debug select`, ctl/conf_import.h is_nid_over_iface): there the NID
 * defines the NI, so that a file exported on another machine loads.
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
	 * exports it. A dry run (ctl/node_req.h) reads it as the NUMA node
	 * of the NI's device, which is what selection needs for its NUMA
	 * distances; an import ignores it, as lnetctl does. -1 when absent.
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
	UL_CONF_NET_HAS_LOCAL_NIS = 1U << 2, /* "local NI(s)" given */
};

struct ul_conf_net {
	uint32_t net;			 /* net id (lo too: LNet refuses it) */
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
	int seq_no;	     /* --old-api "seq_no", -1 if absent */
	unsigned int line;
};

enum {
	UL_CONF_ROUTE_HAS_HOP = 1U << 0,
	UL_CONF_ROUTE_HAS_PRIORITY = 1U << 1,
	UL_CONF_ROUTE_HAS_NET_ID = 1U << 2, /* net_text parsed into net */
	UL_CONF_ROUTE_HAS_GW_NID = 1U << 3, /* gateway_text is one NID */
};

/*
 * A route as written: LNet checks it (lo, hop range, priority, gateway
 * on the remote net), so the parse only reads it. Under --old-api the
 * gateway may be a NID range list (lnetctl.md §4.3).
 */
struct ul_conf_route {
	unsigned int flags;	  /* UL_CONF_ROUTE_HAS_* */
	char *net_text;		  /* owned */
	char *gateway_text;	  /* owned */
	uint32_t net;		  /* HAS_NET_ID */
	struct ulnet_nid gateway; /* HAS_GW_NID */
	int hop;		  /* -1 when absent */
	int priority;		  /* 0 when absent */
	int seq_no;		  /* --old-api, -1 if absent */
	unsigned int line;
};

enum {
	UL_CONF_PEER_HAS_MULTI_RAIL = 1U << 0,
};

struct ul_conf_peer {
	unsigned int flags;	      /* UL_CONF_PEER_HAS_* */
	struct ulnet_nid primary_nid; /* "primary nid", required */
	/*
	 * "Multi-Rail". --old-api reads True/False/true/false as booleans
	 * and then as absent: always true there (lnetctl.md §16).
	 */
	bool is_multi_rail;
	struct ulnet_nid *nis; /* "peer ni" NIDs, as written */
	size_t nr_nis;
	int seq_no; /* --old-api, -1 if absent */
	unsigned int line;
};

/*
 * Global parameters (lnetctl.md §9), by index into ul_conf_global.value.
 * "numa: {range: N}" sets UL_CONF_GLOBAL_NUMA_RANGE too, and "max_intf" is
 * read as max_interfaces. lnd_timeout is read-only: accepted, checked as
 * an integer and not stored. Values are as written; LNet checks them.
 */
enum ul_conf_global_key {
	UL_CONF_GLOBAL_NUMA_RANGE,
	UL_CONF_GLOBAL_MAX_INTERFACES,
	UL_CONF_GLOBAL_DISCOVERY,
	UL_CONF_GLOBAL_DROP_ASYM_ROUTE,
	UL_CONF_GLOBAL_RETRY_COUNT,
	UL_CONF_GLOBAL_TRANSACTION_TIMEOUT,
	UL_CONF_GLOBAL_HEALTH_SENSITIVITY,
	UL_CONF_GLOBAL_RECOVERY_INTERVAL,
	UL_CONF_GLOBAL_ROUTER_SENSITIVITY,
	UL_CONF_GLOBAL_RESPONSE_TRACKING,
	UL_CONF_GLOBAL_RECOVERY_LIMIT,
	UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL,
	UL_CONF_GLOBAL_NR,
};

/* The last value the document gives each parameter. */
struct ul_conf_global {
	unsigned int flags; /* bit (1U << key) set: value[key] given */
	long long value[UL_CONF_GLOBAL_NR];
};

enum {
	UL_CONF_UDSP_HAS_PRIORITY = 1U << 0,
};

/*
 * A UDSP rule as it reaches LNet (udsp.md §7.2). The netlink import
 * submits a rule when a mapping ends after an "idx" was read, with the
 * src/dst/rte read since the last submission and the last priority read
 * in the section (never reset; none read yet is UINT32_MAX): so a rule
 * without idx lends its values to the next one. --old-api submits every
 * rule as written, each key found anywhere in the rule ("priority" under
 * "action" too), idx -1 (append) when absent, and no action without a
 * priority. The descriptors are checked when applied.
 */
struct ul_conf_udsp {
	unsigned int flags;    /* UL_CONF_UDSP_HAS_* */
	int idx;	       /* -1: none (--old-api) */
	char *src, *dst, *rte; /* owned; NULL when absent */
	long long priority;    /* as written; 0 gives no action */
	int seq_no;	       /* --old-api, -1 if absent */
	unsigned int line;
};

/*
 * One step of the document, in its order: a section (one per key of
 * "global" and for each global key at top level). NET, IP2NETS, ROUTE,
 * PEER and UDSP steps hold items [first, first + nr) of their array.
 */
struct ul_conf_step {
	enum ul_conf_section sec;
	size_t first, nr;
	/* The refusal ended the section early (only the last step). */
	bool is_cut;
	/*
	 * GLOBAL: key (enum ul_conf_global_key, or -1 for lnd_timeout,
	 * which is read-only) and value. ROUTING: value is "enable" as
	 * written (1 enables, anything else disables; 0 when absent). NUMA:
	 * "range" (-1 when absent). BUFFERS: buffers[] with has_buffers
	 * bits (1U << pool: tiny, small, large).
	 */
	int key;
	long long value;
	long long buffers[3];
	unsigned int has_buffers;
	int seq_no; /* --old-api, -1 if absent */
	unsigned int line;
};

/*
 * Something read but not applied as written. Who sees it:
 *	SKIPPED     lnetctl skips it without a word (unknown keys, the state
 *	            an export prints, read-only values): ulnetctl says
 *	            nothing, ulnetd logs it;
 *	LNETCTL     lnetctl prints text as it is on stderr ("Ignoring
 *	            unrecognized key 'x' for 'tunables'"); both do too;
 *	NOT_APPLIED LNet would act on it, ulnet does not (o2iblnd
 *	            tunables, router buffers, forwarding): reported with
 *	            its line.
 */
enum ul_conf_note_kind {
	UL_CONF_NOTE_SKIPPED,
	UL_CONF_NOTE_LNETCTL,
	UL_CONF_NOTE_NOT_APPLIED,
};

struct ul_conf_warning {
	enum ul_conf_note_kind kind;
	unsigned int line, column; /* 1-based */
	size_t step;		   /* reached before ul_conf.steps[step] */
	/* "<path>: <what>", or for LNETCTL the whole line lnetctl prints */
	char text[UL_CONF_WARNING_SIZE];
};

/*
 * How lnetctl reports a refusal of the parse. The netlink import prints
 * a D1 document "<add|del>: - <object>:" (object "import", or "peer" for
 * a refusal LNet makes inside a peer request), --old-api a D2 entry
 * "<d2_op>: - <object>:" (d2_op set).
 */
struct ul_conf_refusal {
	bool is_set;
	const char *d2_op; /* NULL: D1 */
	const char *object;
	int errnum;		     /* the errno field */
	int seq_no;		     /* D2: the item's seq_no, -1 for none */
	int status;		     /* the import's status (lnetctl's exit) */
	char msg[UL_ERR_MSG_SIZE];   /* the descr lnetctl prints */
	char where[UL_ERR_MSG_SIZE]; /* "line L, column C: <path>: <why>" */
	unsigned int line;
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
	enum ul_conf_dialect dialect;

	struct ul_conf_step *steps; /* the document's order */
	size_t nr_steps;
	struct ul_conf_refusal refusal; /* after the last step */

	struct ul_conf_net *nets; /* "net" */
	size_t nr_nets;
	struct ul_conf_net *ip2nets; /* "ip2nets" */
	size_t nr_ip2nets;
	struct ul_conf_route *routes;
	size_t nr_routes;
	struct ul_conf_peer *peers;
	size_t nr_peers;
	struct ul_conf_udsp *udsps; /* rules as submitted, in file order */
	size_t nr_udsps;

	/* The last value each setting got, for whoever wants a summary. */
	unsigned int flags;  /* UL_CONF_HAS_* */
	bool routing_enable; /* "routing: {enable: 1}" */
	int tiny_buffers;    /* totals over CPTs; 0: default, -1: keep */
	int small_buffers;
	int large_buffers;
	struct ul_conf_global global;

	struct ul_conf_warning *warnings;
	size_t nr_warnings;
	size_t nr_warnings_dropped; /* past UL_CONF_MAX_WARNINGS */
};

/* Zero conf: no sections, no warnings. */
void ul_conf_init(struct ul_conf *conf);
/* Free everything conf holds and zero it; accepts a zeroed struct. */
void ul_conf_fini(struct ul_conf *conf);

/*
 * Read the lnet.conf document text[0..len) (need not be NUL-terminated;
 * at most UL_CONF_MAX_BYTES) as an import reads it. conf must be
 * initialised; what it held is freed and replaced. 0: conf holds the
 * document's steps, and conf->refusal, when set, what stopped the read
 * (the steps before it stand). -EINVAL: the text is not a YAML mapping
 * (syntax, limits, aliases), nothing is kept and err says where.
 * -ENOMEM.
 */
int ul_conf_read(const char *text, size_t len, enum ul_conf_dialect dialect,
		 struct ul_conf *conf, struct ul_err *err);
/*
 * All or nothing, in the netlink dialect: as ul_conf_read(), but a
 * refusal is -EINVAL with its message in err and conf left as it was.
 */
int ul_conf_parse(const char *text, size_t len, struct ul_conf *conf,
		  struct ul_err *err);
/*
 * A file's contents, at most UL_CONF_MAX_BYTES. An unopenable file gives
 * -errno and lnetctl's "cannot open '<path>': <strerror>"; one that
 * cannot be read (a directory) -errno and "cannot read '<path>': ...".
 * *text is malloc'd, NUL-terminated.
 */
int ul_conf_load_file(const char *path, char **text, size_t *len,
		      struct ul_err *err);
/* ul_conf_load_file() then ul_conf_parse(). */
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

/* Section name as written in lnet.conf ("net", "ip2nets", ...). */
const char *ul_conf_section_name(enum ul_conf_section sec);

#endif /* UL_CTL_CONF_H */
