/* ulnetctl debug decode: hex frames in, YAML out. */
#ifndef ULNETCTL_DECODE_H
#define ULNETCTL_DECODE_H

#include <stdio.h>

/* Decode every frame of in to out; 0, or -EINVAL if any frame was bad. */
int ulnetctl_decode_stream(FILE *in, FILE *out);
/* One item of the cYAML error tree "debug: - decode:" on stderr. */
void ulnetctl_decode_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* ULNETCTL_DECODE_H */
