/* ulnetctl's control socket client; see ctl.h. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/err.h"

#include "ctl.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"

static const char *ctl_path;

void ulnetctl_ctl_set_path(const char *path)
{
	ctl_path = path;
}

const char *ulnetctl_ctl_path(void)
{
	const char *env;

	if (ctl_path)
		return ctl_path;
	env = getenv("ULNET_CTL");
	if (env && env[0])
		return env;
	return UL_CTL_DEFAULT_PATH;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const uint8_t *p, size_t len, int64_t deadline)
{
	ssize_t n;
	int rc;

	while (len) {
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read exactly len bytes; -ECONNRESET for an early end. *got (may be
 * NULL) counts what came.
 */
static int recv_all(int fd, uint8_t *p, size_t len, int64_t deadline,
		    size_t *got)
{
	ssize_t n;
	int rc;

	while (len) {
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
		if (got)
			*got += (size_t)n;
	}
	return 0;
}

static int connect_ctl(const char *path, struct ul_err *err)
{
	struct sockaddr_un sa;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return ul_err_set(err, -ENAMETOOLONG,
				  "control socket path too long: %s", path);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ul_err_set(err, -errno, "cannot create a socket: %s",
				  strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		return ul_err_set(err, -e,
				  "cannot connect to ulnetd at %s: %s%s", path,
				  strerror(e),
				  e == ENOENT || e == ECONNREFUSED
					  ? " (is ulnetd running? see --ctl)"
					  : "");
	}
	return fd;
}

/*
 * With ulnetctl_ctl_keep(true), one connection serves every request: the
 * server reads the next request after each reply, and `import` of
 * 100,000 peers sends 100,000 requests (a connect and an accept each had
 * cost as much as the requests themselves). A kept connection the server
 * has closed since (its idle timeout, or room made for another client)
 * ends before any byte of a reply: the server closes a connection only
 * between requests or after an error reply, so that request was not
 * taken and goes again once, on a new connection. Off, each request has
 * its own connection (selftest calls from several threads at once).
 */
static bool is_keep;
static int kept_fd = -1;
static char kept_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static void kept_drop(void)
{
	if (kept_fd >= 0)
		close(kept_fd);
	kept_fd = -1;
}

void ulnetctl_ctl_keep(bool is_on)
{
	is_keep = is_on;
	if (!is_on)
		kept_drop();
}

/* A connection to path: the kept one, or a new one (kept if is_keep). */
static int ctl_fd(const char *path, bool *is_kept, struct ul_err *err)
{
	int fd;

	/* off, threads call at once (selftest): no shared state touched */
	if (!is_keep) {
		*is_kept = false;
		return connect_ctl(path, err);
	}
	*is_kept = kept_fd >= 0 && strcmp(kept_path, path) == 0;
	if (*is_kept)
		return kept_fd;
	kept_drop();
	fd = connect_ctl(path, err);
	if (fd < 0)
		return fd;
	kept_fd = fd;
	snprintf(kept_path, sizeof(kept_path), "%s", path);
	return fd;
}

static int call_at(const char *path, const struct ul_ctl_req *req,
		   uint32_t timeout_ms, unsigned int flags,
		   struct ul_ctl_reply *reply, struct ul_err *err);

int ulnetctl_ctl_call(const struct ul_ctl_req *req, uint32_t timeout_ms,
		      struct ul_ctl_reply *reply, struct ul_err *err)
{
	return call_at(ulnetctl_ctl_path(), req, timeout_ms, 0, reply, err);
}

int ulnetctl_ctl_call_raw(const struct ul_ctl_req *req, uint32_t timeout_ms,
			  struct ul_ctl_reply *reply, struct ul_err *err)
{
	return call_at(ulnetctl_ctl_path(), req, timeout_ms,
		       UL_CTL_REPLY_RAW_DOC, reply, err);
}

int ulnetctl_ctl_call_at(const char *path, const struct ul_ctl_req *req,
			 uint32_t timeout_ms, struct ul_ctl_reply *reply,
			 struct ul_err *err)
{
	return call_at(path, req, timeout_ms, 0, reply, err);
}

static int call_at(const char *path, const struct ul_ctl_req *req,
		   uint32_t timeout_ms, unsigned int flags,
		   struct ul_ctl_reply *reply, struct ul_err *err)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct ul_err derr = { 0 };
	uint8_t hdr[UL_CTL_HDR_SIZE];
	uint8_t *frame = NULL;
	struct ul_ctl_msg m;
	struct ul_ctl_hdr h;
	bool is_kept;
	size_t got;
	int fd, rc;

	rc = ul_ctl_req_encode(req, &m);
	if (rc) {
		ul_ctl_msg_fini(&m);
		return ul_err_set(err, rc, "cannot build the request: %s",
				  strerror(-rc));
	}
again:
	fd = ctl_fd(path, &is_kept, err);
	if (fd < 0) {
		ul_ctl_msg_fini(&m);
		return fd;
	}
	got = 0;
	rc = send_all(fd, m.buf, m.len, deadline);
	/*
	 * A refusal (another uid, too many clients) may have come and the
	 * server closed before the request was out: its reason is waiting.
	 */
	if (!rc || rc == -EPIPE || rc == -ECONNRESET) {
		int send_rc = rc;

		rc = recv_all(fd, hdr, sizeof(hdr), deadline, &got);
		if (rc && send_rc)
			rc = send_rc;
	}
	if (is_kept && got == 0 && (rc == -EPIPE || rc == -ECONNRESET)) {
		kept_drop(); /* closed while idle: the request goes again */
		goto again;
	}
	ul_ctl_msg_fini(&m);
	if (rc) {
		ul_err_set(err, rc, "no reply from ulnetd at %s: %s", path,
			   rc == -ECONNRESET ? "connection closed"
					     : strerror(-rc));
		goto out;
	}
	rc = ul_ctl_hdr_decode(hdr, sizeof(hdr), &h, &derr);
	if (rc) {
		ul_err_set(err, rc, "bad reply from ulnetd at %s: %s", path,
			   derr.msg);
		goto out;
	}
	frame = malloc(UL_CTL_HDR_SIZE + (size_t)h.len);
	if (!frame) {
		rc = ul_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(frame, hdr, sizeof(hdr));
	rc = recv_all(fd, frame + UL_CTL_HDR_SIZE, h.len, deadline, NULL);
	if (rc) {
		ul_err_set(err, rc, "truncated reply from ulnetd at %s: %s",
			   path,
			   rc == -ECONNRESET ? "connection closed"
					     : strerror(-rc));
		goto out;
	}
	rc = ul_ctl_reply_decode_flags(frame, UL_CTL_HDR_SIZE + h.len, req->op,
				       flags, reply, &derr);
	if (rc)
		ul_err_set(err, rc, "bad reply from ulnetd at %s: %s", path,
			   derr.msg);
out:
	free(frame);
	/* a connection that failed is not used again (keep off: own fd) */
	if (!is_keep || fd != kept_fd)
		close(fd);
	else if (rc)
		kept_drop();
	return rc;
}

int ulnetctl_call(uint16_t op, const struct ul_ctl_args *a, uint32_t timeout_ms,
		  struct ul_ctl_reply *reply, struct ul_err *err)
{
	struct ul_ctl_req *req = malloc(sizeof(*req));
	int rc;

	if (!req)
		return ul_err_set(err, -ENOMEM, "out of memory");
	req->op = op;
	req->args = *a;
	rc = ulnetctl_ctl_call(req, timeout_ms, reply, err);
	free(req);
	return rc;
}

int ulnetctl_d1(const char *d1_op, const char *object, int errnum,
		const char *descr)
{
	ul_show_yaml_err(stderr, d1_op, object, errnum,
			 descr && descr[0] ? descr : strerror(-errnum));
	return ULNETCTL_RC_BAD_PARAM;
}

int ulnetctl_do(uint16_t op, const struct ul_ctl_args *a, const char *d1_op,
		const char *object, int engine)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	rc = ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_d1(d1_op, object, rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_d1(d1_op, object, reply.rc, reply.err_msg);
	else if (engine >= 0 &&
		 ul_doc_print(stdout, reply.doc, (enum ul_doc_engine)engine))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}
