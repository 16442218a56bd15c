/*
 * ulnet's version, for the preprocessor and at run time.
 *
 * ULNET_VERSION_* is the version of the headers a program was built
 * with; ulnet_version() (ulnet.h) is the version of the library it runs
 * with. CMake reads the numbers below (the project's one source of the
 * version), so the library, ulnet.pc and the CMake package all carry
 * them.
 *
 * ABI: while the major version is 0, each minor release may change the
 * ABI and the shared library's SONAME is libulnet.so.0.MINOR; patch
 * releases keep it. From 1.0 on, the SONAME is libulnet.so.MAJOR and
 * only a major release breaks the ABI.
 */
#ifndef ULNET_VERSION_H
#define ULNET_VERSION_H

#define ULNET_VERSION_MAJOR 0
#define ULNET_VERSION_MINOR 1
#define ULNET_VERSION_PATCH 0

#define ULNET_VERSION_STR_(x) #x
#define ULNET_VERSION_STR(x) ULNET_VERSION_STR_(x)
/* "0.1.0" */
#define ULNET_VERSION_STRING                                                   \
	ULNET_VERSION_STR(ULNET_VERSION_MAJOR)                                 \
	"." ULNET_VERSION_STR(ULNET_VERSION_MINOR) "." ULNET_VERSION_STR(      \
		ULNET_VERSION_PATCH)
/* One number that compares: 0x000100 for 0.1.0. */
#define ULNET_VERSION_HEX                                                      \
	((ULNET_VERSION_MAJOR << 16) | (ULNET_VERSION_MINOR << 8) |            \
	 ULNET_VERSION_PATCH)

#endif /* ULNET_VERSION_H */
