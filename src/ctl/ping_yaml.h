/*
 * The output of `ping` and `discover` (reference/lnetctl.md §11), engine
 * B (libyaml, indent 2), written while the targets are answered: the
 * answered ones under "ping:" (or "discover:") in argument order, then
 * the failed ones under "manage:", each as
 *
 *	- <object>:
 *	  errno: <rc>
 *	  descr: ! '<server text>: <strerror(-rc)>'
 *
 * An answer is printed when it comes; only the failures wait for the end
 * (lnetctl prints them after every answer), so a command with a very
 * long list of targets does not hold every reply. Nothing is printed when
 * there was neither an answer nor a failure.
 */
#ifndef UL_CTL_PING_YAML_H
#define UL_CTL_PING_YAML_H

#include <stdio.h>

#include "ctl/proto.h"

struct ul_ping_yaml;
struct ul_ynode;

/*
 * Start the output of object ("ping" or "discover") on out. 0 and *p
 * (ended by ul_ping_yaml_close() or ul_ping_yaml_abort()), or -ENOMEM.
 */
int ul_ping_yaml_open(struct ul_ping_yaml **p, FILE *out, const char *object);
/* One answered ping: the reply's primary nid, Multi-Rail and peer NIs. */
void ul_ping_yaml_ping(struct ul_ping_yaml *p, const struct ul_ctl_reply *r);
/* One answered discover: each item of the reply document's sequence. */
void ul_ping_yaml_doc(struct ul_ping_yaml *p, const struct ul_ynode *items);
/* One failure (rc < 0, msg the server's text), kept for the end. */
int ul_ping_yaml_fail(struct ul_ping_yaml *p, int rc, const char *msg);
/*
 * Print the failures and end the document; p is freed. 0, or -EIO
 * (out could not be written) or -ENOMEM.
 */
int ul_ping_yaml_close(struct ul_ping_yaml *p);
/* Free p, printing nothing more. Accepts NULL. */
void ul_ping_yaml_abort(struct ul_ping_yaml *p);

#endif /* UL_CTL_PING_YAML_H */
