/*
 * The walk of an lnet.conf tree (ytree.h) into a struct ul_conf: the walk
 * state, the helpers every section uses, and the section walkers that
 * conf_yaml.c dispatches to.
 *
 * The walk keeps the field path of the node at hand ("net[0].local
 * NI(s)[1].tunables"): push a key or an index before walking a child and
 * pop it afterwards. A refusal names the node's line and column, the path
 * and the reason, and gives -EINVAL; a section walker that refuses an
 * item drops that item, keeps the ones before it and adds its step, so
 * that the document up to the refusal stands (conf.h). Notes go to the
 * conf with the same prefix. Helpers return 0 or a negative errno and set
 * their out-parameter only on success.
 */
#ifndef UL_CTL_CONF_WALK_H
#define UL_CTL_CONF_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/conf.h"
#include "ctl/ytree.h"

#define UL_CONF_WALK_PATH_SIZE 160

struct ul_conf_walk {
	struct ul_conf *conf; /* the scratch conf being filled */
	struct ul_err *err;
	enum ul_conf_dialect dialect;
	char path[UL_CONF_WALK_PATH_SIZE];
	size_t plen;
	/*
	 * How lnetctl reports the refusal about to be made, when not as a
	 * plain import error: ul_conf_walk_report_as() before refusing.
	 */
	const char *d2_op;
	const char *object; /* NULL: the dialect's default */
	int errnum, status;
	int seq_no; /* --old-api: the item's "seq_no", -1 for none */
	char descr[UL_ERR_MSG_SIZE]; /* lnetctl's whole text, "": the
				      * located message */
	unsigned int fail_line;
};

/* conf.c: free one item (the walk drops the item it refused). */
void ul_conf_net_fini(struct ul_conf_net *net);
void ul_conf_route_fini(struct ul_conf_route *r);
void ul_conf_peer_fini(struct ul_conf_peer *p);
void ul_conf_udsp_fini(struct ul_conf_udsp *u);

/* conf_walk.c: the path; a push returns the length to pop back to. */
size_t ul_conf_walk_push_key(struct ul_conf_walk *w, const char *key);
size_t ul_conf_walk_push_idx(struct ul_conf_walk *w, size_t i);
void ul_conf_walk_pop(struct ul_conf_walk *w, size_t old);

/* conf_walk.c: refusals and notes. */
void ul_conf_walk_fail_fmt(struct ul_conf_walk *w, const struct ul_ynode *n,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Refuse node n with a message that follows the path; gives -EINVAL. A
 * macro, as ul_err_set(), so that the analyser sees the code come back.
 */
#define ul_conf_walk_fail(w, n, ...)                                           \
	(ul_conf_walk_fail_fmt((w), (n), __VA_ARGS__), -EINVAL)
int ul_conf_walk_fail_err(struct ul_conf_walk *w, const struct ul_ynode *n,
			  int code, const struct ul_err *e);
/*
 * The next refusal is reported as d2_op (NULL: D1) and object, with
 * errnum in the error and status as the import's status.
 */
void ul_conf_walk_report_as(struct ul_conf_walk *w, const char *d2_op,
			    const char *object, int errnum, int status);
/* ... and lnetctl's text for it, without line or path. */
void ul_conf_walk_report_descr(struct ul_conf_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ul_conf_walk_note(struct ul_conf_walk *w, const struct ul_ynode *n,
		      enum ul_conf_note_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A key lnetctl skips without a word (SKIPPED note). */
int ul_conf_walk_skip(struct ul_conf_walk *w, const struct ul_ynode *k,
		      const char *why);
/*
 * The same for a key that is none of table's (NULL-terminated): why,
 * and, when one of table's keys is close to it (a few letters off, case
 * aside), " (did you mean 'KEY'?)", so that "local NIs:" says what was
 * meant.
 */
int ul_conf_walk_skip_key(struct ul_conf_walk *w, const struct ul_ynode *k,
			  const char *const *table, const char *why);

/* conf_walk.c: values and collections. */
int ul_conf_walk_get_str(struct ul_conf_walk *w, const struct ul_ynode *n,
			 const char **s);
int ul_conf_walk_get_int(struct ul_conf_walk *w, const struct ul_ynode *n,
			 long long min, long long max, long long *out);
int ul_conf_walk_get_int32(struct ul_conf_walk *w, const struct ul_ynode *n,
			   long long min, long long max, int *out);
/*
 * An integer in lnetctl's words for a key (key->str): "no value
 * specified for key '<k>'", "invalid value '<v>' for key '<k>'".
 */
int ul_conf_walk_get_long(struct ul_conf_walk *w, const struct ul_ynode *key,
			  const struct ul_ynode *v, long long *out);
int ul_conf_walk_get_nid(struct ul_conf_walk *w, const struct ul_ynode *v,
			 struct ulnet_nid *nid);
/*
 * A peer's NID: the netlink import hands it to LNet as a string, which
 * the kernel's parser reads (ul_nid_parse_lnet: 127.0.0.1 is a NID, so a
 * backup of a peer that `ping localhost@tcp` made imports); --old-api
 * parses it as lnetctl's own parser does.
 */
int ul_conf_walk_get_peer_nid(struct ul_conf_walk *w, const struct ul_ynode *v,
			      struct ulnet_nid *nid);
int ul_conf_walk_get_net(struct ul_conf_walk *w, const struct ul_ynode *v,
			 uint32_t *net);
int ul_conf_walk_want_map(struct ul_conf_walk *w, const struct ul_ynode *n,
			  size_t *nr_pairs);
int ul_conf_walk_want_seq(struct ul_conf_walk *w, const struct ul_ynode *n,
			  size_t *nr);
int ul_conf_walk_key_index(const char *const *table, const char *key);
void *ul_conf_walk_grow(struct ul_conf_walk *w, void *arr_ptr, size_t *nr,
			size_t sz);
/* Append a step (a copy of *s, line and seq_no included). */
int ul_conf_walk_step(struct ul_conf_walk *w, const struct ul_conf_step *s);
/* "seq_no: N" of --old-api; -1 if absent or not an integer. */
int ul_conf_walk_seq_no(const struct ul_ynode *m);

/* The sections, one file each: conf_net.c, conf_route.c, conf_peer.c, */
int ul_conf_walk_nets(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *v, bool is_ip2nets);
int ul_conf_walk_routes(struct ul_conf_walk *w, const struct ul_ynode *key,
			const struct ul_ynode *v);
int ul_conf_walk_peers(struct ul_conf_walk *w, const struct ul_ynode *key,
		       const struct ul_ynode *v);
/* conf_global.c, */
int ul_conf_walk_routing(struct ul_conf_walk *w, const struct ul_ynode *key,
			 const struct ul_ynode *m);
int ul_conf_walk_buffers(struct ul_conf_walk *w, const struct ul_ynode *key,
			 const struct ul_ynode *m);
int ul_conf_walk_numa(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *m);
int ul_conf_walk_global(struct ul_conf_walk *w, const struct ul_ynode *key,
			const struct ul_ynode *m);
/* One global parameter; false in *known when key is not one. */
int ul_conf_walk_global_param(struct ul_conf_walk *w,
			      const struct ul_ynode *key,
			      const struct ul_ynode *v, bool *known);
/* and conf_udsp.c. */
int ul_conf_walk_udsps(struct ul_conf_walk *w, const struct ul_ynode *key,
		       const struct ul_ynode *v);

#endif /* UL_CTL_CONF_WALK_H */
