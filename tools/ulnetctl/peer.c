/*
 * ulnetctl peer add / del / show / list / set (reference/lnetctl.md §7)
 * over the control socket. NID range lists are expanded here (§4.3), as
 * lnetctl expands them before it sends anything.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "nid/lnd.h"
#include "nid/nidlist.h"
#include "nid/nidrange.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/*
 * The whole table, page by page (proto.h, CURSOR), each page printed as
 * it is walked: 100,000 peers at any verbose level, in memory one page
 * at a time. A failure after the first page ends the list where it got
 * to, with the error after it, as lnetctl's dump does.
 */
static int peer_show_pages(const struct ul_ctl_peer_show_req *show)
{
	struct ul_ctl_req req = { 0 };
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_doc_pages pages;
	int rc = 0, out_rc = 0;

	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show = *show;
	req.peer_show.has_cursor = true;
	ul_doc_pages_init(&pages, stdout, UL_DOC_A);
	for (;;) {
		rc = ulnetctl_ctl_call_raw(&req, ULNETCTL_CTL_TIMEOUT_MS,
					   &reply, &err);
		if (rc)
			break;
		if (reply.rc) {
			rc = ul_err_set(&err, reply.rc, "%s", reply.err_msg);
			ul_ctl_reply_fini(&reply);
			break;
		}
		out_rc = ul_doc_pages_print(&pages, reply.doc_raw,
					    reply.doc_raw_len);
		if (!out_rc && reply.has_cursor &&
		    reply.cursor <= req.peer_show.cursor)
			rc = ul_err_set(&err, -EPROTO,
					"bad reply from ulnetd at %s: page "
					"cursor %u after %u",
					ulnetctl_ctl_path(), reply.cursor,
					req.peer_show.cursor);
		if (rc || out_rc || !reply.has_cursor) {
			ul_ctl_reply_fini(&reply);
			break;
		}
		req.peer_show.cursor = reply.cursor;
		ul_ctl_reply_fini(&reply);
	}
	if (ul_doc_pages_close(&pages) && !out_rc)
		out_rc = -EIO;
	if (rc)
		return ulnetctl_show_failed("peer", rc, err.msg);
	return out_rc ? -EIO : 0;
}

static int peer_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nid", required_argument, NULL, 'n' },
		{ "verbose", optional_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hn:v::", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			/* LNet parses it (lnetctl sends the string). */
			if (ul_nid_parse_lnet(optarg, &req.peer_show.nid))
				return ulnetctl_show_failed("peer", -EINVAL,
							    "invalid NID");
			req.peer_show.has_nid = true;
			break;
		case 'v':
			req.peer_show.verbose =
				ulnetctl_verbose_arg(argc, argv);
			break;
		case 'h':
			/* lnetctl takes -h among other options and has no
			 * case for it: nothing is shown, status 0. */
			return 0;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "show");
			return 0;
		}
	}
	if (!req.peer_show.has_nid)
		return peer_show_pages(&req.peer_show);
	rc = ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_show_failed("peer", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_show_failed("peer", reply.rc, reply.err_msg);
	else if (ul_doc_print(stdout, reply.doc, UL_DOC_A))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* LNDs whose addresses are IPv4 addresses, which may be host names. */
static bool lnd_has_hostnames(unsigned int lnd)
{
	return lnd == ULNET_LND_SOCK || lnd == ULNET_LND_O2IB ||
	       lnd == ULNET_LND_GNIIP || lnd == ULNET_LND_EFA;
}

/*
 * The NID of one list item (len bytes, no brackets) written with a host
 * name, as lnetctl's parser takes one: an item that is no NID, on an IP
 * net, whose address starts with a letter, becomes the host's first IPv4
 * address. The loopback address is fine here: lnetctl refuses it only
 * when it is written as a number. false when the item is not such a
 * name or the name does not resolve (the expansion then refuses it).
 */
static bool item_host_nid(const char *item, size_t len, struct ulnet_nid *out)
{
	struct addrinfo hints = { .ai_family = AF_INET };
	char text[NI_MAXHOST + ULNET_NIDSTR_SIZE];
	const struct sockaddr_in *sin;
	struct addrinfo *res;
	size_t hlen;
	uint32_t net;
	char *at;

	if (len >= sizeof(text) || memchr(item, '[', len))
		return false;
	memcpy(text, item, len);
	text[len] = '\0';
	at = strrchr(text, '@');
	if (!at || !ulnet_nid_parse(text, out, NULL, 0))
		return false;
	hlen = (size_t)(at - text);
	if (hlen == 0 || hlen >= NI_MAXHOST || !isalpha((unsigned char)text[0]))
		return false;
	if (ulnet_net_parse(at + 1, &net, NULL, 0) ||
	    !lnd_has_hostnames(ulnet_net_type(net)))
		return false;
	*at = '\0';
	if (getaddrinfo(text, NULL, &hints, &res))
		return false;
	sin = (const struct sockaddr_in *)(const void *)res->ai_addr;
	memset(out, 0, sizeof(*out));
	out->nid_type = (uint8_t)ulnet_net_type(net);
	out->nid_num = (uint16_t)ulnet_net_num(net);
	out->nid_addr[0] = ntohl(sin->sin_addr.s_addr);
	freeaddrinfo(res);
	return true;
}

/*
 * Expand the items list[0..len) (no host names among them) after the
 * *n NIDs already in out. A run without any '@' is one bad item to
 * lnetctl, not a list without NIDs: the whole-list checks came first.
 */
static int expand_run(const char *list, size_t len, struct ulnet_nid *out,
		      size_t max, size_t *n, struct ul_err *err)
{
	size_t got = 0;
	char *run;
	int rc;

	if (!memchr(list, '@', len))
		return ul_err_set(err, -EINVAL, "%s",
				  "\"Unable to parse nidlist: invalid NID in "
				  "nidstr\"");
	run = strndup(list, len);
	if (!run)
		return ul_err_set(err, -ENOMEM, "out of memory");
	rc = ul_nidrange_expand(run, out + *n, max - *n, &got, err);
	free(run);
	if (rc == 0)
		*n += got;
	return rc;
}

int ulnetctl_nidlist_expand(const char *list, struct ulnet_nid *out, size_t max,
			    size_t *count, struct ul_err *err)
{
	size_t len = strlen(list), n = 0, i, item = 0, run = 0;
	struct ulnet_nid nid;
	int depth = 0, rc;

	/* lnetctl's checks of the whole list come before any item. */
	if (len > UL_NIDLIST_MAX_LEN || strchr(list, '*') ||
	    strstr(list, "<?>") || !strchr(list, '@'))
		return ul_nidrange_expand(list, NULL, 0, count, err);
	for (i = 0; i <= len; i++) {
		if (i < len && list[i] == '[')
			depth++;
		else if (i < len && list[i] == ']' && depth)
			depth--;
		if (i < len && (list[i] != ',' || depth))
			continue;
		/* A host name item ends the run of items before it. */
		if (item_host_nid(list + item, i - item, &nid)) {
			if (item > run) {
				rc = expand_run(list + run, item - run - 1, out,
						max, &n, err);
				if (rc)
					return rc;
			}
			if (n >= max)
				return ul_err_set(err, -E2BIG, "%s",
						  "Unable to parse nidlist: "
						  "specifies more NIDs than "
						  "allowed");
			out[n++] = nid;
			run = i + 1;
		}
		item = i + 1;
	}
	if (run <= len) {
		rc = expand_run(list + run, len - run, out, max, &n, err);
		if (rc)
			return rc;
	}
	*count = n;
	return 0;
}

/* peer add/del accept at most this many NIDs in --nid (§4.3). */
#define PEER_NIDS_MAX UL_NIDRANGE_MAX_PER_PEER

/*
 * Expand a --nid list into a->nids. On failure print lnetctl's two lines
 * (stdout, then D1 "<op>: - peer:") and return the status.
 */
static int peer_nids(const char *list, const char *op, struct ul_ctl_args *a)
{
	struct ul_err err = { 0 };
	size_t got = 0;
	int rc;

	rc = ulnetctl_nidlist_expand(list, a->nids, PEER_NIDS_MAX, &got, &err);
	if (rc) {
		printf("can't parse nidrange: \"%s\"\n", list);
		return ulnetctl_d1(op, "peer",
				   rc == -E2BIG || rc == -ENOENT ? rc : -EINVAL,
				   err.msg);
	}
	a->nnids = got;
	a->has |= UL_CTL_ARG_NIDS;
	return 0;
}

/*
 * The request of peer add/del once options are read, in lnetctl's order:
 * without a primary nothing is expanded and LNet answers "no
 * configuration"; with one, the --nid list is expanded first (its errors
 * come before any about the primary, which only LNet parses).
 */
static int peer_nid_request(const char *prim, const char *list, const char *op,
			    struct ul_ctl_args *a)
{
	if (prim && list) {
		int rc = peer_nids(list, op, a);

		if (rc)
			return rc;
	}
	if (prim) {
		if (ul_nid_parse_lnet(prim, &a->nid))
			return ulnetctl_d1(op, "peer", -EINVAL,
					   "unsupported primary NID");
		a->has |= UL_CTL_ARG_NID;
	}
	return ulnetctl_do(strcmp(op, "add") == 0 ? UL_CTL_OP_PEER_ADD
						  : UL_CTL_OP_PEER_DEL,
			   a, op, "peer", -1);
}

/* peer add and peer del (lnetctl's jt_peer_nid_common). */
static int peer_nid_cmd(int argc, char **argv, bool is_add)
{
	static const struct option opts[] = {
		{ "prim_nid", required_argument, NULL, 'k' },
		{ "nid", required_argument, NULL, 'n' },
		{ "non_mr", no_argument, NULL, 'm' },
		{ "lock_prim", no_argument, NULL, 'l' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *verb = is_add ? "add" : "del";
	const char *prim = NULL, *list = NULL;
	struct ul_cyaml_errs t;
	struct ul_ctl_args *a;
	int opt, rc = 0;

	/* lnetctl's check_cmd(..., 2, ...): no option is the help, 234. */
	if (argc < 2) {
		ulnetctl_print_help(ulnetctl_peer_cmds, "peer", verb);
		return ULNETCTL_RC_BAD_PARAM;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "k:n:mlfh", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			prim = optarg;
			break;
		case 'n':
			list = optarg;
			break;
		case 'm':
			if (is_add) {
				a->flags |= UL_CTL_ARGF_NON_MR;
				break;
			}
			ul_cyaml_errs_init(&t, stderr);
			ul_cyaml_err_add(&t, "peer", "del", -EINVAL,
					 "Unrecognized option '-m'");
			rc = ULNETCTL_RC_BAD_PARAM;
			goto out;
		case 'l':
		case 'f':
			/*
			 * lnetctl.md §7.1 and §7.2 Quirks: on add --force
			 * locks too, on del --lock_prim forces too.
			 */
			a->flags |= is_add ? UL_CTL_ARGF_LOCK_PRIM
					   : UL_CTL_ARGF_FORCE;
			break;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", verb);
			goto out;
		}
	}
	rc = peer_nid_request(prim, list, verb, a);
out:
	free(a);
	return rc;
}

static int peer_add(int argc, char **argv)
{
	return peer_nid_cmd(argc, argv, true);
}

static int peer_del(int argc, char **argv)
{
	return peer_nid_cmd(argc, argv, false);
}

static int peer_list(int argc, char **argv)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	(void)argv;
	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc); /* no options, as in lnetctl */
	rc = ulnetctl_do(UL_CTL_OP_PEER_LIST, a, "show", "peer", UL_DOC_A);
	free(a);
	return rc;
}

/* `net set` and `peer set` errors: D2 "net: - set:" (lnetctl.md §6.4). */
int ulnetctl_set_failed(const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, "net", "set", -1, descr ? descr : "");
	return ULNETCTL_RC_BAD_PARAM;
}

/*
 * `peer set` failure: the same D2 tree, with the errno lnetctl gives it
 * (LUSTRE_CFG_RC_BAD_PARAM, -EINVAL), exit 234.
 */
static int peer_set_failed(const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, "net", "set", -EINVAL, descr);
	return ULNETCTL_RC_BAD_PARAM;
}

static int peer_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nid", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "health", required_argument, NULL, 't' },
		{ "state", required_argument, NULL, 's' },
		{ "conns-per-peer", required_argument, NULL, 'm' },
		{ "lnd-timeout", required_argument, NULL, 'l' },
		{ "net", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	char descr[128]; /* lnetctl's err_str[LNET_MAX_STR_LEN]: cut at 127 */
	bool has_net = false, has_lnd_timeout = false;
	int opt, rc = 0, health = -1, state = -1;
	const char *nid = NULL;
	struct ul_ctl_args *a;
	uint32_t net;
	long v;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:at:s:m:l:i:", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'n':
			nid = optarg; /* LNet parses it (§6.4, §7.5) */
			break;
		case 'a':
			a->flags |= UL_CTL_ARGF_ALL;
			break;
		case 't':
			/*
			 * lnetctl keeps an int and sends it only when it is
			 * not negative; unparsable is -1 (§6.4, §7.5).
			 */
			health = ulnetctl_parse_long(optarg, &v) ? (int)v : -1;
			break;
		case 's':
			/* Unparsable or -1 (as an int) is "no --state". */
			state = ulnetctl_parse_long(optarg, &v) ? (int)v : -1;
			break;
		case 'm':
			break; /* accepted, no effect on peers (§7.5) */
		case 'l':
			/* checked as for net set, then unused (§7.5) */
			if ((int)strtol(optarg, NULL, 10) < 0) {
				snprintf(descr, sizeof(descr),
					 "\"Invalid LND timeout value '%s', "
					 "must be >= 0\"",
					 optarg);
				rc = peer_set_failed(descr);
				goto out;
			}
			has_lnd_timeout = true;
			break;
		case 'i':
			if (ulnet_net_parse(optarg, &net, NULL, 0) ||
			    net == ULNET_NET_ANY) {
				snprintf(descr, sizeof(descr),
					 "\"Invalid network type: %s\"",
					 optarg);
				rc = peer_set_failed(descr);
				goto out;
			}
			has_net = true;
			break;
		default:
			rc = peer_set_failed(
				"\"Invalid option or missing argument\"");
			goto out;
		}
	}
	if (has_lnd_timeout && !has_net) {
		rc = peer_set_failed(
			"\"Specified --lnd-timeout without --net option\"");
		goto out;
	}
	/* LNet refuses a NID it cannot parse: D1, then lnetctl's D2. */
	if (nid && ul_nid_parse_lnet(nid, &a->nid)) {
		ulnetctl_d1("set", "peer", -EINVAL, "unsupported primary NID");
		rc = peer_set_failed("");
		goto out;
	}
	if (nid)
		a->has |= UL_CTL_ARG_NID;
	if ((a->has & UL_CTL_ARG_NID) && (a->flags & UL_CTL_ARGF_ALL)) {
		rc = peer_set_failed("");
		goto out;
	}
	if (health >= 0) {
		a->health = health;
		a->has |= UL_CTL_ARG_HEALTH;
	}
	if (state != -1) {
		a->state = (uint32_t)state;
		a->has |= UL_CTL_ARG_STATE;
	}
	if (!(a->has & (UL_CTL_ARG_HEALTH | UL_CTL_ARG_STATE)))
		goto out;
	rc = ulnetctl_do(UL_CTL_OP_PEER_SET, a, "set", "peer", -1);
	if (rc)
		peer_set_failed("");
out:
	free(a);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_peer_cmds[] = {
	{ "add", peer_add, NULL,
	  "add a peer and its NIDs\n"
	  "\t--prim_nid: the peer's primary NID\n"
	  "\t--nid: more NIDs of the peer, a NID range list\n"
	  "\t--non_mr: the peer is not Multi-Rail\n"
	  "\t--lock_prim: lock the primary NID\n"
	  "\t--force: the same as --lock_prim here (lnetctl's quirk)\n" },
	{ "del", peer_del, NULL,
	  "delete a peer, or some of its NIDs\n"
	  "\t--prim_nid: the peer's primary NID\n"
	  "\t--nid: NIDs to delete, a NID range list\n"
	  "\t--force: delete a peer whose primary NID is locked\n"
	  "\t--lock_prim: the same as --force here (lnetctl's quirk)\n" },
	{ "show", peer_show, NULL,
	  "show peer information\n"
	  "\t--nid: NID of peer to filter on.\n"
	  "\t--verbose: display detailed output per peer. Optional "
	  "argument of '2' outputs more stats\n" },
	{ "list", peer_list, NULL, "list the primary NIDs of all peers\n" },
	{ "set", peer_set, NULL,
	  "set a peer NI's parameters\n"
	  "\t--nid: the peer NI\n"
	  "\t--all: every peer NI\n"
	  "\t--health: health value to set\n"
	  "\t--state: the peer's state bits (debugging only)\n"
	  "\t--conns-per-peer: accepted, changes nothing on peers\n"
	  "\t--lnd-timeout: checked as by net set, changes nothing on "
	  "peers\n"
	  "\t--net: checked as by net set, changes nothing on peers\n" },
	{ NULL, NULL, NULL, NULL },
};
