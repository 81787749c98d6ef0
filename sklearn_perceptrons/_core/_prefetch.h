/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   SKP_PREFETCH(addr): a hint to bring the cache line of addr in for reading,
   the package's one prefetch; SKP_PREFETCH_L2(addr) the same into the
   second-level cache only, for lines needed later (it leaves the small first
   level to the lines needed next).  On x86 they are asm statements: GCC 12
   deleted __builtin_prefetch calls of the linear epoch as dead code, which
   made shuffled epochs latency-bound. */
#ifndef SKP_PREFETCH_H
#define SKP_PREFETCH_H

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define SKP_PREFETCH(addr) \
    __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)(addr)))
#define SKP_PREFETCH_L2(addr) \
    __asm__ __volatile__("prefetcht1 %0" : : "m"(*(const char *)(addr)))
#elif defined(__GNUC__) || defined(__clang__)
#define SKP_PREFETCH(addr) __builtin_prefetch((const void *)(addr), 0, 3)
#define SKP_PREFETCH_L2(addr) __builtin_prefetch((const void *)(addr), 0, 2)
#else
#define SKP_PREFETCH(addr) ((void)(addr))
#define SKP_PREFETCH_L2(addr) ((void)(addr))
#endif

#endif
