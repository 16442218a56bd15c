/*
 * Pieces of the control protocol's serializer shared between its files
 * (proto.c, proto_req.c, proto_reply.c, proto_args.c, proto_doc.c); not
 * for users of the protocol.
 */
#ifndef UL_CTL_PROTO_INT_H
#define UL_CTL_PROTO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ctl/proto.h"

struct ul_err;
struct ul_ynode;

/* Append n bytes of attributes encoded elsewhere (whole, padded). */
void ul_ctl_put_raw(struct ul_ctl_msg *m, const void *p, size_t n);

/*
 * Checks shared by requests and replies: the frame is exactly one message
 * of this version, and its attributes are well formed at every depth.
 * 0 or -EPROTO.
 */
int ul_ctl_frame_open(const void *frame, size_t len, struct ul_ctl_hdr *h,
		      struct ul_err *err);
/* Copy a string attribute into a fixed buffer; too long is -EPROTO. */
int ul_ctl_copy_str(const struct ul_ctl_attr *a, char *dst, size_t cap,
		    struct ul_err *err);

/* The ARG_* attributes of a generic request. */
void ul_ctl_args_encode(const struct ul_ctl_args *a, struct ul_ctl_msg *m);
/* A generic request's payload into *out (zeroed first); 0 or -EPROTO. */
int ul_ctl_args_decode(const uint8_t *payload, size_t len,
		       struct ul_ctl_args *out, struct ul_err *err);

/* A reply's Y_MAP attribute into a tree; 0, -EPROTO or -ENOMEM. */
int ul_ctl_doc_decode(const struct ul_ctl_attr *a, struct ul_ynode **out,
		      struct ul_err *err);

#endif /* UL_CTL_PROTO_INT_H */
