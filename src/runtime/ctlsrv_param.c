/*
 * `ulnetctl param get|set` (ulnet's own, in the place of the kernel's
 * /sys/module/{lnet,ksocklnd}/parameters): runtime/params.h has the table
 * and what a change reaches.
 */
#include <errno.h>

#include "core/core.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "runtime/params.h"
#include "util/err.h"

static void env_of(const struct ul_ctlsrv *srv, struct ul_params_env *env)
{
	env->node = srv->node;
	env->socklnd = srv->socklnd;
	env->loop = srv->loop;
}

static int find(const struct ul_ctl_args *a, struct ul_err *err)
{
	int i = ul_params_find(a->name);

	if (i < 0)
		return ul_err_set(err, -ENOENT,
				  "no such parameter: %s (ulnetctl param get "
				  "lists them)",
				  a->name);
	return i;
}

int ul_ctlsrv_param_get(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_params_env env;
	size_t i, n = ul_params_count();
	int64_t v;
	int one = -1;

	env_of(srv, &env);
	if (a->has & UL_CTL_ARG_NAME) {
		one = find(a, err);
		if (one < 0)
			return one;
	}
	ul_ctl_doc_map(doc, "param");
	for (i = 0; i < n; i++) {
		if (one >= 0 && i != (size_t)one)
			continue;
		/* A parameter whose owner is not here is left out. */
		if (ul_params_get(&env, i, &v) == 0)
			ul_ctl_doc_int(doc, ul_params_name(i), v);
		else if (one >= 0)
			return ul_err_set(err, -ENODEV, "%s: no socklnd here",
					  ul_params_name(i));
	}
	ul_ctl_doc_end(doc);
	return 0;
}

int ul_ctlsrv_param_set(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_params_env env;
	int64_t v;
	int i, rc;

	env_of(srv, &env);
	if (!(a->has & UL_CTL_ARG_NAME) || !(a->has & UL_CTL_ARG_VALUE))
		return ul_err_set(err, -EINVAL, "param set needs NAME=VALUE");
	i = find(a, err);
	if (i < 0)
		return i;
	rc = ul_params_set(&env, (size_t)i, a->value, true, err);
	if (rc)
		return rc;
	rc = ul_params_get(&env, (size_t)i, &v);
	if (rc)
		return ul_err_set(err, rc, "%s: cannot read it back",
				  ul_params_name((size_t)i));
	ul_ctl_doc_map(doc, "param");
	ul_ctl_doc_int(doc, ul_params_name((size_t)i), v);
	ul_ctl_doc_end(doc);
	return 0;
}
