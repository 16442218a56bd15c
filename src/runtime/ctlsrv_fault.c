/* PLACEHOLDER being replaced in this session: fault handlers. */
#include <errno.h>

#include "runtime/ctlsrv_int.h"
#include "util/err.h"

int ul_ctlsrv_faults_create(struct ul_fault_set **out)
{
	*out = NULL;
	return 0;
}

void ul_ctlsrv_faults_destroy(struct ul_fault_set *set)
{
	(void)set;
}

void ul_ctlsrv_faults_clear(struct ul_fault_set *set)
{
	(void)set;
}

int ul_ctlsrv_fault_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_fault_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_fault_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}

int ul_ctlsrv_fault_reset(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)srv;
	(void)a;
	(void)doc;
	return ul_err_set(err, -EOPNOTSUPP, "not implemented");
}
