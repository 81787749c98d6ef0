/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   skp_sparse_dots_d / skp_sparse_dots_f: the dot products of one CSR row x
   (values x, column indices idx, nnz entries) with `count` dense weight
   rows w[0], ..., w[count - 1], written to out[0], ..., out[count - 1];
   skp_sparse_dots_df: float32 values against float64 weights, in float64
   (each value widened exactly).  The package's one sparse dot product:
   a single row is count = 1.

   Each dot product is summed as the package's dot products are: eight
   partial sums (entry j to sum j % 8, the last nnz % 8 entries to sum 0),
   combined as ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)), the order
   of the dense dot product; a row of fewer than 8 entries is summed in
   one, in order.  Only the schedule depends on `count` and the build, never
   the bits:

   * several weight rows are summed up to four at a time in one loop, so
     that each block of indices and values is read once for all of them and
     the loads of their weights (scattered: cache misses on wide models) are
     in flight together; the weights are read by plain loads packed into
     vectors (lane k holds s[k]);
   * one weight row of eight entries or more is summed out of line (its
     vector registers then do not crowd the caller's loop), its weights
     fetched by AVX2's gather instructions in the AVX2 build: they keep
     more of one row's scattered loads in flight than plain loads, while
     for several rows plain loads, which the rows' loads overlap, cost
     less. */
#ifndef SKP_SPARSE_DOTS_H
#define SKP_SPARSE_DOTS_H

#include <stddef.h>

#include "_eight_sums.h"
#if defined(__GNUC__) || defined(__clang__)
#define SKP_NOINLINE __attribute__((noinline))
#else
#define SKP_NOINLINE
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* ------------------------------------------------------------------------
   One weight row, eight entries or more.  T: the weights and sums; TX: the
   values. */

#if defined(__AVX2__)
/* Lanes 0-3 of `lo` and `hi` are s[0..3] and s[4..7]; LOAD4 reads four
   values as float64 (float32 values widened). */
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
#define SKP_EIGHT_SUMS(s, w, x, idx, nnz, j)                                \
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
#define SKP_EIGHT_SUMS_D SKP_EIGHT_SUMS
#define SKP_EIGHT_SUMS_F SKP_EIGHT_SUMS
#define SKP_EIGHT_SUMS_DF SKP_EIGHT_SUMS
#endif

#define SKP_DEFINE_SPARSE_DOT1(suffix, T, TX, EIGHT_SUMS)                   \
    SKP_NOINLINE static T skp_sparse_dot1_##suffix(                        \
        const T *w, const TX *x, const int *idx, ptrdiff_t nnz)            \
    {                                                                      \
        T s[8] = {0};                                                      \
        ptrdiff_t j = 0;                                                   \
        EIGHT_SUMS(s, w, x, idx, nnz, j);                                  \
        for (; j < nnz; j++)                                               \
            s[0] += w[idx[j]] * x[j];                                      \
        return ((s[0] + s[4]) + (s[1] + s[5]))                             \
               + ((s[2] + s[6]) + (s[3] + s[7]));                          \
    }

SKP_DEFINE_SPARSE_DOT1(d, double, double, SKP_EIGHT_SUMS_D)
SKP_DEFINE_SPARSE_DOT1(f, float, float, SKP_EIGHT_SUMS_F)
SKP_DEFINE_SPARSE_DOT1(df, double, float, SKP_EIGHT_SUMS_DF)

/* ------------------------------------------------------------------------
   G weight rows at once (G a constant, so that the sums stay in
   registers), eight entries or more. */

#if defined(__GNUC__) || defined(__clang__)

typedef double skp_sv4d __attribute__((vector_size(32)));
typedef float skp_sv8f __attribute__((vector_size(32)));

/* Row r's weight of entry t (see _eight_sums.h). */
#define SKP_SPARSE_W(r, t) w[r][idx[t]]
/* The weights of entries i[0 .. 3] (i[0 .. 7]) of one weight row v. */
#define SKP_W4(v, i) ((skp_sv4d){(v)[(i)[0]], (v)[(i)[1]], (v)[(i)[2]], (v)[(i)[3]]})
#define SKP_W8(v, i)                                                        \
    ((skp_sv8f){(v)[(i)[0]], (v)[(i)[1]], (v)[(i)[2]], (v)[(i)[3]],         \
                (v)[(i)[4]], (v)[(i)[5]], (v)[(i)[6]], (v)[(i)[7]]})

#define SKP_DEFINE_SPARSE_DOTS_D(G, suffix, TX)                             \
    SKP_NOINLINE static void skp_sparse_dots##G##_##suffix(                \
        const double *const *w, const TX *x, const int *idx,               \
        ptrdiff_t nnz, double *out)                                        \
    {                                                                      \
        skp_sv4d lo[G], hi[G];                                             \
        double s0[G];                                                      \
        ptrdiff_t j = 0, r, t;                                             \
        for (r = 0; r < G; r++)                                            \
            lo[r] = hi[r] = (skp_sv4d){0.0, 0.0, 0.0, 0.0};                \
        for (; j + 8 <= nnz; j += 8) {                                     \
            const int *i = idx + j;                                        \
            skp_sv4d x_lo = {x[j], x[j + 1], x[j + 2], x[j + 3]};          \
            skp_sv4d x_hi = {x[j + 4], x[j + 5], x[j + 6], x[j + 7]};      \
            for (r = 0; r < G; r++) {                                      \
                lo[r] += SKP_W4(w[r], i) * x_lo;                           \
                hi[r] += SKP_W4(w[r], i + 4) * x_hi;                       \
            }                                                              \
        }                                                                  \
        SKP_EIGHT_SUMS_END_D(G, lo, hi, SKP_SPARSE_W, x, j, nnz, out);     \
    }

#define SKP_DEFINE_SPARSE_DOTS_F(G)                                         \
    SKP_NOINLINE static void skp_sparse_dots##G##_f(                       \
        const float *const *w, const float *x, const int *idx,             \
        ptrdiff_t nnz, float *out)                                         \
    {                                                                      \
        skp_sv8f acc[G];                                                   \
        float s0[G];                                                       \
        ptrdiff_t j = 0, r, t;                                             \
        for (r = 0; r < G; r++)                                            \
            acc[r] = (skp_sv8f){0, 0, 0, 0, 0, 0, 0, 0};                   \
        for (; j + 8 <= nnz; j += 8) {                                     \
            const int *i = idx + j;                                        \
            skp_sv8f xs = {x[j], x[j + 1], x[j + 2], x[j + 3],             \
                           x[j + 4], x[j + 5], x[j + 6], x[j + 7]};        \
            for (r = 0; r < G; r++)                                        \
                acc[r] += SKP_W8(w[r], i) * xs;                            \
        }                                                                  \
        SKP_EIGHT_SUMS_END_F(G, acc, SKP_SPARSE_W, x, j, nnz, out);        \
    }

#else /* other compilers: one row at a time, the same order */

#define SKP_DEFINE_SPARSE_DOTS_T(G, T, TX, suffix)                          \
    static void skp_sparse_dots##G##_##suffix(                             \
        const T *const *w, const TX *x, const int *idx, ptrdiff_t nnz,     \
        T *out)                                                            \
    {                                                                      \
        ptrdiff_t r;                                                       \
        for (r = 0; r < G; r++)                                            \
            out[r] = skp_sparse_dot1_##suffix(w[r], x, idx, nnz);          \
    }
#define SKP_DEFINE_SPARSE_DOTS_D(G, suffix, TX)                             \
    SKP_DEFINE_SPARSE_DOTS_T(G, double, TX, suffix)
#define SKP_DEFINE_SPARSE_DOTS_F(G) SKP_DEFINE_SPARSE_DOTS_T(G, float, float, f)

#endif

SKP_DEFINE_SPARSE_DOTS_D(2, d, double)
SKP_DEFINE_SPARSE_DOTS_D(3, d, double)
SKP_DEFINE_SPARSE_DOTS_D(4, d, double)
SKP_DEFINE_SPARSE_DOTS_D(2, df, float)
SKP_DEFINE_SPARSE_DOTS_D(3, df, float)
SKP_DEFINE_SPARSE_DOTS_D(4, df, float)
SKP_DEFINE_SPARSE_DOTS_F(2)
SKP_DEFINE_SPARSE_DOTS_F(3)
SKP_DEFINE_SPARSE_DOTS_F(4)

/* ------------------------------------------------------------------------
   The entry points: short rows summed inline, in one sum each; long rows
   one weight row alone or in groups of four, then one group of the
   rest. */
#define SKP_DEFINE_SPARSE_DOTS(T, TX, suffix)                               \
    static inline void skp_sparse_dots_##suffix(                           \
        const T *const *w, ptrdiff_t count, const TX *x, const int *idx,   \
        ptrdiff_t nnz, T *out)                                             \
    {                                                                      \
        ptrdiff_t r = 0, t;                                                \
        if (nnz < 8) {                                                     \
            for (r = 0; r < count; r++) {                                  \
                T s = 0;                                                   \
                for (t = 0; t < nnz; t++)                                  \
                    s += w[r][idx[t]] * x[t];                              \
                out[r] = s;                                                \
            }                                                              \
            return;                                                        \
        }                                                                  \
        for (; r + 4 <= count; r += 4)                                     \
            skp_sparse_dots4_##suffix(w + r, x, idx, nnz, out + r);        \
        switch (count - r) {                                               \
        case 3: skp_sparse_dots3_##suffix(w + r, x, idx, nnz, out + r); break; \
        case 2: skp_sparse_dots2_##suffix(w + r, x, idx, nnz, out + r); break; \
        case 1: out[r] = skp_sparse_dot1_##suffix(w[r], x, idx, nnz); break; \
        default: break;                                                    \
        }                                                                  \
    }

SKP_DEFINE_SPARSE_DOTS(double, double, d)
SKP_DEFINE_SPARSE_DOTS(float, float, f)
SKP_DEFINE_SPARSE_DOTS(double, float, df)

#endif
