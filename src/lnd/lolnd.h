/*
 * lolnd: the LND of 0@lo, a node sending to itself. A send is queued and
 * delivered from a zero-delay timer on the NI's heap (never inside
 * ops->send): parse, copy the payload from the tx fragments into the rx
 * fragments, then complete the tx and the rx, as LNet's lolnd does.
 */
#ifndef UL_LND_LOLND_H
#define UL_LND_LOLND_H

#include "core/lnd.h"

extern const struct ul_lnd_ops ul_lolnd_ops;

struct ul_node;
/*
 * Register lolnd with node n for 0@lo, which every node starts: whoever
 * builds a node (the runtime, the simulator, ulnetctl's dry run) calls
 * this before ul_node_startup(). 0 or -errno as ul_node_register_lnd().
 */
int ul_lolnd_register(struct ul_node *n);

/*
 * Copy nob bytes from the fragments src (skipping src_off bytes) into
 * dst; both must hold them. Shared with LNDs that move bytes in memory.
 */
void ul_lnd_iov_copy(const struct iovec *dst, uint32_t ndst,
		     const struct iovec *src, uint32_t nsrc, uint32_t nob);

#endif /* UL_LND_LOLND_H */
