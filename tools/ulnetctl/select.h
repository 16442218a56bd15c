/* ulnetctl debug select: a dry run of pathway selection. */
#ifndef ULNETCTL_SELECT_H
#define ULNETCTL_SELECT_H

int ulnetctl_debug_select(int argc, char **argv);

#define ULNETCTL_SELECT_HELP                                                   \
	"dry run of pathway selection on an lnet.conf, no network\n"           \
	"\t--config: the lnet.conf (YAML) to load\n"                           \
	"\t--dst: destination NID\n"                                           \
	"\t--src: source NID to pin (default: LNet chooses)\n"                 \
	"\t--rtr: previous hop to reuse, as for a response\n"                  \
	"\t--count: number of successive sends (default 1)\n"                  \
	"\t--type: put, get, ack or reply (default put)\n"                     \
	"\t--md-numa: NUMA node of the message buffer (default any)\n"         \
	"\t--forward: forward, as a router, a message from this NID\n"         \
	"\t--explain: show every step of the selection\n"

#endif /* ULNETCTL_SELECT_H */
