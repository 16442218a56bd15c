/*
 * LNet's ping service on the reserved portal (reference/discovery.md
 * §2-§5, wire.md §8): the ping target (a GET-only MD holding this node's
 * ping info, rebuilt with a rising sequence number whenever the NI list
 * or an NI's status changes), the push target (PUTs are taken, truncated
 * to the minimum ping size, and ACKed; nothing reads them, since
 * discovery is not implemented), and the ping client behind
 * ul_node_ping().
 *
 * Timers: one per ping client, its timeout.
 */
#ifndef UL_CORE_PING_H
#define UL_CORE_PING_H

#include <stdint.h>

struct ul_node;

/* Sink buffer of a ping client: room for 255 NIs of 64-bit NIDs. */
#define UL_PING_SINK_SIZE 4096u

/* The current sequence number of the ping info (entry 0's status). */
uint32_t ul_ping_seq(const struct ul_node *n);

/* Post the ping target and push target on the reserved portal. */
int ul_ping_targets_post(struct ul_node *n);
/* Rebuild the ping info after an NI change; logs on failure. */
void ul_ping_targets_refresh(struct ul_node *n);
/* Unlink the targets and stop the clients' timers (shutdown). */
void ul_ping_shutdown(struct ul_node *n);
/* Free the service's state (destroy, after shutdown). */
void ul_ping_free(struct ul_node *n);

#endif /* UL_CORE_PING_H */
