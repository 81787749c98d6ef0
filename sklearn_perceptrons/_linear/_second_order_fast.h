/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   The O(p^2) step of the second-order perceptron's full mode
   (_second_order_core.pxi): one pass over the inverse M = A^-1 that applies
   the rank-one downdate M -= u u^T held back from the previous mistake and
   computes z = M x with the downdated M, reading and writing every stored
   entry once.

   M is symmetric, pp x pp, pp a multiple of 4 (the padding rows and
   columns are zero and stay zero).  It is cut into 4 x 4 blocks; the blocks
   below the diagonal are stored, and those on the diagonal are stored whole,
   packed block row after block row, so that each stored off-diagonal entry
   serves twice (row a: z_a += m x_b; column b: z_b += m x_a), no block needs
   a scalar tail and the pass is one contiguous stream.

   The arithmetic is written on 4-wide vectors of doubles (GCC/Clang vector
   extensions; a struct of 4 doubles elsewhere), in the same order in every
   build; the AVX2 build fuses its multiply-adds (FMA3, as BLAS does), so
   that its results agree with the baseline build's to rounding, not to the
   bit.  The downdate held back and the downdate alone round alike: a pass
   does not depend on where a batch was split. */
#ifndef SKP_SECOND_ORDER_FAST_H
#define SKP_SECOND_ORDER_FAST_H

#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
/* The vectors never cross a function boundary (every helper is inlined);
   GCC warns at the end of the translation unit, hence no pop. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double skp_v4 __attribute__((vector_size(32)));
static inline skp_v4 skp_v4_add(skp_v4 a, skp_v4 b) { return a + b; }
static inline skp_v4 skp_v4_sub(skp_v4 a, skp_v4 b) { return a - b; }
static inline skp_v4 skp_v4_mul(skp_v4 a, skp_v4 b) { return a * b; }
static inline double skp_v4_lane(skp_v4 a, int k) { return a[k]; }
#else
typedef struct { double v[4]; } skp_v4;
static inline skp_v4 skp_v4_add(skp_v4 a, skp_v4 b) {
    skp_v4 r; int k;
    for (k = 0; k < 4; k++) r.v[k] = a.v[k] + b.v[k];
    return r;
}
static inline skp_v4 skp_v4_sub(skp_v4 a, skp_v4 b) {
    skp_v4 r; int k;
    for (k = 0; k < 4; k++) r.v[k] = a.v[k] - b.v[k];
    return r;
}
static inline skp_v4 skp_v4_mul(skp_v4 a, skp_v4 b) {
    skp_v4 r; int k;
    for (k = 0; k < 4; k++) r.v[k] = a.v[k] * b.v[k];
    return r;
}
static inline double skp_v4_lane(skp_v4 a, int k) { return a.v[k]; }
#endif

/* c + a * b and c - a * b: one rounding each in the AVX2 build, which
   compiles the matrix pass for CPUs with FMA3 (fused multiply-adds halve
   its instructions); two roundings elsewhere. */
#if defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SKP_SO_TARGET __attribute__((target("fma")))
static inline SKP_SO_TARGET skp_v4 skp_v4_mul_add(skp_v4 a, skp_v4 b, skp_v4 c) {
    return (skp_v4)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
}
static inline SKP_SO_TARGET skp_v4 skp_v4_sub_mul(skp_v4 c, skp_v4 a, skp_v4 b) {
    return (skp_v4)_mm256_fnmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
}
#else
#define SKP_SO_TARGET
static inline skp_v4 skp_v4_mul_add(skp_v4 a, skp_v4 b, skp_v4 c) {
    return skp_v4_add(c, skp_v4_mul(a, b));
}
static inline skp_v4 skp_v4_sub_mul(skp_v4 c, skp_v4 a, skp_v4 b) {
    return skp_v4_sub(c, skp_v4_mul(a, b));
}
#endif

static inline skp_v4 skp_v4_load(const double *p) {
    skp_v4 r;
    memcpy(&r, p, sizeof r);
    return r;
}
static inline void skp_v4_store(double *p, skp_v4 v) { memcpy(p, &v, sizeof v); }
static inline skp_v4 skp_v4_splat(double a) {
    skp_v4 r;
    double lanes[4];
    lanes[0] = lanes[1] = lanes[2] = lanes[3] = a;
    memcpy(&r, lanes, sizeof r);
    return r;
}
static inline double skp_v4_sum(skp_v4 s) {
    return (skp_v4_lane(s, 0) + skp_v4_lane(s, 1))
           + (skp_v4_lane(s, 2) + skp_v4_lane(s, 3));
}

/* The sum of the lanes of each of s0..s3, as [sum s0, sum s1, sum s2,
   sum s3], each summed as (l0 + l1) + (l2 + l3). */
static inline skp_v4 skp_v4_sums(skp_v4 s0, skp_v4 s1, skp_v4 s2, skp_v4 s3) {
#if defined(__clang__)
    skp_v4 a = __builtin_shufflevector(s0, s1, 0, 4, 2, 6)
               + __builtin_shufflevector(s0, s1, 1, 5, 3, 7);
    skp_v4 b = __builtin_shufflevector(s2, s3, 0, 4, 2, 6)
               + __builtin_shufflevector(s2, s3, 1, 5, 3, 7);
    return __builtin_shufflevector(a, b, 0, 1, 4, 5)
           + __builtin_shufflevector(a, b, 2, 3, 6, 7);
#elif defined(__GNUC__)
    typedef long long skp_i4 __attribute__((vector_size(32)));
    const skp_i4 even = {0, 4, 2, 6}, odd = {1, 5, 3, 7};
    const skp_i4 low = {0, 1, 4, 5}, high = {2, 3, 6, 7};
    skp_v4 a = __builtin_shuffle(s0, s1, even) + __builtin_shuffle(s0, s1, odd);
    skp_v4 b = __builtin_shuffle(s2, s3, even) + __builtin_shuffle(s2, s3, odd);
    return __builtin_shuffle(a, b, low) + __builtin_shuffle(a, b, high);
#else
    skp_v4 r;
    r.v[0] = skp_v4_sum(s0);
    r.v[1] = skp_v4_sum(s1);
    r.v[2] = skp_v4_sum(s2);
    r.v[3] = skp_v4_sum(s3);
    return r;
#endif
}

/* The side of the padded matrix: p rounded up to a multiple of 4. */
static inline ptrdiff_t skp_so_padded(ptrdiff_t p) { return (p + 3) / 4 * 4; }

/* The number of doubles of the packed matrix of side pp: its 4 x 4 blocks
   on and below the diagonal. */
static inline ptrdiff_t skp_so_packed_size(ptrdiff_t pp) {
    ptrdiff_t n = pp / 4;
    return 16 * (n * (n + 1) / 2);
}

/* M -= u u^T (stored blocks), then z = M x; u, x and z have pp entries, u
   and x zero on the padding.  With u = 0 it is the product alone (M is
   rewritten unchanged: m - 0 * u_b is m).  M is packed: block row I (rows
   4I..4I+3) holds its blocks J = 0..I one after the other, each 16 doubles
   (4 rows of 4), so that the pass reads and writes one contiguous stream. */
static inline SKP_SO_TARGET void skp_so_downdate_product(
        double *M, ptrdiff_t pp, const double *u, const double *x, double *z) {
    ptrdiff_t a, b;
    double *block = M;
    const skp_v4 zero = skp_v4_splat(0.0);
    for (b = 0; b < pp; b += 4)
        skp_v4_store(z + b, zero);
    for (a = 0; a < pp; a += 4) {
        const skp_v4 u0 = skp_v4_splat(u[a]), u1 = skp_v4_splat(u[a + 1]);
        const skp_v4 u2 = skp_v4_splat(u[a + 2]), u3 = skp_v4_splat(u[a + 3]);
        const skp_v4 x0 = skp_v4_splat(x[a]), x1 = skp_v4_splat(x[a + 1]);
        const skp_v4 x2 = skp_v4_splat(x[a + 2]), x3 = skp_v4_splat(x[a + 3]);
        skp_v4 s0 = zero, s1 = zero, s2 = zero, s3 = zero;
        skp_v4 ub, xb, m0, m1, m2, m3, zb;
        /* Every block of the block row, the diagonal one last. */
        for (b = 0; b <= a; b += 4, block += 16) {
            ub = skp_v4_load(u + b);
            xb = skp_v4_load(x + b);
            m0 = skp_v4_sub_mul(skp_v4_load(block), u0, ub);
            m1 = skp_v4_sub_mul(skp_v4_load(block + 4), u1, ub);
            m2 = skp_v4_sub_mul(skp_v4_load(block + 8), u2, ub);
            m3 = skp_v4_sub_mul(skp_v4_load(block + 12), u3, ub);
            skp_v4_store(block, m0);
            skp_v4_store(block + 4, m1);
            skp_v4_store(block + 8, m2);
            skp_v4_store(block + 12, m3);
            /* Rows a..a+3 of z, and by symmetry (blocks left of the
               diagonal only) rows b..b+3. */
            s0 = skp_v4_mul_add(m0, xb, s0);
            s1 = skp_v4_mul_add(m1, xb, s1);
            s2 = skp_v4_mul_add(m2, xb, s2);
            s3 = skp_v4_mul_add(m3, xb, s3);
            if (b < a) {
                zb = skp_v4_mul_add(m0, x0, skp_v4_load(z + b));
                zb = skp_v4_mul_add(m1, x1, zb);
                zb = skp_v4_mul_add(m2, x2, zb);
                zb = skp_v4_mul_add(m3, x3, zb);
                skp_v4_store(z + b, zb);
            }
        }
        skp_v4_store(z + a, skp_v4_add(skp_v4_load(z + a),
                                       skp_v4_sums(s0, s1, s2, s3)));
    }
}

/* M -= u u^T on the packed blocks (the downdate alone). */
static inline SKP_SO_TARGET void skp_so_downdate(double *M, ptrdiff_t pp,
                                                const double *u) {
    ptrdiff_t a, b;
    int k;
    double *block = M;
    for (a = 0; a < pp; a += 4) {
        for (b = 0; b <= a; b += 4, block += 16) {
            const skp_v4 ub = skp_v4_load(u + b);
            for (k = 0; k < 4; k++)
                skp_v4_store(block + 4 * k,
                             skp_v4_sub_mul(skp_v4_load(block + 4 * k),
                                            skp_v4_splat(u[a + k]), ub));
        }
    }
}

#endif
