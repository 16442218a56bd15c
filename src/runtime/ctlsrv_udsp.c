/* PLACEHOLDER being replaced in this session: udsp handlers. */
#include <errno.h>

#include "runtime/ctlsrv_int.h"
#include "util/err.h"

int ul_ctlsrv_udsp_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_udsp_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_udsp_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}
