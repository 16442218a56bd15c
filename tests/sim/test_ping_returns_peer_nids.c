/*
 * Ping over the fabric: A pings B (three NIs on two nets) and the
 * callback runs once, later, with B's primary NID first and every NI of
 * B, up; a ping to a NID nobody has fails instead of hanging.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_sim.h"

#define SEC 1000000000ull
#define NI_STATUS_UP UL_WIRE_NI_STATUS_UP

static const char conf_a[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.1@tcp1\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

static const char conf_b[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.2@tcp\n"
			     "      - nid: 10.0.1.2@tcp\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.2@tcp1\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

struct ping_rec {
	int calls;
	int status;
	struct ulnet_ping_result res;
};

static void ping_cb(void *arg, int status, const struct ulnet_ping_result *res)
{
	struct ping_rec *pr = arg;

	pr->calls++;
	pr->status = status;
	if (status == 0)
		pr->res = *res;
}

static bool has_nid(const struct ulnet_ping_result *res, const char *s)
{
	struct ulnet_nid nid = sim_nid(s);

	for (size_t i = 0; i < res->nnis; i++)
		if (ulnet_nid_same(&res->nis[i].nid, &nid))
			return res->nis[i].status == NI_STATUS_UP;
	return false;
}

static void ping_returns_peer_nids(void **state)
{
	struct sim *sim = sim_create(1);
	struct sim_node *a = sim_node_add(sim, "a", conf_a);
	struct ulnet_process_id b_id = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id nobody = sim_pid("10.0.0.9@tcp");
	struct ping_rec pr = { 0 }, lost = { 0 };
	struct ulnet_nid prim = sim_nid("10.0.0.2@tcp");

	(void)state;
	sim_node_add(sim, "b", conf_b);
	assert_int_equal(ul_node_ping(a->node, NULL, &b_id, 2000, ping_cb, &pr),
			 0);
	assert_int_equal(
		ul_node_ping(a->node, NULL, &nobody, 2000, ping_cb, &lost), 0);
	/* Never from inside the call. */
	assert_int_equal(pr.calls, 0);
	assert_int_equal(lost.calls, 0);
	sim_run(sim, 5 * SEC);

	assert_int_equal(pr.calls, 1);
	assert_int_equal(pr.status, 0);
	for (size_t i = 0; i < pr.res.nnis; i++) {
		char buf[ULNET_NIDSTR_SIZE];

		print_message("ping reply NI %zu: %s status %#x\n", i,
			      ulnet_nid_format(&pr.res.nis[i].nid, buf,
					       sizeof(buf)),
			      pr.res.nis[i].status);
	}
	assert_true(ulnet_nid_same(&pr.res.primary.nid, &prim));
	assert_int_equal(pr.res.primary.pid, 12345);
	assert_int_equal(pr.res.nnis, 3);
	assert_int_equal(pr.res.nnis_total, 3);
	assert_true(has_nid(&pr.res, "10.0.0.2@tcp"));
	assert_true(has_nid(&pr.res, "10.0.1.2@tcp"));
	assert_true(has_nid(&pr.res, "10.1.0.2@tcp1"));
	/* Unknown NID on the fabric: an error, exactly once. */
	assert_int_equal(lost.calls, 1);
	print_message("ping nobody: %d\n", lost.status);
	assert_true(lost.status == -EHOSTUNREACH || lost.status == -ETIMEDOUT);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ping_returns_peer_nids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
