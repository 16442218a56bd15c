/*
 * lnetctl's YAML for the replies of the control protocol (proto.h), used
 * by ulnetctl: `net show` and `peer show` in engine A (libyaml, indent 6,
 * no document markers) and the D1 error
 * document (indent 6, "---"/"...", descr tagged "!" and double-quoted),
 * as reference/lnetctl.md §2, §6.3, §7.3 and §11.1 give them. Field order
 * and the verbose level at which each block appears are lnetctl's; the
 * blocks are printed from the level, values missing from the reply print
 * as 0.
 */
#ifndef UL_CTL_SHOW_YAML_H
#define UL_CTL_SHOW_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl/proto.h"

/*
 * `net show -v level` of a NET_SHOW reply (rc 0). 0, or -EIO when out
 * could not be written.
 */
int ul_show_yaml_net(FILE *out, const struct ul_ctl_reply *r, uint32_t level);
/*
 * The level that prints what `export --backup` keeps (lnetctl.md §15):
 * for an NI its interfaces, tunables, LND tunables without the read-only
 * timeout and CPT (and, for an NI given by NID without an interface, its
 * "nid:", which ulnet's import reads), the lo net left out; for a peer
 * its primary NID, Multi-Rail and the NIDs of its peer NIs.
 */
#define UL_SHOW_YAML_BACKUP UINT32_MAX

/* `peer show -v level` of a PEER_SHOW reply; no peers print nothing. */
int ul_show_yaml_peer(FILE *out, const struct ul_ctl_reply *r, uint32_t level);
/*
 * The D1 error document:
 *	---
 *	<op>:
 *	-     <object>:
 *	      errno: <errnum>
 *	      descr: ! "<descr>"
 *	...
 */
int ul_show_yaml_err(FILE *out, const char *op, const char *object, int errnum,
		     const char *descr);

#endif /* UL_CTL_SHOW_YAML_H */
