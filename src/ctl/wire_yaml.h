/*
 * Decoding socklnd frames to YAML, for "ulnetctl debug decode".
 *
 * A frame is the bytes of one TCP segment (or any run of a connection's
 * bytes). It is decoded unit by unit from its start: an acceptor request,
 * a hello, or ksock messages back to back, told apart by their magic or
 * type. What a hello says (version, byte order) is kept in the decoder
 * state and applies to the ksock messages of later frames, as it does on
 * a connection.
 */
#ifndef UL_CTL_WIRE_YAML_H
#define UL_CTL_WIRE_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/yemit.h"
#include "util/err.h"

struct ul_decode_state {
	uint32_t version;   /* of the last hello seen; 3 until then */
	bool is_swapped;    /* byte order of the last hello seen */
	unsigned int frame; /* frames decoded so far */
	unsigned int units; /* units emitted so far */
};

void ul_decode_state_init(struct ul_decode_state *st);

/*
 * Decode one frame into YAML items of the open sequence in y, one item per
 * unit. first_line is where the frame started in the input (0: unknown).
 * Returns 0, or the decoder's negative errno at the first bad unit, with
 * err naming the frame, the offset and what is wrong; the units before it
 * have been emitted.
 */
int ul_decode_frame(struct ul_decode_state *st, struct ul_yemit *y,
		    const uint8_t *buf, size_t len, unsigned int first_line,
		    struct ul_err *err);

#endif /* UL_CTL_WIRE_YAML_H */
