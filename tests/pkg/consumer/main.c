/*
 * A program that uses an installed ulnet as a site's would: headers from
 * <ulnet/...>, the library from pkg-config or find_package(ulnet). It
 * defines functions named as ulnet's internal ones, which must not clash
 * with the library's (a static libulnet keeps those local). Exit 0 when
 * the library runs: its version is the headers', and an instance with
 * no nets answers a ping of 0@lo.
 */
#include <stdio.h>
#include <string.h>

#include <ulnet/ulnet.h>

/* Names that ulnet uses inside; the program's own. */
void sock_conn_close(void);
int ul_log_mask_parse(void);

void sock_conn_close(void)
{
}

int ul_log_mask_parse(void)
{
	return 7;
}

int main(void)
{
	struct ulnet_process_id lo = { .pid = ULNET_PID_LUSTRE };
	struct ulnet_ping_result res;
	struct ulnet_opts opts;
	struct ulnet *u;
	char err[256];
	int rc;

	sock_conn_close();
	if (strcmp(ulnet_version(), ULNET_VERSION_STRING) != 0 ||
	    ulnet_version_number() != ULNET_VERSION_HEX) {
		fprintf(stderr, "library %s, headers %s\n", ulnet_version(),
			ULNET_VERSION_STRING);
		return 1;
	}
	ulnet_opts_init(&opts);
	rc = ulnet_create(&opts, &u, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ulnet_create: %s\n", err);
		return 1;
	}
	rc = ulnet_start(u);
	if (rc == 0)
		rc = ulnet_nid_parse("0@lo", &lo.nid, NULL, 0);
	if (rc == 0)
		rc = ulnet_ping_sync(u, NULL, &lo, 5000, &res);
	ulnet_destroy(u);
	if (rc < 0) {
		fprintf(stderr, "ping 0@lo: %s\n", ulnet_strerror(rc));
		return 1;
	}
	printf("ulnet %s: ping 0@lo answered (%d)\n", ulnet_version(),
	       ul_log_mask_parse());
	return 0;
}
