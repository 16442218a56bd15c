/*
 * LNet's ping service on the reserved portal (reference/discovery.md
 * §2-§5, wire.md §8): the ping target (a GET-only MD holding this node's
 * ping info, rebuilt with a rising sequence number whenever the NI list
 * or an NI's status changes), the push target (§2: one PUT per MD,
 * ACKed, handed to discovery (core/discovery_push.h), a fresh target
 * posted as soon as one is used, grown when a peer shows a larger ping
 * info), and the ping client behind ul_node_ping() and discovery's pings
 * (core/discovery_send.h).
 *
 * Timers: one per ping client, its timeout.
 */
#ifndef UL_CORE_PING_H
#define UL_CORE_PING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"

struct ul_node;

/* Sink buffer of a ping client: room for 255 NIs of 64-bit NIDs. */
#define UL_PING_SINK_SIZE 4096u
/* The largest sink a ping may ask for: a reply of 65,535 NIs. */
#define UL_PING_SINK_MAX (16u + 65536u * 16u)

/* The current sequence number of the ping info (entry 0's status). */
uint32_t ul_ping_seq(const struct ul_node *n);

/* Post the ping target and push target on the reserved portal. */
int ul_ping_targets_post(struct ul_node *n);
/*
 * Rebuild the ping info with the next sequence number after an NI or NI
 * status change (§5); logs on failure. Pushing it is the caller's
 * business (ul_disc_push_update()).
 */
void ul_ping_targets_refresh(struct ul_node *n);
/* Rebuild it with the same sequence: a feature bit changed (§5). */
void ul_ping_targets_republish(struct ul_node *n);
/* A PUT matched md on the reserved portal: repost a used push target. */
struct ul_md;
void ul_ping_on_put_matched(struct ul_node *n, const struct ul_md *md);
/* A peer's ping info of size bytes was seen: grow the push target. */
void ul_ping_push_size_want(struct ul_node *n, uint32_t size);
/*
 * A copy of the current ping info (*buf, the caller frees it), its
 * length and sequence, for a push. 0, -ENOMEM, -ESHUTDOWN.
 */
int ul_ping_info_copy(struct ul_node *n, void **buf, uint32_t *len,
		      uint32_t *seq);
/*
 * Decode ping info (a REPLY or a push) into res (wire.md §8.1 receiver
 * checks). Info cut short is -EMSGSIZE with *need the bytes its header
 * says it has; anything else invalid is -EPROTO; -ENOMEM.
 */
int ul_ping_info_parse(const uint8_t *buf, uint32_t len,
		       struct ulnet_ping_result *res, size_t *need);
/* Who sends a ping, which decides how it travels. */
enum ul_ping_kind {
	UL_PING_KIND_USER,	/* ul_node_ping(): tracked as configured */
	UL_PING_KIND_RECOVERY,	/* health.md §5.1: that exact NID, tracked,
				 * never resent */
	UL_PING_KIND_DISCOVERY, /* discovery.md §8.1: tracked, an ordinary
				 * message for health (may be resent) */
};
/*
 * ul_node_ping() (node.h) for any kind. The callback runs exactly once,
 * as for ul_node_ping().
 */
int ul_ping_send(struct ul_node *n, const struct ulnet_nid *self,
		 const struct ulnet_process_id *target, uint32_t timeout_ms,
		 enum ul_ping_kind kind, ul_node_ping_cb cb, void *arg);
/*
 * As ul_ping_send() with a sink of size bytes. When rlength is given it
 * gets the ping info's whole length, before the callback runs. A REPLY
 * cut short by the sink (the responder sends what the GET asked for, so
 * the info's own counts tell) ends the ping with -EMSGSIZE, so that the
 * caller may ask again with that much room (discovery.md §7.4).
 */
int ul_ping_send_sized(struct ul_node *n, const struct ulnet_nid *self,
		       const struct ulnet_process_id *target,
		       uint32_t timeout_ms, enum ul_ping_kind kind,
		       uint32_t size, uint32_t *rlength, ul_node_ping_cb cb,
		       void *arg);
/* Unlink the targets and stop the clients' timers (shutdown). */
void ul_ping_shutdown(struct ul_node *n);
/* Free the service's state (destroy, after shutdown). */
void ul_ping_free(struct ul_node *n);

#endif /* UL_CORE_PING_H */
