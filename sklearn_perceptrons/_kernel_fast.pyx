# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled dual loop of the kernel perceptron.

The dual (kernelized) perceptron keeps, for every training sample ``z_j`` and
every binary sub-problem ``k``, its current score
``scores[k, j] = sum_s alpha[s, k] * K'(z_s, z_j)`` where ``K' = K + add``
(``add = 1`` pads a constant feature in kernel space, which is the same as
learning an intercept ``b_k = sum_s alpha[s, k]``).  Deciding whether a
visited sample triggers an update is then a look-up; an update on sample
``i`` computes one kernel column ``K'(Z, z_i)`` (or reads it from the column
cache) and adds it, scaled, to the scores of the rows that updated.

Everything that distinguishes the fits of :class:`KernelPerceptron` is a
parameter of the same walk:

* the table ``rows_ptr``/``rows``/``signs`` says which sub-problems a sample
  of class ``c`` takes part in, with which sign (binary: one row;
  one-vs-all: K rows sharing one set of support vectors);
* ``average`` keeps Daume's running sums ``alpha_sum`` so that the average of
  the coefficients over every visit is ``alpha - alpha_sum / visits``;
* ``budget``/``strategy`` bound the number of support vectors: before a new
  support vector enters a full set, one leaves it (the oldest, i.e. least
  recently updated, or a uniformly random one); the Forgetron also shrinks
  every coefficient first, by the largest factor that keeps the cumulative
  "damage" of removals below 15/32 of the row's mistakes so far.  A removed
  support vector takes its contribution out of every score with one kernel
  column, and leaves the average too.

Kernel columns are computed here for the built-in kernels ("linear", "poly",
"rbf", "sigmoid", "laplacian", "cosine"; dense and CSR rows, float32 and
float64 through the fused type ``floating``) and read from the Gram matrix for
"precomputed".  A callable kernel cannot run without the GIL: the walk then
stops at the visit that needs a missing column, reports the row, and Python
stores the column in the cache and resumes the walk at the same visit (no
state has changed for it yet).

Columns live in an LRU cache of ``capacity`` lines of ``n_track`` values
(plus two scratch lines for columns not admitted to it); when ``capacity``
covers every row, the cache is the Gram matrix, formed lazily (only columns
of samples that ever update are computed).  The hot loops over rows (the
dense reductions, the exponential, the finiteness check, the binary score
update) are small C functions that GCC on x86-64 Linux also compiles for
AVX2, picked at load time; both builds round alike.  When the cache is the
Gram matrix of a dense Z, the walk computes the columns of new support
vectors several at a time (:func:`_walk_blocked`).

Kernel values below the smallest normal double (``exp(x)`` for
``x < -708.39``) are returned as that smallest normal (2.2e-308) instead of
a subnormal or zero, which keeps the exponential branch-free (and
vectorized).

Training precision: the exponential kernels ("rbf", "laplacian") take
their kernel values in single precision during a fit, as LIBSVM's kernel
cache (SVC) does.  The argument of the exponential is computed in double,
as for predictions; the exponential is ``skp_exp_single`` (relative error
below 2^-23, 1.2e-7, against the exact exponential of that argument where
that is at least 2^-126, absolute error below 7.7e-8), every pass of a fit
computes it the same way, and the cache lines hold those float32 values
(``cache32``) without ``add``: a kernel value is read as ``(double) v +
add`` wherever it is used, so that a fit does not depend on which pass
computed a column nor on ``cache_size``.  The lines take half the memory,
their traffic is halved and the exponential has twice the throughput; the
scores stay sums in double.  ``decision_function`` computes the
exponentials in double.  The other kernels, and callables, keep double
columns.
"""

import numpy as np
from cython cimport floating
from libc.math cimport fabs, sqrt, tanh
from libc.stdint cimport int16_t, int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    /* A hint to fetch the cache line of p for writing (no effect without
       GCC or Clang). */
    #if defined(__GNUC__)
    #define SKP_PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
    #else
    #define SKP_PREFETCH_W(p) ((void)(p))
    #endif

    /* exp(x) on [-708.3964, 0] (the arguments are clamped by the caller):
       Cody-Waite reduction x = k ln2 + r, |r| <= ln2/2, a degree 11
       polynomial (Chebyshev interpolation of exp on [-ln2/2, ln2/2], near
       minimax: truncation error < 4e-18; the constant and linear
       coefficients round to 1) and 2^k built from the exponent bits.
       Against a long double reference over [-708.4, 0]: error at most
       2.2 ulp, 0.46 ulp on average (the rounding of the reduction and of
       the evaluation; a degree 13 Taylor polynomial measures the same).  No
       branch and no call, so the loop that applies it is vectorized by the
       compiler; on x86-64 Linux with GCC an AVX2 clone is selected at load
       time when the CPU has it. */
    static inline __attribute__((always_inline)) double
    skp_exp_clamped(double x) {
        const double shifter = 6755399441055744.0;  /* 1.5 * 2^52 */
        double kd = x * 1.4426950408889634 + shifter;
        int64_t ki;
        memcpy(&ki, &kd, sizeof ki);
        kd -= shifter;
        double r = (x - kd * 6.93147180369123816490e-01)
                   - kd * 1.90821492927058770002e-10;
        /* Estrin's scheme: a shallow dependency tree, so that the
           out-of-order core overlaps many elements. */
        double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        double p01 = 1.0 + r;
        double p23 = 0.5000000000000019 + r * 0.1666666666666668;
        double p45 = 0.0416666666664881 + r * 0.008333333333319601;
        double p67 = 0.0013888888952314775 + r * 0.00019841269890047113;
        double p89 = 2.4801485482328494e-05 + r * 2.755724091857897e-06;
        double p1011 = 2.763263963904103e-07 + r * 2.5110037605963777e-08;
        double q0 = p01 + r2 * p23, q1 = p45 + r2 * p67;
        double q2 = p89 + r2 * p1011;
        double p = (q0 + r4 * q1) + r8 * q2;
        /* The low bits of ki hold k; build the bits of 2^k. */
        int64_t bits = (ki - (int64_t)0x4338000000000000LL + 1023) << 52;
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        return p * scale;
    }

    /* exp(x) in single precision, for the kernel values of a fit (see
       "Training precision" in the module docstring), x in [-708.3964, 0]:
       the reduction x = k ln2 + r in double as in skp_exp_clamped, then r
       rounded to float32, a degree 6 polynomial in float32 (Chebyshev
       interpolation of exp on [-ln2/2, ln2/2], truncation error 2.5e-9;
       its coefficients rounded to float32, written exactly) and 2^k from
       the exponent bits (0 for k <= -127: below 2^-126 a value is 0 or
       subnormal).  Over [-708.4, 0], against double exp: relative error
       at most 1.13e-7 (below 2^-23, the float32 ulp of 1) where exp(x) is
       at least 2^-126, absolute error at most 7.7e-8.  Eight lanes per
       AVX2 vector instead of four, and half the polynomial: twice the
       throughput of skp_exp_clamped. */
    static inline __attribute__((always_inline)) float
    skp_exp_single(double x) {
        const double shifter = 6755399441055744.0;  /* 1.5 * 2^52 */
        double kd = x * 1.4426950408889634 + shifter;
        int64_t ki;
        int32_t k, bits;
        float r, p, scale;
        memcpy(&ki, &kd, sizeof ki);
        kd -= shifter;
        r = (float)((x - kd * 6.93147180369123816490e-01)
                    - kd * 1.90821492927058770002e-10);
        p = 1.0f + r * (1.0f + r * (0.5f + r * (0.16666415333747864f
            + r * (0.04166635125875473f + r * (0.00837512593716383f
            + r * 0.0013941108481958508f)))));
        /* The low bits of ki hold k >= -1023; below -126, 2^k is not a
           normal float32: the value is 0. */
        k = (int32_t)(ki - (int64_t)0x4338000000000000LL);
        k = k > -127 ? k : -127;
        bits = (k + 127) << 23;
        memcpy(&scale, &bits, sizeof scale);
        return p * scale;
    }

    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \\
        && defined(__linux__) && __GNUC__ >= 11
    /* AVX2 without FMA: no build may fuse a multiplication and an addition,
       so that both clones round alike. */
    #define SKP_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define SKP_CLONES
    #endif

    /* buf[j] = exp(buf[j]) + add, for buf[j] in [-708.3964, 0]. */
    SKP_CLONES static void skp_exp_add(double *buf, Py_ssize_t n, double add) {
        for (Py_ssize_t j = 0; j < n; j++) {
            buf[j] = skp_exp_clamped(buf[j]) + add;
        }
    }

    /* buf[j] = skp_exp_single(buf[j]) + add (in double), for buf[j] in
       [-708.3964, 0]: the kernel values of a fit. */
    SKP_CLONES static void skp_exp_add_single(double *buf, Py_ssize_t n,
                                              double add) {
        for (Py_ssize_t j = 0; j < n; j++) {
            buf[j] = (double)skp_exp_single(buf[j]) + add;
        }
    }

    /* Pass 1 of a kernel column over dense rows z_j (start <= j < stop):
       out[j - start] = z_j . x (mode 0), or max(-gamma d(z_j, x), LOG_MIN)
       with d the squared euclidean (mode 1) or the l1 distance (mode 2).
       Eight partial sums in a fixed order (vectorized, deterministic); two
       features get loops of their own, without an inner loop. */
    #define SKP_LOG_DBL_MIN (-708.3964185322641)
    #define SKP_CLAMP(s) ((s) > SKP_LOG_DBL_MIN ? (s) : SKP_LOG_DBL_MIN)
    #define SKP_SUM8 (((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)))
    /* Dense reductions of a row z (of type T) against a probe x (double),
       d != 2.  The dot product has four partial sums in a fixed order:
       s_i accumulates the features f = i (mod 4), the features after the
       last multiple of 4 go to s_0, and the result is (s0 + s1) + (s2 + s3).
       The l1 distance (laplacian) has eight partial sums (SKP_SUM8).  Every
       pass below goes through these orders, so a kernel value does not
       depend on how many rows or probes a pass covers, nor on the build. */
    #define SKP_PAIR_FUNCS(SUF, T)                                            \
    static inline double skp_dot_##SUF(const T *z, const double *x,          \
                                       Py_ssize_t d) {                       \
        Py_ssize_t f;                                                        \
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;                       \
        for (f = 0; f + 4 <= d; f += 4) {                                    \
            s0 += z[f] * x[f];         s1 += z[f + 1] * x[f + 1];            \
            s2 += z[f + 2] * x[f + 2]; s3 += z[f + 3] * x[f + 3];            \
        }                                                                    \
        for (; f < d; f++) s0 += z[f] * x[f];                                \
        return (s0 + s1) + (s2 + s3);                                        \
    }                                                                        \
    static inline double skp_l1dist_##SUF(const T *z, const double *x,       \
                                          Py_ssize_t d, double gamma) {      \
        Py_ssize_t f;                                                        \
        double s0, s1, s2, s3, s4, s5, s6, s7, t;                            \
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0;                         \
        for (f = 0; f + 8 <= d; f += 8) {                                    \
            s0 += fabs(z[f] - x[f]);         s1 += fabs(z[f + 1] - x[f + 1]);\
            s2 += fabs(z[f + 2] - x[f + 2]); s3 += fabs(z[f + 3] - x[f + 3]);\
            s4 += fabs(z[f + 4] - x[f + 4]); s5 += fabs(z[f + 5] - x[f + 5]);\
            s6 += fabs(z[f + 6] - x[f + 6]); s7 += fabs(z[f + 7] - x[f + 7]);\
        }                                                                    \
        for (; f < d; f++) s0 += fabs(z[f] - x[f]);                          \
        t = -gamma * SKP_SUM8;                                               \
        return SKP_CLAMP(t);                                                 \
    }
    SKP_PAIR_FUNCS(d, double)
    SKP_PAIR_FUNCS(f, float)

    /* Four dot products in the order of skp_dot: skp_dot4r gives those of
       rows z0..z3 with one probe x.  Independent dependency chains keep the
       adders busy, and a loaded probe vector serves four rows.  With GCC's
       vector extensions the partial sums s_0..s_3 of a pair are one vector,
       lane i holding s_i only; without them, the scalar loop. */
    #if defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 9)
    #define SKP_VECTORS 1
    typedef double skp_v4d __attribute__((vector_size(32)));
    typedef float skp_v4f __attribute__((vector_size(16)));
    typedef long long skp_v4i __attribute__((vector_size(32)));
    static inline skp_v4d skp_load4_d(const double *p) {
        skp_v4d v; memcpy(&v, p, sizeof v); return v;
    }
    static inline skp_v4d skp_load4_f(const float *p) {
        skp_v4f v; memcpy(&v, p, sizeof v);
        return __builtin_convertvector(v, skp_v4d);
    }
    /* (v0, v1, v2, v3) -> ((v_k[0] + v_k[1]) + (v_k[2] + v_k[3]))_k */
    static inline skp_v4d skp_reduce4(skp_v4d v0, skp_v4d v1, skp_v4d v2,
                                      skp_v4d v3) {
        const skp_v4i even = {0, 4, 2, 6}, odd = {1, 5, 3, 7};
        const skp_v4i lo = {0, 1, 4, 5}, hi = {2, 3, 6, 7};
        /* a = (v0[0] + v0[1], v1[0] + v1[1], v0[2] + v0[3], v1[2] + v1[3]) */
        skp_v4d a = __builtin_shuffle(v0, v1, even)
                    + __builtin_shuffle(v0, v1, odd);
        skp_v4d b = __builtin_shuffle(v2, v3, even)
                    + __builtin_shuffle(v2, v3, odd);
        return __builtin_shuffle(a, b, lo) + __builtin_shuffle(a, b, hi);
    }
    #define SKP_TAIL(acc, z, x)                                              \
        do { double t_ = (acc)[0];                                           \
             for (g = f; g < d; g++) t_ += (z)[g] * (x)[g];                  \
             (acc)[0] = t_; } while (0)
    #define SKP_DOTBLOCKS(SUF, T)                                             \
    static inline void skp_dot4r_##SUF(                                      \
            const T *z0, const T *z1, const T *z2, const T *z3,              \
            const double *x, Py_ssize_t d, double *out) {                    \
        Py_ssize_t f, g;                                                     \
        const skp_v4d zero = {0.0, 0.0, 0.0, 0.0};                           \
        skp_v4d a0 = zero, a1 = zero, a2 = zero, a3 = zero;                  \
        for (f = 0; f + 4 <= d; f += 4) {                                    \
            skp_v4d p = skp_load4_d(x + f);                                  \
            a0 += skp_load4_##SUF(z0 + f) * p;                               \
            a1 += skp_load4_##SUF(z1 + f) * p;                               \
            a2 += skp_load4_##SUF(z2 + f) * p;                               \
            a3 += skp_load4_##SUF(z3 + f) * p;                               \
        }                                                                    \
        if (f < d) {                                                         \
            SKP_TAIL(a0, z0, x); SKP_TAIL(a1, z1, x);                        \
            SKP_TAIL(a2, z2, x); SKP_TAIL(a3, z3, x);                        \
        }                                                                    \
        skp_v4d r = skp_reduce4(a0, a1, a2, a3);                             \
        memcpy(out, &r, sizeof r);                                           \
    }
    #else
    #define SKP_DOTBLOCKS(SUF, T)                                             \
    static inline void skp_dot4r_##SUF(                                      \
            const T *z0, const T *z1, const T *z2, const T *z3,              \
            const double *x, Py_ssize_t d, double *out) {                    \
        out[0] = skp_dot_##SUF(z0, x, d); out[1] = skp_dot_##SUF(z1, x, d);  \
        out[2] = skp_dot_##SUF(z2, x, d); out[3] = skp_dot_##SUF(z3, x, d);  \
    }
    #endif
    SKP_DOTBLOCKS(d, double)
    SKP_DOTBLOCKS(f, float)

    /* The several-probe passes of the blocked walk use another order, the
       chunk order: the features are cut into chunks of SKP_CHUNK, each
       chunk is summed left to right from zero, and the chunk sums are added
       left to right (skp_cdot).  Lanes are probes there: the probes are
       packed in panels of SKP_PANEL, feature-major
       (panel[f * SKP_PANEL + lane]), and a row's feature, broadcast, meets
       eight probes at once, with no reduction across lanes at the end.  The
       chunks keep the dependency chain of a single row short. */
    #define SKP_PANEL 8
    #define SKP_CHUNK 32
    #define SKP_CDOT(SUF, T)                                                  \
    static inline double skp_cdot_##SUF(const T *z, const double *x,         \
                                        Py_ssize_t stride, Py_ssize_t d) {   \
        double total = 0.0;                                                  \
        for (Py_ssize_t c = 0; c < d; c += SKP_CHUNK) {                      \
            Py_ssize_t e = c + SKP_CHUNK < d ? c + SKP_CHUNK : d;            \
            double s = 0.0;                                                  \
            for (Py_ssize_t f = c; f < e; f++) s += z[f] * x[f * stride];    \
            total += s;                                                      \
        }                                                                    \
        return total;                                                        \
    }
    SKP_CDOT(d, double)
    SKP_CDOT(f, float)

    /* out[lane * ld + r] = skp_cdot(z[r], lane of panel) for r < R and the
       first 4 V lanes (R = 1 or 4 rows, V = 1 or 2 vectors of four lanes):
       a line of out per probe.  Always inlined, so that the AVX2 clone of
       the pass that calls them gets AVX2 code. */
    #ifdef SKP_VECTORS
    /* (a0, a1, a2, a3) -> their transpose, each vector to out + k * ld. */
    static inline __attribute__((always_inline)) void
    skp_store_transposed(skp_v4d a0, skp_v4d a1, skp_v4d a2, skp_v4d a3,
                         double *out, Py_ssize_t ld) {
        const skp_v4i even = {0, 4, 2, 6}, odd = {1, 5, 3, 7};
        const skp_v4i lo = {0, 1, 4, 5}, hi = {2, 3, 6, 7};
        skp_v4d t0 = __builtin_shuffle(a0, a1, even);
        skp_v4d t1 = __builtin_shuffle(a0, a1, odd);
        skp_v4d t2 = __builtin_shuffle(a2, a3, even);
        skp_v4d t3 = __builtin_shuffle(a2, a3, odd);
        skp_v4d b0 = __builtin_shuffle(t0, t2, lo);
        skp_v4d b1 = __builtin_shuffle(t1, t3, lo);
        skp_v4d b2 = __builtin_shuffle(t0, t2, hi);
        skp_v4d b3 = __builtin_shuffle(t1, t3, hi);
        memcpy(out, &b0, sizeof b0);
        memcpy(out + ld, &b1, sizeof b1);
        memcpy(out + 2 * ld, &b2, sizeof b2);
        memcpy(out + 3 * ld, &b3, sizeof b3);
    }
    #define SKP_TILE(SUF, T, R, V)                                            \
    static inline __attribute__((always_inline)) void                        \
    skp_tile##R##x##V##_##SUF(                                               \
            const T *const *z, const double *panel, Py_ssize_t d,            \
            double *out, Py_ssize_t ld) {                                    \
        const skp_v4d zero = {0.0, 0.0, 0.0, 0.0};                           \
        skp_v4d acc[R * V], tot[R * V], p[V];                                \
        int r, h;                                                            \
        for (r = 0; r < R * V; r++) tot[r] = zero;                           \
        for (Py_ssize_t c = 0; c < d; c += SKP_CHUNK) {                      \
            Py_ssize_t e = c + SKP_CHUNK < d ? c + SKP_CHUNK : d;            \
            for (r = 0; r < R * V; r++) acc[r] = zero;                       \
            for (Py_ssize_t f = c; f < e; f++) {                             \
                for (h = 0; h < V; h++)                                      \
                    p[h] = skp_load4_d(panel + f * SKP_PANEL + 4 * h);       \
                for (r = 0; r < R; r++) {                                    \
                    double v = (double)z[r][f];                              \
                    skp_v4d b = {v, v, v, v};                                \
                    for (h = 0; h < V; h++) acc[V * r + h] += b * p[h];      \
                }                                                            \
            }                                                                \
            for (r = 0; r < R * V; r++) tot[r] += acc[r];                    \
        }                                                                    \
        for (h = 0; h < V; h++) {                                            \
            if (R == 4) {                                                    \
                skp_store_transposed(tot[h], tot[V + h], tot[2 * V + h],     \
                                     tot[3 * V + h], out + 4 * h * ld, ld);  \
            } else {                                                         \
                for (int k = 0; k < 4; k++)                                  \
                    out[(4 * h + k) * ld] = tot[h][k];                       \
            }                                                                \
        }                                                                    \
    }
    #else
    #define SKP_TILE(SUF, T, R, V)                                            \
    static inline void skp_tile##R##x##V##_##SUF(                            \
            const T *const *z, const double *panel, Py_ssize_t d,            \
            double *out, Py_ssize_t ld) {                                    \
        for (int r = 0; r < R; r++)                                          \
            for (int lane = 0; lane < 4 * V; lane++)                         \
                out[lane * ld + r] = skp_cdot_##SUF(z[r], panel + lane,      \
                                                    SKP_PANEL, d);           \
    }
    #endif
    SKP_TILE(d, double, 1, 1)
    SKP_TILE(d, double, 1, 2)
    SKP_TILE(d, double, 4, 1)
    SKP_TILE(d, double, 4, 2)
    SKP_TILE(f, float, 1, 1)
    SKP_TILE(f, float, 1, 2)
    SKP_TILE(f, float, 4, 1)
    SKP_TILE(f, float, 4, 2)

    /* The exact variant of the several-probe passes.  When every value of Z
       is an integer and every row's squared norm is at most 2^24, every
       product and every partial sum of a dot product of two rows, in any
       order, is an integer of magnitude at most |z| |x| <= 2^24
       (Cauchy-Schwarz), hence exact in float32 as in float64.  The passes
       then read a float32 copy of Z and float32 panels, eight probes to a
       vector (twice as many products per instruction as in float64), and
       give the very values of the chunk order.  One row at a time (a
       visit), four partial sums shorten the dependency chain; that order is
       exact too.  out[lane * ld + r] gets the dot product of row r with
       lane ``lane`` of the panel, for the eight lanes (zeros past the last
       probe give zeros). */
    #ifdef SKP_VECTORS
    typedef float skp_v8f __attribute__((vector_size(32)));
    static inline __attribute__((always_inline)) skp_v8f
    skp_load8_f(const float *p) {
        skp_v8f v; memcpy(&v, p, sizeof v); return v;
    }
    /* Eight copies of v, through memory: GCC 12 builds the initializer
       {v, ..., v} of a float vector lane by lane, and loads this one with
       a broadcast. */
    static inline __attribute__((always_inline)) skp_v8f
    skp_splat8_f(float v) {
        const float copies[8] = {v, v, v, v, v, v, v, v};
        skp_v8f b;
        memcpy(&b, copies, sizeof b);
        return b;
    }
    /* Lanes 0-3 and 4-7 of ``a`` as doubles. */
    static inline __attribute__((always_inline)) void
    skp_widen8(skp_v8f a, skp_v4d *low, skp_v4d *high) {
        skp_v4f l, h;
        memcpy(&l, &a, sizeof l);
        memcpy(&h, (const char *)&a + sizeof l, sizeof h);
        *low = __builtin_convertvector(l, skp_v4d);
        *high = __builtin_convertvector(h, skp_v4d);
    }
    static inline __attribute__((always_inline)) void
    skp_xtile4_f(const float *const *z, const float *panel, Py_ssize_t d,
                 double *out, Py_ssize_t ld) {
        const skp_v8f zero = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        /* Even and odd features apart: eight chains of additions, which
           keeps the adders busy (four would wait on their latency). */
        skp_v8f a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        skp_v8f b0 = zero, b1 = zero, b2 = zero, b3 = zero;
        skp_v4d l0, l1, l2, l3, h0, h1, h2, h3;
        const float *z0 = z[0], *z1 = z[1], *z2 = z[2], *z3 = z[3];
        Py_ssize_t f;
        for (f = 0; f + 2 <= d; f += 2) {
            skp_v8f p = skp_load8_f(panel + f * SKP_PANEL);
            skp_v8f q = skp_load8_f(panel + (f + 1) * SKP_PANEL);
            a0 += skp_splat8_f(z0[f]) * p;
            a1 += skp_splat8_f(z1[f]) * p;
            a2 += skp_splat8_f(z2[f]) * p;
            a3 += skp_splat8_f(z3[f]) * p;
            b0 += skp_splat8_f(z0[f + 1]) * q;
            b1 += skp_splat8_f(z1[f + 1]) * q;
            b2 += skp_splat8_f(z2[f + 1]) * q;
            b3 += skp_splat8_f(z3[f + 1]) * q;
        }
        if (f < d) {
            skp_v8f p = skp_load8_f(panel + f * SKP_PANEL);
            a0 += skp_splat8_f(z0[f]) * p;
            a1 += skp_splat8_f(z1[f]) * p;
            a2 += skp_splat8_f(z2[f]) * p;
            a3 += skp_splat8_f(z3[f]) * p;
        }
        a0 += b0;
        a1 += b1;
        a2 += b2;
        a3 += b3;
        skp_widen8(a0, &l0, &h0);
        skp_widen8(a1, &l1, &h1);
        skp_widen8(a2, &l2, &h2);
        skp_widen8(a3, &l3, &h3);
        skp_store_transposed(l0, l1, l2, l3, out, ld);
        skp_store_transposed(h0, h1, h2, h3, out + 4 * ld, ld);
    }
    static inline __attribute__((always_inline)) void
    skp_xtile1_f(const float *const *z, const float *panel, Py_ssize_t d,
                 double *out, Py_ssize_t ld) {
        const skp_v8f zero = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        skp_v8f a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        const float *z0 = z[0];
        Py_ssize_t f;
        for (f = 0; f + 4 <= d; f += 4) {
            a0 += skp_splat8_f(z0[f]) * skp_load8_f(panel + f * SKP_PANEL);
            a1 += skp_splat8_f(z0[f + 1])
                  * skp_load8_f(panel + (f + 1) * SKP_PANEL);
            a2 += skp_splat8_f(z0[f + 2])
                  * skp_load8_f(panel + (f + 2) * SKP_PANEL);
            a3 += skp_splat8_f(z0[f + 3])
                  * skp_load8_f(panel + (f + 3) * SKP_PANEL);
        }
        for (; f < d; f++)
            a0 += skp_splat8_f(z0[f]) * skp_load8_f(panel + f * SKP_PANEL);
        a0 = (a0 + a1) + (a2 + a3);
        for (int k = 0; k < SKP_PANEL; k++) out[k * ld] = (double)a0[k];
    }
    #else
    #define SKP_XTILE(R)                                                      \
    static inline void skp_xtile##R##_f(                                     \
            const float *const *z, const float *panel, Py_ssize_t d,         \
            double *out, Py_ssize_t ld) {                                    \
        for (int r = 0; r < R; r++)                                          \
            for (int lane = 0; lane < SKP_PANEL; lane++) {                   \
                float s = 0.0f;                                              \
                for (Py_ssize_t f = 0; f < d; f++)                           \
                    s += z[r][f] * panel[f * SKP_PANEL + lane];              \
                out[lane * ld + r] = (double)s;                              \
            }                                                                \
    }
    SKP_XTILE(4)
    SKP_XTILE(1)
    #endif
    /* The names the several-probe pass calls (a whole panel is one vector,
       so half panels cost as much as whole ones). */
    #define skp_xtile4x2_f skp_xtile4_f
    #define skp_xtile4x1_f skp_xtile4_f
    #define skp_xtile1x2_f skp_xtile1_f
    #define skp_xtile1x1_f skp_xtile1_f

    /* 1 if every value is an integer in [-bound, bound] (so not NaN), else
       0; with bound <= 2^31 - 1. */
    #define SKP_INTEGER_VALUED(SUF, T)                                        \
    SKP_CLONES static int skp_integer_valued_##SUF(                          \
            const T *x, Py_ssize_t n, double bound) {                        \
        int ok = 1;                                                          \
        for (Py_ssize_t j = 0; j < n; j++) {                                 \
            double v = (double)x[j];                                         \
            double c = v > bound ? bound : (v < -bound ? -bound : v);        \
            ok &= (c == v) & (c == (double)(int)c);                          \
        }                                                                    \
        return ok;                                                           \
    }
    SKP_INTEGER_VALUED(d, double)
    SKP_INTEGER_VALUED(f, float)

    /* skp_integer_valued_d that also writes x in float32 to out (exact
       when the answer is 1): the check and the copy in one pass. */
    SKP_CLONES static int skp_integer_valued_copy(const double *x,
                                                  Py_ssize_t n, double bound,
                                                  float *out) {
        int ok = 1;
        for (Py_ssize_t j = 0; j < n; j++) {
            double v = x[j];
            double c = v > bound ? bound : (v < -bound ? -bound : v);
            ok &= (c == v) & (c == (double)(int)c);
            out[j] = (float)v;
        }
        return ok;
    }

    /* The squared euclidean distance from the dot product and the squared
       norms (each a skp_dot of the row with itself), as scikit-learn's
       euclidean_distances computes it: max(|z|^2 + |x|^2 - 2 z.x, 0).  It
       costs one multiplication and one addition per feature instead of a
       subtraction more, and the rbf kernel is exp(-gamma * that). */
    static inline double skp_rbf_arg(double dot, double zsq, double xsq,
                                     double gamma) {
        double s = (zsq + xsq) - 2.0 * dot;
        double t = -gamma * (s > 0.0 ? s : 0.0);
        return SKP_CLAMP(t);
    }


    /* The reductions for d == 2 (no loop, no partial sums; rbf from the
       differences, which costs no more there). */
    #define SKP_PAIR2(mode, z0, z1, x0, x1, gamma, out)                      \
        do {                                                                 \
            double u0_, u1_, t_;                                             \
            if ((mode) == 0) {                                               \
                (out) = (z0) * (x0) + (z1) * (x1);                           \
            } else if ((mode) == 1) {                                        \
                u0_ = (z0) - (x0); u1_ = (z1) - (x1);                        \
                t_ = -(gamma) * (u0_ * u0_ + u1_ * u1_);                     \
                (out) = SKP_CLAMP(t_);                                       \
            } else {                                                         \
                t_ = -(gamma) * (fabs((z0) - (x0)) + fabs((z1) - (x1)));     \
                (out) = SKP_CLAMP(t_);                                       \
            }                                                                \
        } while (0)

    /* Pass 1 of a kernel column over dense rows z_j (start <= j < stop):
       out[j - start] = the dot product of z_j and x (mode 0), the argument
       of the rbf exponential (mode 1, with zsq[j] = skp_dot(z_j, z_j) and
       xsq = skp_dot(x, x)) or of the laplacian one (mode 2). */
    #define SKP_DENSE_PASS(NAME, SUF, T)                                      \
    SKP_CLONES static void NAME(int mode, const T *values, Py_ssize_t d,     \
                                Py_ssize_t start, Py_ssize_t stop,           \
                                const double *x, const double *zsq,          \
                                double xsq, double gamma, double *out) {     \
        Py_ssize_t j;                                                        \
        if (d == 2) {                                                        \
            const double x0 = x[0], x1 = x[1];                               \
            /* One loop per mode, each vectorized over rows. */              \
            if (mode == 0) {                                                 \
                for (j = start; j < stop; j++)                               \
                    SKP_PAIR2(0, values[2 * j], values[2 * j + 1], x0, x1,   \
                              gamma, out[j - start]);                        \
            } else if (mode == 1) {                                          \
                for (j = start; j < stop; j++)                               \
                    SKP_PAIR2(1, values[2 * j], values[2 * j + 1], x0, x1,   \
                              gamma, out[j - start]);                        \
            } else {                                                         \
                for (j = start; j < stop; j++)                               \
                    SKP_PAIR2(2, values[2 * j], values[2 * j + 1], x0, x1,   \
                              gamma, out[j - start]);                        \
            }                                                                \
            return;                                                          \
        }                                                                    \
        if (mode == 2) {                                                     \
            for (j = start; j < stop; j++)                                   \
                out[j - start] = skp_l1dist_##SUF(values + j * d, x, d,      \
                                                  gamma);                    \
            return;                                                          \
        }                                                                    \
        for (j = start; j + 4 <= stop; j += 4) {                             \
            const T *z = values + j * d;                                     \
            skp_dot4r_##SUF(z, z + d, z + 2 * d, z + 3 * d, x, d,            \
                            out + (j - start));                              \
        }                                                                    \
        for (; j < stop; j++)                                                \
            out[j - start] = skp_dot_##SUF(values + j * d, x, d);            \
        if (mode == 1) {                                                     \
            for (j = start; j < stop; j++)                                   \
                out[j - start] = skp_rbf_arg(out[j - start], zsq[j], xsq,    \
                                             gamma);                         \
        }                                                                    \
    }
    SKP_DENSE_PASS(skp_dense_pass_d, d, double)
    SKP_DENSE_PASS(skp_dense_pass_f, f, float)

    /* Pass 1 of m kernel columns at once, over the rows z_j listed in
       rows[0..n_list): outs[q][j - base] = the reduction of row z_j with
       probe q.  d == 2 and mode 2 (l1) compute what skp_dense_pass does;
       otherwise the dot products are in chunk order, from the probes packed
       in panels (``panels``, zeros past the last probe), and mode 1 writes
       the kernel value itself, exp(rbf argument) + add (xsq: the probes'
       squared norms), which is finite (the argument is clamped).  Each row
       of Z is read once for all the probes.  The rows go by
       blocks of SKP_ROWS: the dot products of a block wait in ``work``
       (m lines of SKP_ROWS doubles), where the exponentials run as
       vectorized loops over contiguous values. */
    #define SKP_ROWS 64
    #define SKP_DENSE_MULTI(NAME, SUF, T, PT, TILE)                           \
    SKP_CLONES static void NAME(int mode, const T *values, Py_ssize_t d,     \
                                const int *rows, Py_ssize_t n_list,          \
                                Py_ssize_t base, const double *probes,       \
                                const PT *panels, const double *xsq,         \
                                Py_ssize_t m, const double *zsq,             \
                                double gamma, double add,                    \
                                double *const *outs, double *work) {         \
        Py_ssize_t t, t0, nb, q, p, j;                                       \
        Py_ssize_t n_panels = (m + SKP_PANEL - 1) / SKP_PANEL;               \
        const T *z[4];                                                       \
        double zb[SKP_ROWS];                                                 \
        int r, n_r, lanes;                                                   \
        if (d == 2 || mode == 2) {                                           \
            for (t = 0; t < n_list; t++) {                                   \
                j = rows[t];                                                 \
                const T *zj = values + j * d;                                \
                if (d == 2) {                                                \
                    for (q = 0; q < m; q++)                                  \
                        SKP_PAIR2(mode, zj[0], zj[1], probes[2 * q],         \
                                  probes[2 * q + 1], gamma,                  \
                                  outs[q][j - base]);                        \
                } else {                                                     \
                    for (q = 0; q < m; q++)                                  \
                        outs[q][j - base] = skp_l1dist_##SUF(                \
                            zj, probes + q * d, d, gamma);                   \
                }                                                            \
            }                                                                \
            return;                                                          \
        }                                                                    \
        if (n_list == 1) {                                                   \
            /* One row (a visit): the probes' values in one line. */        \
            j = rows[0];                                                     \
            z[0] = values + j * d;                                           \
            for (p = 0; p < n_panels; p++) {                                 \
                if (m - p * SKP_PANEL > 4)                                   \
                    TILE##1x2_##SUF(z, panels + p * d * SKP_PANEL, d,      \
                                      work + p * SKP_PANEL, 1);              \
                else                                                         \
                    TILE##1x1_##SUF(z, panels + p * d * SKP_PANEL, d,      \
                                      work + p * SKP_PANEL, 1);              \
            }                                                                \
            if (mode == 1) {                                                 \
                for (q = 0; q < m; q++)                                      \
                    work[q] = skp_rbf_arg(work[q], zsq[j], xsq[q], gamma);   \
                for (q = 0; q < m; q++)                                      \
                    work[q] = (double)skp_exp_single(work[q]) + add;         \
            }                                                                \
            for (q = 0; q < m; q++) outs[q][j - base] = work[q];             \
            return;                                                          \
        }                                                                    \
        for (t0 = 0; t0 < n_list; t0 += SKP_ROWS) {                          \
            nb = n_list - t0 < SKP_ROWS ? n_list - t0 : SKP_ROWS;            \
            /* The block's outputs are new cache lines: ask for them now,   \
               they arrive while the tiles run. */                          \
            for (q = 0; q < m; q++) {                                        \
                const char *a = (const char *)(outs[q] - base + rows[t0]);   \
                const char *b = (const char *)(outs[q] - base                \
                                               + rows[t0 + nb - 1]);         \
                for (; a <= b; a += 64) SKP_PREFETCH_W(a);                   \
            }                                                                \
            for (t = 0; t < nb; t += n_r) {                                  \
                n_r = nb - t >= 4 ? 4 : 1;                                   \
                for (r = 0; r < n_r; r++)                                    \
                    z[r] = values + (Py_ssize_t)rows[t0 + t + r] * d;        \
                for (p = 0; p < n_panels; p++) {                             \
                    const PT *panel = panels + p * d * SKP_PANEL;            \
                    double *w = work + p * SKP_PANEL * SKP_ROWS + t;         \
                    /* The last panel's second half only if it has probes. */\
                    lanes = m - p * SKP_PANEL;                               \
                    if (lanes > SKP_PANEL) lanes = SKP_PANEL;                \
                    if (lanes > 4) {                                         \
                        if (n_r == 4)                                        \
                            TILE##4x2_##SUF(z, panel, d, w, SKP_ROWS);     \
                        else                                                 \
                            TILE##1x2_##SUF(z, panel, d, w, SKP_ROWS);     \
                    } else {                                                 \
                        if (n_r == 4)                                        \
                            TILE##4x1_##SUF(z, panel, d, w, SKP_ROWS);     \
                        else                                                 \
                            TILE##1x1_##SUF(z, panel, d, w, SKP_ROWS);     \
                    }                                                        \
                }                                                            \
            }                                                                \
            if (mode == 1) {                                                 \
                for (t = 0; t < nb; t++) zb[t] = zsq[rows[t0 + t]];          \
                for (q = 0; q < m; q++) {                                    \
                    double *v = work + q * SKP_ROWS, xq = xsq[q];            \
                    for (t = 0; t < nb; t++)                                 \
                        v[t] = skp_rbf_arg(v[t], zb[t], xq, gamma);          \
                    for (t = 0; t < nb; t++)                                 \
                        v[t] = (double)skp_exp_single(v[t]) + add;           \
                }                                                            \
            }                                                                \
            for (q = 0; q < m; q++) {                                        \
                double *o = outs[q] - base;                                  \
                const double *v = work + q * SKP_ROWS;                       \
                for (t = 0; t < nb; t++) o[rows[t0 + t]] = v[t];             \
            }                                                                \
        }                                                                    \
    }
    SKP_DENSE_MULTI(skp_dense_multi_d, d, double, double, skp_tile)
    SKP_DENSE_MULTI(skp_dense_multi_f, f, float, double, skp_tile)
    /* The exact variant: float32 rows and panels (see skp_xtile4_f). */
    SKP_DENSE_MULTI(skp_dense_multi_x, f, float, float, skp_xtile)

    /* The exact variant once more, with Z transposed by blocks of sixteen
       rows, in 16-bit integers: the lanes of a vector are rows and a probe's
       features are broadcast, so the dot products of a probe come out as a
       run of consecutive rows, which is how a column is stored (no
       transpose, no scatter), and a block is read sequentially.  Exact
       rows fit: every value is an integer of magnitude at most 2^12 (its
       square is at most the row's squared norm, 2^24), and every partial
       sum of products is at most 2^24 (Cauchy-Schwarz), so 16-bit values
       and 32-bit sums give the very integers of the float32 passes.
       Features go in pairs: in a block, pair g of row r is
       zt[32 g + 2 r] (feature 2g) and zt[32 g + 2 r + 1] (feature 2g + 1,
       zero past the last feature), and one multiply-add instruction
       (vpmaddwd) takes both features of eight rows against a pair of a
       probe: sixteen products per instruction where float32 has eight.  A
       tile is sixteen rows by four probes.  Built with GCC or Clang on
       x86-64; needs a CPU with AVX2 (skp_transposed_available). */
    #if defined(__GNUC__) && defined(__x86_64__) \\
        && (defined(__clang__) || __GNUC__ >= 9)
    #include <immintrin.h>
    static int skp_transposed_available(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    }
    /* work[q * SKP_ROWS + r] = z_{j0 + r} . x_q for r < 16 * n_sub and q
       below m rounded up to a multiple of 4, from the probes' pairs
       (pairs[q * dp + g]: features 2g and 2g + 1 of probe q in the low and
       high halves; zeros for the probes past m); j0 a multiple of 16, dp
       the number of pairs. */
    __attribute__((target("avx2"))) static void
    skp_transposed_dots(const int16_t *zt, Py_ssize_t j0, Py_ssize_t n_sub,
                        Py_ssize_t dp, const int32_t *pairs, Py_ssize_t m,
                        double *work) {
        for (Py_ssize_t s = 0; s < n_sub; s++) {
            const int16_t *z = zt + (j0 + 16 * s) * 2 * dp;
            for (Py_ssize_t q = 0; q < m; q += 4) {
                const int32_t *x = pairs + q * dp;
                __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0;
                __m256i a2 = a0, b2 = a0, a3 = a0, b3 = a0;
                for (Py_ssize_t g = 0; g < dp; g++) {
                    __m256i lo = _mm256_loadu_si256((const __m256i *)(z + 32 * g));
                    __m256i hi = _mm256_loadu_si256(
                        (const __m256i *)(z + 32 * g + 16));
                    __m256i p = _mm256_set1_epi32(x[g]);
                    a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(lo, p));
                    b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(hi, p));
                    p = _mm256_set1_epi32(x[dp + g]);
                    a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(lo, p));
                    b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(hi, p));
                    p = _mm256_set1_epi32(x[2 * dp + g]);
                    a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(lo, p));
                    b2 = _mm256_add_epi32(b2, _mm256_madd_epi16(hi, p));
                    p = _mm256_set1_epi32(x[3 * dp + g]);
                    a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(lo, p));
                    b3 = _mm256_add_epi32(b3, _mm256_madd_epi16(hi, p));
                }
                double *w = work + q * SKP_ROWS + 16 * s;
    #define SKP_STORE16(a, b, out)                                            \
                _mm256_storeu_pd((out), _mm256_cvtepi32_pd(                  \
                    _mm256_castsi256_si128(a)));                             \
                _mm256_storeu_pd((out) + 4, _mm256_cvtepi32_pd(              \
                    _mm256_extracti128_si256((a), 1)));                      \
                _mm256_storeu_pd((out) + 8, _mm256_cvtepi32_pd(              \
                    _mm256_castsi256_si128(b)));                             \
                _mm256_storeu_pd((out) + 12, _mm256_cvtepi32_pd(             \
                    _mm256_extracti128_si256((b), 1)))
                SKP_STORE16(a0, b0, w);
                SKP_STORE16(a1, b1, w + SKP_ROWS);
                SKP_STORE16(a2, b2, w + 2 * SKP_ROWS);
                SKP_STORE16(a3, b3, w + 3 * SKP_ROWS);
    #undef SKP_STORE16
            }
        }
    }
    #else
    static int skp_transposed_available(void) { return 0; }
    static void skp_transposed_dots(const int16_t *zt, Py_ssize_t j0,
                                    Py_ssize_t n_sub, Py_ssize_t dp,
                                    const int32_t *pairs, Py_ssize_t m,
                                    double *work) {}
    #endif

    /* The layout of skp_transposed_dots: the n rows of d features of x
       (row-major, exact integers) by blocks of 16 rows and pairs of
       features; out must hold zeros (past the last row and feature). */
    static void skp_block_pairs(const float *x, Py_ssize_t n, Py_ssize_t d,
                                int16_t *out) {
        /* In the order of out (sequential writes; a block's rows, 16 d
           floats, stay in the L1 cache while they are read across). */
        Py_ssize_t dp = (d + 1) / 2;
        for (Py_ssize_t j0 = 0; j0 < n; j0 += 16) {
            Py_ssize_t rows = n - j0 < 16 ? n - j0 : 16;
            const float *z = x + j0 * d;
            int16_t *block = out + j0 * 2 * dp;
            for (Py_ssize_t f = 0; f + 1 < d; f += 2) {
                int16_t *pair = block + 16 * f;
                for (Py_ssize_t r = 0; r < rows; r++) {
                    pair[2 * r] = (int16_t)z[r * d + f];
                    pair[2 * r + 1] = (int16_t)z[r * d + f + 1];
                }
            }
            if (d % 2) {
                int16_t *pair = block + 16 * (d - 1);
                for (Py_ssize_t r = 0; r < rows; r++)
                    pair[2 * r] = (int16_t)z[r * d + d - 1];
            }
        }
    }

    /* out[t] = exp(rbf argument of dot[t]) + add: what mode 1 of the
       several-probe passes writes, for consecutive rows. */
    SKP_CLONES static void skp_rbf_run(const double *restrict dot,
                                       const double *restrict zsq,
                                       double xsq, double gamma, double add,
                                       double *restrict out, Py_ssize_t n) {
        /* Two loops, each vectorized. */
        for (Py_ssize_t t = 0; t < n; t++)
            out[t] = skp_rbf_arg(dot[t], zsq[t], xsq, gamma);
        for (Py_ssize_t t = 0; t < n; t++)
            out[t] = (double)skp_exp_single(out[t]) + add;
    }

    /* The several-probe pass of the exact variant over the consecutive rows
       start <= j < stop, from the transposed Z: outs[q][j] = the value of
       skp_dense_multi_x (mode 0: the dot product; mode 1: the rbf kernel
       value plus add), with zt from skp_block_pairs, ``work`` as there and
       ``pairs`` room for (m rounded up to 4) * ((d + 1) / 2) int32.  Only
       when skp_transposed_available(). */
    static void skp_transposed_multi(int mode, const int16_t *zt,
                                     Py_ssize_t start, Py_ssize_t stop,
                                     Py_ssize_t d, const float *panels,
                                     const double *xsq, Py_ssize_t m,
                                     const double *zsq, double gamma,
                                     double add, double *const *outs,
                                     double *work, int32_t *pairs) {
        /* The probes' pairs of features (see skp_transposed_dots), from
           the panels of the exact variant (exact integers), then whole
           blocks of sixteen rows, from the one holding ``start``. */
        Py_ssize_t dp = (d + 1) / 2, m4 = (m + 3) / 4 * 4;
        for (Py_ssize_t q = 0; q < m4; q++) {
            const float *x = panels + (q / SKP_PANEL) * d * SKP_PANEL
                             + q % SKP_PANEL;
            for (Py_ssize_t g = 0; g < dp; g++) {
                int16_t even = 0, odd = 0;
                if (q < m) {
                    even = (int16_t)x[2 * g * SKP_PANEL];
                    if (2 * g + 1 < d)
                        odd = (int16_t)x[(2 * g + 1) * SKP_PANEL];
                }
                pairs[q * dp + g] = (int32_t)(((uint32_t)(uint16_t)odd << 16)
                                              | (uint32_t)(uint16_t)even);
            }
        }
        for (Py_ssize_t j0 = start - start % 16; j0 < stop; j0 += SKP_ROWS) {
            Py_ssize_t end = stop - j0 < SKP_ROWS ? stop : j0 + SKP_ROWS;
            Py_ssize_t lo = j0 > start ? j0 : start;
            skp_transposed_dots(zt, j0, (end - j0 + 15) / 16, dp, pairs, m,
                                work);
            for (Py_ssize_t q = 0; q < m; q++) {
                const double *dots = work + q * SKP_ROWS + (lo - j0);
                if (mode == 1)
                    skp_rbf_run(dots, zsq + lo, xsq[q], gamma, add,
                                outs[q] + lo, end - lo);
                else
                    memcpy(outs[q] + lo, dots, sizeof(double) * (end - lo));
            }
        }
    }

    /* The variance of x[0..n) (n > 0) in double: the mean, then the
       centered squares, each summed with four partial sums. */
    #define SKP_VARIANCE(SUF, T)                                              \
    SKP_CLONES static double skp_variance_##SUF(const T *x, Py_ssize_t n) {  \
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, u, mean;              \
        Py_ssize_t j;                                                        \
        for (j = 0; j + 4 <= n; j += 4) {                                    \
            s0 += (double)x[j];     s1 += (double)x[j + 1];                  \
            s2 += (double)x[j + 2]; s3 += (double)x[j + 3];                  \
        }                                                                    \
        for (; j < n; j++) s0 += (double)x[j];                               \
        mean = ((s0 + s1) + (s2 + s3)) / (double)n;                          \
        s0 = s1 = s2 = s3 = 0.0;                                             \
        for (j = 0; j + 4 <= n; j += 4) {                                    \
            u = (double)x[j] - mean;     s0 += u * u;                        \
            u = (double)x[j + 1] - mean; s1 += u * u;                        \
            u = (double)x[j + 2] - mean; s2 += u * u;                        \
            u = (double)x[j + 3] - mean; s3 += u * u;                        \
        }                                                                    \
        for (; j < n; j++) {                                                 \
            u = (double)x[j] - mean; s0 += u * u;                            \
        }                                                                    \
        return ((s0 + s1) + (s2 + s3)) / (double)n;                          \
    }
    SKP_VARIANCE(d, double)
    SKP_VARIANCE(f, float)

    /* skp_dot(z_j, z_j) of dense rows: the squared norms of mode 1. */
    static void skp_dense_sq_norms_d(const double *values, Py_ssize_t n,
                                     Py_ssize_t d, double *out) {
        for (Py_ssize_t j = 0; j < n; j++)
            out[j] = skp_dot_d(values + j * d, values + j * d, d);
    }

    /* 1 if a value is NaN or infinite (all exponent bits set), else 0:
       integer tests, which vectorize (floating-point ones do not, under the
       default trapping-math rules). */
    SKP_CLONES static int skp_any_nonfinite(const double *x, Py_ssize_t n) {
        const uint64_t exponent = 0x7FF0000000000000ULL;
        uint64_t found = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            uint64_t bits;
            memcpy(&bits, x + j, sizeof bits);
            found |= (uint64_t)((bits & exponent) == exponent);
        }
        return found != 0;
    }

    /* scores[j] += delta * (column[j] + add): the update of a binary
       problem from a single-precision line. */
    SKP_CLONES static void skp_axpy_single(double *scores, const float *column,
                                           Py_ssize_t n, double delta,
                                           double add) {
        for (Py_ssize_t j = 0; j < n; j++) {
            scores[j] += delta * ((double)column[j] + add);
        }
    }

    /* out[j] = skp_exp_single(x[j]), for x[j] in [-708.3964, 0]: a
       single-precision line. */
    SKP_CLONES static void skp_exp_store_single(const double *x, Py_ssize_t n,
                                                float *out) {
        for (Py_ssize_t j = 0; j < n; j++) {
            out[j] = skp_exp_single(x[j]);
        }
    }

    /* scores[j] += delta * column[j]: the update of a binary problem. */
    SKP_CLONES static void skp_axpy(double *scores, const double *column,
                                    Py_ssize_t n, double delta) {
        for (Py_ssize_t j = 0; j < n; j++) {
            scores[j] += delta * column[j];
        }
    }
    """
    void skp_dense_pass_d(int mode, const double* values, Py_ssize_t d,
                          Py_ssize_t start, Py_ssize_t stop, const double* x,
                          const double* zsq, double xsq, double gamma,
                          double* out) noexcept nogil
    void skp_dense_pass_f(int mode, const float* values, Py_ssize_t d,
                          Py_ssize_t start, Py_ssize_t stop, const double* x,
                          const double* zsq, double xsq, double gamma,
                          double* out) noexcept nogil
    double skp_dot_d(const double* z, const double* x,
                     Py_ssize_t d) noexcept nogil
    void skp_dense_sq_norms_d(const double* values, Py_ssize_t n, Py_ssize_t d,
                              double* out) noexcept nogil
    void skp_exp_add(double* buf, Py_ssize_t n, double add) noexcept nogil
    void skp_exp_add_single(double* buf, Py_ssize_t n,
                            double add) noexcept nogil
    void skp_axpy(double* scores, const double* column, Py_ssize_t n,
                  double delta) noexcept nogil
    void skp_axpy_single(double* scores, const float* column, Py_ssize_t n,
                         double delta, double add) noexcept nogil
    void skp_exp_store_single(const double* x, Py_ssize_t n,
                              float* out) noexcept nogil
    int skp_any_nonfinite(const double* x, Py_ssize_t n) noexcept nogil
    enum: SKP_PANEL
    enum: SKP_ROWS
    enum: SKP_CHUNK
    void skp_dense_multi_d(int mode, const double* values, Py_ssize_t d,
                          const int* rows, Py_ssize_t n_list, Py_ssize_t base,
                          const double* probes, const double* panels,
                          const double* xsq, Py_ssize_t m, const double* zsq,
                          double gamma, double add, double** outs,
                          double* work) noexcept nogil
    void skp_dense_multi_f(int mode, const float* values, Py_ssize_t d,
                          const int* rows, Py_ssize_t n_list, Py_ssize_t base,
                          const double* probes, const double* panels,
                          const double* xsq, Py_ssize_t m, const double* zsq,
                          double gamma, double add, double** outs,
                          double* work) noexcept nogil
    void skp_dense_multi_x(int mode, const float* values, Py_ssize_t d,
                          const int* rows, Py_ssize_t n_list, Py_ssize_t base,
                          const double* probes, const float* panels,
                          const double* xsq, Py_ssize_t m, const double* zsq,
                          double gamma, double add, double** outs,
                          double* work) noexcept nogil
    int skp_transposed_available() noexcept nogil
    void skp_transposed_multi(int mode, const int16_t* zt,
                              Py_ssize_t start, Py_ssize_t stop, Py_ssize_t d,
                              const float* panels, const double* xsq,
                              Py_ssize_t m, const double* zsq, double gamma,
                              double add, double** outs, double* work,
                              int32_t* pairs) noexcept nogil
    double skp_variance_d(const double* x, Py_ssize_t n) noexcept nogil
    double skp_variance_f(const float* x, Py_ssize_t n) noexcept nogil
    int skp_integer_valued_d(const double* x, Py_ssize_t n,
                             double bound) noexcept nogil
    int skp_integer_valued_f(const float* x, Py_ssize_t n,
                             double bound) noexcept nogil
    int skp_integer_valued_copy(const double* x, Py_ssize_t n, double bound,
                                float* out) noexcept nogil
    void skp_block_pairs(const float* x, Py_ssize_t n, Py_ssize_t d,
                         int16_t* out) noexcept nogil

# The chunk length of the chunk order of the several-probe passes.
CHUNK = SKP_CHUNK

# Kernel codes, mirrored in ``_kernel.py``.
cdef enum:
    KERNEL_LINEAR = 0
    KERNEL_POLY = 1
    KERNEL_RBF = 2
    KERNEL_SIGMOID = 3
    KERNEL_LAPLACIAN = 4
    KERNEL_COSINE = 5
    KERNEL_PRECOMPUTED = 6
    KERNEL_CALLABLE = 7

# Budget strategies, mirrored in ``_kernel.py``.
cdef enum:
    STRATEGY_FORGETRON = 0
    STRATEGY_RANDOM = 1
    STRATEGY_OLDEST = 2

# Return codes of the walk, mirrored in ``_kernel.py``.
cdef enum:
    STATUS_DONE = 0
    STATUS_NEED_COLUMN = 1
    STATUS_NONFINITE_KERNEL = 2
    STATUS_NONFINITE_SCORE = 3

# Indices of the int64 counters shared with Python.
cdef enum:
    C_N_SV = 0          # current number of support vectors
    C_CLOCK = 1         # number of updates so far (ages of support vectors)
    C_MAX_SV = 2        # largest number of support vectors between visits
    C_CACHE_CLOCK = 3   # cache use stamps (LRU)
    C_LINES_USED = 4    # cache lines filled so far

# log(DBL_MIN): exponents are clamped here (see the module docstring).
cdef double LOG_DBL_MIN = -708.3964185322641


cdef struct Kernel:
    int kind
    double gamma
    double coef0
    double degree
    double add
    # The exponentials of "rbf" and "laplacian" in single precision (a
    # fit), or in double (predictions).
    bint single


cdef struct Walk:
    # Rows of Z (the fused values pointer is passed separately).
    const int* indices
    const int* indptr
    bint sparse
    Py_ssize_t n_features
    Py_ssize_t n_z
    Py_ssize_t track_from
    Py_ssize_t n_track
    const double* znorm
    Kernel kern
    # Samples and sub-problems.
    const int* y_class
    const double* step
    const int* rows_ptr
    const int* rows
    const signed char* signs
    Py_ssize_t n_rows
    double threshold
    # Dual state.
    double* scores
    double* alpha
    bint average
    double* alpha_sum
    double* visits
    unsigned char* in_support
    int* sv_list
    int* sv_pos
    long long* last_time
    long long* counters
    Py_ssize_t budget
    int strategy
    double* forget_q
    double* forget_m
    uint64_t* rng
    # Column cache: ``capacity`` LRU lines then two scratch lines of
    # ``n_track`` values, in ``cache``, or, with ``single``, in ``cache32``
    # (exponential kernels: the values without ``add``, see "Training
    # precision"), ``cache`` then holding the double lines where columns
    # are computed before they are stored (one, or ``block``).
    double* cache
    float* cache32
    bint single
    Py_ssize_t capacity
    bint admit_first
    unsigned char* seen
    int* line_of_row
    int* row_of_line
    long long* line_used
    # Work space.
    double* xd
    int* upd_rows
    double* upd_delta
    long long* updates
    # The blocked walk (``block`` > 0, see :func:`_walk_blocked`).
    Py_ssize_t block
    Py_ssize_t pair_budget
    int* pend_row
    int* pend_nup
    int* pend_line
    int* pend_new
    int* pend_urows
    double* pend_delta
    int* new_row
    int* new_pend
    long long* new_stamp
    bint final
    bint symmetric
    int* list_rows
    double* probes
    double* panels
    # The exact variant (``values32`` not NULL): Z in float32, and panels.
    const float* values32
    float* panels32
    # And Z transposed in 16-bit integers (``values16_t`` not NULL, see
    # skp_transposed_multi), with room for the probes' pairs of features.
    const int16_t* values16_t
    int32_t* probe_pairs
    double* multi_work
    double* probe_norm
    double* probe_sq
    double* kval
    double** outs
    double** kval_outs
    double* run


# -- kernels -----------------------------------------------------------------

cdef inline void _load_probe(
    const floating* values, const int* indices, const int* indptr, bint sparse,
    Py_ssize_t n_features, Py_ssize_t row, double* xd, double* stats,
) noexcept nogil:
    """Write row ``row`` to the dense buffer ``xd``; ``stats`` gets its
    squared norm, l1 norm and norm.  For a CSR row, ``xd`` must be all zeros
    on entry (see :func:`_unload_probe`)."""
    cdef Py_ssize_t p
    cdef double v, sq = 0.0, l1 = 0.0
    if sparse:
        for p in range(indptr[row], indptr[row + 1]):
            v = values[p]
            xd[indices[p]] = v
            sq += v * v
            l1 += fabs(v)
    else:
        for p in range(n_features):
            v = values[row * n_features + p]
            xd[p] = v
            sq += v * v
            l1 += fabs(v)
    stats[0] = sq
    stats[1] = l1
    stats[2] = sqrt(sq)


cdef inline void _unload_probe(
    const int* indices, const int* indptr, bint sparse, Py_ssize_t row,
    double* xd,
) noexcept nogil:
    """Put ``xd`` back to zeros after a CSR probe."""
    cdef Py_ssize_t p
    if sparse:
        for p in range(indptr[row], indptr[row + 1]):
            xd[indices[p]] = 0.0


cdef inline double _int_power(double base, int n) noexcept nogil:
    """base ** n for an integer n >= 0, by repeated squaring (a few
    multiplications instead of a call to pow)."""
    cdef double result = 1.0
    while n > 0:
        if n & 1:
            result *= base
        base *= base
        n >>= 1
    return result


cdef inline int _dense_mode(int kind) noexcept nogil:
    """The reduction of pass 1 of ``kind``: 0 dot, 1 squared distance, 2 l1."""
    if kind == KERNEL_RBF:
        return 1
    if kind == KERNEL_LAPLACIAN:
        return 2
    return 0


cdef inline double _probe_sq(
    int kind, const double* xd, Py_ssize_t n_features,
) noexcept nogil:
    """The squared norm of a dense probe as mode 1 of the dense passes reads
    it (``skp_dot`` order; 0 when unused)."""
    if kind == KERNEL_RBF and n_features != 2:
        return skp_dot_d(xd, xd, n_features)
    return 0.0


cdef inline void _dense_pass_multi(
    int kind, const floating* values, Py_ssize_t n_features, const int* rows,
    Py_ssize_t n_list, Py_ssize_t base, const double* probes,
    const double* panels, const double* xsq, Py_ssize_t m, const double* zsq,
    double gamma, double add, double** outs, double* work,
    const float* values32, const float* panels32,
) noexcept nogil:
    """Pass 1 of ``m`` columns at once for the dense rows ``rows[:n_list]``
    (``skp_dense_multi``, with ``work`` of ``m * SKP_ROWS`` doubles, ``m``
    rounded up to whole panels).  With :func:`_multi_is_final`, the values
    written are the kernel values plus ``add`` (always finite), otherwise
    :func:`_transform` turns them into those.  With ``values32`` (Z in
    float32, exact: see :func:`exact_in_float32`), the exact variant reads
    it and ``panels32`` instead of ``values`` and ``panels``: the same
    values."""
    if values32 != NULL:
        skp_dense_multi_x(_dense_mode(kind), values32, n_features, rows,
                          n_list, base, probes, panels32, xsq, m, zsq, gamma,
                          add, outs, work)
    elif floating is double:
        skp_dense_multi_d(_dense_mode(kind), values, n_features, rows, n_list,
                          base, probes, panels, xsq, m, zsq, gamma, add, outs,
                          work)
    else:
        skp_dense_multi_f(_dense_mode(kind), values, n_features, rows, n_list,
                          base, probes, panels, xsq, m, zsq, gamma, add, outs,
                          work)


cdef inline bint _multi_is_final(int kind, Py_ssize_t n_features) noexcept nogil:
    """Whether :func:`_dense_pass_multi` writes final kernel values (dense
    rbf with d != 2: the exponential is applied in the pass)."""
    return kind == KERNEL_RBF and n_features != 2


cdef inline void _dense_pass(
    int kind, const floating* values, Py_ssize_t n_features, Py_ssize_t start,
    Py_ssize_t stop, const double* xd, const double* zsq, double gamma,
    double* out,
) noexcept nogil:
    """Pass 1 of :func:`_column` for dense rows (``skp_dense_pass``);
    ``zsq``: the rows' squared norms (rbf)."""
    cdef int mode = _dense_mode(kind)
    cdef double xsq = _probe_sq(kind, xd, n_features)
    if floating is double:
        skp_dense_pass_d(mode, values, n_features, start, stop, xd, zsq, xsq,
                         gamma, out)
    else:
        skp_dense_pass_f(mode, values, n_features, start, stop, xd, zsq, xsq,
                         gamma, out)


cdef void _sparse_distances(
    const floating* values, const int* indices, const int* indptr,
    Py_ssize_t start, Py_ssize_t stop, const double* xd, double x_norm,
    bint squared, double gamma, double* out,
) noexcept nogil:
    """Pass 1 of :func:`_column` for CSR rows (distances).  With ``x_norm`` the squared
    (or l1) norm of the probe, ``d(z, x) = x_norm + sum over the pattern of
    z of (|z_f - x_f|^p - |x_f|^p)``: no norm of z is needed."""
    cdef Py_ssize_t j, p
    cdef double s, v, x
    for j in range(start, stop):
        s = 0.0
        if squared:
            for p in range(indptr[j], indptr[j + 1]):
                x = xd[indices[p]]
                v = values[p] - x
                s += v * v - x * x
        else:
            for p in range(indptr[j], indptr[j + 1]):
                x = xd[indices[p]]
                s += fabs(values[p] - x) - fabs(x)
        s = s + x_norm
        if s < 0.0:
            s = 0.0
        s = -gamma * s
        out[j - start] = s if s > LOG_DBL_MIN else LOG_DBL_MIN


cdef int _column(
    const floating* values, const int* indices, const int* indptr, bint sparse,
    Py_ssize_t n_features, Py_ssize_t start, Py_ssize_t stop,
    const double* znorm, const double* xd, const double* stats,
    const Kernel* kern, double* out,
) noexcept nogil:
    """Write ``K(z_j, x) + add`` for the rows ``start <= j < stop`` of Z to
    ``out[j - start]``, where the probe ``x`` is in the dense buffer ``xd``
    with ``stats`` from :func:`_load_probe`.  ``znorm`` holds the norms of
    the rows of Z as :func:`row_norms` gives them (read by "cosine" and,
    for dense Z, "rbf").  Returns 1 if a value is not finite, else 0."""
    _reduce(values, indices, indptr, sparse, n_features, start, stop, znorm,
            xd, stats, kern, out)
    return _transform(kern, znorm + start, stats[2], out, stop - start)


cdef void _reduce(
    const floating* values, const int* indices, const int* indptr, bint sparse,
    Py_ssize_t n_features, Py_ssize_t start, Py_ssize_t stop,
    const double* znorm, const double* xd, const double* stats,
    const Kernel* kern, double* out,
) noexcept nogil:
    """Pass 1 of :func:`_column`: the reduction over features (dot product,
    or the clamped argument of the exponential of "rbf" and "laplacian"),
    one loop per case so that no branch is left inside a loop."""
    cdef Py_ssize_t j, p
    cdef int kind = kern.kind
    cdef double gamma = kern.gamma
    cdef double s
    cdef double x_sq = stats[0], x_l1 = stats[1]
    if not sparse:
        _dense_pass(kind, values, n_features, start, stop, xd, znorm, gamma,
                    out)
    elif kind == KERNEL_RBF or kind == KERNEL_LAPLACIAN:
        _sparse_distances(values, indices, indptr, start, stop, xd,
                          x_sq if kind == KERNEL_RBF else x_l1,
                          kind == KERNEL_RBF, gamma, out)
    else:
        for j in range(start, stop):
            s = 0.0
            for p in range(indptr[j], indptr[j + 1]):
                s += values[p] * xd[indices[p]]
            out[j - start] = s


cdef int _transform(
    const Kernel* kern, const double* znorm, double x_norm, double* out,
    Py_ssize_t n,
) noexcept nogil:
    """Pass 2 of a kernel column: turn the reductions ``out[:n]`` of pass 1
    into ``K + add`` (``znorm``: the norms of the rows, for "cosine";
    ``x_norm``: the probe's).  Returns 1 if a value is not finite, else 0."""
    cdef Py_ssize_t j
    cdef int kind = kern.kind
    cdef double gamma = kern.gamma, coef0 = kern.coef0, add = kern.add
    cdef int int_degree = <int> kern.degree
    cdef double s
    # The exponential is vectorized.  Pass 1 clamps its arguments to
    # [log(DBL_MIN), 0] (a NaN too), so its values are always finite.
    if kind == KERNEL_RBF or kind == KERNEL_LAPLACIAN:
        if kern.single:
            skp_exp_add_single(out, n, add)
        else:
            skp_exp_add(out, n, add)
        return 0
    elif kind == KERNEL_LINEAR:
        for j in range(n):
            out[j] += add
    elif kind == KERNEL_POLY:
        for j in range(n):
            out[j] = _int_power(gamma * out[j] + coef0, int_degree) + add
    elif kind == KERNEL_SIGMOID:
        for j in range(n):
            out[j] = tanh(gamma * out[j] + coef0) + add
    elif kind == KERNEL_COSINE:
        for j in range(n):
            s = znorm[j] * x_norm
            out[j] = (out[j] / s if s > 0.0 else 0.0) + add
    return skp_any_nonfinite(out, n)


# -- column cache --------------------------------------------------------------

cdef Py_ssize_t _free_line(
    double* cache, Py_ssize_t capacity, int* line_of_row, int* row_of_line,
    long long* line_used, long long* counters, Py_ssize_t keep,
) noexcept nogil:
    """Return an empty cache line: a fresh one, or the least recently used
    line other than ``keep`` (evicted)."""
    cdef Py_ssize_t l, best = -1
    if counters[C_LINES_USED] < capacity:
        l = counters[C_LINES_USED]
        counters[C_LINES_USED] += 1
        return l
    for l in range(capacity):
        if l != keep and (best < 0 or line_used[l] < line_used[best]):
            best = l
    if row_of_line[best] >= 0:
        line_of_row[row_of_line[best]] = -1
        row_of_line[best] = -1
    return best


cdef Py_ssize_t _line(
    const floating* values, Walk* w, Py_ssize_t row, Py_ssize_t keep,
    int* status,
) noexcept nogil:
    """The cache line holding the column of Z row ``row``, computing it if
    needed (never into line ``keep``).  Returns -1 with ``status`` set when
    the column is missing and cannot be computed here (callable kernel) or is
    not finite.

    A computed column enters the LRU lines on its first use when
    ``admit_first`` (several epochs), otherwise on its second use: a column
    used once, as most are in a single pass, would only cost memory traffic.
    Until then it goes to one of the two scratch lines that follow the
    ``capacity`` LRU lines.
    """
    cdef Py_ssize_t l = w.line_of_row[row], j
    cdef double stats[3]
    cdef double* out = NULL
    cdef int bad = 0
    cdef bint admit
    w.counters[C_CACHE_CLOCK] += 1
    if l >= 0:
        w.line_used[l] = w.counters[C_CACHE_CLOCK]
        return l
    if w.kern.kind == KERNEL_CALLABLE:
        status[0] = STATUS_NEED_COLUMN
        return -1
    admit = w.capacity > 0 and (w.admit_first or w.seen[row])
    w.seen[row] = 1
    if admit:
        l = _free_line(w.cache, w.capacity, w.line_of_row, w.row_of_line,
                       w.line_used, w.counters, keep)
    else:
        l = w.capacity if keep != w.capacity else w.capacity + 1
    if not w.single:
        out = w.cache + l * w.n_track
    if w.kern.kind == KERNEL_PRECOMPUTED:
        # Z is the Gram matrix: the column of ``row`` is read from it.
        for j in range(w.n_track):
            out[j] = values[(w.track_from + j) * w.n_features + row] + w.kern.add
        bad = skp_any_nonfinite(out, w.n_track)
    else:
        _load_probe(values, w.indices, w.indptr, w.sparse, w.n_features, row,
                    w.xd, stats)
        if w.single:
            # Pass 1 in the double line, the exponentials into the line
            # (the arguments are clamped: the values are finite).
            _reduce(values, w.indices, w.indptr, w.sparse, w.n_features,
                    w.track_from, w.n_z, w.znorm, w.xd, stats, &w.kern,
                    w.cache)
            skp_exp_store_single(w.cache, w.n_track,
                                 w.cache32 + l * w.n_track)
        else:
            bad = _column(values, w.indices, w.indptr, w.sparse,
                          w.n_features, w.track_from, w.n_z, w.znorm, w.xd,
                          stats, &w.kern, out)
        _unload_probe(w.indices, w.indptr, w.sparse, row, w.xd)
    if bad:
        # An LRU line taken here stays unmapped, hence free.
        status[0] = STATUS_NONFINITE_KERNEL
        return -1
    if admit:
        w.row_of_line[l] = <int> row
        w.line_of_row[row] = <int> l
        w.line_used[l] = w.counters[C_CACHE_CLOCK]
    return l


# -- support set ---------------------------------------------------------------

cdef inline uint64_t _splitmix64(uint64_t* state) noexcept nogil:
    """Next draw of the SplitMix64 generator (Steele, Lea & Flood, 2014)."""
    cdef uint64_t z
    state[0] += <uint64_t> 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef Py_ssize_t _pick_removal(Walk* w, uint64_t* rng_next) noexcept nogil:
    """The support vector to remove from a full set (not committed yet)."""
    cdef Py_ssize_t q, best, n_sv = w.counters[C_N_SV]
    cdef uint64_t z
    if w.strategy == STRATEGY_RANDOM:
        z = _splitmix64(rng_next)
        q = <Py_ssize_t> (<double> (z >> 11) * (1.0 / 9007199254740992.0) * n_sv)
        if q >= n_sv:
            q = n_sv - 1
        return w.sv_list[q]
    # Forgetron and "oldest": the least recently updated support vector.
    best = w.sv_list[0]
    for q in range(1, n_sv):
        if w.last_time[w.sv_list[q]] < w.last_time[best]:
            best = w.sv_list[q]
    return best


cdef void _forgetron_shrink(Walk* w, Py_ssize_t r) noexcept nogil:
    """Shrink every coefficient of each row before support vector ``r`` is
    removed (Dekel, Shalev-Shwartz & Singer, the self-tuned Forgetron).

    In row k, with sigma = |alpha[r, k]| and mu = sign(alpha[r, k]) *
    f'_k(z_r) (the margin of z_r after this round's update), phi is the
    largest value in [0, 1] with Psi(sigma, phi, mu) + Q_k <= 15 M_k / 32,
    where Psi = (sigma phi)^2 + 2 sigma phi (1 - phi mu) is the damage the
    removal does, Q_k accumulates it and M_k counts the mistakes of row k so
    far, this one included.  The constraint is quadratic in phi:
    a phi^2 + b phi + c <= 0 with a = sigma^2 - 2 sigma mu, b = 2 sigma and
    c = Q_k - 15 M_k / 32 <= 0, whose crossing point is -2c / (b + sqrt(D)).
    """
    cdef Py_ssize_t k, q, s, j, K = w.n_rows
    cdef double a, sigma, mu, qk, limit, g1, qa, qb, qc, disc, phi, psi, old
    for k in range(K):
        limit = 15.0 * w.forget_m[k] / 32.0
        a = w.alpha[r * K + k]
        if a == 0.0:
            continue
        sigma = fabs(a)
        mu = (1.0 if a > 0.0 else -1.0) * w.scores[k * w.n_z + r]
        qk = w.forget_q[k]
        g1 = sigma * sigma + 2.0 * sigma - 2.0 * sigma * mu + qk - limit
        if g1 <= 0.0:
            phi = 1.0
        else:
            qa = sigma * sigma - 2.0 * sigma * mu
            qb = 2.0 * sigma
            qc = qk - limit
            if qc > 0.0:
                qc = 0.0
            disc = qb * qb - 4.0 * qa * qc
            if disc < 0.0:
                disc = 0.0
            phi = -2.0 * qc / (qb + sqrt(disc))
            if phi > 1.0:
                phi = 1.0
            elif phi < 0.0:
                phi = 0.0
        psi = sigma * phi * sigma * phi + 2.0 * sigma * phi * (1.0 - phi * mu)
        w.forget_q[k] = qk + psi
        if phi == 1.0:
            continue
        for q in range(w.counters[C_N_SV]):
            s = w.sv_list[q]
            old = w.alpha[s * K + k]
            w.alpha[s * K + k] = old * phi
            if w.average:
                w.alpha_sum[s * K + k] += w.visits[k] * (phi - 1.0) * old
        for j in range(w.track_from, w.n_z):
            w.scores[k * w.n_z + j] *= phi


cdef void _remove_support(Walk* w, Py_ssize_t r, Py_ssize_t l) noexcept nogil:
    """Take support vector ``r``, whose column is in cache line ``l``, out
    of the set, the scores and the average."""
    cdef Py_ssize_t k, j, q, last, K = w.n_rows
    cdef double a
    for k in range(K):
        a = w.alpha[r * K + k]
        if a != 0.0:
            # scores -= a * column, as an axpy (x + (-a) c rounds as x - a c).
            _axpy_line(w, w.scores + k * w.n_z + w.track_from, l, -a)
        w.alpha[r * K + k] = 0.0
        if w.average:
            w.alpha_sum[r * K + k] = 0.0
    q = w.sv_pos[r]
    last = w.sv_list[w.counters[C_N_SV] - 1]
    w.sv_list[q] = <int> last
    w.sv_pos[last] = <int> q
    w.sv_pos[r] = -1
    w.in_support[r] = 0
    w.counters[C_N_SV] -= 1


cdef inline double _line_value(Walk* w, Py_ssize_t l, Py_ssize_t j) noexcept nogil:
    """The kernel value plus ``add`` that cache line ``l`` holds for the
    tracked row ``j`` (row ``track_from + j`` of Z)."""
    if w.single:
        return <double> w.cache32[l * w.n_track + j] + w.kern.add
    return w.cache[l * w.n_track + j]


cdef inline void _axpy_line(
    Walk* w, double* scores, Py_ssize_t l, double delta,
) noexcept nogil:
    """scores[j] += delta * (the value of cache line ``l`` for row j)."""
    if w.single:
        skp_axpy_single(scores, w.cache32 + l * w.n_track, w.n_track, delta,
                        w.kern.add)
    else:
        skp_axpy(scores, w.cache + l * w.n_track, w.n_track, delta)


cdef inline void _add_column(Walk* w, Py_ssize_t l, Py_ssize_t n_up) noexcept nogil:
    """scores[j, k] += delta_k * column[j] for the rows k that updated, with
    the column in cache line ``l``."""
    _add_column_of(w, l, w.upd_rows, w.upd_delta, n_up)


cdef void _add_column_of(
    Walk* w, Py_ssize_t l, const int* upd_rows, const double* upd_delta,
    Py_ssize_t n_up,
) noexcept nogil:
    """scores[upd_rows[u], j] += upd_delta[u] * column[j] for u < n_up, with
    the column in cache line ``l``: one axpy per sub-problem over its line
    of scores."""
    cdef Py_ssize_t u
    for u in range(n_up):
        _axpy_line(w, w.scores + upd_rows[u] * w.n_z + w.track_from, l,
                   upd_delta[u])


# -- the blocked walk ----------------------------------------------------------

cdef inline Py_ssize_t _find_mistakes(
    Walk* w, Py_ssize_t i, const double* score, Py_ssize_t stride,
) noexcept nogil:
    """Write the active sub-problems in which visited sample ``i`` is a
    mistake to ``upd_rows``, with their update sizes to ``upd_delta``, and
    return how many; -1 if a score is not finite.  ``score[k * stride]`` is
    the score of sub-problem k.  (The table of a pass lists the active
    sub-problems only: see :meth:`Walker.run`.)"""
    cdef Py_ssize_t p, k, n_up = 0
    cdef int c = w.y_class[i]
    cdef double value
    for p in range(w.rows_ptr[c], w.rows_ptr[c + 1]):
        k = w.rows[p]
        value = score[k * stride]
        if value - value != 0.0:
            return -1
        # A sample of weight zero never updates, so it is no mistake either.
        if w.signs[p] * value <= w.threshold and w.step[i] != 0.0:
            w.upd_rows[n_up] = <int> k
            w.upd_delta[n_up] = w.step[i] * w.signs[p]
            n_up += 1
    return n_up


cdef inline void _record_update(Walk* w, Py_ssize_t i, Py_ssize_t n_up) noexcept nogil:
    """The dual side of the update of sample ``i`` in the ``n_up`` rows of
    ``upd_rows``: coefficients, Daume's sums, counts, its age, and its entry
    into the support set (the scores are the caller's)."""
    cdef Py_ssize_t u, k, K = w.n_rows
    for u in range(n_up):
        k = w.upd_rows[u]
        w.alpha[i * K + k] += w.upd_delta[u]
        if w.average:
            # Daume's trick, per dual coefficient.
            w.alpha_sum[i * K + k] += w.visits[k] * w.upd_delta[u]
        w.updates[k] += 1
        w.forget_m[k] += 1.0
    w.counters[C_CLOCK] += 1
    w.last_time[i] = w.counters[C_CLOCK]
    if not w.in_support[i]:
        w.sv_pos[i] = <int> w.counters[C_N_SV]
        w.sv_list[w.counters[C_N_SV]] = <int> i
        w.in_support[i] = 1
        w.counters[C_N_SV] += 1


cdef inline void _end_visit(Walk* w, Py_ssize_t i) noexcept nogil:
    """Count the visit of sample ``i`` in its active sub-problems, and the
    size of the support set between visits."""
    cdef Py_ssize_t p, k
    cdef int c = w.y_class[i]
    if w.counters[C_N_SV] > w.counters[C_MAX_SV]:
        w.counters[C_MAX_SV] = w.counters[C_N_SV]
    for p in range(w.rows_ptr[c], w.rows_ptr[c + 1]):
        w.visits[w.rows[p]] += 1.0



cdef void _pack_probe(Walk* w, Py_ssize_t q) noexcept nogil:
    """Copy pending probe ``q`` (row ``q`` of ``probes``) to its lane of the
    panels (of ``panels32`` in the exact variant), and its squared norm to
    ``probe_sq``; a new panel starts as zeros (its lanes past the last
    probe stay zeros)."""
    cdef Py_ssize_t f, d = w.n_features
    cdef Py_ssize_t first = (q // SKP_PANEL) * d * SKP_PANEL
    cdef Py_ssize_t lane = q % SKP_PANEL
    cdef const double* x = w.probes + q * d
    if lane == 0:
        memset(w.probe_sq + q, 0, sizeof(double) * SKP_PANEL)
    if w.values32 != NULL:
        if lane == 0:
            memset(w.panels32 + first, 0, sizeof(float) * d * SKP_PANEL)
        for f in range(d):
            w.panels32[first + f * SKP_PANEL + lane] = <float> x[f]
    else:
        if lane == 0:
            memset(w.panels + first, 0, sizeof(double) * d * SKP_PANEL)
        for f in range(d):
            w.panels[first + f * SKP_PANEL + lane] = x[f]
    w.probe_sq[q] = _probe_sq(w.kern.kind, x, d)


cdef int _flush(
    const floating* values, Walk* w, Py_ssize_t n_pend, Py_ssize_t n_new,
) noexcept nogil:
    """Compute the columns of the ``n_new`` pending new probes in one pass
    over Z, then add the ``n_pend`` pending updates to the scores, in the
    order they happened.  Returns a status.

    With ``symmetric``, the entry of a row whose column is cached already is
    copied from that column: every kernel value comes from reductions that
    do not depend on which of the two rows is the probe (the products
    commute and are summed in the same order), so the Gram matrix is exactly
    symmetric and the copy equals the value computed.

    With ``single``, the columns are computed without ``add`` in the double
    lines of ``cache`` (their values are float32 values: the exponentials
    are single-precision), then stored in their lines of ``cache32``."""
    cdef Py_ssize_t q, l, j, t, n_list = 0, base = w.track_from
    cdef int bad = 0
    cdef Kernel kern = w.kern
    cdef double* line
    cdef float* line32
    if w.single:
        kern.add = 0.0
    if n_new:
        for q in range(n_new):
            l = _free_line(w.cache, w.capacity, w.line_of_row, w.row_of_line,
                           w.line_used, w.counters, -1)
            if w.single:
                w.outs[q] = w.cache + q * w.n_track - base
            else:
                w.outs[q] = w.cache + l * w.n_track - base
            w.pend_line[w.new_pend[q]] = <int> l
        if w.values16_t != NULL:
            # Every row (the exact variant is not symmetric), in one run.
            n_list = w.n_track
            skp_transposed_multi(_dense_mode(w.kern.kind), w.values16_t,
                                 base, w.n_z, w.n_features,
                                 w.panels32, w.probe_sq, n_new, w.znorm,
                                 kern.gamma, kern.add, w.outs,
                                 w.multi_work, w.probe_pairs)
        else:
            for j in range(base, w.n_z):
                if not w.symmetric or w.line_of_row[j] < 0:
                    w.list_rows[n_list] = <int> j
                    n_list += 1
                elif not w.final:
                    # A finite placeholder for _transform, until the copy
                    # below.
                    for q in range(n_new):
                        w.outs[q][j] = 0.0
            _dense_pass_multi(w.kern.kind, values, w.n_features, w.list_rows,
                              n_list, 0, w.probes, w.panels, w.probe_sq,
                              n_new, w.znorm, kern.gamma, kern.add,
                              w.outs, w.multi_work, w.values32, w.panels32)
        if not w.final:
            for q in range(n_new):
                bad |= _transform(&kern, w.znorm + base, w.probe_norm[q],
                                  w.outs[q] + base, w.n_track)
        if bad:
            # The lines taken here stay unmapped, hence free.
            return STATUS_NONFINITE_KERNEL
        if n_list < w.n_track:
            for j in range(base, w.n_z):
                l = w.line_of_row[j]
                if l < 0:
                    continue
                if w.single:
                    line32 = w.cache32 + l * w.n_track - base
                    for q in range(n_new):
                        w.outs[q][j] = <double> line32[w.new_row[q]]
                else:
                    line = w.cache + l * w.n_track - base
                    for q in range(n_new):
                        w.outs[q][j] = line[w.new_row[q]]
        for q in range(n_new):
            j = w.new_row[q]
            l = w.pend_line[w.new_pend[q]]
            if w.single:
                # Exact: the values are float32 values.
                line = w.outs[q] + base
                line32 = w.cache32 + l * w.n_track
                for t in range(w.n_track):
                    line32[t] = <float> line[t]
            w.row_of_line[l] = <int> j
            w.line_of_row[j] = <int> l
            w.line_used[l] = w.new_stamp[q]
            w.seen[j] = 1
    for q in range(n_pend):
        _add_column_of(w, w.pend_line[q], w.pend_urows + q * w.n_rows,
                       w.pend_delta + q * w.n_rows, w.pend_nup[q])
    return STATUS_DONE


cdef int _walk_blocked(
    const floating* values, Walk* w, const int* order, Py_ssize_t n_visits,
    Py_ssize_t* t_io, Py_ssize_t* need_row,
) noexcept nogil:
    """The walk of :func:`_walk` with the columns of new support vectors
    computed in blocks, for dense Z, a built-in kernel, no budget and a
    cache that holds every column (nothing is ever evicted).

    An update whose column is not in the cache yet is left pending; the
    score of a later visit is its stored score plus the pending updates,
    in order, with the kernel values between the visited sample and the
    pending new probes computed for that one row (or read from its column,
    by symmetry, when it has one).  Once ``block`` updates are pending, or
    the per-row kernel values cost ``pair_budget`` pairs, one pass over Z
    computes every pending column (:func:`_flush`) and the pending updates
    reach the scores in the order they happened.  Every score is therefore
    the sum of the same terms in the same order as in :func:`_walk`; the
    kernel values come from the several-probe pass, whose dot products are
    summed in chunk order instead of the four partial sums of the
    one-column pass.  The two walks agree bit for bit when the dot products
    are exact (e.g. features on a grid of small integers), and up to
    rounding otherwise.  Z is read once per block instead of once per new
    support vector, and each read of a row serves eight probes at once."""
    cdef Py_ssize_t t, i, k, u, q, p, n_up, l, K = w.n_rows
    cdef Py_ssize_t d = w.n_features, n_pend = 0, n_new = 0, pairs = 0
    cdef int status, row, c
    cdef double v
    cdef double stats[3]
    for q in range(w.block):
        w.kval_outs[q] = w.kval + q
    for t in range(t_io[0], n_visits):
        i = order[t]
        for q in range(n_pend):
            if w.pend_row[q] == i:
                # A sample visited twice in a block: settle the block first.
                status = _flush(values, w, n_pend, n_new)
                if status != STATUS_DONE:
                    t_io[0] = t
                    need_row[0] = i
                    return status
                n_pend = n_new = pairs = 0
                break
        # The scores of the active sub-problems of the sample's class (the
        # others are never read, and their lines stay out of the caches).
        c = w.y_class[i]
        for p in range(w.rows_ptr[c], w.rows_ptr[c + 1]):
            k = w.rows[p]
            w.run[k] = w.scores[k * w.n_z + i]
        if n_pend:
            l = w.line_of_row[i]
            if n_new and l >= 0:
                # By symmetry, from the cached column of the visited row.
                for q in range(n_new):
                    w.kval[q] = _line_value(w, l, w.new_row[q] - w.track_from)
            elif n_new:
                row = <int> i
                _dense_pass_multi(w.kern.kind, values, d, &row, 1, i, w.probes,
                                  w.panels, w.probe_sq, n_new, w.znorm,
                                  w.kern.gamma, w.kern.add, w.kval_outs,
                                  w.multi_work, w.values32, w.panels32)
                status = 0
                if w.final:
                    pass
                elif w.kern.kind == KERNEL_COSINE:
                    for q in range(n_new):
                        status |= _transform(&w.kern, w.znorm + i,
                                             w.probe_norm[q], w.kval + q, 1)
                else:
                    status |= _transform(&w.kern, w.znorm + i, 0.0, w.kval,
                                         n_new)
                if status:
                    t_io[0] = t
                    need_row[0] = i
                    return STATUS_NONFINITE_KERNEL
                pairs += n_new
            for q in range(n_pend):
                if w.pend_new[q] >= 0:
                    v = w.kval[w.pend_new[q]]
                else:
                    v = _line_value(w, w.pend_line[q], i - w.track_from)
                for u in range(q * K, q * K + w.pend_nup[q]):
                    w.run[w.pend_urows[u]] += w.pend_delta[u] * v
        n_up = _find_mistakes(w, i, w.run, 1)
        if n_up < 0:
            t_io[0] = t
            need_row[0] = i
            return STATUS_NONFINITE_SCORE
        if n_up:
            w.counters[C_CACHE_CLOCK] += 1
            l = w.line_of_row[i]
            if l >= 0:
                w.line_used[l] = w.counters[C_CACHE_CLOCK]
            if l >= 0 and n_pend == 0:
                _add_column(w, l, n_up)
            else:
                q = n_pend
                n_pend += 1
                w.pend_row[q] = <int> i
                w.pend_nup[q] = <int> n_up
                for u in range(n_up):
                    w.pend_urows[q * K + u] = w.upd_rows[u]
                    w.pend_delta[q * K + u] = w.upd_delta[u]
                w.pend_line[q] = <int> l
                w.pend_new[q] = -1
                if l < 0:
                    w.pend_new[q] = <int> n_new
                    w.new_row[n_new] = <int> i
                    w.new_pend[n_new] = <int> q
                    w.new_stamp[n_new] = w.counters[C_CACHE_CLOCK]
                    _load_probe(values, w.indices, w.indptr, False, d, i,
                                w.probes + n_new * d, stats)
                    w.probe_norm[n_new] = stats[2]
                    _pack_probe(w, n_new)
                    n_new += 1
            _record_update(w, i, n_up)
        _end_visit(w, i)
        if n_pend == w.block or pairs >= w.pair_budget:
            status = _flush(values, w, n_pend, n_new)
            if status != STATUS_DONE:
                t_io[0] = t
                need_row[0] = i
                return status
            n_pend = n_new = pairs = 0
    if n_pend:
        status = _flush(values, w, n_pend, n_new)
        if status != STATUS_DONE:
            t_io[0] = n_visits
            return status
    t_io[0] = n_visits
    return STATUS_DONE


# -- the walk ------------------------------------------------------------------

cdef int _walk(
    const floating* values, Walk* w, const int* order, Py_ssize_t n_visits,
    Py_ssize_t* t_io, Py_ssize_t* need_row,
) noexcept nogil:
    cdef Py_ssize_t t, i, n_up, r, li, lr
    cdef int status = STATUS_DONE
    cdef bint is_new
    cdef uint64_t rng_next

    if w.block > 0:
        return _walk_blocked(values, w, order, n_visits, t_io, need_row)
    for t in range(t_io[0], n_visits):
        i = order[t]
        n_up = _find_mistakes(w, i, w.scores + i, w.n_z)
        if n_up < 0:
            t_io[0] = t
            need_row[0] = i
            return STATUS_NONFINITE_SCORE
        if n_up:
            is_new = not w.in_support[i]
            r = -1
            rng_next = w.rng[0]
            if is_new and w.budget >= 0 and w.counters[C_N_SV] >= w.budget:
                r = _pick_removal(w, &rng_next)
            # Fetch every column this visit needs before changing any state,
            # so that a walk stopped here (callable kernel) can resume here.
            li = _line(values, w, i, -1, &status)
            if li < 0:
                t_io[0] = t
                need_row[0] = i
                return status
            lr = -1
            if r >= 0:
                lr = _line(values, w, r, li, &status)
                if lr < 0:
                    t_io[0] = t
                    need_row[0] = r
                    return status
                w.rng[0] = rng_next
            _add_column(w, li, n_up)
            _record_update(w, i, n_up)
            if r >= 0:
                if w.strategy == STRATEGY_FORGETRON:
                    _forgetron_shrink(w, r)
                _remove_support(w, r, lr)
        _end_visit(w, i)
    t_io[0] = n_visits
    return STATUS_DONE


cdef class Walker:
    """The dual perceptron walk over the rows of Z: its arrays, taken once
    (the arguments below), then :meth:`run` for every pass, which visits the
    rows ``order[t_start:]``.  The arrays are used in place, and must not be
    reallocated while the walker lives (it keeps a reference to each).

    Parameters
    ----------
    values, indices, indptr, sparse, n_features, n_z
        The rows of Z: for a dense Z, ``values`` is the C-ordered (n_z,
        n_features) matrix raveled and ``indices``/``indptr`` are unused; for
        a CSR Z they are its arrays (int32 indices, canonical format).  For
        "precomputed", Z is the (n_z, n_z) Gram matrix.
    znorm : ndarray of float64 of shape (n_z,)
        Row norms of Z (read by "cosine" only).
    kind, gamma, coef0, degree : int, float, float, float
        The kernel and its parameters.
    add : float
        1.0 to pad a constant feature in kernel space (``fit_intercept``).
    y_class, step : ndarrays of shape (n_z,)
        Class index and update size ``sample_weight * class_weight`` of every
        row of Z.
    rows_ptr, rows, signs : ndarrays
        Sub-problems of every class and the sign of the class in each.
    threshold : float
        An update happens when ``s * score <= threshold``.
    scores : ndarray of shape (n_rows, n_z)
        Current scores, one line per sub-problem; samples ``>= track_from``
        are kept up to date.
    alpha, alpha_sum : ndarrays of shape (n_z, n_rows)
        Dual coefficients and Daume's sums (when ``average``).
    visits : ndarray of shape (n_rows,)
        Visits of every sub-problem so far.
    in_support, sv_list, sv_pos, last_time : ndarrays of shape (n_z,)
        The support set: membership, list (first ``counters[0]`` entries),
        position in the list and time of the last update of every row.
    counters : ndarray of int64 of shape (5,)
        Number of support vectors, update clock, largest number of support
        vectors seen, cache clock and cache lines used.
    budget, strategy : int
        Maximum number of support vectors (-1: none) and removal strategy.
    forget : ndarray of shape (2, n_rows)
        The Forgetron's cumulative damage and number of mistakes of every
        sub-problem.
    rng : ndarray of uint64 of shape (1,)
        State of the generator of the "random" strategy.
    cache, line_of_row, row_of_line, line_used
        The column cache: ``capacity`` LRU lines then two scratch lines, each
        a column over the tracked rows (``cache`` is (capacity + 2,
        n_z - track_from)), unless ``cache32`` is given.
    admit_first, seen : bool, ndarray of uint8 of shape (n_z,)
        Whether a column enters the LRU lines on its first use (else on its
        second), and which rows had their column computed before.
    work, upd_rows, upd_delta : ndarrays
        Work space: (n_features,) zeros, (n_rows,) and (n_rows,).
    block : int, default=0
        With ``block > 0``, a dense Z, a built-in kernel, no budget and a
        cache with a line for every row of Z, the columns of new support
        vectors are computed up to ``block`` at a time
        (:func:`_walk_blocked`; the same result up to the rounding of the
        dot products, which are summed in another order).  Otherwise, or
        with ``block=0``, one at a time.
    values32 : ndarray of float32 of shape (n_z * n_features,), default=None
        Z in float32, for the exact variant of the blocked walk's passes,
        which needs every dot product of two rows of Z to be exact in
        float32 (:func:`exact_in_float32`; the caller checks it).  Unused
        when the blocked walk does not apply.
    values16_t : ndarray of int16, default=None
        With ``values32``: Z transposed by blocks, in 16-bit integers
        (:func:`transposed_copy`), for the several-probe passes of the exact
        variant when :func:`transposed_available`; the same values, faster.
    cache32 : ndarray of float32 of shape (capacity + 2, n_z - track_from), \
            default=None
        For "rbf" and "laplacian" only: the lines of the column cache in
        single precision, holding the kernel values without ``add`` (see
        "Training precision" in the module docstring).  ``cache`` then has
        ``max(block, 1)`` lines, where columns are computed before they are
        stored.
    """

    cdef Walk w
    cdef const double[::1] values_d
    cdef const float[::1] values_f
    cdef const float[::1] values_x
    cdef const int16_t[::1] values_t
    cdef int32_t[::1] pairs
    cdef bint single
    cdef object arrays
    cdef void* ints
    cdef void* reals
    cdef void* floats
    cdef void* pointers
    # The table of a pass: the sub-problems of every class, active ones only.
    cdef const int[::1] table_ptr
    cdef const int[::1] table_rows
    cdef const signed char[::1] table_signs
    cdef int[::1] pass_ptr
    cdef int[::1] pass_rows
    cdef signed char[::1] pass_signs

    def __cinit__(self):
        self.ints = NULL
        self.reals = NULL
        self.floats = NULL
        self.pointers = NULL

    def __dealloc__(self):
        free(self.ints)
        free(self.reals)
        free(self.floats)
        free(self.pointers)

    def __init__(
        self,
        values,
        const int[::1] indices,
        const int[::1] indptr,
        bint sparse,
        Py_ssize_t n_features,
        Py_ssize_t n_z,
        const double[::1] znorm,
        int kind,
        double gamma,
        double coef0,
        double degree,
        double add,
        const int[::1] y_class,
        const double[::1] step,
        const int[::1] rows_ptr,
        const int[::1] rows,
        const signed char[::1] signs,
        double threshold,
        double[:, ::1] scores,
        Py_ssize_t track_from,
        double[:, ::1] alpha,
        bint average,
        double[:, ::1] alpha_sum,
        double[::1] visits,
        unsigned char[::1] in_support,
        int[::1] sv_list,
        int[::1] sv_pos,
        long long[::1] last_time,
        long long[::1] counters,
        Py_ssize_t budget,
        int strategy,
        double[:, ::1] forget,
        unsigned long long[::1] rng,
        double[:, ::1] cache,
        int[::1] line_of_row,
        int[::1] row_of_line,
        long long[::1] line_used,
        bint admit_first,
        unsigned char[::1] seen,
        double[::1] work,
        int[::1] upd_rows,
        double[::1] upd_delta,
        Py_ssize_t block=0,
        values32=None,
        values16_t=None,
        float[:, ::1] cache32=None,
    ):
        cdef Py_ssize_t K, B, B_lanes
        # The walk holds pointers into these arrays: keep them alive.
        self.arrays = (values, indices, indptr, znorm, y_class, step, rows_ptr,
                       rows, signs, scores, alpha, alpha_sum, visits,
                       in_support, sv_list, sv_pos, last_time, counters, forget,
                       rng, cache, line_of_row, row_of_line, line_used, seen,
                       work, upd_rows, upd_delta)
        self.single = values.dtype == np.float32
        if self.single:
            self.values_f = values
        else:
            self.values_d = values
        self.w.indices = &indices[0]
        self.w.indptr = &indptr[0]
        self.w.sparse = sparse
        self.w.n_features = n_features
        self.w.n_z = n_z
        self.w.track_from = track_from
        self.w.n_track = n_z - track_from
        self.w.znorm = &znorm[0]
        self.w.kern.kind = kind
        self.w.kern.gamma = gamma
        self.w.kern.coef0 = coef0
        self.w.kern.degree = degree
        self.w.kern.add = add
        self.w.kern.single = True
        self.w.y_class = &y_class[0]
        self.w.step = &step[0]
        self.table_ptr = rows_ptr
        self.table_rows = rows
        self.table_signs = signs
        self.pass_ptr = np.zeros(rows_ptr.shape[0], dtype=np.int32)
        self.pass_rows = np.zeros(max(rows.shape[0], 1), dtype=np.int32)
        self.pass_signs = np.zeros(max(signs.shape[0], 1), dtype=np.int8)
        self.w.rows_ptr = &rows_ptr[0]
        self.w.rows = &rows[0]
        self.w.signs = &signs[0]
        self.w.n_rows = scores.shape[0]
        self.w.threshold = threshold
        self.w.scores = &scores[0, 0]
        self.w.alpha = &alpha[0, 0]
        self.w.average = average
        self.w.alpha_sum = &alpha_sum[0, 0]
        self.w.visits = &visits[0]
        self.w.in_support = &in_support[0]
        self.w.sv_list = &sv_list[0]
        self.w.sv_pos = &sv_pos[0]
        self.w.last_time = &last_time[0]
        self.w.counters = &counters[0]
        self.w.budget = budget
        self.w.strategy = strategy
        self.w.forget_q = &forget[0, 0]
        self.w.forget_m = &forget[1, 0]
        self.w.rng = <uint64_t*> &rng[0]
        self.w.cache = &cache[0, 0]
        self.w.capacity = cache.shape[0] - 2
        self.w.cache32 = NULL
        self.w.single = cache32 is not None
        if self.w.single:
            if kind != KERNEL_RBF and kind != KERNEL_LAPLACIAN:
                raise ValueError("cache32 is for the rbf and laplacian "
                                 "kernels only.")
            if (cache32.shape[1] != cache.shape[1]
                    or cache.shape[0] < max(block, 1)):
                raise ValueError("cache32 needs lines as long as those of "
                                 "cache, and cache max(block, 1) lines.")
            self.arrays += (cache32,)
            self.w.cache32 = &cache32[0, 0]
            self.w.capacity = cache32.shape[0] - 2
        self.w.admit_first = admit_first
        self.w.seen = &seen[0]
        self.w.line_of_row = &line_of_row[0]
        self.w.row_of_line = &row_of_line[0]
        self.w.line_used = &line_used[0]
        self.w.xd = &work[0]
        self.w.upd_rows = &upd_rows[0]
        self.w.upd_delta = &upd_delta[0]
        self.w.block = 0
        self.w.values32 = NULL
        self.w.panels32 = NULL
        self.w.values16_t = NULL
        self.w.probe_pairs = NULL
        if (block > 0 and not sparse and kind < KERNEL_PRECOMPUTED
                and budget < 0 and self.w.capacity >= n_z):
            self.w.block = block
        K = self.w.n_rows
        B = self.w.block
        # Panels of packed probes: B rounded up to whole panels.
        B_lanes = (B + SKP_PANEL - 1) // SKP_PANEL * SKP_PANEL
        if B > 0:
            self.w.pair_budget = max(self.w.n_track // 2, 1)
            self.w.final = _multi_is_final(kind, n_features)
            # _flush's copy of symmetric entries needs a finite placeholder
            # for the transform of pass 1's values: "poly" could overflow.
            # The exact variant computes those entries instead: a copy reads
            # a cache line per entry, and its float32 pass costs about as
            # much when the machine is quiet and is 4-6% faster on digits
            # when another core streams memory (measured).
            self.w.symmetric = kind != KERNEL_POLY and values32 is None
            self.ints = malloc(sizeof(int) * (B * (6 + K) + n_z)
                               + sizeof(long long) * B)
            self.reals = malloc(
                sizeof(double) * (B * (K + n_features + 2) + K
                                  + B_lanes * (n_features + 1 + SKP_ROWS)))
            self.pointers = malloc(sizeof(double*) * 2 * B)
            if self.ints == NULL or self.reals == NULL or self.pointers == NULL:
                raise MemoryError()
            self.w.new_stamp = <long long*> self.ints
            self.w.pend_row = <int*> (self.w.new_stamp + B)
            self.w.pend_nup = self.w.pend_row + B
            self.w.pend_line = self.w.pend_nup + B
            self.w.pend_new = self.w.pend_line + B
            self.w.new_row = self.w.pend_new + B
            self.w.new_pend = self.w.new_row + B
            self.w.pend_urows = self.w.new_pend + B
            self.w.list_rows = self.w.pend_urows + B * K
            self.w.pend_delta = <double*> self.reals
            self.w.probes = self.w.pend_delta + B * K
            self.w.probe_norm = self.w.probes + B * n_features
            self.w.kval = self.w.probe_norm + B
            self.w.run = self.w.kval + B
            self.w.panels = self.w.run + K
            self.w.probe_sq = self.w.panels + B_lanes * n_features
            self.w.multi_work = self.w.probe_sq + B_lanes
            self.w.outs = <double**> self.pointers
            self.w.kval_outs = self.w.outs + B
            if values32 is not None:
                self.values_x = values32
                self.floats = malloc(sizeof(float) * B_lanes * n_features)
                if self.floats == NULL:
                    raise MemoryError()
                self.w.values32 = &self.values_x[0]
                self.w.panels32 = <float*> self.floats
                if values16_t is not None:
                    _check_transposed(values16_t, n_z, n_features, kind)
                    self.values_t = values16_t
                    self.pairs = np.zeros(B_lanes * ((n_features + 1) // 2),
                                          dtype=np.int32)
                    self.w.values16_t = &self.values_t[0]
                    self.w.probe_pairs = &self.pairs[0]

    def run(self, const int[::1] order, Py_ssize_t t_start,
            const unsigned char[::1] active, long long[::1] updates):
        """Visit the rows ``order[t_start:]`` of Z; sub-problems with
        ``active[k] == 0`` are frozen (no update, no visit), and ``updates``
        (int64, (n_rows,)) counts the updates of every sub-problem, in place.

        Returns
        -------
        status, t, row : int
            ``STATUS_DONE`` (t = len(order)); or the visit ``t`` stopped at
            and the row involved: ``STATUS_NEED_COLUMN`` (store its column in
            the cache and call again from ``t``), ``STATUS_NONFINITE_KERNEL``
            or ``STATUS_NONFINITE_SCORE``.
        """
        cdef Py_ssize_t t = t_start, need_row = -1
        cdef int status
        cdef const float* data_f = NULL
        cdef const double* data_d = NULL
        # A local copy (the walk changes no field of it): the compiler then
        # keeps its fields in registers, where a field of this object would
        # be reloaded after every store through a pointer (measured: 15-20%
        # more cycles on digits).
        cdef Walk w = self.w
        cdef Py_ssize_t c, p, n_entries = 0
        if order.shape[0] == 0:
            return STATUS_DONE, 0, -1
        w.updates = &updates[0]
        # Frozen sub-problems take no update and count no visit: the walk
        # reads a table without them (``active`` is fixed for the pass).
        for c in range(self.table_ptr.shape[0] - 1):
            self.pass_ptr[c] = <int> n_entries
            for p in range(self.table_ptr[c], self.table_ptr[c + 1]):
                if active[self.table_rows[p]]:
                    self.pass_rows[n_entries] = self.table_rows[p]
                    self.pass_signs[n_entries] = self.table_signs[p]
                    n_entries += 1
        self.pass_ptr[self.table_ptr.shape[0] - 1] = <int> n_entries
        w.rows_ptr = &self.pass_ptr[0]
        w.rows = &self.pass_rows[0]
        w.signs = &self.pass_signs[0]
        if self.single:
            if self.values_f.shape[0]:
                data_f = &self.values_f[0]
            with nogil:
                status = _walk(data_f, &w, &order[0], order.shape[0], &t,
                               &need_row)
        else:
            if self.values_d.shape[0]:
                data_d = &self.values_d[0]
            with nogil:
                status = _walk(data_d, &w, &order[0], order.shape[0], &t,
                               &need_row)
        return status, t, need_row


def cache_store(
    const double[::1] column,
    Py_ssize_t row,
    double[:, ::1] cache,
    int[::1] line_of_row,
    int[::1] row_of_line,
    long long[::1] line_used,
    long long[::1] counters,
):
    """Store the column of Z row ``row`` (computed in Python, for a callable
    kernel) in an LRU line of the cache (``cache`` as in :class:`Walker`),
    evicting the least recently used line if full."""
    cdef Py_ssize_t l, j
    l = _free_line(&cache[0, 0], cache.shape[0] - 2, &line_of_row[0],
                   &row_of_line[0], &line_used[0], &counters[0], -1)
    for j in range(column.shape[0]):
        cache[l, j] = column[j]
    counters[C_CACHE_CLOCK] += 1
    row_of_line[l] = <int> row
    line_of_row[row] = <int> l
    line_used[l] = counters[C_CACHE_CLOCK]


# -- prediction ----------------------------------------------------------------

def decision(
    const floating[::1] values,
    const int[::1] indices,
    const int[::1] indptr,
    bint sparse,
    Py_ssize_t n_samples,
    const floating[::1] sv_values,
    const int[::1] sv_indices,
    const int[::1] sv_indptr,
    bint sv_sparse,
    Py_ssize_t n_sv,
    Py_ssize_t n_features,
    const double[::1] sv_norm,
    int kind,
    double gamma,
    double coef0,
    double degree,
    const double[:, ::1] coef,
    double[:, ::1] out,
    double[::1] work,
    double[::1] column,
    bint single=False,
):
    """Write ``sum_j coef[j, k] * K(sv_j, x_t)`` to ``out[t, k]``.

    The samples ``x_t`` (``values``, ... ``sparse``) and the support vectors
    (``sv_*``, with norms ``sv_norm`` for "cosine") may each be dense or CSR,
    in the same dtype.  One sample at a time: the extra memory is one kernel
    column of ``n_sv`` doubles (``column``) and one dense probe
    (``work``, ``n_features`` zeros).  With ``single``, the exponentials
    are those of a fit (see "Training precision"): the scores a walk starts
    from.  Returns 1 if a kernel value is not finite, else 0.
    """
    cdef Kernel kern
    cdef Py_ssize_t t, j, k, K = coef.shape[1]
    cdef double stats[3]
    cdef double s
    cdef int bad = 0
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    cdef const floating* sv_data = &sv_values[0] if sv_values.shape[0] else NULL
    kern.kind = kind
    kern.gamma = gamma
    kern.coef0 = coef0
    kern.degree = degree
    kern.add = 0.0
    kern.single = single
    if n_sv == 0:
        out[:, :] = 0.0
        return 0
    with nogil:
        for t in range(n_samples):
            _load_probe(data, &indices[0], &indptr[0], sparse, n_features, t,
                        &work[0], stats)
            bad |= _column(sv_data, &sv_indices[0], &sv_indptr[0], sv_sparse,
                           n_features, 0, n_sv, &sv_norm[0], &work[0], stats,
                           &kern, &column[0])
            _unload_probe(&indices[0], &indptr[0], sparse, t, &work[0])
            if K == 1:
                s = 0.0
                for j in range(n_sv):
                    s += coef[j, 0] * column[j]
                out[t, 0] = s
            else:
                for k in range(K):
                    out[t, k] = 0.0
                for j in range(n_sv):
                    s = column[j]
                    for k in range(K):
                        out[t, k] += coef[j, k] * s
    return bad


def kernel_rows(
    const floating[::1] values,
    const int[::1] indices,
    const int[::1] indptr,
    bint sparse,
    Py_ssize_t n_samples,
    const floating[::1] z_values,
    const int[::1] z_indices,
    const int[::1] z_indptr,
    bint z_sparse,
    Py_ssize_t n_z,
    Py_ssize_t n_features,
    const double[::1] z_norm,
    int kind,
    double gamma,
    double coef0,
    double degree,
    double[:, ::1] out,
    double[::1] work,
):
    """Write the kernel matrix ``K(x_t, z_j)`` to ``out[t, j]`` (same layout
    of inputs as :func:`decision`).  Returns 1 if a value is not finite."""
    cdef Kernel kern
    cdef Py_ssize_t t
    cdef double stats[3]
    cdef int bad = 0
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    cdef const floating* z_data = &z_values[0] if z_values.shape[0] else NULL
    kern.kind = kind
    kern.gamma = gamma
    kern.coef0 = coef0
    kern.degree = degree
    kern.add = 0.0
    kern.single = False
    if n_z == 0:
        return 0
    with nogil:
        for t in range(n_samples):
            _load_probe(data, &indices[0], &indptr[0], sparse, n_features, t,
                        &work[0], stats)
            bad |= _column(z_data, &z_indices[0], &z_indptr[0], z_sparse,
                           n_features, 0, n_z, &z_norm[0], &work[0], stats,
                           &kern, &out[t, 0])
            _unload_probe(&indices[0], &indptr[0], sparse, t, &work[0])
    return bad


def transposed_available():
    """Whether the exact variant's several-probe pass can read Z transposed
    (:func:`transposed_copy`): built for x86-64 with GCC or Clang, and run
    on a CPU with AVX2."""
    return bool(skp_transposed_available())


def transposed_copy(const float[::1] values32, Py_ssize_t n_z,
                    Py_ssize_t n_features):
    """The rows of Z (``values32``, float32, row-major, exact integers: see
    :func:`exact_in_float32`) transposed by blocks of 16 rows and pairs of
    features, in 16-bit integers, as the transposed pass reads them (see
    ``skp_transposed_dots``): a flat int16 array, zeros past the last row
    and feature."""
    if values32.shape[0] != n_z * n_features:
        raise ValueError("values32 must hold n_z rows of n_features values.")
    out = np.zeros(_transposed_size(n_z, n_features), dtype=np.int16)
    cdef int16_t[::1] out_v = out
    if n_z * n_features:
        with nogil:
            skp_block_pairs(&values32[0], n_z, n_features, &out_v[0])
    return out


def _transposed_size(Py_ssize_t n_z, Py_ssize_t n_features):
    return (n_z + 15) // 16 * 16 * ((n_features + 1) // 2 * 2)


def _check_transposed(values16_t, Py_ssize_t n_z, Py_ssize_t n_features,
                      int kind):
    if kind == KERNEL_LAPLACIAN or n_features <= 2:
        raise ValueError("The transposed pass takes dot products of more "
                         "than two features.")
    if (values16_t.dtype != np.int16 or values16_t.ndim != 1
            or values16_t.shape[0] != _transposed_size(n_z, n_features)):
        raise ValueError("values16_t must come from transposed_copy.")
    if not skp_transposed_available():
        raise ValueError("This CPU or build has no transposed pass.")


def several_columns(
    const floating[::1] values,
    Py_ssize_t n_features,
    const double[::1] znorm,
    int kind,
    double gamma,
    double coef0,
    double degree,
    double add,
    const double[:, ::1] probes,
    const double[::1] probe_norm,
    const int[::1] rows,
    double[:, ::1] out,
    values32=None,
    values16_t=None,
):
    """Write ``K(z_j, x_q) + add`` to ``out[q, j]`` for the rows ``j`` listed
    in ``rows`` of a dense Z and every probe ``x_q`` (a row of ``probes``),
    with the several-probe pass of the blocked walk (:func:`_flush`), all
    probes in one pass; a visit's kernel values are the same pass with one
    row.  ``znorm`` as in :class:`Walker`, ``probe_norm`` the probes' norms
    (read by "cosine").  ``out`` must hold zeros: the transform of the
    kernels other than "rbf" runs over whole lines.  With ``values32`` (Z in
    float32; Z and the probes must pass :func:`exact_in_float32`), the
    exact variant of the pass; with ``values16_t`` too (from
    :func:`transposed_copy`), its transposed pass, which needs ``rows`` to
    be consecutive.  Returns 1 if a value is not finite, else 0.  (Not used
    by the estimator; it exposes the pass to the tests.)"""
    cdef Py_ssize_t m = probes.shape[0], d = n_features, q, f
    cdef Py_ssize_t n_lanes = (m + SKP_PANEL - 1) // SKP_PANEL * SKP_PANEL
    cdef Kernel kern
    cdef int bad = 0
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    if m == 0 or rows.shape[0] == 0:
        return 0
    kern.kind = kind
    kern.gamma = gamma
    kern.coef0 = coef0
    kern.degree = degree
    kern.add = add
    kern.single = True
    panels = np.zeros(n_lanes * max(d, 1))
    panels32 = np.zeros(n_lanes * max(d, 1), dtype=np.float32)
    xsq = np.zeros(n_lanes)
    work = np.zeros(n_lanes * SKP_ROWS)
    cdef double[::1] panels_v = panels, xsq_v = xsq, work_v = work
    cdef float[::1] panels32_v = panels32
    cdef const float[::1] values32_v
    cdef const float* data32 = NULL
    if values32 is not None:
        values32_v = values32
        data32 = &values32_v[0]
    outs = np.zeros(m, dtype=np.uintp)
    cdef size_t[::1] outs_v = outs
    for q in range(m):
        for f in range(d):
            panels_v[(q // SKP_PANEL) * d * SKP_PANEL + f * SKP_PANEL
                     + q % SKP_PANEL] = probes[q, f]
            panels32_v[(q // SKP_PANEL) * d * SKP_PANEL + f * SKP_PANEL
                       + q % SKP_PANEL] = <float> probes[q, f]
        xsq_v[q] = _probe_sq(kind, &probes[q, 0], d)
        outs_v[q] = <size_t> &out[q, 0]
    cdef const int16_t[::1] values16_t_v
    cdef const int16_t* data16_t = NULL
    pairs = np.zeros(n_lanes * ((d + 1) // 2), dtype=np.int32)
    cdef int32_t[::1] pairs_v = pairs
    if values16_t is not None:
        _check_transposed(values16_t, values32.shape[0] // d, d, kind)
        if data32 == NULL or rows[rows.shape[0] - 1] - rows[0] != rows.shape[0] - 1:
            raise ValueError("The transposed pass needs values32 and "
                             "consecutive rows.")
        values16_t_v = values16_t
        data16_t = &values16_t_v[0]
    with nogil:
        if data16_t != NULL:
            skp_transposed_multi(_dense_mode(kind), data16_t, rows[0],
                                 rows[rows.shape[0] - 1] + 1, d,
                                 &panels32_v[0], &xsq_v[0], m, &znorm[0],
                                 gamma, add, <double**> &outs_v[0],
                                 &work_v[0], &pairs_v[0])
        else:
            _dense_pass_multi(kind, data, d, &rows[0], rows.shape[0], 0,
                              &probes[0, 0], &panels_v[0], &xsq_v[0], m,
                              &znorm[0], gamma, add, <double**> &outs_v[0],
                              &work_v[0], data32, &panels32_v[0])
        if not _multi_is_final(kind, d):
            for q in range(m):
                bad |= _transform(&kern, &znorm[0], probe_norm[q], &out[q, 0],
                                  out.shape[1])
    return bad


def exp_single(const double[::1] x, float[::1] out):
    """``out[j] = exp(x[j])`` in single precision, as the kernel values of a
    fit (``skp_exp_single``), for ``x[j]`` in [-708.3964, 0].  (Not used
    by the estimator; it exposes the function to the tests.)"""
    if out.shape[0] != x.shape[0]:
        raise ValueError("out must be as long as x.")
    if x.shape[0]:
        with nogil:
            skp_exp_store_single(&x[0], x.shape[0], &out[0])


def variance(const floating[::1] values):
    """The variance of ``values`` in float64 (0 when empty), as
    ``values.var()`` up to rounding: two passes (the mean, then the centered
    squares), without a temporary array."""
    cdef double result = 0.0
    if values.shape[0] == 0:
        return 0.0
    with nogil:
        if floating is double:
            result = skp_variance_d(&values[0], values.shape[0])
        else:
            result = skp_variance_f(&values[0], values.shape[0])
    return result


def exact_in_float32(const floating[::1] values, const double[::1] sq_norms,
                     float[::1] copy=None):
    """Whether every dot product of two rows of a dense Z is exact in
    float32, in any order of summation: every value an integer and every
    row's squared norm (``sq_norms``, exact then) at most 2^24, which
    bounds every product and partial sum by |z| |x| <= 2^24
    (Cauchy-Schwarz).  Such rows (pixel intensities, counts, indicators)
    can take the exact variant of the several-probe passes.  With
    ``copy`` (float32, the size of float64 ``values``), the values are
    written there in the same pass (meaningful when the answer is True)."""
    cdef Py_ssize_t j
    cdef int ok = 1
    if copy is not None and (floating is not double
                             or copy.shape[0] != values.shape[0]):
        raise ValueError("copy must be float32 of the size of float64 values.")
    with nogil:
        for j in range(sq_norms.shape[0]):
            if not sq_norms[j] <= 16777216.0:
                ok = 0
        if ok and values.shape[0]:
            if floating is double:
                if copy is not None:
                    ok = skp_integer_valued_copy(&values[0], values.shape[0],
                                                 4096.0, &copy[0])
                else:
                    ok = skp_integer_valued_d(&values[0], values.shape[0],
                                              4096.0)
            else:
                ok = skp_integer_valued_f(&values[0], values.shape[0], 4096.0)
    return ok != 0


def row_norms(
    const floating[::1] values,
    const int[::1] indptr,
    bint sparse,
    Py_ssize_t n_samples,
    Py_ssize_t n_features,
    double[::1] out,
):
    """Euclidean norm of every row, accumulated in float64."""
    cdef Py_ssize_t t, p, start, stop
    cdef double s
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    with nogil:
        for t in range(n_samples):
            if sparse:
                start = indptr[t]
                stop = indptr[t + 1]
            else:
                start = t * n_features
                stop = start + n_features
            s = 0.0
            for p in range(start, stop):
                s += <double> data[p] * data[p]
            out[t] = sqrt(s)


def dense_sq_norms(
    const floating[::1] values,
    Py_ssize_t n_samples,
    Py_ssize_t n_features,
    double[::1] out,
    double[::1] work,
):
    """Squared norm of every row of a dense matrix, summed in the order of
    the dense kernel passes (what their "rbf" reads as the rows' norms);
    ``work`` has ``n_features`` doubles."""
    cdef Py_ssize_t t, p
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    with nogil:
        if floating is double:
            skp_dense_sq_norms_d(data, n_samples, n_features, &out[0])
        else:
            for t in range(n_samples):
                for p in range(n_features):
                    work[p] = data[t * n_features + p]
                out[t] = skp_dot_d(&work[0], &work[0], n_features)
