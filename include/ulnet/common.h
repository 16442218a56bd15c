/*
 * ulnet — definitions every public header shares: the export macro and the
 * error table.
 *
 * Every ulnet function that can fail returns 0 or a negative errno. The
 * errno values ulnet uses, with their names and the text ulnet_strerror()
 * gives, come from the one table below.
 */
#ifndef ULNET_COMMON_H
#define ULNET_COMMON_H

#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ULNET_BUILDING)
#define ULNET_EXTERN __attribute__((visibility("default")))
#else
#define ULNET_EXTERN
#endif

/* XX(errno name, text) */
#define ULNET_ERRNO_MAP(XX)                                                    \
	XX(EINVAL, "invalid argument")                                         \
	XX(ENOMEM, "out of memory")                                            \
	XX(EPROTO, "protocol error")                                           \
	XX(EMSGSIZE, "message too long")                                       \
	XX(ENOMSG, "incomplete message: more bytes needed")                    \
	XX(EOVERFLOW, "value does not fit")                                    \
	XX(ERANGE, "value out of range")                                       \
	XX(ENOENT, "no such object")                                           \
	XX(EEXIST, "object exists")                                            \
	XX(ENOSPC, "no space left in buffer")                                  \
	XX(E2BIG, "too many items")                                            \
	XX(EPROTONOSUPPORT, "protocol version not supported")                  \
	XX(EHOSTUNREACH, "host unreachable")                                   \
	XX(ETIMEDOUT, "timed out")                                             \
	XX(ECONNREFUSED, "connection refused")                                 \
	XX(ECONNRESET, "connection reset")                                     \
	XX(ESHUTDOWN, "instance shut down")                                    \
	XX(ECANCELED, "operation canceled")                                    \
	XX(EIO, "input/output error")                                          \
	XX(EAGAIN, "resource temporarily unavailable")                         \
	XX(EPERM, "operation not permitted")                                   \
	XX(EACCES, "permission denied")                                        \
	XX(EBUSY, "device or resource busy")                                   \
	XX(ENODEV, "no such device")                                           \
	XX(EALREADY, "operation already in progress")                          \
	XX(EDEADLK, "would deadlock: called on the loop thread")               \
	XX(EADDRINUSE, "address already in use")                               \
	XX(EADDRNOTAVAIL, "address not available")                             \
	XX(ENETUNREACH, "network unreachable")                                 \
	XX(ENETDOWN, "network is down")                                        \
	XX(ENOTCONN, "not connected")                                          \
	XX(EPIPE, "broken pipe")                                               \
	XX(EOPNOTSUPP, "operation not supported")                              \
	XX(ENAMETOOLONG, "name too long")                                      \
	XX(ENOSYS, "function not implemented")                                 \
	XX(EUSERS, "too many users")

/*
 * Text for a negative (or positive) errno from the table, "success" for
 * 0, or "unknown error" for any other value. Never NULL; callable from
 * any thread.
 */
ULNET_EXTERN const char *ulnet_strerror(int err);
/* Name of the errno ("EINVAL"), "SUCCESS" for 0, or "UNKNOWN". */
ULNET_EXTERN const char *ulnet_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif /* ULNET_COMMON_H */
