/*
 * The monotonic clock in nanoseconds: the time base of the runtime's timer
 * heap. Only the runtime reads it; core gets "now" passed in (DESIGN.md),
 * which is what lets a simulation drive the same code with a virtual clock.
 */
#ifndef UL_UTIL_CLOCK_H
#define UL_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * CLOCK_MONOTONIC never jumps with wall-clock changes; it cannot fail for
 * a valid clock id, so there is no error to return.
 */
static inline uint64_t ul_clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* UL_UTIL_CLOCK_H */
