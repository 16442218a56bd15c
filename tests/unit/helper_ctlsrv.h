/*
 * The control server under test (tests/unit/test_ctlsrv*.c): a real loop,
 * a real node and the server on a Unix socket under /tmp, and a raw
 * client of the protocol. The tests drive the loop themselves; client
 * sockets are non-blocking, and waits are bounded by MAX_SPINS loop
 * turns (a failure, never a pass, comes from running out of them).
 */
#ifndef HELPER_CTLSRV_H
#define HELPER_CTLSRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/proto.h"

struct ul_ctlsrv;
struct ul_loop;
struct ul_node;

/* Loop iterations (10 ms each at most) before a wait counts as failed. */
#define MAX_SPINS 3000

struct fx {
	struct ul_loop *loop;
	struct ul_node *node;
	struct ul_ctlsrv *srv;
	char path[108];
};

/* The loop's before-sleep hook: flush the node (arg is the fx). */
void flush_hook(void *arg);
/* A socket path of this process for tag, removed if it is there. */
void fx_path(struct fx *f, const char *tag);
/* A loop and a node; with_nis adds a tcp net, two peers, no startup. */
int fx_setup(void **state, bool with_nis);
int setup_show(void **state); /* fx_setup with NIs */
int setup_ping(void **state); /* fx_setup without, node started */
int teardown(void **state);

int client_connect(const struct fx *f);
void client_send(int fd, const void *p, size_t len);
void client_send_req(int fd, const struct ul_ctl_req *req);
/*
 * Run the loop until the client has a whole frame (returned, malloc'd,
 * its size in *len) or EOF (NULL).
 */
uint8_t *client_recv(struct fx *f, int fd, size_t *len);
void client_expect_eof(struct fx *f, int fd);
/* Receive and decode the reply to op. */
void client_reply(struct fx *f, int fd, uint16_t op, struct ul_ctl_reply *r);
/* One request on a new connection, its reply decoded. */
void ask(struct fx *f, const struct ul_ctl_req *req, struct ul_ctl_reply *r);

#endif /* HELPER_CTLSRV_H */
