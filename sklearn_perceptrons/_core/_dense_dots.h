/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   skp_dense_dots_d / skp_dense_dots_f: the dot products of one dense row x
   (n values) with `count` weight rows w[0], ..., w[count - 1], written to
   out[0], ..., out[count - 1]; skp_dense_dots_df: float32 values against
   float64 weights, in float64 (each value widened exactly).  The package's
   one dense dot product; skp_dense_dots1_* are its single row (row_dot
   and row_dot_wide of _rowops.pxd call them directly, inlined).

   Each dot product is summed in eight partial sums (entry j to sum j % 8,
   the last n % 8 entries to sum 0), combined as
   ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)), the order of the
   sparse dot product (_sparse_dots.h), so that a dense row and the same row
   in CSR form give the same bits.  Only the schedule depends on `count`:
   up to five rows are summed in one loop, so each block of x is loaded once
   for all of them.  Lane k of the vectors holds s[k], so every build and
   every count returns the same bits. */
#ifndef SKP_DENSE_DOTS_H
#define SKP_DENSE_DOTS_H

#include <stddef.h>

#include "_eight_sums.h"

#if defined(__GNUC__) || defined(__clang__)

typedef double skp_v4d __attribute__((vector_size(32)));
typedef float skp_v8f __attribute__((vector_size(32)));
/* The same vectors read from any address (unaligned, aliasing the rows). */
typedef double skp_v4d_in __attribute__((vector_size(32), aligned(8), may_alias));
typedef float skp_v8f_in __attribute__((vector_size(32), aligned(4), may_alias));
typedef float skp_v4f_in __attribute__((vector_size(16), aligned(4), may_alias));
/* Four values of x as float64: loaded, or loaded and widened (exactly). */
#define SKP_DENSE_LOAD4_D(p) (*(const skp_v4d_in *)(p))
#define SKP_DENSE_LOAD4_DF(p) \
    __builtin_convertvector(*(const skp_v4f_in *)(p), skp_v4d)

/* G rows at once, G a constant, so that the sums stay in registers.  For
   float64 the eight sums of a row are two vectors (s0-s3, s4-s7); for
   float32 they are one.  The last n % 8 entries go to s0, all rows in one
   loop (a loop per row costs more than the sums it adds). */
#define SKP_DENSE_W(r, t) w[r][t]

#define SKP_DEFINE_DENSE_DOTS_D(G, suffix, TX, LOAD4)                      \
    static inline void skp_dense_dots##G##_##suffix(                       \
        const double *const *w, const TX *x, ptrdiff_t n, double *out)     \
    {                                                                      \
        skp_v4d lo[G], hi[G];                                              \
        double s0[G];                                                      \
        ptrdiff_t j = 0, r, t;                                             \
        for (r = 0; r < G; r++)                                            \
            lo[r] = hi[r] = (skp_v4d){0.0, 0.0, 0.0, 0.0};                 \
        for (; j + 8 <= n; j += 8) {                                       \
            skp_v4d x_lo = LOAD4(x + j);                                   \
            skp_v4d x_hi = LOAD4(x + j + 4);                               \
            for (r = 0; r < G; r++) {                                      \
                lo[r] += *(const skp_v4d_in *)(w[r] + j) * x_lo;           \
                hi[r] += *(const skp_v4d_in *)(w[r] + j + 4) * x_hi;       \
            }                                                              \
        }                                                                  \
        SKP_EIGHT_SUMS_END_D(G, lo, hi, SKP_DENSE_W, x, j, n, out);        \
    }

#define SKP_DEFINE_DENSE_DOTS_F(G)                                          \
    static inline void skp_dense_dots##G##_f(                              \
        const float *const *w, const float *x, ptrdiff_t n, float *out)    \
    {                                                                      \
        skp_v8f acc[G];                                                    \
        float s0[G];                                                       \
        ptrdiff_t j = 0, r, t;                                             \
        for (r = 0; r < G; r++)                                            \
            acc[r] = (skp_v8f){0, 0, 0, 0, 0, 0, 0, 0};                    \
        for (; j + 8 <= n; j += 8) {                                       \
            skp_v8f xs = *(const skp_v8f_in *)(x + j);                     \
            for (r = 0; r < G; r++)                                        \
                acc[r] += *(const skp_v8f_in *)(w[r] + j) * xs;            \
        }                                                                  \
        SKP_EIGHT_SUMS_END_F(G, acc, SKP_DENSE_W, x, j, n, out);           \
    }

#else /* other compilers: one row at a time, the same order */

#define SKP_DEFINE_DENSE_DOTS_T(G, T, TX, suffix)                           \
    static void skp_dense_dots##G##_##suffix(                              \
        const T *const *w, const TX *x, ptrdiff_t n, T *out)               \
    {                                                                      \
        ptrdiff_t j, r, k;                                                 \
        for (r = 0; r < G; r++) {                                          \
            T s[8] = {0};                                                  \
            for (j = 0; j + 8 <= n; j += 8)                                \
                for (k = 0; k < 8; k++)                                    \
                    s[k] += w[r][j + k] * x[j + k];                        \
            for (; j < n; j++)                                             \
                s[0] += w[r][j] * x[j];                                    \
            out[r] = ((s[0] + s[4]) + (s[1] + s[5]))                       \
                     + ((s[2] + s[6]) + (s[3] + s[7]));                    \
        }                                                                  \
    }
#define SKP_DEFINE_DENSE_DOTS_D(G, suffix, TX, LOAD4)                      \
    SKP_DEFINE_DENSE_DOTS_T(G, double, TX, suffix)
#define SKP_DEFINE_DENSE_DOTS_F(G) SKP_DEFINE_DENSE_DOTS_T(G, float, float, f)

#endif

SKP_DEFINE_DENSE_DOTS_D(1, d, double, SKP_DENSE_LOAD4_D)
SKP_DEFINE_DENSE_DOTS_D(2, d, double, SKP_DENSE_LOAD4_D)
SKP_DEFINE_DENSE_DOTS_D(3, d, double, SKP_DENSE_LOAD4_D)
SKP_DEFINE_DENSE_DOTS_D(4, d, double, SKP_DENSE_LOAD4_D)
SKP_DEFINE_DENSE_DOTS_D(5, d, double, SKP_DENSE_LOAD4_D)
SKP_DEFINE_DENSE_DOTS_D(1, df, float, SKP_DENSE_LOAD4_DF)
SKP_DEFINE_DENSE_DOTS_D(2, df, float, SKP_DENSE_LOAD4_DF)
SKP_DEFINE_DENSE_DOTS_D(3, df, float, SKP_DENSE_LOAD4_DF)
SKP_DEFINE_DENSE_DOTS_D(4, df, float, SKP_DENSE_LOAD4_DF)
SKP_DEFINE_DENSE_DOTS_D(5, df, float, SKP_DENSE_LOAD4_DF)
SKP_DEFINE_DENSE_DOTS_F(1)
SKP_DEFINE_DENSE_DOTS_F(2)
SKP_DEFINE_DENSE_DOTS_F(3)
SKP_DEFINE_DENSE_DOTS_F(4)
SKP_DEFINE_DENSE_DOTS_F(5)

/* Groups of five rows, then one group of the rest. */
#define SKP_DEFINE_DENSE_DOTS(T, TX, suffix)                                \
    static inline void skp_dense_dots_##suffix(                            \
        const T *const *w, ptrdiff_t count, const TX *x, ptrdiff_t n,      \
        T *out)                                                            \
    {                                                                      \
        ptrdiff_t r = 0;                                                   \
        for (; r + 5 <= count; r += 5)                                     \
            skp_dense_dots5_##suffix(w + r, x, n, out + r);                \
        switch (count - r) {                                               \
        case 4: skp_dense_dots4_##suffix(w + r, x, n, out + r); break;     \
        case 3: skp_dense_dots3_##suffix(w + r, x, n, out + r); break;     \
        case 2: skp_dense_dots2_##suffix(w + r, x, n, out + r); break;     \
        case 1: skp_dense_dots1_##suffix(w + r, x, n, out + r); break;     \
        default: break;                                                    \
        }                                                                  \
    }

SKP_DEFINE_DENSE_DOTS(double, double, d)
SKP_DEFINE_DENSE_DOTS(float, float, f)
SKP_DEFINE_DENSE_DOTS(double, float, df)

#endif
