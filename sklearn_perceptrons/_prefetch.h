/* Authors: The sklearn_perceptrons developers
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * SKP_PREFETCH(addr): ask the CPU to bring the cache line of addr closer,
 * for reading; the one prefetch of the package's compiled loops.
 *
 * On x86 it is an asm statement, because GCC 12 deleted every
 * __builtin_prefetch of the linear epoch as dead code, which made shuffled
 * epochs latency-bound.  Elsewhere it is the compiler's builtin, or nothing.
 */
#ifndef SKP_PREFETCH_H
#define SKP_PREFETCH_H

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define SKP_PREFETCH(addr) __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)(addr)))
#elif defined(__GNUC__) || defined(__clang__)
#define SKP_PREFETCH(addr) __builtin_prefetch((const void *)(addr), 0, 3)
#else
#define SKP_PREFETCH(addr) ((void)(addr))
#endif

#endif
