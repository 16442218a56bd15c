/*
 * A thin layer over libyaml's emitter for the YAML ulnet prints. It keeps
 * the first error and turns every later call into a no-op, so a printer
 * writes straight-line code and checks once, at ul_yemit_close().
 *
 * Styles: lnetctl prints with libyaml at indent 6 ("engine A": net/peer/
 * route show) or at libyaml's default indent 2 ("engine B": ping, discover,
 * cpt-of-nid); both come from here through the indent argument.
 */
#ifndef UL_CTL_YEMIT_H
#define UL_CTL_YEMIT_H

#include <stdbool.h>
#include <stdio.h>

#include <yaml.h>

struct ul_yemit {
	yaml_emitter_t em;
	bool failed;	  /* a libyaml call failed; the rest are skipped */
	bool doc_markers; /* print "---" and "..." */
};

/* Start a stream and one document on out. Returns 0 or -ENOMEM. */
int ul_yemit_open(struct ul_yemit *y, FILE *out, int indent, bool doc_markers);
/* End the document and the stream; returns 0, or -EIO if anything failed. */
int ul_yemit_close(struct ul_yemit *y);
/* Release the emitter without finishing (after an error). */
void ul_yemit_abort(struct ul_yemit *y);

void ul_yemit_map_start(struct ul_yemit *y);
void ul_yemit_map_end(struct ul_yemit *y);
void ul_yemit_seq_start(struct ul_yemit *y);
void ul_yemit_seq_end(struct ul_yemit *y);
/* A plain scalar (libyaml quotes it only where YAML requires). */
void ul_yemit_str(struct ul_yemit *y, const char *s);
/*
 * A quoted scalar in style (YAML_DOUBLE_QUOTED_SCALAR_STYLE, ...). With
 * is_bang it carries the non-specific tag "!" as lnetctl's error "descr"
 * does (libyaml prints "!" for a quoted scalar not marked
 * quoted-implicit).
 */
void ul_yemit_quoted(struct ul_yemit *y, const char *s, bool is_bang,
		     yaml_scalar_style_t style);
/* A scalar from a printf format. */
void ul_yemit_strf(struct ul_yemit *y, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* key: value, the value from a printf format. */
void ul_yemit_kv(struct ul_yemit *y, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* UL_CTL_YEMIT_H */
