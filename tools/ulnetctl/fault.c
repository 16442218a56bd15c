/*
 * ulnetctl fault drop|delay add|del|show|reset (reference/lnetctl.md
 * §13). Rules are kept by the instance (core/fault.h); "*" and "*@net"
 * stand for any NID and any NID of a net.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl/doc_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* "*", "*@tcp" or a NID; false after printing lnetctl's message. */
static bool fault_nid(const char *s, struct ulnet_nid *out)
{
	uint32_t net;

	if (strcmp(s, "*") == 0) {
		ulnet_nid_set_any(out);
		return true;
	}
	if (strncmp(s, "*@", 2) == 0 &&
	    !ulnet_net_parse(s + 2, &net, NULL, 0)) {
		memset(out, 0, sizeof(*out));
		out->nid_type = (uint8_t)ulnet_net_type(net);
		out->nid_num = (uint16_t)ulnet_net_num(net);
		out->nid_addr[0] = 0xffffffffu;
		return true;
	}
	if (!ulnet_nid_parse(s, out, NULL, 0))
		return true;
	fprintf(stderr, "Invalid NID: %s\n", s);
	return false;
}

static const char *const health_names[] = {
	"local_interrupt", "local_dropped",   "local_aborted", "local_no_route",
	"local_error",	   "local_timeout",   "remote_error",  "remote_dropped",
	"remote_timeout",  "network_timeout",
};

#define NHEALTH (sizeof(health_names) / sizeof(health_names[0]))

static int msg_bit(const char *s)
{
	static const char *const names[] = { "ACK", "PUT", "GET", "REPLY" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcasecmp(s, names[i]) == 0)
			return 1 << i;
	return 0;
}

static int fault_add(int argc, char **argv, bool is_delay)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "dest", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "random", no_argument, NULL, 'n' },
		{ "message", required_argument, NULL, 'm' },
		{ "portal", required_argument, NULL, 'p' },
		{ "health_error", required_argument, NULL, 'e' },
		{ "local_nid", required_argument, NULL, 'o' },
		{ "drop_all", no_argument, NULL, 'x' },
		{ "latency", required_argument, NULL, 'l' },
		{ "rule_type", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	const char *shorts = is_delay ? "s:d:r:nm:p:o:l:t:h"
				      : "s:d:r:i:nm:p:e:o:xt:h";
	int opt, rc = -1;
	unsigned long v;
	size_t k;

	if (!a)
		return -ENOMEM;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (!fault_nid(optarg, &a->nid)) {
				rc = ULNETCTL_RC_BAD_PARAM;
				goto out;
			}
			a->has |= UL_CTL_ARG_NID;
			break;
		case 'd':
			if (!fault_nid(optarg, &a->nid2)) {
				rc = ULNETCTL_RC_BAD_PARAM;
				goto out;
			}
			a->has |= UL_CTL_ARG_NID2;
			break;
		case 'r': /* strtoul: garbage reads as 0 (§1.2) */
			a->rate = (uint32_t)strtoul(optarg, NULL, 0);
			a->has |= UL_CTL_ARG_RATE;
			break;
		case 'i':
			a->interval = (uint32_t)strtoul(optarg, NULL, 0);
			a->has |= UL_CTL_ARG_INTERVAL;
			break;
		case 'n':
			a->flags |= UL_CTL_ARGF_RANDOM;
			break;
		case 'x':
			a->flags |= UL_CTL_ARGF_DROP_ALL;
			break;
		case 'm':
			if (!msg_bit(optarg)) {
				fprintf(stderr, "unknown message type %s\n",
					optarg);
				goto out;
			}
			a->msg_mask |= (uint32_t)msg_bit(optarg);
			a->has |= UL_CTL_ARG_MSG_MASK;
			break;
		case 'p':
			v = strtoul(optarg, NULL, 0);
			if (v >= 64) {
				fprintf(stderr, "invalid portal: %lu\n", v);
				goto out;
			}
			a->ptl_mask |= 1ULL << v;
			a->has |= UL_CTL_ARG_PTL_MASK;
			break;
		case 'e':
			for (k = 0; k < NHEALTH; k++)
				if (strcmp(optarg, health_names[k]) == 0)
					break;
			if (k == NHEALTH && strcmp(optarg, "random") != 0) {
				fprintf(stderr, "unknown health error %s\n",
					optarg);
				goto out;
			}
			a->health_mask |= k == NHEALTH ? (1u << NHEALTH) - 1
						       : 1u << k;
			a->has |= UL_CTL_ARG_HEALTH_MASK;
			break;
		case 'o':
			if (ulnet_nid_parse(optarg, &a->local_nid, NULL, 0)) {
				fprintf(stderr, "Invalid NID: %s\n", optarg);
				rc = ULNETCTL_RC_BAD_PARAM;
				goto out;
			}
			a->has |= UL_CTL_ARG_LOCAL_NID;
			break;
		case 'l':
			a->latency = (uint32_t)strtoul(optarg, NULL, 0);
			a->has |= UL_CTL_ARG_LATENCY;
			break;
		case 't':
			break; /* accepted, ignored (§13) */
		default:
			printf("Unrecognized option ?\n");
			break;
		}
	}
	if (!(a->has & UL_CTL_ARG_NID) || !(a->has & UL_CTL_ARG_NID2)) {
		fprintf(stderr, "fault: both --source and --dest are needed\n");
		goto out;
	}
	if (!a->rate == !a->interval) {
		fprintf(stderr,
			"fault: give exactly one of --rate and --interval\n");
		goto out;
	}
	if ((a->flags & UL_CTL_ARGF_RANDOM) && !a->interval) {
		fprintf(stderr, "fault: --random needs --interval\n");
		goto out;
	}
	if (is_delay && !a->latency) {
		fprintf(stderr, "fault: --latency must be non-zero\n");
		goto out;
	}
	rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_ADD, a,
				 is_delay ? "add delay rule" : "add drop rule");
out:
	free(a);
	return rc;
}

static int fault_del(int argc, char **argv, bool is_delay)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "dest", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	bool all, both, none;
	int opt, rc = -1;

	if (!a)
		return -ENOMEM;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:d:ah", opts, NULL)) != -1) {
		if (opt == 's' && fault_nid(optarg, &a->nid))
			a->has |= UL_CTL_ARG_NID;
		else if (opt == 'd' && fault_nid(optarg, &a->nid2))
			a->has |= UL_CTL_ARG_NID2;
		else if (opt == 'a')
			a->flags |= UL_CTL_ARGF_ALL;
		else
			goto out;
	}
	all = a->flags & UL_CTL_ARGF_ALL;
	both = (a->has & UL_CTL_ARG_NID) && (a->has & UL_CTL_ARG_NID2);
	none = !(a->has & (UL_CTL_ARG_NID | UL_CTL_ARG_NID2));

	if (all ? !none : !both) {
		fprintf(stderr, "fault: give --source and --dest, or --all\n");
		goto out;
	}
	rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_DEL, a,
				 is_delay ? "delete delay rule"
					  : "delete drop rule");
out:
	free(a);
	return rc;
}

/* Run a fault op; lnetctl says "failed to <what>: <why>" on stdout. */
int ulnetctl_fault_call(uint16_t op, const struct ul_ctl_args *a,
			const char *what)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	rc = ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc) {
		printf("failed to %s: %s\n", what, err.msg);
		ulnetctl_d1("manage", "fault", rc, err.msg);
		return rc;
	}
	rc = reply.rc;
	if (rc)
		printf("failed to %s: %s\n", what,
		       reply.err_msg[0] ? reply.err_msg : strerror(-rc));
	else if (op == UL_CTL_OP_FAULT_SHOW &&
		 ul_doc_print(stdout, reply.doc, UL_DOC_A))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

static int fault_kind(int argc, char **argv, bool is_delay)
{
	struct ul_ctl_args *a;
	int rc;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		ulnetctl_print_help(ulnetctl_fault_cmds, "fault", argv[0]);
		return argc < 2 ? ULNETCTL_RC_BAD_PARAM : 1;
	}
	if (strcmp(argv[1], "add") == 0)
		return fault_add(argc - 1, argv + 1, is_delay);
	if (strcmp(argv[1], "del") == 0)
		return fault_del(argc - 1, argv + 1, is_delay);
	if (strcmp(argv[1], "show") != 0 && strcmp(argv[1], "reset") != 0) {
		fprintf(stderr,
			"ulnetctl: '%s' is not a valid command. See "
			"'ulnetctl --list-commands'.\n",
			argv[1]);
		return -1;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	if (strcmp(argv[1], "show") == 0)
		rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_SHOW, a,
					 is_delay ? "list delay rules"
						  : "list drop rule");
	else
		rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_RESET, a,
					 is_delay ? "delay reset_rule"
						  : "drop_reset rule");
	free(a);
	return rc;
}

static int fault_drop(int argc, char **argv)
{
	return fault_kind(argc, argv, false);
}

static int fault_delay(int argc, char **argv)
{
	return fault_kind(argc, argv, true);
}

const struct ulnetctl_cmd ulnetctl_fault_cmds[] = {
	{ "drop", fault_drop, NULL,
	  "drop rules: add, del, show, reset\n"
	  "\t--source: source NID, *@net or *\n"
	  "\t--dest: destination NID, *@net or *\n"
	  "\t--rate: drop one in every N matching messages\n"
	  "\t--interval: drop one message every N seconds\n"
	  "\t--random: at a random point of each interval\n"
	  "\t--message: PUT, ACK, GET or REPLY (repeatable)\n"
	  "\t--portal: portal 0 to 63 (repeatable)\n"
	  "\t--health_error: health status to report instead of a drop\n"
	  "\t--local_nid: only messages sent from this NID\n"
	  "\t--drop_all: drop every matching message\n"
	  "\t--all: (del) every rule\n" },
	{ "delay", fault_delay, NULL,
	  "delay rules: add, del, show, reset\n"
	  "\t--source: source NID, *@net or *\n"
	  "\t--dest: destination NID, *@net or *\n"
	  "\t--rate: delay one in every N matching messages\n"
	  "\t--interval: delay one message every N seconds\n"
	  "\t--latency: seconds to delay\n"
	  "\t--message: PUT, ACK, GET or REPLY (repeatable)\n"
	  "\t--portal: portal 0 to 63 (repeatable)\n"
	  "\t--local_nid: only messages sent from this NID\n"
	  "\t--all: (del) every rule\n" },
	{ NULL, NULL, NULL, NULL },
};
