/*
 * ulnetctl peer add / del / show / list / set (reference/lnetctl.md §7)
 * over the control socket. NID range lists are expanded here (§4.3), as
 * lnetctl expands them before it sends anything.
 */
#include <arpa/inet.h>
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
#include "nid/nidrange.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

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
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hn:v::", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (ulnet_nid_parse(optarg, &req.peer_show.nid, NULL,
					    0))
				return ulnetctl_show_failed("peer", -EINVAL,
							    "invalid NID");
			req.peer_show.has_nid = true;
			break;
		case 'v':
			req.peer_show.verbose =
				ulnetctl_verbose_arg(argc, argv);
			break;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "show");
			return 0;
		}
	}
	rc = ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_show_failed("peer", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_show_failed("peer", reply.rc, reply.err_msg);
	else if (ul_show_yaml_peer(stdout, &reply, req.peer_show.verbose))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The NID a list item (len bytes at item) names by host name
 * ("myhost@tcp"), as lnetctl's libcfs_strnid() reads one: an item without
 * brackets on an IP net whose address part starts with a letter
 * (libcfs_ip_str2addr_size: "1@tcp" or "010.1.1.1@tcp" is no host name)
 * and resolves to an IPv4 address, which is taken as it comes, the
 * loopback address too (LNet refuses 127.0.0.1 only when it is typed).
 * 0 and *nid, or -ENOENT: not a host name, the expansion reads the item.
 */
static int item_host(const char *item, size_t len, struct ulnet_nid *nid)
{
	struct addrinfo hints = { .ai_family = AF_INET };
	char host[NI_MAXHOST], netstr[UL_CTL_NET_NAME_MAX];
	const char *at = memchr(item, '@', len);
	const struct ul_lnd_info *lnd;
	struct addrinfo *res;
	size_t hlen, nlen;
	uint32_t net;

	if (!at || memchr(item, '[', len) || !is_letter(item[0]))
		return -ENOENT;
	hlen = (size_t)(at - item);
	nlen = len - hlen - 1;
	if (hlen >= sizeof(host) || memchr(item, ':', hlen) || nlen == 0 ||
	    nlen >= sizeof(netstr))
		return -ENOENT;
	memcpy(netstr, at + 1, nlen);
	netstr[nlen] = '\0';
	if (ulnet_net_parse(netstr, &net, NULL, 0))
		return -ENOENT;
	lnd = ul_lnd_by_type(ulnet_net_type(net));
	if (!lnd || !ul_lnd_is_ip(lnd))
		return -ENOENT;
	memcpy(host, item, hlen);
	host[hlen] = '\0';
	if (getaddrinfo(host, NULL, &hints, &res))
		return -ENOENT;
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)ulnet_net_type(net);
	nid->nid_num = (uint16_t)ulnet_net_num(net);
	nid->nid_addr[0] =
		ntohl(((const struct sockaddr_in *)(void *)res->ai_addr)
			      ->sin_addr.s_addr);
	freeaddrinfo(res);
	return 0;
}

/* Expand the run of items in buf (run bytes) onto out[*n..max). */
static int flush_run(char *buf, size_t *run, struct ulnet_nid *out, size_t max,
		     size_t *n, struct ul_err *err)
{
	size_t got;
	int rc;

	if (*run == 0)
		return 0;
	buf[*run] = '\0';
	rc = ul_nidrange_expand(buf, out + *n, max - *n, &got, err);
	if (rc)
		return rc;
	*n += got;
	*run = 0;
	return 0;
}

int ulnetctl_nidlist_expand(const char *list, struct ulnet_nid *out, size_t max,
			    size_t *count, struct ul_err *err)
{
	size_t len = strlen(list), i, start = 0, run = 0, n = 0;
	struct ulnet_nid nid;
	int depth = 0, rc = 0;
	char *buf;

	/*
	 * The items between host names are expanded together, as one list,
	 * so that their errors are the expansion's; a host name's NID goes
	 * in between, in list order.
	 */
	buf = malloc(len + 1);
	if (!buf)
		return ul_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i <= len && !rc; i++) {
		if (list[i] == '[')
			depth++;
		else if (list[i] == ']')
			depth--;
		if (list[i] != '\0' && (list[i] != ',' || depth > 0))
			continue;
		if (item_host(list + start, i - start, &nid) == 0) {
			rc = flush_run(buf, &run, out, max, &n, err);
			if (!rc && n >= max)
				rc = ul_err_set(err, -E2BIG,
						"Unable to parse nidlist: "
						"specifies more NIDs than "
						"allowed");
			if (!rc)
				out[n++] = nid;
		} else {
			if (run)
				buf[run++] = ',';
			memcpy(buf + run, list + start, i - start);
			run += i - start;
		}
		start = i + 1;
	}
	if (!rc)
		rc = flush_run(buf, &run, out, max, &n, err);
	free(buf);
	if (!rc)
		*count = n;
	return rc;
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

static int peer_add(int argc, char **argv)
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
	const char *list = NULL;
	struct ul_ctl_args *a;
	int opt, rc;

	if (argc < 2) {
		ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "add");
		return ULNETCTL_RC_BAD_PARAM;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	optind = 0;
	rc = 0;
	while ((opt = getopt_long(argc, argv, "k:n:mlfh", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			if (ulnet_nid_parse(optarg, &a->nid, NULL, 0)) {
				rc = ulnetctl_d1("add", "peer", -EINVAL,
						 "unsupported primary NID");
				goto out;
			}
			a->has |= UL_CTL_ARG_NID;
			break;
		case 'n':
			list = optarg;
			break;
		case 'm':
			a->flags |= UL_CTL_ARGF_NON_MR;
			break;
		case 'l':
		case 'f': /* lnetctl.md §7.1 Quirk: --force locks too */
			a->flags |= UL_CTL_ARGF_LOCK_PRIM;
			break;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "add");
			goto out;
		}
	}
	if (list) {
		rc = peer_nids(list, "add", a);
		if (rc)
			goto out;
	}
	rc = ulnetctl_do(UL_CTL_OP_PEER_ADD, a, "add", "peer", -1);
out:
	free(a);
	return rc;
}

static int peer_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prim_nid", required_argument, NULL, 'k' },
		{ "nid", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "lock_prim", no_argument, NULL, 'l' },
		{ "non_mr", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_cyaml_errs t;
	const char *list = NULL;
	struct ul_ctl_args *a;
	int opt, rc = 0;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "k:n:flmh", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			if (ulnet_nid_parse(optarg, &a->nid, NULL, 0)) {
				rc = ulnetctl_d1("del", "peer", -EINVAL,
						 "unsupported primary NID");
				goto out;
			}
			a->has |= UL_CTL_ARG_NID;
			break;
		case 'n':
			list = optarg;
			break;
		case 'f':
		case 'l': /* lnetctl.md §7.2 Quirk: --lock_prim forces */
			a->flags |= UL_CTL_ARGF_FORCE;
			break;
		case 'm':
			ul_cyaml_errs_init(&t, stderr);
			ul_cyaml_err_add(&t, "peer", "del", -EINVAL,
					 "Unrecognized option '-m'");
			rc = ULNETCTL_RC_BAD_PARAM;
			goto out;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "del");
			goto out;
		}
	}
	if (list) {
		rc = peer_nids(list, "del", a);
		if (rc)
			goto out;
	}
	rc = ulnetctl_do(UL_CTL_OP_PEER_DEL, a, "del", "peer", -1);
out:
	free(a);
	return rc;
}

static int peer_list(int argc, char **argv)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	(void)argc;
	(void)argv;
	if (!a)
		return -ENOMEM;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool has_net = false, has_lnd_timeout = false;
	struct ul_ctl_args *a;
	char *end;
	long v;
	int opt, rc = 0;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":n:at:s:m:l:i:h", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'n':
			if (ulnet_nid_parse(optarg, &a->nid, NULL, 0)) {
				rc = peer_set_failed("");
				goto out;
			}
			a->has |= UL_CTL_ARG_NID;
			break;
		case 'a':
			a->flags |= UL_CTL_ARGF_ALL;
			break;
		case 't':
			v = strtol(optarg, &end, 0);
			if (*end || end == optarg)
				break; /* unparsable: ignored (§6.4) */
			a->health = (int32_t)v;
			a->has |= UL_CTL_ARG_HEALTH;
			break;
		case 's':
			v = strtol(optarg, &end, 0);
			/* Unparsable or -1 means "no --state" to lnetctl. */
			if (*end || end == optarg || v == -1)
				break;
			a->state = (uint32_t)v;
			a->has |= UL_CTL_ARG_STATE;
			break;
		case 'm':
			break; /* accepted, no effect on peers (§7.5) */
		case 'l':
			has_lnd_timeout = true;
			break;
		case 'i':
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
	if ((a->has & UL_CTL_ARG_NID) && (a->flags & UL_CTL_ARGF_ALL)) {
		rc = peer_set_failed("");
		goto out;
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
	  "\t--lock_prim: lock the primary NID\n" },
	{ "del", peer_del, NULL,
	  "delete a peer, or some of its NIDs\n"
	  "\t--prim_nid: the peer's primary NID\n"
	  "\t--nid: NIDs to delete, a NID range list\n"
	  "\t--force: delete a peer whose primary NID is locked\n" },
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
	  "\t--state: the peer's state bits (debugging only)\n" },
	{ NULL, NULL, NULL, NULL },
};
