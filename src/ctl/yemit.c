/* YAML output through libyaml; see yemit.h. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "ctl/yemit.h"

#define SCALAR_MAX 4096

static void emit(struct ul_yemit *y, yaml_event_t *ev)
{
	if (y->failed) {
		yaml_event_delete(ev);
		return;
	}
	/* yaml_emitter_emit() takes ownership of ev, also on failure. */
	if (!yaml_emitter_emit(&y->em, ev))
		y->failed = true;
}

static int write_file(void *data, unsigned char *buf, size_t size)
{
	return fwrite(buf, 1, size, data) == size;
}

int ul_yemit_open(struct ul_yemit *y, FILE *out, int indent, bool doc_markers)
{
	yaml_event_t ev;

	memset(y, 0, sizeof(*y));
	if (!yaml_emitter_initialize(&y->em))
		return -ENOMEM;
	yaml_emitter_set_output(&y->em, write_file, out);
	yaml_emitter_set_indent(&y->em, indent);
	yaml_emitter_set_width(&y->em, -1);
	yaml_emitter_set_unicode(&y->em, 1);
	y->doc_markers = doc_markers;

	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(y, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL,
					     !doc_markers);
	emit(y, &ev);
	if (y->failed) {
		yaml_emitter_delete(&y->em);
		return -ENOMEM;
	}
	return 0;
}

int ul_yemit_close(struct ul_yemit *y)
{
	yaml_event_t ev;
	int rc;

	yaml_document_end_event_initialize(&ev, !y->doc_markers);
	emit(y, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit(y, &ev);
	if (!y->failed && !yaml_emitter_flush(&y->em))
		y->failed = true;
	rc = y->failed ? -EIO : 0;
	yaml_emitter_delete(&y->em);
	return rc;
}

void ul_yemit_abort(struct ul_yemit *y)
{
	yaml_emitter_delete(&y->em);
}

void ul_yemit_map_start(struct ul_yemit *y)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
					    YAML_BLOCK_MAPPING_STYLE);
	emit(y, &ev);
}

void ul_yemit_map_end(struct ul_yemit *y)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	emit(y, &ev);
}

void ul_yemit_seq_start(struct ul_yemit *y)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
					     YAML_BLOCK_SEQUENCE_STYLE);
	emit(y, &ev);
}

void ul_yemit_seq_end(struct ul_yemit *y)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	emit(y, &ev);
}

void ul_yemit_str(struct ul_yemit *y, const char *s)
{
	yaml_event_t ev;

	if (y->failed)
		return;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
					  (int)strlen(s), 1, 1,
					  YAML_PLAIN_SCALAR_STYLE)) {
		y->failed = true;
		return;
	}
	emit(y, &ev);
}

void ul_yemit_quoted(struct ul_yemit *y, const char *s, bool is_bang,
		     yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (y->failed)
		return;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
					  (int)strlen(s), 1, !is_bang, style)) {
		y->failed = true;
		return;
	}
	emit(y, &ev);
}

__attribute__((format(printf, 2, 0))) static void
vstrf(struct ul_yemit *y, const char *fmt, va_list ap)
{
	char buf[SCALAR_MAX];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	ul_yemit_str(y, buf);
}

void ul_yemit_strf(struct ul_yemit *y, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vstrf(y, fmt, ap);
	va_end(ap);
}

void ul_yemit_kv(struct ul_yemit *y, const char *key, const char *fmt, ...)
{
	va_list ap;

	ul_yemit_str(y, key);
	va_start(ap, fmt);
	vstrf(y, fmt, ap);
	va_end(ap);
}
