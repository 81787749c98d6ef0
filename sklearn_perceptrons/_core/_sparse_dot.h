/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   skp_sparse_dot_d / skp_sparse_dot_f: w . x for a CSR row x (values x,
   column indices idx, nnz entries) against a dense weight vector w;
   skp_sparse_dot_df: float32 values against float64 weights, in float64
   (each value widened exactly).

   Eight partial sums: entry j goes to sum j % 8 (the last nnz % 8 entries to
   sum 0), combined as ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)), the
   order of the dense dot product; a row of fewer than 8 entries is summed
   in one.  With AVX2 the weights are fetched by
   gather instructions, which issue fewer instructions per entry than scalar
   loads; the lanes hold the same partial sums in the same order, so both
   builds return the same bits. */
#ifndef SKP_SPARSE_DOT_H
#define SKP_SPARSE_DOT_H

#include <stddef.h>
#if defined(__GNUC__) || defined(__clang__)
#define SKP_NOINLINE __attribute__((noinline))
#else
#define SKP_NOINLINE
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* The scalar form of the eight partial sums (entry j to s[j % 8]) over the
   leading multiple of eight entries, and their end: the remaining entries
   added to s[0], then the fixed combination order.  Shared by both types. */
#define SKP_EIGHT_PARTIAL_SUMS(s, w, x, idx, nnz, j)                        \
    for (; (j) + 8 <= (nnz); (j) += 8) {                                   \
        (s)[0] += (w)[(idx)[(j)]] * (x)[(j)];                              \
        (s)[1] += (w)[(idx)[(j) + 1]] * (x)[(j) + 1];                      \
        (s)[2] += (w)[(idx)[(j) + 2]] * (x)[(j) + 2];                      \
        (s)[3] += (w)[(idx)[(j) + 3]] * (x)[(j) + 3];                      \
        (s)[4] += (w)[(idx)[(j) + 4]] * (x)[(j) + 4];                      \
        (s)[5] += (w)[(idx)[(j) + 5]] * (x)[(j) + 5];                      \
        (s)[6] += (w)[(idx)[(j) + 6]] * (x)[(j) + 6];                      \
        (s)[7] += (w)[(idx)[(j) + 7]] * (x)[(j) + 7];                      \
    }

#define SKP_FINISH_PARTIAL_SUMS(s, w, x, idx, nnz, j)                       \
    for (; (j) < (nnz); (j)++)                                             \
        (s)[0] += (w)[(idx)[(j)]] * (x)[(j)];                              \
    return (((s)[0] + (s)[4]) + ((s)[1] + (s)[5]))                         \
           + (((s)[2] + (s)[6]) + ((s)[3] + (s)[7]))

/* The eight sums of the leading multiple of eight entries.  With AVX2 the
   weights are fetched by gathers; lane k of the vectors holds s[k].  The
   float64 sums read their four values at a time with LOAD4 (float64 values
   as they are, float32 values widened). */
#if defined(__AVX2__)
#define SKP_LOAD4_D(p) _mm256_loadu_pd(p)
#define SKP_LOAD4_F_AS_D(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define SKP_EIGHT_SUMS_D_LOAD(s, w, x, idx, nnz, j, LOAD4)                  \
    {                                                                      \
        __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();       \
        for (; (j) + 8 <= (nnz); (j) += 8) {                               \
            __m256d w_lo = _mm256_i32gather_pd(                            \
                (w), _mm_loadu_si128((const __m128i *)((idx) + (j))), 8);  \
            __m256d w_hi = _mm256_i32gather_pd(                            \
                (w), _mm_loadu_si128((const __m128i *)((idx) + (j) + 4)), 8); \
            lo = _mm256_add_pd(lo, _mm256_mul_pd(w_lo, LOAD4((x) + (j)))); \
            hi = _mm256_add_pd(hi, _mm256_mul_pd(                          \
                w_hi, LOAD4((x) + (j) + 4)));                              \
        }                                                                  \
        _mm256_storeu_pd((s), lo);                                         \
        _mm256_storeu_pd((s) + 4, hi);                                     \
    }
#define SKP_EIGHT_SUMS_D(s, w, x, idx, nnz, j)                              \
    SKP_EIGHT_SUMS_D_LOAD(s, w, x, idx, nnz, j, SKP_LOAD4_D)
#define SKP_EIGHT_SUMS_DF(s, w, x, idx, nnz, j)                             \
    SKP_EIGHT_SUMS_D_LOAD(s, w, x, idx, nnz, j, SKP_LOAD4_F_AS_D)
#define SKP_EIGHT_SUMS_F(s, w, x, idx, nnz, j)                              \
    {                                                                      \
        __m256 acc = _mm256_setzero_ps();                                  \
        for (; (j) + 8 <= (nnz); (j) += 8)                                 \
            acc = _mm256_add_ps(acc, _mm256_mul_ps(                        \
                _mm256_i32gather_ps((w), _mm256_loadu_si256(               \
                    (const __m256i *)((idx) + (j))), 4),                   \
                _mm256_loadu_ps((x) + (j))));                              \
        _mm256_storeu_ps((s), acc);                                        \
    }
#else
#define SKP_EIGHT_SUMS_D SKP_EIGHT_PARTIAL_SUMS
#define SKP_EIGHT_SUMS_F SKP_EIGHT_PARTIAL_SUMS
#define SKP_EIGHT_SUMS_DF SKP_EIGHT_PARTIAL_SUMS
#endif

/* A long row (eight entries or more), kept out of line so that its vector
   registers do not crowd the caller's loop; a short one summed inline, in
   one sum.  One definition for all types: T of the weights and the sums,
   TX of the values. */
#define SKP_DEFINE_SPARSE_DOT(name, T, TX, EIGHT_SUMS)                      \
    SKP_NOINLINE static T name##_long(const T *w, const TX *x,             \
                                      const int *idx, ptrdiff_t nnz)       \
    {                                                                      \
        T s[8] = {0};                                                      \
        ptrdiff_t j = 0;                                                   \
        EIGHT_SUMS(s, w, x, idx, nnz, j);                                  \
        SKP_FINISH_PARTIAL_SUMS(s, w, x, idx, nnz, j);                     \
    }                                                                      \
    static inline T name(const T *w, const TX *x, const int *idx,          \
                         ptrdiff_t nnz)                                    \
    {                                                                      \
        T sum = 0;                                                         \
        ptrdiff_t j;                                                       \
        if (nnz >= 8)                                                      \
            return name##_long(w, x, idx, nnz);                            \
        for (j = 0; j < nnz; j++)                                          \
            sum += w[idx[j]] * x[j];                                       \
        return sum;                                                        \
    }

SKP_DEFINE_SPARSE_DOT(skp_sparse_dot_d, double, double, SKP_EIGHT_SUMS_D)
SKP_DEFINE_SPARSE_DOT(skp_sparse_dot_f, float, float, SKP_EIGHT_SUMS_F)
SKP_DEFINE_SPARSE_DOT(skp_sparse_dot_df, double, float, SKP_EIGHT_SUMS_DF)

#endif
