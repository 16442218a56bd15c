/*
 * ulnetctl net add / del / show / set (reference/lnetctl.md §6) over the
 * control socket, and the verbosity option shared with peer show.
 *
 * getopt's own diagnostics: lnetctl's check_cmd() turns them off and
 * turns them back on only when the verb has a single argument, so
 * "add: unrecognized option '--bogus'" appears for `net add --bogus` and
 * not for `net add --net tcp --bogus`. Each verb sets opterr the same way
 * (ulnetctl_with_diagnostics()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "nid/expr.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* lnetctl's bound on a string option (its LNET_MAX_STR_LEN). */
#define LNET_MAX_STR_LEN 128

uint32_t ulnetctl_verbose_arg(int argc, char **argv)
{
	long v;

	/*
	 * lnetctl: "-v" or "--verbose" alone is 1; "-v N" consumes the next
	 * word when it does not start with '-' (a non-number reads as 1);
	 * a value glued to the option ("--verbose=N", "-vN") reads as 1.
	 * The level travels as the netlink header's 8-bit version, so only
	 * its low byte counts: 256 is 0, 257 is 1.
	 */
	if (optarg || optind >= argc || argv[optind][0] == '-')
		return 1;
	if (!ulnetctl_parse_long(argv[optind++], &v))
		return 1;
	return (uint8_t)v;
}

/* A show failure as lnetctl prints it: D1 on stderr, status 234. */
int ulnetctl_show_failed(const char *object, int rc, const char *descr)
{
	ul_show_yaml_err(stderr, "show", object, rc,
			 descr && descr[0] ? descr : strerror(-rc));
	return ULNETCTL_RC_BAD_PARAM;
}

static int net_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "verbose", optional_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:v", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (strlen(optarg) >= sizeof(req.net_show.net))
				return ulnetctl_show_failed("net", -ENOENT,
							    "cannot parse net");
			req.net_show.has_net = true;
			snprintf(req.net_show.net, sizeof(req.net_show.net),
				 "%s", optarg);
			break;
		case 'v':
			req.net_show.verbose = ulnetctl_verbose_arg(argc, argv);
			break;
		default:
			/* lnetctl: help, and nothing done (§1.2 Quirk). */
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "show");
			return 0;
		}
	}
	rc = ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_show_failed("net", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_show_failed("net", reply.rc, reply.err_msg);
	else if (ul_doc_print(stdout, reply.doc, UL_DOC_A))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* `net add|del` argument errors: D2 "ni: - add|del:" (lnetctl.md §6.1). */
static int ni_failed(const char *verb, int rc, const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, "ni", verb, -1, descr);
	return rc;
}

static int ni_add_failed(int rc, const char *descr)
{
	return ni_failed("add", rc, descr);
}

/*
 * One word of a --if or --nid list, filed as lnetctl files it: a word
 * with '@' is a NID (and names the request's net), any other an
 * interface name with an optional CPT expression in brackets.
 */
static int add_word(const char *w, struct ul_ctl_args *a)
{
	const char *open = strchr(w, '[');
	struct ul_expr *cpt = NULL;

	if (strchr(w, '@')) {
		if (a->nnids == UL_CTL_ARGS_NIDS_MAX ||
		    ulnet_nid_parse(w, &a->nids[a->nnids], NULL, 0))
			return -EINVAL;
		a->nnids++;
		a->has |= UL_CTL_ARG_NIDS;
		return 0;
	}
	/* lnetctl parses the CPT expression itself (cfs_expr_list_parse). */
	if (open && ul_conf_parse_cpt(open, &cpt, NULL))
		return -EINVAL;
	ul_expr_free(cpt);
	if (a->nifs == UL_CTL_ARGS_IFS_MAX)
		return -EINVAL;
	snprintf(a->ifs[a->nifs++], UL_CTL_IFNAME_MAX, "%s", w);
	a->has |= UL_CTL_ARG_IFS;
	return 0;
}

/*
 * A --if or --nid list "eth0[0,1],eth1" split at the commas outside
 * brackets, appended to what earlier options gave (lnetctl's
 * lustre_lnet_parse_interfaces adds to one list). A word of 128
 * characters or more, a bracket left open, a bad CPT expression or an
 * unparsable NID refuses the list.
 */
static int add_words(const char *list, struct ul_ctl_args *a)
{
	char word[UL_CTL_IFNAME_MAX];
	const char *p, *start = list;
	int depth = 0;

	for (p = list;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if ((*p == ',' && depth == 0) || *p == '\0') {
			size_t len = (size_t)(p - start);

			if (depth || len == 0 || len >= sizeof(word))
				return -EINVAL;
			memcpy(word, start, len);
			word[len] = '\0';
			if (add_word(word, a))
				return -EINVAL;
			start = p + 1;
		}
		if (*p == '\0')
			return 0;
	}
}

/* lnetctl's refusal of a --conns-per-peer value (add and set alike). */
#define CPP_INVALID "invalid conns-per-peer value (valid range 0-127)"

/*
 * A --conns-per-peer value as lnetctl reads it: false for one it refuses
 * (unparsable, above 127); *out is the value as the int lnetctl keeps.
 */
static bool cpp_arg(const char *s, int *out)
{
	long v;

	if (!ulnetctl_parse_long(s, &v) || v > 127)
		return false;
	*out = (int)v;
	return true;
}

/* A common tunable of net add: sent only when the test holds (§6.1). */
static void tunable_arg(const char *s, bool is_timeout, int32_t *field,
			uint64_t bit, struct ul_ctl_args *a)
{
	long v;

	a->has &= ~bit;
	if (!ulnetctl_parse_long(s, &v))
		return; /* unparsable: ignored */
	*field = (int32_t)v;
	if (is_timeout ? *field >= 0 : *field > 0)
		a->has |= bit;
}

static int net_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "if", required_argument, NULL, 'i' },
		{ "nid", required_argument, NULL, 'N' },
		{ "ip2net", required_argument, NULL, 'p' },
		{ "peer-timeout", required_argument, NULL, 't' },
		{ "peer-credits", required_argument, NULL, 'c' },
		{ "peer-buffer-credits", required_argument, NULL, 'b' },
		{ "credits", required_argument, NULL, 'r' },
		{ "cpt", required_argument, NULL, 's' },
		{ "conns-per-peer", required_argument, NULL, 'm' },
		{ "tos", required_argument, NULL, 'S' },
		{ "skip-mr-route-setup", no_argument, NULL, 'k' },
		{ "auth-key", required_argument, NULL, 'a' },
		{ "traffic-class", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	const char *ip2net = NULL;
	struct ul_expr *cpt = NULL;
	bool has_nid_opt = false;
	int opt, rc = 0, cpp;
	long v;

	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	/* "k:" as lnetctl's: -k takes a value, --skip-mr-route-setup not. */
	while ((opt = getopt_long(argc, argv, "a:b:c:i:k:m:n:p:r:s:t:T:", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		/* Lists are checked as they come, before anything else. */
		case 'i':
			if (add_words(optarg, a)) {
				rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM,
						   "bad interface list");
				goto out;
			}
			break;
		case 'N':
			if (add_words(optarg, a)) {
				rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM,
						   "bad NID list");
				goto out;
			}
			has_nid_opt = true;
			break;
		case 'p':
			ip2net = optarg;
			break;
		case 't':
			tunable_arg(optarg, true, &a->peer_timeout,
				    UL_CTL_ARG_PEER_TIMEOUT, a);
			break;
		case 'c':
			tunable_arg(optarg, false, &a->peer_credits,
				    UL_CTL_ARG_PEER_CREDITS, a);
			break;
		case 'b':
			tunable_arg(optarg, false, &a->peer_buffer_credits,
				    UL_CTL_ARG_PEER_BUF_CREDITS, a);
			break;
		case 'r':
			tunable_arg(optarg, false, &a->credits,
				    UL_CTL_ARG_CREDITS, a);
			break;
		case 's':
			/* The last --cpt counts; unparsable, none (§6.1). */
			a->has &= ~UL_CTL_ARG_CPT;
			if (ul_conf_parse_cpt(optarg, &cpt, NULL) == 0 &&
			    strlen(optarg) < sizeof(a->cpt)) {
				snprintf(a->cpt, sizeof(a->cpt), "%s", optarg);
				a->has |= UL_CTL_ARG_CPT;
			}
			ul_expr_free(cpt);
			cpt = NULL;
			break;
		case 'm':
			if (!cpp_arg(optarg, &cpp)) {
				rc = ni_add_failed(-1, CPP_INVALID);
				goto out;
			}
			/* Sent when not negative; 0 is the LND's default. */
			a->has &= ~UL_CTL_ARG_CONNS_PER_PEER;
			if (cpp >= 0) {
				a->conns_per_peer = cpp;
				a->has |= UL_CTL_ARG_CONNS_PER_PEER;
			}
			break;
		case 'S':
			if (!ulnetctl_parse_long(optarg, &v) || v < -1 ||
			    v > 255) {
				rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM,
						   "Invalid ToS argument");
				goto out;
			}
			a->tos = (int32_t)v;
			a->has |= UL_CTL_ARG_TOS;
			break;
		case 'k': /* ulnetd's own switch decides (lnetctl-differences) */
		case 'a':
			/*
			 * --auth-key is kfi only: lnetctl sends it for a kfi
			 * net alone and ignores it for any other; ulnet has
			 * no kfi LND, so it is always ignored (a kfi net
			 * fails anyway).
			 */
			break;
		case 'T':
			if (!optarg[0] || strlen(optarg) >= LNET_MAX_STR_LEN) {
				rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM,
						   "Invalid traffic-class "
						   "argument");
				goto out;
			}
			break; /* kfi only, as --auth-key */
		default:
			/* lnetctl: help, and nothing done (§1.2 Quirk). */
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "add");
			goto out;
		}
	}
	if (has_nid_opt && (a->has & UL_CTL_ARG_NET)) {
		printf("--net is invalid with --nid option\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	/* lnetctl sends the rule only without a net of the request's own. */
	if (ip2net && !(a->has & UL_CTL_ARG_NET) && !has_nid_opt) {
		rc = ulnetctl_net_add_ip2net(ip2net);
		goto out;
	}
	/* The net: --net, or the '@' of a NID (none: "198.18.0.1" alone). */
	if (!ip2net && !(a->has & UL_CTL_ARG_NET) && !a->nnids) {
		printf("missing mandatory parameters in NI config: "
		       "'network'\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	if (!a->nifs && !a->nnids) {
		/* With --ip2net a net without NIs asks for nothing. */
		if (!ip2net) {
			printf("creating a local NI needs at least one "
			       "interface\n");
			rc = ULNETCTL_RC_BAD_PARAM;
		}
		goto out;
	}
	rc = ulnetctl_do(UL_CTL_OP_NET_ADD, a, "add", "net", -1);
out:
	free(a);
	return rc;
}

static int net_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "if", required_argument, NULL, 'i' },
		{ "nid", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	bool has_nid_opt = false;
	int opt, rc = 0;

	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:i:", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'i':
			/* lnetctl reports a bad list under "ni: - add:". */
			if (add_words(optarg, a)) {
				rc = ni_failed("add", ULNETCTL_RC_BAD_PARAM,
					       "bad interface list");
				goto out;
			}
			break;
		case 'N':
			if (add_words(optarg, a)) {
				rc = ni_failed("del", ULNETCTL_RC_BAD_PARAM,
					       "bad NID list");
				goto out;
			}
			has_nid_opt = true;
			break;
		default:
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "del");
			goto out;
		}
	}
	if (has_nid_opt && (a->has & UL_CTL_ARG_NET)) {
		printf("--net is invalid with --nid option\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	if (!(a->has & UL_CTL_ARG_NET) && !a->nnids) {
		printf("missing mandatory parameters in NI config: "
		       "'network'\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	rc = ulnetctl_do(UL_CTL_OP_NET_DEL, a, "del", "net", -1);
out:
	free(a);
	return rc;
}

/* `net set` failure: D2 "net: - set:" with lnetctl's errno for it. */
static int net_set_failed(int errnum, const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, "net", "set", errnum, descr);
	return errnum;
}

/*
 * `net set --net N --lnd-timeout T`: lnetctl writes the LND's module
 * parameter itself and reports a refusal as D2 "set: - lnd_timeout:"
 * followed by the empty "net: - set:" entry every net set failure adds.
 */
static int lnd_timeout_set(const struct ul_ctl_args *a)
{
	char descr[UL_CTL_STR_MAX];
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_cyaml_errs t;
	int rc;

	rc = ulnetctl_call(UL_CTL_OP_NET_SET, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	if (rc == 0) {
		rc = reply.rc;
		snprintf(descr, sizeof(descr), "%s", reply.err_msg);
		ul_ctl_reply_fini(&reply);
	} else {
		snprintf(descr, sizeof(descr), "%s", err.msg);
	}
	if (rc == 0)
		return 0;
	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, "set", "lnd_timeout", rc,
			 descr[0] ? descr : strerror(-rc));
	ul_cyaml_err_add(&t, "net", "set", rc, "");
	return rc;
}

/*
 * The NI of `net set --nid S`, as lnetctl and LNet take it: the net
 * after the '@' goes first ("net type"; no '@' is refused before
 * sending); a net LNet cannot name is LNET_NET_ANY, which LNet reads as
 * every NI; then LNet parses the NID and refuses it with "unsupported
 * NID". 0 with a->nid set (or nothing set: every NI), -EINVAL with the
 * errors printed.
 */
static int set_nid(const char *s, struct ul_ctl_args *a)
{
	const char *at = strchr(s, '@');
	uint32_t net;

	if (!at)
		return net_set_failed(-EINVAL, "");
	if (ulnet_net_parse(at + 1, &net, NULL, 0) || net == ULNET_NET_ANY)
		return 0;
	if (ulnet_net_type(net) == ULNET_LND_LO) {
		/* ulnetd refuses it, as LNet refuses any request on lo. */
		memset(&a->nid, 0, sizeof(a->nid));
		a->nid.nid_type = ULNET_LND_LO;
	} else if (ulnet_nid_parse(s, &a->nid, NULL, 0)) {
		ulnetctl_d1("set", "net", -EINVAL, "unsupported NID");
		return net_set_failed(-EINVAL, "");
	}
	a->has |= UL_CTL_ARG_NID;
	return 0;
}

static int net_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "net", required_argument, NULL, 'i' },
		{ "lnd-timeout", required_argument, NULL, 'l' },
		{ "conns-per-peer", required_argument, NULL, 'm' },
		{ "nid", required_argument, NULL, 'n' },
		{ "state", required_argument, NULL, 's' },
		{ "health", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	const char *nidstr = NULL;
	int opt, rc = 0, cpp = -1;
	char descr[LNET_MAX_STR_LEN]; /* lnetctl's err_str: cut at 127 */
	uint32_t net;
	long v, health = -1;

	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "ai:l:m:n:s:t:", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'a':
			a->flags |= UL_CTL_ARGF_ALL;
			break;
		case 'i':
			if (ulnet_net_parse(optarg, &net, NULL, 0) ||
			    net == ULNET_NET_ANY) {
				snprintf(descr, sizeof(descr),
					 "\"Invalid network type: %s\"",
					 optarg);
				rc = net_set_failed(-EINVAL, descr);
				goto out;
			}
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'l':
			v = strtol(optarg, NULL, 10); /* atoi, as lnetctl */
			if (v < 0) {
				snprintf(descr, sizeof(descr),
					 "\"Invalid LND timeout value '%s', "
					 "must be >= 0\"",
					 optarg);
				rc = net_set_failed(-EINVAL, descr);
				goto out;
			}
			a->lnd_timeout = (int32_t)v;
			a->has |= UL_CTL_ARG_LND_TIMEOUT;
			break;
		case 'm':
			if (!cpp_arg(optarg, &cpp)) {
				rc = net_set_failed(-1, CPP_INVALID);
				goto out;
			}
			break;
		case 'n':
			nidstr = optarg;
			break;
		case 's':
			break; /* lnetctl reads --state for peer set only */
		case 't':
			/* Unparsable: lnetctl's "unset", -1. */
			if (!ulnetctl_parse_long(optarg, &health))
				health = -1;
			break;
		default:
			rc = net_set_failed(-EINVAL, "\"Invalid option or "
						     "missing argument\"");
			goto out;
		}
	}
	if ((a->has & UL_CTL_ARG_LND_TIMEOUT) && !(a->has & UL_CTL_ARG_NET)) {
		rc = net_set_failed(-EINVAL, "\"Specified --lnd-timeout "
					     "without --net option\"");
		goto out;
	}
	/* lnetctl's order of checks: --all with --nid, then the timeout. */
	if (nidstr && (a->flags & UL_CTL_ARGF_ALL)) {
		rc = net_set_failed(-EINVAL, "");
		goto out;
	}
	if (a->has & UL_CTL_ARG_LND_TIMEOUT) {
		rc = lnd_timeout_set(a);
		goto out;
	}
	/*
	 * Both travel as ints: -1 is "not given". A health below 0 is not
	 * sent; any other --conns-per-peer sends the LND tunables, which
	 * name a count only above 0 and always carry ToS 0 (§6.4).
	 */
	if (cpp == -1 && (int)health == -1)
		goto out;
	if ((int)health >= 0) {
		a->health = (int32_t)health;
		a->has |= UL_CTL_ARG_HEALTH;
	}
	if (cpp != -1) {
		a->conns_per_peer = cpp;
		a->has |= UL_CTL_ARG_CONNS_PER_PEER;
	}
	if (nidstr) {
		rc = set_nid(nidstr, a);
		if (rc)
			goto out;
	}
	rc = ulnetctl_do(UL_CTL_OP_NET_SET, a, "set", "net", -1);
	if (rc)
		rc = net_set_failed(-EINVAL, "");
out:
	free(a);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_net_cmds[] = {
	{ "add", net_add, NULL,
	  "add local NIs\n"
	  "\t--net: the network (e.g. tcp1)\n"
	  "\t--if: interfaces, each optionally with CPTs: eth0[0,1],eth1\n"
	  "\t--nid: NIDs of the NIs, instead of --net and --if\n"
	  "\t--ip2net: an ip2nets rule string, matched against this "
	  "namespace's interfaces\n"
	  "\t--peer-timeout: seconds before an idle peer counts as dead\n"
	  "\t--peer-credits: credits toward one peer\n"
	  "\t--peer-buffer-credits: router buffer credits per peer\n"
	  "\t--credits: transmit credits of each NI\n"
	  "\t--cpt: CPTs for interfaces without their own, e.g. [0,1]\n"
	  "\t--conns-per-peer: bulk connection pairs per peer (0-127; "
	  "0: from the link speed)\n"
	  "\t--tos: IP type of service, -1 for the LND's default\n"
	  "\t--skip-mr-route-setup: accepted, no effect: ulnetd sets up "
	  "Multi-Rail routes\n\t  itself unless started with --param "
	  "ksocklnd.skip_mr_route_setup=1\n\t  (-k takes a value)\n"
	  "\t--auth-key: kfi only\n"
	  "\t--traffic-class: kfi only\n" },
	{ "del", net_del, NULL,
	  "delete a network, or some of its NIs\n"
	  "\t--net: the network\n"
	  "\t--if: interfaces whose NIs go\n"
	  "\t--nid: NIDs of the NIs that go, instead of --net\n" },
	{ "show", net_show, NULL,
	  "show local networks\n"
	  "\t--net: net name (e.g. tcp0) to filter on\n"
	  "\t--verbose: display detailed output per network. Optional "
	  "argument of '2' outputs more stats\n" },
	{ "set", net_set, NULL,
	  "set local NI parameters\n"
	  "\t--nid: the NI\n"
	  "\t--all: every local NI\n"
	  "\t--health: health value to set\n"
	  "\t--conns-per-peer: bulk connection pairs per peer (0-127)\n"
	  "\t--net: the network whose LND timeout is set\n"
	  "\t--lnd-timeout: LND timeout in seconds, 0 for lnd_timeout\n" },
	{ NULL, NULL, NULL, NULL },
};
