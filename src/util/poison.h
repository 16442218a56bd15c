/*
 * Free lists of reused objects (the node's messages, socklnd's tx
 * descriptors) poison what they hold under AddressSanitizer, so that a
 * use after the object went back to its list is still reported as one.
 * Elsewhere these cost nothing.
 */
#ifndef UL_UTIL_POISON_H
#define UL_UTIL_POISON_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UL_POISON_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UL_POISON_ASAN 1
#endif

#ifdef UL_POISON_ASAN
#include <sanitizer/asan_interface.h>
#define UL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define UL_POISON(p, n) ((void)(p), (void)(n))
#define UL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif /* UL_UTIL_POISON_H */
