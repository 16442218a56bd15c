/*
 * Fuzz target: the control protocol's decoders (src/ctl/proto.h) on
 * untrusted bytes, the server's view of a request and, for the same
 * bytes, the CLI's view of a reply to each op. Whatever decodes must
 * encode to a frame that decodes again, and that frame must re-encode
 * to itself byte for byte (one serializer, both ways).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_req(const uint8_t *data, size_t size)
{
	struct ul_ctl_msg m1, m2;
	struct ul_ctl_req a, b;

	if (ul_ctl_req_decode(data, size, &a, NULL))
		return;
	if (ul_ctl_req_encode(&a, &m1) ||
	    ul_ctl_req_decode(m1.buf, m1.len, &b, NULL) ||
	    ul_ctl_req_encode(&b, &m2))
		abort();
	if (m1.len != m2.len || memcmp(m1.buf, m2.buf, m1.len) != 0)
		abort();
	ul_ctl_msg_fini(&m1);
	ul_ctl_msg_fini(&m2);
}

static void check_reply(const uint8_t *data, size_t size, uint16_t op)
{
	struct ul_ctl_reply a, b;
	struct ul_ctl_msg m1, m2;

	if (ul_ctl_reply_decode(data, size, op, &a, NULL))
		return;
	if (ul_ctl_reply_encode(&a, &m1) ||
	    ul_ctl_reply_decode(m1.buf, m1.len, op, &b, NULL) ||
	    ul_ctl_reply_encode(&b, &m2))
		abort();
	if (m1.len != m2.len || memcmp(m1.buf, m2.buf, m1.len) != 0)
		abort();
	ul_ctl_msg_fini(&m1);
	ul_ctl_msg_fini(&m2);
	ul_ctl_reply_fini(&a);
	ul_ctl_reply_fini(&b);
}

/*
 * A generic op's reply: the document decodes into a tree (or is refused)
 * and prints in every engine without crashing.
 */
static void check_doc(const uint8_t *data, size_t size)
{
	struct ul_ctl_reply a;
	FILE *devnull;

	if (ul_ctl_reply_decode(data, size, UL_CTL_OP_GLOBAL_SHOW, &a, NULL))
		return;
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		ul_doc_print(devnull, a.doc, UL_DOC_A);
		ul_doc_print(devnull, a.doc, UL_DOC_B);
		ul_doc_print(devnull, a.doc, UL_DOC_C);
		fclose(devnull);
	}
	ul_ctl_reply_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_req(data, size);
	check_reply(data, size, UL_CTL_OP_PING);
	check_reply(data, size, UL_CTL_OP_NET_SHOW);
	check_reply(data, size, UL_CTL_OP_PEER_SHOW);
	check_doc(data, size);
	return 0;
}
