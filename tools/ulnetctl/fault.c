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

/* -e keywords; keyword N sets mask bit N + 1 (fault.md §5). */
static const char *const health_names[] = {
	"local_interrupt", "local_dropped",   "local_aborted", "local_no_route",
	"local_error",	   "local_timeout",   "remote_error",  "remote_dropped",
	"remote_timeout",  "network_timeout",
};

#define NHEALTH (sizeof(health_names) / sizeof(health_names[0]))

/* OR a -e keyword into *mask; -1 for an unknown one (lnetctl: silent). */
static int health_bit(const char *s, uint32_t *mask)
{
	size_t k;

	if (strcasecmp(s, "random") == 0) {
		*mask = 0xffffffffu;
		return 0;
	}
	for (k = 0; k < NHEALTH; k++)
		if (strcasecmp(s, health_names[k]) == 0) {
			*mask |= 1u << (k + 1);
			return 0;
		}
	return -1;
}

static int msg_bit(const char *s)
{
	static const char *const names[] = { "ACK", "PUT", "GET", "REPLY" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcasecmp(s, names[i]) == 0)
			return 1 << i;
	return 0;
}

static const struct ulnetctl_cmd drop_verbs[];
static const struct ulnetctl_cmd delay_verbs[];

/*
 * lnetctl's check before a verb runs: with fewer than min words the
 * verb's help and -EINVAL; -h or --help (or "--he") alone: help, 1.
 */
static int pre_check(int argc, char **argv, int min, bool is_delay)
{
	const struct ulnetctl_cmd *verbs = is_delay ? delay_verbs : drop_verbs;
	const char *kind = is_delay ? "delay" : "drop";

	if (argc < min) {
		ulnetctl_print_help(verbs, kind, argv[0]);
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (argc == 2 && ulnetctl_is_help(argv[1])) {
		ulnetctl_print_help(verbs, kind, argv[0]);
		return 1;
	}
	return 0;
}

/* The NID arguments, once the other checks passed (lnetctl's order). */
static int rule_nids(struct ul_ctl_args *a, const char *src, const char *dst,
		     const char *local)
{
	if (src) {
		if (!fault_nid(src, &a->nid))
			return ULNETCTL_RC_BAD_PARAM;
		a->has |= UL_CTL_ARG_NID;
	}
	if (dst) {
		if (!fault_nid(dst, &a->nid2))
			return ULNETCTL_RC_BAD_PARAM;
		a->has |= UL_CTL_ARG_NID2;
	}
	if (local) {
		if (!fault_nid(local, &a->local_nid))
			return ULNETCTL_RC_BAD_PARAM;
		a->has |= UL_CTL_ARG_LOCAL_NID;
	}
	return 0;
}

static int fault_add(int argc, char **argv, bool is_delay)
{
	static const struct option opts[] = {
		{ "dest", required_argument, NULL, 'd' },
		{ "health_error", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'i' },
		{ "latency", required_argument, NULL, 'l' },
		{ "message", required_argument, NULL, 'm' },
		{ "random", no_argument, NULL, 'n' },
		{ "local_nid", required_argument, NULL, 'o' },
		{ "portal", required_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },
		{ "source", required_argument, NULL, 's' },
		{ "rule_type", required_argument, NULL, 't' },
		{ "drop_all", no_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	/* lnetctl.md §13: delay add has no -i (use --interval) */
	const char *shorts = is_delay ? "d:l:m:o:p:r:s:"
				      : "d:e:i:m:no:p:r:s:t:x";
	const char *kind = is_delay ? "delay" : "drop";
	const char *src = NULL, *dst = NULL, *local = NULL;
	struct ul_ctl_args *a;
	int opt, rc;
	unsigned long v;

	rc = pre_check(argc, argv, 2, is_delay);
	if (rc)
		return rc;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	rc = -1;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'o':
			local = optarg;
			break;
		case 'r': /* strtoul: garbage reads as 0 (§1.2) */
			a->rate = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'i':
			a->interval = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'l':
			a->latency = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			if (!is_delay)
				a->flags |= UL_CTL_ARGF_RANDOM;
			break;
		case 'x':
			if (!is_delay)
				a->flags |= UL_CTL_ARGF_DROP_ALL;
			break;
		case 'e':
			if (!is_delay && health_bit(optarg, &a->health_mask))
				goto out;
			break;
		case 'm':
			if (!msg_bit(optarg)) {
				fprintf(stderr, "unknown message type %s\n",
					optarg);
				goto out;
			}
			a->msg_mask |= (uint32_t)msg_bit(optarg);
			break;
		case 'p':
			v = strtoul(optarg, NULL, 0);
			if (v >= 64) {
				fprintf(stderr, "invalid portal: %lu\n", v);
				goto out;
			}
			a->ptl_mask |= 1ULL << v;
			break;
		case 't':
			break; /* accepted, ignored (§13) */
		default:
			/* getopt said why; lnetctl carries on (§1.2) */
			fprintf(stderr, "Unrecognized option %c\n", opt);
			break;
		}
	}
	if (!a->rate == !a->interval) {
		fprintf(stderr,
			"please provide either %s rate or interval but not "
			"both at the same time.\n",
			kind);
		goto out;
	}
	if ((a->flags & UL_CTL_ARGF_RANDOM) && !a->interval) {
		fprintf(stderr, "please provide an interval to randomize\n");
		goto out;
	}
	if (is_delay && !a->latency) {
		fprintf(stderr, "latency cannot be zero\n");
		goto out;
	}
	if (!src || !dst) {
		fprintf(stderr,
			"Please provide both source and destination of %s "
			"rule\n",
			kind);
		goto out;
	}
	a->has |= UL_CTL_ARG_RATE | UL_CTL_ARG_INTERVAL | UL_CTL_ARG_LATENCY |
		  UL_CTL_ARG_MSG_MASK | UL_CTL_ARG_PTL_MASK |
		  UL_CTL_ARG_HEALTH_MASK;
	rc = rule_nids(a, src, dst, local);
	if (rc)
		goto out;
	rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_ADD, a,
				 is_delay ? "add delay rule" : "add drop rule");
out:
	free(a);
	return rc;
}

static int fault_del(int argc, char **argv, bool is_delay)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "dest", required_argument, NULL, 'd' },
		{ "source", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *src = NULL, *dst = NULL;
	struct ul_ctl_args *a;
	bool all = false;
	int opt, rc;

	rc = pre_check(argc, argv, 2, is_delay);
	if (rc)
		return rc;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "ad:s:", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			/* lnetctl's -a also forgets an earlier -d */
			all = true;
			dst = NULL;
			break;
		case 'd':
			dst = optarg;
			break;
		case 's':
			src = optarg;
			break;
		default:
			return 0; /* getopt said why; lnetctl stops, 0 */
		}
	}
	if (!all && !(src && dst)) {
		fprintf(stderr,
			"Failed, please provide source and destination of "
			"rule\n");
		return -1;
	}
	if (all && (src || dst)) {
		fprintf(stderr, "'-s' or '-d' cannot be combined with '-a'\n");
		return -1;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	if (all)
		a->flags |= UL_CTL_ARGF_ALL;
	rc = rule_nids(a, src, dst, NULL);
	if (!rc)
		rc = ulnetctl_fault_call(UL_CTL_OP_FAULT_DEL, a,
					 is_delay ? "delete delay rule"
						  : "delete drop rule");
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

/* show and reset: nothing but the kind. */
static int fault_plain(int argc, char **argv, bool is_delay, bool is_show)
{
	struct ul_ctl_args *a;
	int rc;

	rc = pre_check(argc, argv, 1, is_delay);
	if (rc)
		return rc;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->flags = is_delay ? UL_CTL_ARGF_DELAY : 0;
	if (is_show)
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

static int drop_add(int argc, char **argv)
{
	return fault_add(argc, argv, false);
}

static int drop_del(int argc, char **argv)
{
	return fault_del(argc, argv, false);
}

static int drop_show(int argc, char **argv)
{
	return fault_plain(argc, argv, false, true);
}

static int drop_reset(int argc, char **argv)
{
	return fault_plain(argc, argv, false, false);
}

static int delay_add(int argc, char **argv)
{
	return fault_add(argc, argv, true);
}

static int delay_del(int argc, char **argv)
{
	return fault_del(argc, argv, true);
}

static int delay_show(int argc, char **argv)
{
	return fault_plain(argc, argv, true, true);
}

static int delay_reset(int argc, char **argv)
{
	return fault_plain(argc, argv, true, false);
}

static const struct ulnetctl_cmd drop_verbs[] = {
	{ "add", drop_add, NULL,
	  "add a drop rule\n"
	  "\t--source: drop messages from this NID (*@net, * for any)\n"
	  "\t--dest: drop messages to this NID (*@net, * for any)\n"
	  "\t--rate: drop one in every <rate> matching messages\n"
	  "\t--interval: drop one matching message every <interval> "
	  "seconds\n"
	  "\t--random: drop about half the matching messages (needs "
	  "--interval)\n"
	  "\t--portal: only messages on this portal (repeatable)\n"
	  "\t--message: only messages of this type <PUT|ACK|GET|REPLY> "
	  "(repeatable)\n"
	  "\t--health_error: fail the send with this health status "
	  "<local_timeout|remote_dropped|network_timeout|...|random>\n"
	  "\t--local_nid: only messages received on this local NID\n"
	  "\t--drop_all: drop every matching message\n" },
	{ "del", drop_del, NULL,
	  "delete drop rules\n"
	  "\t--all: delete every drop rule\n"
	  "\t--source: delete the rules with this source NID\n"
	  "\t--dest: delete the rules with this destination NID\n" },
	{ "reset", drop_reset, NULL, "zero the counters of every drop rule\n" },
	{ "show", drop_show, NULL, "show the drop rules\n" },
	{ NULL, NULL, NULL, NULL },
};

static const struct ulnetctl_cmd delay_verbs[] = {
	{ "add", delay_add, NULL,
	  "add a delay rule\n"
	  "\t--source: delay messages from this NID (*@net, * for any)\n"
	  "\t--dest: delay messages to this NID (*@net, * for any)\n"
	  "\t--rate: delay one in every <rate> matching messages\n"
	  "\t--interval: delay one matching message every <interval> "
	  "seconds\n"
	  "\t--portal: only messages on this portal (repeatable)\n"
	  "\t--message: only messages of this type <PUT|ACK|GET|REPLY> "
	  "(repeatable)\n"
	  "\t--latency: seconds to hold a delayed message\n" },
	{ "del", delay_del, NULL,
	  "delete delay rules\n"
	  "\t--all: delete every delay rule\n"
	  "\t--source: delete the rules with this source NID\n"
	  "\t--dest: delete the rules with this destination NID\n" },
	{ "reset", delay_reset, NULL,
	  "zero the counters of every delay rule\n" },
	{ "show", delay_show, NULL, "show the delay rules\n" },
	{ NULL, NULL, NULL, NULL },
};

/* fault drop|delay <verb> ...: argv[0] is "drop" or "delay". */
static int fault_kind(int argc, char **argv, bool is_delay)
{
	return ulnetctl_run_noun(argv[0], is_delay ? delay_verbs : drop_verbs,
				 argc, argv);
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
	  "manage drop rules\n"
	  "usage: ulnetctl fault drop add [<options>] -r <rate>|-i <interval> "
	  "-s <src> -d <dest>\n"
	  "   or: ulnetctl fault drop del -s <src> -d <dest> | -a\n"
	  "   or: ulnetctl fault drop show\n"
	  "   or: ulnetctl fault drop reset\n" },
	{ "delay", fault_delay, NULL,
	  "manage delay rules\n"
	  "usage: ulnetctl fault delay add [<options>] -r <rate>|--interval "
	  "<interval> -l <latency> -s <src> -d <dest>\n"
	  "   or: ulnetctl fault delay del -s <src> -d <dest> | -a\n"
	  "   or: ulnetctl fault delay show\n"
	  "   or: ulnetctl fault delay reset\n" },
	{ NULL, NULL, NULL, NULL },
};
