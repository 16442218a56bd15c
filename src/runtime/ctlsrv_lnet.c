/* PLACEHOLDER being replaced in this session: lnet handlers. */
#include <errno.h>

#include "runtime/ctlsrv_int.h"
#include "util/err.h"

int ul_ctlsrv_lnet_configure(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_lnet_unconfigure(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_debug_recovery(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_debug_peer(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_cpt_of_nid(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}
