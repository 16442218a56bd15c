/*
 * selftest's own loopback nodes (selftest.h): a member "local:N" of a
 * group is a node selftest runs inside ulnetctl for the length of the
 * command, as ulnetd would run it (the library's instance, a control
 * server on a socket in a temporary directory, the perf sink), so that
 * a batch can be tried on one machine without any daemon. Node N has
 * `--local-rails` tcp NIs, 127.2.R.N@tcp for rail R, and every local
 * node listens on one unprivileged port with accept=all (no root).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/ctlsrv.h"
#include "runtime/instance.h"
#include "runtime/perf.h"
#include "ulnet/ulnet.h"

#include "selftest.h"

struct st_local {
	struct ulnet *u;
	struct ul_ctlsrv *srv;
};

/* lnet.conf of local node idx: rails NIs on 127.2.<rail>.<idx>. */
static void local_conf(unsigned int idx, unsigned int rails, char *buf,
		       size_t len)
{
	size_t off;
	unsigned int r;

	off = (size_t)snprintf(buf, len,
			       "net:\n  - net type: tcp\n    local NI(s):\n");
	for (r = 1; r <= rails && off < len; r++)
		off += (size_t)snprintf(buf + off, len - off,
					"      - nid: 127.2.%u.%u@tcp\n", r,
					idx);
}

static void local_stop(struct st_local *l)
{
	if (l->u)
		ulnet_stop(l->u);
	if (l->srv)
		ul_ctlsrv_destroy(l->srv);
	ulnet_destroy(l->u);
	memset(l, 0, sizeof(*l));
}

/* Start local node idx with its control socket at path. */
static int local_start(struct st_local *l, unsigned int idx, unsigned int rails,
		       uint16_t port, const char *path, char *err,
		       size_t errlen)
{
	char conf[ST_LOCAL_RAILS_MAX * 48 + 64];
	struct ul_perf_sink *sink = NULL;
	struct ulnet_opts opts;
	int rc;

	memset(l, 0, sizeof(*l));
	local_conf(idx, rails, conf, sizeof(conf));
	ulnet_opts_init(&opts);
	opts.conf_text = conf;
	opts.accept_port = port;
	opts.accept = ULNET_ACCEPT_ALL;
	opts.src_port = ULNET_SRC_PORT_ANY;
	opts.is_link_monitor_off = true;
	rc = ulnet_create(&opts, &l->u, err, errlen);
	if (rc < 0)
		return rc;
	rc = ul_ctlsrv_create(ul_instance_loop(l->u), ul_instance_node(l->u),
			      path, ul_instance_log(l->u), &l->srv);
	if (rc == 0) {
		ul_ctlsrv_set_udsp(l->srv, ul_instance_udsp(l->u));
		rc = ul_perf_sink_create(ul_instance_node(l->u), &sink);
	}
	if (rc == 0) {
		ul_ctlsrv_set_perf_sink(l->srv, sink);
		rc = ulnet_start(l->u);
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", ulnet_strerror(rc));
		local_stop(l);
	}
	return rc;
}

int st_local_start(struct st_batch *b)
{
	const char *tmpdir = getenv("TMPDIR");
	char err[256] = "";
	size_t i;
	int rc;

	if (!b->nlocal)
		return 0;
	if (!tmpdir || !tmpdir[0])
		tmpdir = "/tmp";
	snprintf(b->local_dir, sizeof(b->local_dir), "%s/ulnet-selftest-XXXXXX",
		 tmpdir);
	if (!mkdtemp(b->local_dir)) {
		b->local_dir[0] = '\0';
		return -errno;
	}
	b->locals = calloc(b->nlocal, sizeof(*b->locals));
	if (!b->locals)
		return -ENOMEM;
	/* One port for all, as ulnetds on one host share LNet's. */
	b->local_port = (uint16_t)(20000 + getpid() % 20000);
	for (i = 0; i < b->nnodes; i++) {
		struct st_node *nd = &b->nodes[i];
		size_t n;

		if (!nd->local_idx)
			continue;
		n = strlen(b->local_dir) + 32;
		nd->ctl = malloc(n);
		if (!nd->ctl)
			return -ENOMEM;
		snprintf(nd->ctl, n, "%s/local-%u.ctl", b->local_dir,
			 nd->local_idx);
		rc = local_start(&b->locals[nd->local_idx - 1], nd->local_idx,
				 b->local_rails, b->local_port, nd->ctl, err,
				 sizeof(err));
		if (rc < 0) {
			snprintf(b->local_err, sizeof(b->local_err),
				 "local node %u: %s", nd->local_idx, err);
			return rc;
		}
	}
	return 0;
}

void st_local_stop(struct st_batch *b)
{
	size_t i;

	for (i = 0; b->locals && i < b->nlocal; i++)
		if (b->locals[i].u)
			local_stop(&b->locals[i]);
	free(b->locals);
	b->locals = NULL;
	if (b->local_dir[0])
		rmdir(b->local_dir);
}
