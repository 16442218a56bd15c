/*
 * Perf streams for `ulnetctl perf put` and `ulnetctl selftest` (op
 * PERF_PUT, runtime/perf.h), and the counters selftest samples (op
 * SELFTEST_STAT). A stream answers its client when it ends; it outlives
 * a client that goes first (stopped, it drains and reports to nobody).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "runtime/perf.h"

/* struct ulnet_msg_stats index of each wire message type. */
enum { IDX_ACK = 0, IDX_PUT = 1, IDX_GET = 2, IDX_REPLY = 3 };

/*
 * The payload messages one local NI carried for a stream of op: PUTs
 * sent (write), REPLYs received (read), GETs sent (ping).
 */
static void op_counts(uint32_t op, const struct ulnet_msg_stats *s,
		      uint64_t *count, uint64_t *bytes)
{
	if (op == UL_PERF_OP_GET) {
		*count = s->recv_count[IDX_REPLY];
		*bytes = s->recv_bytes[IDX_REPLY];
	} else if (op == UL_PERF_OP_PING) {
		*count = s->send_count[IDX_GET];
		*bytes = s->send_bytes[IDX_GET];
	} else {
		*count = s->send_count[IDX_PUT];
		*bytes = s->send_bytes[IDX_PUT];
	}
}

/* What each rail carried since the stream started. */
static void perf_rails(struct ctl_perf *pf, struct ul_ctl_perf_rail *rails,
		       size_t *nrails)
{
	struct ulnet_ni_info now[UL_CTLSRV_PERF_RAILS_MAX];
	size_t n = 0, i, j, k = 0;
	uint64_t c0, b0;

	if (ul_node_ni_info(pf->node, now, UL_CTLSRV_PERF_RAILS_MAX, &n))
		n = 0;
	for (i = 0; i < n && i < UL_CTLSRV_PERF_RAILS_MAX; i++) {
		rails[k].nid = now[i].nid;
		op_counts(pf->op, &now[i].stats, &rails[k].puts,
			  &rails[k].bytes);
		for (j = 0; j < pf->nrails; j++) {
			if (memcmp(&pf->before[j].nid, &now[i].nid,
				   sizeof(now[i].nid)) == 0) {
				op_counts(pf->op, &pf->before[j].stats, &c0,
					  &b0);
				rails[k].puts -= c0;
				rails[k].bytes -= b0;
				break;
			}
		}
		k++;
	}
	*nrails = k;
}

static void perf_done(void *arg, const struct ul_perf_result *res)
{
	struct ul_ctl_perf_rail rails[UL_CTLSRV_PERF_RAILS_MAX];
	struct ctl_perf *pf = arg;
	struct ctl_client *c = pf->c;
	struct ul_ctl_reply r;
	size_t i;

	if (!c) {
		free(pf);
		return;
	}
	c->perf = NULL;
	/*
	 * The stream started, so it reports, even if every operation
	 * failed: the counts by status are the answer (ulnetctl's exit code
	 * says it).
	 */
	memset(&r, 0, sizeof(r));
	r.op = UL_CTL_OP_PERF_PUT;
	r.perf.puts = res->completed;
	r.perf.bytes = res->bytes;
	r.perf.failed = res->failed;
	r.perf.elapsed_ns = res->elapsed_ns;
	r.perf.started = res->started;
	r.perf.send_ns = res->send_ns;
	r.perf.send_bytes = res->send_bytes;
	r.perf.check_errors = res->check_errors;
	for (i = 0; i < res->nfails && i < UL_CTL_PERF_FAILS_MAX; i++) {
		r.perf.fails[i].status = res->fails[i].status;
		r.perf.fails[i].count = res->fails[i].count;
	}
	r.perf.nfails = i;
	perf_rails(pf, rails, &r.perf.nrails);
	r.perf.rails = rails;
	free(pf);
	ul_ctlsrv_client_send(c, &r, false);
}

void ul_ctlsrv_do_perf(struct ctl_client *c, const struct ul_ctl_perf_req *req)
{
	struct ul_perf_spec spec;
	struct ul_ctl_reply r;
	struct ctl_perf *pf;
	uint32_t i;
	int rc = -ENOMEM;

	memset(&spec, 0, sizeof(spec));
	spec.op = (enum ul_perf_op)req->op;
	spec.check = (enum ul_perf_check)req->check;
	spec.size = req->size;
	spec.duration_ns = (uint64_t)req->duration_ms * 1000000u;
	spec.inflight = req->inflight;
	spec.ntargets = req->ntargets;
	for (i = 0; i < req->ntargets && i < UL_PERF_TARGETS_MAX; i++) {
		spec.targets[i].nid = req->targets[i];
		spec.targets[i].pid = ULNET_PID_LUSTRE;
	}
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		goto fail;
	pf->c = c;
	pf->node = c->srv->node;
	pf->op = req->op;
	rc = ul_node_ni_info(pf->node, pf->before, UL_CTLSRV_PERF_RAILS_MAX,
			     &pf->nrails);
	if (rc)
		goto fail;
	if (pf->nrails > UL_CTLSRV_PERF_RAILS_MAX)
		pf->nrails = UL_CTLSRV_PERF_RAILS_MAX;
	rc = ul_perf_stream_start(pf->node, ul_loop_timers(c->srv->loop), &spec,
				  perf_done, pf, &pf->stream);
	if (rc)
		goto fail;
	c->perf = pf;
	return;
fail:
	free(pf);
	ul_ctl_reply_error(
		&r, UL_CTL_OP_PERF_PUT, rc,
		rc == -EINVAL ? "bad test, check, size, inflight or targets"
			      : "cannot start the perf stream");
	ul_ctlsrv_client_send(c, &r, false);
}

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

int ul_ctlsrv_selftest_stat(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			    struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ulnet_ni_info nis[UL_CTLSRV_PERF_RAILS_MAX];
	struct ul_perf_sink_stats ss;
	size_t n = 0, i;

	(void)a;
	(void)err;
	if (ul_node_ni_info(srv->node, nis, UL_CTLSRV_PERF_RAILS_MAX, &n))
		n = 0;
	if (n > UL_CTLSRV_PERF_RAILS_MAX)
		n = UL_CTLSRV_PERF_RAILS_MAX;
	ul_ctl_doc_map(doc, "selftest stat");
	ul_ctl_doc_seq(doc, "rails");
	for (i = 0; i < n; i++) {
		const struct ulnet_msg_stats *s = &nis[i].stats;

		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_nid(doc, "nid", &nis[i].nid);
		ul_ctl_doc_str(doc, "status", nis[i].is_up ? "up" : "down");
		ul_ctl_doc_uint(doc, "send_count", sum4(s->send_count));
		ul_ctl_doc_uint(doc, "send_bytes", sum4(s->send_bytes));
		ul_ctl_doc_uint(doc, "recv_count", sum4(s->recv_count));
		ul_ctl_doc_uint(doc, "recv_bytes", sum4(s->recv_bytes));
		ul_ctl_doc_uint(doc, "drop_count", sum4(s->drop_count));
		ul_ctl_doc_end(doc);
	}
	ul_ctl_doc_end(doc);
	if (srv->sink) {
		ul_perf_sink_stats(srv->sink, &ss);
		ul_ctl_doc_map(doc, "sink");
		ul_ctl_doc_uint(doc, "puts", ss.puts);
		ul_ctl_doc_uint(doc, "put_bytes", ss.put_bytes);
		ul_ctl_doc_uint(doc, "gets", ss.gets);
		ul_ctl_doc_uint(doc, "get_bytes", ss.get_bytes);
		ul_ctl_doc_uint(doc, "checked", ss.checked);
		ul_ctl_doc_uint(doc, "check_errors", ss.check_errors);
		ul_ctl_doc_end(doc);
	}
	ul_ctl_doc_end(doc);
	return 0;
}
