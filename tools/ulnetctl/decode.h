/* ulnetctl debug decode: hex frames in, YAML out. */
#ifndef ULNETCTL_DECODE_H
#define ULNETCTL_DECODE_H

#include <stdio.h>

#include "ctl/cyaml_err.h"

/*
 * Decode every frame of in to out, errors into errs. Returns 0, or -EINVAL
 * if any frame was bad or no frame was found at all.
 */
int ulnetctl_decode_stream(FILE *in, FILE *out, struct ul_cyaml_errs *errs);

#endif /* ULNETCTL_DECODE_H */
