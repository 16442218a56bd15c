/*
 * LNet's ping service on the reserved portal (reference/discovery.md
 * §2-§5, wire.md §8): the ping target (a GET-only MD holding this node's
 * ping info, rebuilt with a rising sequence number whenever the NI list
 * or an NI's status changes), the push target (PUTs are taken, truncated
 * to the minimum ping size, and ACKed; nothing reads them, since
 * discovery does not handle pushes yet), and the ping client behind
 * ul_node_ping() and discovery's pings (core/discovery_send.h).
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
/* Rebuild the ping info after an NI change; logs on failure. */
void ul_ping_targets_refresh(struct ul_node *n);
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
