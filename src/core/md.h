/*
 * Memory descriptors, match entries and portals of one node (LNet's
 * lib-md.c, lib-me.c, lib-ptl.c): handle cookies, the matching of an
 * incoming PUT or GET against a portal's entries (reference/wire.md
 * §7.4), offsets, truncation, thresholds and unlinking.
 *
 * An MD is "live" while its cookie is in the node's handle table. Unlink
 * (by the application, by exhaustion with ULNET_UNLINK, by a response
 * timeout or by shutdown) takes it out of the table and off its portal at
 * once, so no new operation starts on it; the MD itself lives on while
 * messages still use it (nmsgs) or events for it wait in the queue
 * (refcount). Its last event carries unlinked = 1.
 *
 * The ME of ulnet is always attached together with its MD (one step), so
 * it is embedded in the MD.
 */
#ifndef UL_CORE_MD_H
#define UL_CORE_MD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ulnet/ulnet.h"
#include "util/hash.h"
#include "util/list.h"

struct ul_node;

/* Handler of an MD the node posts itself (ping, push, ping client). */
typedef void (*ul_md_int_handler)(struct ul_node *n,
				  const struct ulnet_event *ev);

struct ul_md;

/*
 * One event waiting in the node's queue. It lives inside what it reports
 * on: the message (freed after delivery, owner_msg) or, for UNLINK
 * events, the MD itself, so queueing never allocates.
 */
struct ul_md_event {
	struct ul_list link; /* ul_node.events */
	struct ul_md *md;    /* holds a reference while queued */
	void *owner_msg;     /* struct ul_msg to free once delivered */
	struct ulnet_event ev;
};

struct ul_msg;

struct ul_md {
	struct ul_hnode hnode;	 /* handle table, while live */
	struct ul_list me_link;	 /* on its portal, while attached and live */
	struct ul_list all_link; /* node's list of every MD not yet freed */
	uint64_t cookie;	 /* never reused by this node */
	/* The ME (attached MDs only). */
	struct ulnet_process_id match_id;
	uint64_t match_bits;
	uint64_t ignore_bits;
	uint32_t portal;
	bool is_attached; /* has an ME (ulnet_md_attach) */
	/* The buffer, copied at bind/attach. */
	struct iovec *iov; /* niov fragments (iov_one when only one) */
	struct iovec iov_one;
	uint32_t niov;
	uint32_t length;   /* total bytes, at most 4 GiB - 1 */
	uint32_t offset;   /* running local offset */
	int threshold;	   /* operations left, or ULNET_MD_THRESH_INF */
	uint32_t max_size; /* with ULNET_MD_MAX_SIZE */
	uint32_t options;  /* ULNET_MD_* */
	void *start;	   /* first fragment's base, for events */
	void *user_ptr;
	ulnet_event_cb handler;
	ul_md_int_handler int_handler; /* node-internal MDs instead */
	int numa_node;
	bool is_auto_unlink; /* ULNET_UNLINK */
	bool is_zombie;	     /* unlinked: no new operation */
	bool is_aborted;     /* unlinked by API or response timeout */
	int nmsgs;	     /* messages using it (LNet's md_refcount) */
	int refcount;	     /* struct lifetime: live + queued events */
	/* Response tracking (reference/health.md §6). */
	struct ul_list rspt_link;     /* node's tracked MDs */
	uint64_t rspt_deadline_ns;    /* when on rspt_link */
	uint64_t rspt_start_ns;	      /* tracker attached (latency clock) */
	struct ulnet_nid rspt_nid;    /* next hop of the last attempt */
	bool is_rspt_direct;	      /* rspt_nid is the destination itself */
	bool is_rspt_delivered;	      /* a request completed OK: only its
				       * answer is missing */
	bool is_rspt_hastened;	      /* deadline pulled in: its peer's
				       * connections were lost */
	struct ul_md_event unlink_ev; /* its UNLINK event, if any */
	/*
	 * The one request in flight from it (NULL when none, or when several
	 * share it): an answer that arrives while that request's send is
	 * still held by its LND proves the send was delivered (msg.c).
	 */
	struct ul_msg *req_msg;
};

/* The node's MD state: handle table, portals, every MD. */
struct ul_md_table {
	struct ul_hash handles; /* struct ul_md by cookie, live ones */
	struct ul_list portals[ULNET_PORTALS];
	struct ul_list all; /* every MD not yet freed */
	uint64_t next_cookie;
};

int ul_md_table_init(struct ul_md_table *t);
/* Free every MD left (the node has delivered their last events). */
void ul_md_table_fini(struct ul_md_table *t);

/*
 * Create a live MD from the API description, attached to portal with the
 * ME fields when is_attach. -EINVAL (bad length, fragments, options),
 * -ENOMEM.
 */
int ul_md_create(struct ul_md_table *t, const struct ulnet_md *umd,
		 enum ulnet_unlink unlink, bool is_attach, uint32_t portal,
		 const struct ulnet_process_id *match_id, uint64_t match_bits,
		 uint64_t ignore_bits, enum ulnet_ins_pos pos,
		 struct ul_md **out);
/* The live MD of a handle, or NULL. */
struct ul_md *ul_md_lookup(const struct ul_md_table *t, uint64_t cookie);

/* LNet's lnet_md_exhausted: threshold 0, or no room for max_size more. */
bool ul_md_is_exhausted(const struct ul_md *md);
/* Whether md's last message is gone and it must go (LNet's unlinkable). */
bool ul_md_is_unlinkable(const struct ul_md *md);
/* Take md out of the handle table and off its portal (zombie). */
void ul_md_unlink(struct ul_md_table *t, struct ul_md *md);

/* A message starts using md: threshold down, nmsgs up. */
void ul_md_attach_msg(struct ul_md *md);
/* A message stops using md; returns whether that was its last event. */
bool ul_md_detach_msg(struct ul_md *md);

void ul_md_get(struct ul_md *md);
/* Drop a reference; the MD is freed with the last one. */
void ul_md_put(struct ul_md *md);

/* What an incoming PUT or GET asks of a portal (wire.md §7.4). */
struct ul_md_match_req {
	uint32_t opc;			   /* ULNET_MD_OP_PUT or _GET */
	struct ulnet_process_id initiator; /* primary NID, src_pid */
	uint64_t match_bits;
	uint32_t rlength; /* PUT payload_length, GET sink_length */
	uint32_t roffset; /* PUT offset, GET src_offset */
};

enum ul_md_match_result {
	UL_MD_MATCH_NONE, /* no entry took it: drop */
	UL_MD_MATCH_OK,	  /* *md, *offset, *mlength set; md attached */
	UL_MD_MATCH_DROP, /* an entry matched but it does not fit: drop */
};

/*
 * Match on a portal (< ULNET_PORTALS): the first live, unexhausted entry
 * that matches and whose MD accepts the operation. On OK the message is
 * attached to the MD (threshold, running offset) and an MD exhausted by
 * it with ULNET_UNLINK is unlinked (its last event will say so).
 */
enum ul_md_match_result ul_md_match(struct ul_md_table *t, uint32_t portal,
				    const struct ul_md_match_req *req,
				    struct ul_md **md, uint32_t *offset,
				    uint32_t *mlength);

/*
 * Describe length bytes of md from offset as fragments: *iov points at
 * one (then *alloc is NULL) or an array the caller frees (*alloc). 0 or
 * -ENOMEM. offset + length must lie within the MD.
 */
int ul_md_slice(const struct ul_md *md, uint32_t offset, uint32_t length,
		struct iovec *one, struct iovec **iov, uint32_t *niov,
		struct iovec **alloc);

#endif /* UL_CORE_MD_H */
