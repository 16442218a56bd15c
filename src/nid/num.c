/* Numbers and blanks for the NID parsers; see num.h. */
#include <ctype.h>
#include <errno.h>

#include "nid/num.h"

const char *ul_str_trim(const char *s, size_t *len)
{
	while (*len && isspace((unsigned char)*s)) {
		s++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)s[*len - 1]))
		(*len)--;
	return s;
}

static unsigned int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned int)(c - 'A' + 10);
	return 99;
}

int ul_num_scan(const char *s, size_t len, size_t *pos, unsigned int base,
		uint32_t max, uint32_t *out)
{
	size_t i = *pos, start;
	uint64_t v = 0;

	if (base == 0) {
		base = 10;
		if (i < len && s[i] == '0') {
			base = 8;
			if (i + 2 < len &&
			    (s[i + 1] == 'x' || s[i + 1] == 'X') &&
			    digit_value(s[i + 2]) < 16) {
				base = 16;
				i += 2;
			}
		}
	}
	for (start = i; i < len && digit_value(s[i]) < base; i++) {
		v = v * base + digit_value(s[i]);
		if (v > max)
			return -ERANGE;
	}
	if (i == start)
		return -EINVAL;
	*pos = i;
	*out = (uint32_t)v;
	return 0;
}

int ul_num_parse(const char *s, size_t len, uint32_t min, uint32_t max,
		 uint32_t *out)
{
	size_t pos = 0;
	uint32_t v;

	s = ul_str_trim(s, &len);
	if (ul_num_scan(s, len, &pos, 0, max, &v) || pos != len || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}
