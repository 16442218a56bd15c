/*
 * ulnetctl net show (reference/lnetctl.md §6.3) over the control socket;
 * and the verbosity option shared with peer show. The other net verbs
 * (add, del, set) come with their control ops.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/cyaml_err.h"
#include "ctl/show_yaml.h"
#include "nid/expr.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* lnetctl's bound on a string option (its LNET_MAX_STR_LEN). */
#define LNET_MAX_STR_LEN 128

uint32_t ulnetctl_verbose_arg(int argc, char **argv)
{
	char *end;
	long v;

	/*
	 * lnetctl: "-v" or "--verbose" alone is 1; "-v N" consumes the next
	 * word when it does not start with '-' (a non-number reads as 1);
	 * a value glued to the option ("--verbose=N", "-vN") reads as 1.
	 */
	if (optarg || optind >= argc || argv[optind][0] == '-')
		return 1;
	v = strtol(argv[optind++], &end, 0);
	if (*end || v < 0 || v > UINT32_MAX || end == argv[optind - 1])
		return 1;
	return (uint32_t)v;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:vh", opts, NULL)) != -1) {
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
	else if (ul_show_yaml_net(stdout, &reply, req.net_show.verbose))
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

/* Split "eth0[0,1],eth1" at the commas outside brackets into a->ifs. */
static int split_ifs(const char *list, struct ul_ctl_args *a)
{
	const char *p = list, *start = list;
	int depth = 0;

	for (;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if ((*p == ',' && depth == 0) || *p == '\0') {
			size_t len = (size_t)(p - start);

			if (depth || len == 0 || len >= UL_CTL_IFNAME_MAX ||
			    a->nifs == UL_CTL_ARGS_IFS_MAX)
				return -EINVAL;
			memcpy(a->ifs[a->nifs], start, len);
			a->ifs[a->nifs++][len] = '\0';
			start = p + 1;
		}
		if (*p == '\0')
			break;
	}
	a->has |= UL_CTL_ARG_IFS;
	return depth ? -EINVAL : 0;
}

/* A comma list of NIDs into a->nids. */
static int split_nids(const char *list, struct ul_ctl_args *a)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		if (a->nnids == UL_CTL_ARGS_NIDS_MAX ||
		    ulnet_nid_parse(tok, &a->nids[a->nnids], NULL, 0))
			rc = -EINVAL;
		else
			a->nnids++;
	}
	free(copy);
	if (!rc && a->nnids == 0)
		rc = -EINVAL;
	a->has |= UL_CTL_ARG_NIDS;
	return rc;
}

/* An int option read with lnetctl's strtol check; false if unparsable. */
static bool int_arg(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return !errno && end != s && !*end;
}

/* lnetctl's refusal of a --conns-per-peer value (add and set alike). */
#define CPP_INVALID "invalid conns-per-peer value (valid range 0-127)"

/*
 * --conns-per-peer: false for a value lnetctl refuses (unparsable, above
 * 127); a negative one is accepted and changes nothing (lnetctl.md §6.4).
 */
static bool cpp_arg(const char *s, struct ul_ctl_args *a)
{
	long v;

	if (!int_arg(s, &v) || v > 127)
		return false;
	if (v >= 0) {
		a->conns_per_peer = (int32_t)v;
		a->has |= UL_CTL_ARG_CONNS_PER_PEER;
	}
	return true;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifs = NULL, *nids = NULL, *ip2net = NULL;
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_expr *cpt = NULL;
	int opt, rc = 0;
	long v;

	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "a:b:c:i:km:n:p:r:s:t:T:", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'i':
			ifs = optarg;
			break;
		case 'N':
			nids = optarg;
			break;
		case 'p':
			ip2net = optarg;
			break;
		case 't':
			if (int_arg(optarg, &v) && v >= 0) {
				a->peer_timeout = (int32_t)v;
				a->has |= UL_CTL_ARG_PEER_TIMEOUT;
			}
			break;
		case 'c':
			if (int_arg(optarg, &v) && v > 0) {
				a->peer_credits = (int32_t)v;
				a->has |= UL_CTL_ARG_PEER_CREDITS;
			}
			break;
		case 'b':
			if (int_arg(optarg, &v) && v > 0) {
				a->peer_buffer_credits = (int32_t)v;
				a->has |= UL_CTL_ARG_PEER_BUF_CREDITS;
			}
			break;
		case 'r':
			if (int_arg(optarg, &v) && v > 0) {
				a->credits = (int32_t)v;
				a->has |= UL_CTL_ARG_CREDITS;
			}
			break;
		case 's':
			/* An unparsable CPT list is ignored, as lnetctl. */
			if (ul_conf_parse_cpt(optarg, &cpt, NULL) == 0 &&
			    strlen(optarg) < sizeof(a->cpt)) {
				snprintf(a->cpt, sizeof(a->cpt), "%s", optarg);
				a->has |= UL_CTL_ARG_CPT;
			}
			ul_expr_free(cpt);
			cpt = NULL;
			break;
		case 'm':
			if (!cpp_arg(optarg, a)) {
				rc = ni_add_failed(-1, CPP_INVALID);
				goto out;
			}
			break;
		case 'S':
			if (!int_arg(optarg, &v) || v < -1 || v > 255) {
				rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM,
						   "Invalid ToS argument");
				goto out;
			}
			a->tos = (int32_t)v;
			a->has |= UL_CTL_ARG_TOS;
			break;
		case 'k': /* no routing helper to skip (lnetctl-differences) */
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
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "add");
			goto out;
		}
	}
	if (ip2net) {
		rc = ulnetctl_net_add_ip2net(ip2net, a);
		goto out;
	}
	if (nids && (a->has & UL_CTL_ARG_NET)) {
		printf("--net is invalid with --nid option\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	if (nids && split_nids(nids, a)) {
		rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM, "bad NID list");
		goto out;
	}
	if (!nids && !(a->has & UL_CTL_ARG_NET)) {
		printf("missing mandatory parameters in NI config: "
		       "'network'\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	if (ifs && split_ifs(ifs, a)) {
		rc = ni_add_failed(ULNETCTL_RC_BAD_PARAM, "bad interface list");
		goto out;
	}
	if (!nids && !ifs) {
		printf("creating a local NI needs at least one interface\n");
		rc = ULNETCTL_RC_BAD_PARAM;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifs = NULL, *nids = NULL;
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int opt, rc = 0;

	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:i:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'i':
			ifs = optarg;
			break;
		case 'N':
			nids = optarg;
			break;
		default:
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "del");
			goto out;
		}
	}
	if (nids && (a->has & UL_CTL_ARG_NET)) {
		printf("--net is invalid with --nid option\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	if (nids && split_nids(nids, a)) {
		rc = ni_failed("del", ULNETCTL_RC_BAD_PARAM, "bad NID list");
		goto out;
	}
	if (!nids && !(a->has & UL_CTL_ARG_NET)) {
		printf("missing mandatory parameters in NI config: "
		       "'network'\n");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	/* lnetctl reports a bad list under "ni: - add:" here too. */
	if (ifs && split_ifs(ifs, a)) {
		rc = ni_failed("add", ULNETCTL_RC_BAD_PARAM,
			       "bad interface list");
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

static int net_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "net", required_argument, NULL, 'i' },
		{ "lnd-timeout", required_argument, NULL, 'l' },
		{ "conns-per-peer", required_argument, NULL, 'm' },
		{ "nid", required_argument, NULL, 'n' },
		{ "health", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	const char *nidstr = NULL;
	char descr[160];
	uint32_t net;
	int opt, rc = 0;
	long v;

	if (!a)
		return -ENOMEM;
	optind = 0;
	/* Quiet getopt: lnetctl prints only its own D2 entry here. */
	while ((opt = getopt_long(argc, argv, ":ai:l:m:n:t:", opts, NULL)) !=
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
			if (!cpp_arg(optarg, a)) {
				rc = net_set_failed(-1, CPP_INVALID);
				goto out;
			}
			break;
		case 'n':
			nidstr = optarg;
			break;
		case 't':
			/* Unparsable, or -1 (lnetctl's "unset"): ignored. */
			if (int_arg(optarg, &v) && v != -1 && v >= INT32_MIN &&
			    v <= INT32_MAX) {
				a->health = (int32_t)v;
				a->has |= UL_CTL_ARG_HEALTH;
			}
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
		a->has &= ~(UL_CTL_ARG_HEALTH | UL_CTL_ARG_CONNS_PER_PEER);
		rc = lnd_timeout_set(a);
		goto out;
	}
	if (!(a->has & (UL_CTL_ARG_HEALTH | UL_CTL_ARG_CONNS_PER_PEER)))
		goto out;
	if (nidstr) {
		if (ulnet_nid_parse(nidstr, &a->nid, NULL, 0)) {
			rc = net_set_failed(-EINVAL, "");
			goto out;
		}
		a->has |= UL_CTL_ARG_NID;
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
	  "\t--ip2net: an ip2nets rule string\n"
	  "\t--peer-timeout: seconds before an idle peer counts as dead\n"
	  "\t--peer-credits: credits toward one peer\n"
	  "\t--peer-buffer-credits: router buffer credits per peer\n"
	  "\t--credits: transmit credits of each NI\n"
	  "\t--cpt: CPTs for interfaces without their own, e.g. [0,1]\n"
	  "\t--conns-per-peer: bulk connection pairs per peer (0-127)\n"
	  "\t--tos: IP type of service, -1 for the LND's default\n"
	  "\t--skip-mr-route-setup: accepted; ulnet installs no routes\n"
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
