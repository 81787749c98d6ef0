/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   The O(p^2) step of the second-order perceptron's full mode
   (_second_order_core.pxi): one pass over the inverse M = A^-1 that applies
   the rank-one downdate M -= u u^T held back from the previous mistake and
   computes z = M x with the downdated M, reading and writing every stored
   entry once.

   M is row-major, pp x pp, pp a multiple of 4 (the padding rows and columns
   are zero and stay zero).  It is cut into 4 x 4 blocks; the blocks below
   the diagonal are stored and those on the diagonal are stored whole, so
   each stored off-diagonal entry serves twice (row a: z_a += m x_b; column
   b: z_b += m x_a) and no block needs a scalar tail.

   The arithmetic is written on 4-wide vectors of doubles (GCC/Clang vector
   extensions; a struct of 4 doubles elsewhere), with separate
   multiplications and additions: every build, SSE2 or AVX2, does the same
   operations in the same order and gives the same bits. */
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

/* The rounded-up size of the padded state: a multiple of 4. */
static inline ptrdiff_t skp_so_padded(ptrdiff_t p) { return (p + 3) / 4 * 4; }

/* Four vectors: one per row of a block of four rows. */
typedef struct { skp_v4 k0, k1, k2, k3; } skp_v4x4;

/* The block of rows r..r+3 at columns b..b+3 (rows pp apart): m_k = r_k -
   u_k u[b:b+4], stored in place and returned; adds m_k x[b:b+4] to the
   row sums s_k.  u_k is u_{a+k} in every lane. */
static inline skp_v4x4 skp_so_row_block(double *r, ptrdiff_t pp,
                                        const skp_v4x4 *uk, const double *u,
                                        const double *x, skp_v4x4 *s) {
    const skp_v4 ub = skp_v4_load(u), xb = skp_v4_load(x);
    skp_v4x4 m;
    m.k0 = skp_v4_sub(skp_v4_load(r), skp_v4_mul(uk->k0, ub));
    m.k1 = skp_v4_sub(skp_v4_load(r + pp), skp_v4_mul(uk->k1, ub));
    m.k2 = skp_v4_sub(skp_v4_load(r + 2 * pp), skp_v4_mul(uk->k2, ub));
    m.k3 = skp_v4_sub(skp_v4_load(r + 3 * pp), skp_v4_mul(uk->k3, ub));
    skp_v4_store(r, m.k0);
    skp_v4_store(r + pp, m.k1);
    skp_v4_store(r + 2 * pp, m.k2);
    skp_v4_store(r + 3 * pp, m.k3);
    s->k0 = skp_v4_add(s->k0, skp_v4_mul(m.k0, xb));
    s->k1 = skp_v4_add(s->k1, skp_v4_mul(m.k1, xb));
    s->k2 = skp_v4_add(s->k2, skp_v4_mul(m.k2, xb));
    s->k3 = skp_v4_add(s->k3, skp_v4_mul(m.k3, xb));
    return m;
}

/* M -= u u^T (stored blocks), then z = M x; u, x and z have pp entries, u
   and x zero on the padding.  With u = 0 it is the product alone (M is
   rewritten unchanged: m - 0 * u_b is m). */
static inline void skp_so_downdate_product(double *M, ptrdiff_t pp,
                                           const double *u, const double *x,
                                           double *z) {
    ptrdiff_t a, b;
    const skp_v4 zero = skp_v4_splat(0.0);
    for (b = 0; b < pp; b += 4)
        skp_v4_store(z + b, zero);
    for (a = 0; a < pp; a += 4) {
        double *row = M + a * pp;
        const skp_v4x4 uk = {skp_v4_splat(u[a]), skp_v4_splat(u[a + 1]),
                             skp_v4_splat(u[a + 2]), skp_v4_splat(u[a + 3])};
        const skp_v4 x0 = skp_v4_splat(x[a]), x1 = skp_v4_splat(x[a + 1]);
        const skp_v4 x2 = skp_v4_splat(x[a + 2]), x3 = skp_v4_splat(x[a + 3]);
        skp_v4x4 s = {zero, zero, zero, zero}, m;
        skp_v4 zb;
        /* The blocks left of the diagonal: the row sums s_k and, by
           symmetry, the column contributions to z_b. */
        for (b = 0; b < a; b += 4) {
            m = skp_so_row_block(row + b, pp, &uk, u + b, x + b, &s);
            zb = skp_v4_add(skp_v4_load(z + b), skp_v4_mul(m.k0, x0));
            zb = skp_v4_add(zb, skp_v4_mul(m.k1, x1));
            zb = skp_v4_add(zb, skp_v4_mul(m.k2, x2));
            zb = skp_v4_add(zb, skp_v4_mul(m.k3, x3));
            skp_v4_store(z + b, zb);
        }
        /* The diagonal block, stored whole: rows only. */
        skp_so_row_block(row + a, pp, &uk, u + a, x + a, &s);
        z[a] += skp_v4_sum(s.k0);
        z[a + 1] += skp_v4_sum(s.k1);
        z[a + 2] += skp_v4_sum(s.k2);
        z[a + 3] += skp_v4_sum(s.k3);
    }
}

/* M -= u u^T on the stored blocks (the downdate alone). */
static inline void skp_so_downdate(double *M, ptrdiff_t pp, const double *u) {
    ptrdiff_t a, b, k;
    for (a = 0; a < pp; a++) {
        double *row = M + a * pp;
        const skp_v4 ua = skp_v4_splat(u[a]);
        /* Up to the end of the diagonal block of row a. */
        k = a / 4 * 4 + 4;
        for (b = 0; b < k; b += 4)
            skp_v4_store(row + b, skp_v4_sub(skp_v4_load(row + b),
                                             skp_v4_mul(ua, skp_v4_load(u + b))));
    }
}

#endif
