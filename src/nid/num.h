/*
 * Numbers and blanks as the NID parsers read them. One scanner serves them
 * all; the callers differ only in base and in where blanks are allowed:
 * NIDs read decimal (or 0x hex for numeric addresses) after optional
 * blanks, nidlist and expression numbers are C-style with blanks around
 * them, and range expansion reads bare decimal or hex digits.
 */
#ifndef UL_NID_NUM_H
#define UL_NID_NUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read the digits of one unsigned number at s[*pos..len) and advance *pos
 * past them, stopping at the first character that is not a digit of the
 * base. base is 10 or 16 (digits only, no prefix), or 0 for C style as
 * strtoul(..., 0) reads it: "0x"/"0X" and a hex digit make hex, another
 * leading "0" makes octal, anything else is decimal. No blanks, no sign.
 * Returns 0 and sets *out; -EINVAL when no digit is there, -ERANGE as soon
 * as the value passes max. *pos and *out change only on success.
 */
int ul_num_scan(const char *s, size_t len, size_t *pos, unsigned int base,
		uint32_t max, uint32_t *out);
/*
 * Parse one C-style number filling s[0..len) but for blanks around it,
 * that lies in [min, max]. Returns 0 and sets *out, or -EINVAL.
 */
int ul_num_parse(const char *s, size_t len, uint32_t min, uint32_t max,
		 uint32_t *out);
/* Drop blanks (isspace()) at both ends of s[0..*len); returns the start. */
const char *ul_str_trim(const char *s, size_t *len);

#endif /* UL_NID_NUM_H */
