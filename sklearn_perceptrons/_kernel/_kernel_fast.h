/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   The loops over rows of the kernel perceptron's compiled walk
   (_kernel_core.pxi) that must be C: the exponentials (built from the
   exponent bits), and the reductions and updates over rows, written so that
   the compiler vectorizes them.  The budgeted walk (_kernel_budget_core.pxi)
   uses the same exponential and dot product.  Every kernel value goes
   through one of these functions in one summation order, whichever pass
   needs it: a fit does not depend on which pass computed a column nor on
   the cache size. */
#ifndef SKP_KERNEL_FAST_H
#define SKP_KERNEL_FAST_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The functions that are not inline: a module may use only some of them. */
#if defined(__GNUC__) || defined(__clang__)
#define SKP_HELPER static __attribute__((unused))
#else
#define SKP_HELPER static
#endif

/* log(DBL_MIN): the arguments of the exponentials are clamped here, so that
   a kernel value is never a subnormal or zero and the exponential needs no
   branch. */
#define SKP_LOG_DBL_MIN (-708.3964185322641)

static inline double skp_clamp_log(double t) {
    return t > SKP_LOG_DBL_MIN ? t : SKP_LOG_DBL_MIN;
}

/* exp(x) for x in [-708.3964, 0]: Cody-Waite reduction x = k ln2 + r with
   |r| <= ln2/2, a degree 11 polynomial in Estrin's scheme (a Chebyshev
   interpolation of exp on [-ln2/2, ln2/2], truncation error below 4e-18),
   and 2^k from the exponent bits; at most 2.2 ulp from the exact value. */
static inline double skp_exp(double x) {
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
    double kd = x * 1.4426950408889634 + shifter;
    int64_t ki, bits;
    double r, r2, r4, r8, p, scale;
    memcpy(&ki, &kd, sizeof ki);
    kd -= shifter;
    r = (x - kd * 6.93147180369123816490e-01) - kd * 1.90821492927058770002e-10;
    r2 = r * r;
    r4 = r2 * r2;
    r8 = r4 * r4;
    p = ((1.0 + r) + r2 * (0.5000000000000019 + r * 0.1666666666666668))
        + r4 * ((0.0416666666664881 + r * 0.008333333333319601)
                + r2 * (0.0013888888952314775 + r * 0.00019841269890047113))
        + r8 * ((2.4801485482328494e-05 + r * 2.755724091857897e-06)
                + r2 * (2.763263963904103e-07 + r * 2.5110037605963777e-08));
    /* The low bits of ki hold k. */
    bits = (ki - (int64_t)0x4338000000000000LL + 1023) << 52;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* exp(x) in single precision for x in [-708.3964, 0]: the reduction in
   double as in skp_exp, then a degree 6 polynomial in float32 and 2^k from
   the exponent bits (0 below 2^-126).  Relative error below 2^-23 where
   exp(x) >= 2^-126, absolute error below 7.7e-8. */
static inline float skp_exp_single(double x) {
    const double shifter = 6755399441055744.0;
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
    k = (int32_t)(ki - (int64_t)0x4338000000000000LL);
    k = k > -127 ? k : -127;
    bits = (k + 127) << 23;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* skp_quad: four doubles, lane i holding the partial sum s_i of a dot
   product.  On AVX builds (the _avx2 twin module) one vector of GCC's and
   Clang's vector extensions; elsewhere four doubles, which the compiler
   packs into the vectors the target has.  Either way each lane is computed
   alike, so both builds give the same bits. */
#if defined(__AVX__) && defined(__GNUC__)
/* Rows of a dense pass computed together: as many accumulators as the
   sixteen vector registers allow. */
#define SKP_DOT_ROWS 8
typedef double skp_quad __attribute__((vector_size(32)));
typedef float skp_quad_f __attribute__((vector_size(16)));
#define SKP_LANE(q, i) ((q)[i])
static inline void skp_quad_load_d(skp_quad *q, const double *p) {
    memcpy(q, p, sizeof *q);
}
static inline void skp_quad_load_f(skp_quad *q, const float *p) {
    skp_quad_f w;
    memcpy(&w, p, sizeof w);
    *q = __builtin_convertvector(w, skp_quad);
}
static inline void skp_quad_madd(skp_quad *acc, const skp_quad *a,
                                 const skp_quad *b) {
    *acc += *a * *b;
}
#else
#define SKP_DOT_ROWS 4
typedef struct { double v[4]; } skp_quad;
#define SKP_LANE(q, i) ((q).v[i])
static inline void skp_quad_load_d(skp_quad *q, const double *p) {
    for (int i = 0; i < 4; i++) q->v[i] = p[i];
}
static inline void skp_quad_load_f(skp_quad *q, const float *p) {
    for (int i = 0; i < 4; i++) q->v[i] = p[i];
}
static inline void skp_quad_madd(skp_quad *acc, const skp_quad *a,
                                 const skp_quad *b) {
    for (int i = 0; i < 4; i++) acc->v[i] += a->v[i] * b->v[i];
}
#endif

/* The reductions of a row z (of type T) with a dense probe x, each in one
   fixed order: four partial sums, s_i over the features f = i (mod 4), the
   last d mod 4 features added to s_0, the result (s0 + s1) + (s2 + s3).
   Then the pass of a kernel column over the dense rows start <= j < stop:
   out[j - start] = z_j . x (mode 0), the clamped argument of the rbf
   exponential (mode 1: -gamma |z_j - x|^2, from the squared norms
   zsq[j] = z_j . z_j and xsq = x . x when d != 2) or of the laplacian one
   (mode 2: -gamma |z_j - x|_1).  Two features take a loop of their own,
   which vectorizes over rows. */
/* Probes of skp_dense_pass4. */
#define SKP_PROBES 4
#define SKP_ROWS(SUF, T)                                                      \
static inline double skp_dot_##SUF(const T *z, const double *x,              \
                                   Py_ssize_t d) {                           \
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;                           \
    Py_ssize_t f;                                                            \
    for (f = 0; f + 4 <= d; f += 4) {                                        \
        s0 += z[f] * x[f];                                                   \
        s1 += z[f + 1] * x[f + 1];                                           \
        s2 += z[f + 2] * x[f + 2];                                           \
        s3 += z[f + 3] * x[f + 3];                                           \
    }                                                                        \
    for (; f < d; f++) s0 += z[f] * x[f];                                    \
    return (s0 + s1) + (s2 + s3);                                            \
}                                                                            \
/* skp_dot of the R = 4 or 8 consecutive rows z, z + d, ... with x, each in \
   the same order (lane i of a row's accumulator holds its s_i): R         \
   independent chains keep the adders busy. */                             \
static inline void skp_dotr_##SUF(const T *z, const double *x, Py_ssize_t d, \
                                  int R, double *out) {                      \
    skp_quad a[8], p, v;                                                     \
    Py_ssize_t f, g;                                                         \
    int r;                                                                   \
    memset(a, 0, sizeof a);                                                  \
    for (f = 0; f + 4 <= d; f += 4) {                                        \
        skp_quad_load_d(&p, x + f);                                          \
        for (r = 0; r < R; r++) {                                            \
            skp_quad_load_##SUF(&v, z + r * d + f);                          \
            skp_quad_madd(&a[r], &v, &p);                                    \
        }                                                                    \
    }                                                                        \
    for (r = 0; r < R; r++) {                                                \
        double s0 = SKP_LANE(a[r], 0);                                       \
        for (g = f; g < d; g++) s0 += z[r * d + g] * x[g];                   \
        out[r] = (s0 + SKP_LANE(a[r], 1)) + (SKP_LANE(a[r], 2) + SKP_LANE(a[r], 3)); \
    }                                                                        \
}                                                                            \
/* The end of a dot product whose features f = i (mod 4) before `f` were  \
   summed in lane i of *a: the rest to s0, then (s0 + s1) + (s2 + s3). */   \
static inline double skp_finish_##SUF(const skp_quad *a, const T *z,         \
                                      const double *x, Py_ssize_t f,         \
                                      Py_ssize_t d) {                        \
    double s0 = SKP_LANE(*a, 0);                                             \
    for (; f < d; f++) s0 += z[f] * x[f];                                    \
    return (s0 + SKP_LANE(*a, 1)) + (SKP_LANE(*a, 2) + SKP_LANE(*a, 3));     \
}                                                                            \
static inline double skp_l1_##SUF(const T *z, const double *x,               \
                                  Py_ssize_t d) {                            \
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;                           \
    Py_ssize_t f;                                                            \
    for (f = 0; f + 4 <= d; f += 4) {                                        \
        s0 += fabs(z[f] - x[f]);                                             \
        s1 += fabs(z[f + 1] - x[f + 1]);                                     \
        s2 += fabs(z[f + 2] - x[f + 2]);                                     \
        s3 += fabs(z[f + 3] - x[f + 3]);                                     \
    }                                                                        \
    for (; f < d; f++) s0 += fabs(z[f] - x[f]);                              \
    return (s0 + s1) + (s2 + s3);                                            \
}                                                                            \
SKP_HELPER void skp_dense_pass_##SUF(int mode, const T *values, Py_ssize_t d, \
                                 Py_ssize_t start, Py_ssize_t stop,          \
                                 const double *x, const double *zsq,         \
                                 double xsq, double gamma, double *out) {    \
    Py_ssize_t j;                                                            \
    double *o = out - start;                                                 \
    if (d == 2) {                                                            \
        const double x0 = x[0], x1 = x[1];                                   \
        if (mode == 0) {                                                     \
            for (j = start; j < stop; j++)                                   \
                o[j] = values[2 * j] * x0 + values[2 * j + 1] * x1;          \
        } else if (mode == 1) {                                              \
            for (j = start; j < stop; j++) {                                 \
                double u0 = values[2 * j] - x0, u1 = values[2 * j + 1] - x1; \
                o[j] = skp_clamp_log(-gamma * (u0 * u0 + u1 * u1));          \
            }                                                                \
        } else {                                                             \
            for (j = start; j < stop; j++)                                   \
                o[j] = skp_clamp_log(-gamma * (fabs(values[2 * j] - x0)      \
                                               + fabs(values[2 * j + 1] - x1))); \
        }                                                                    \
        return;                                                              \
    }                                                                        \
    if (mode == 2) {                                                         \
        for (j = start; j < stop; j++)                                       \
            o[j] = skp_clamp_log(-gamma * skp_l1_##SUF(values + j * d, x, d)); \
        return;                                                              \
    }                                                                        \
    for (j = start; j + SKP_DOT_ROWS <= stop; j += SKP_DOT_ROWS)             \
        skp_dotr_##SUF(values + j * d, x, d, SKP_DOT_ROWS, o + j);           \
    for (; j < stop; j++)                                                    \
        o[j] = skp_dot_##SUF(values + j * d, x, d);                          \
    if (mode == 1) {                                                         \
        /* |z - x|^2 = |z|^2 + |x|^2 - 2 z.x, clipped at 0, as scikit-learn's \
           euclidean_distances computes it: half the work of differences. */ \
        for (j = start; j < stop; j++) {                                     \
            double s = (zsq[j] + xsq) - 2.0 * o[j];                          \
            o[j] = skp_clamp_log(-gamma * (s > 0.0 ? s : 0.0));              \
        }                                                                    \
    }                                                                        \
}                                                                            \
/* skp_dense_pass for SKP_PROBES probes x[0..3] at once (xsq[b], out[b]:  \
   those of probe b): each row of Z is read once for all of them, and each  \
   value is summed as skp_dot sums it, so the columns are those of four     \
   single passes.  Laplacian and two-feature rows take the single passes.   \
   (The linear and rbf passes read Z from the second-level cache or         \
   beyond: sharing the reads is what makes them faster.) */                 \
SKP_HELPER void skp_dense_pass4_##SUF(int mode, const T *values,             \
                                  Py_ssize_t d, Py_ssize_t start,            \
                                  Py_ssize_t stop, const double *const *x,   \
                                  const double *zsq, const double *xsq,      \
                                  double gamma, double *const *out) {        \
    Py_ssize_t j, f;                                                         \
    int b;                                                                   \
    if (d == 2 || mode == 2) {                                               \
        for (b = 0; b < SKP_PROBES; b++)                                     \
            skp_dense_pass_##SUF(mode, values, d, start, stop, x[b], zsq,    \
                                 xsq[b], gamma, out[b]);                     \
        return;                                                              \
    }                                                                        \
    const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];             \
    double *o0 = out[0] - start, *o1 = out[1] - start, *o2 = out[2] - start, \
           *o3 = out[3] - start;                                             \
    for (j = start; j < stop; j++) {                                         \
        const T *z = values + j * d;                                         \
        skp_quad a0, a1, a2, a3, v, p;                                       \
        memset(&a0, 0, sizeof a0);                                           \
        a1 = a2 = a3 = a0;                                                   \
        for (f = 0; f + 4 <= d; f += 4) {                                    \
            skp_quad_load_##SUF(&v, z + f);                                  \
            skp_quad_load_d(&p, x0 + f);                                     \
            skp_quad_madd(&a0, &v, &p);                                      \
            skp_quad_load_d(&p, x1 + f);                                     \
            skp_quad_madd(&a1, &v, &p);                                      \
            skp_quad_load_d(&p, x2 + f);                                     \
            skp_quad_madd(&a2, &v, &p);                                      \
            skp_quad_load_d(&p, x3 + f);                                     \
            skp_quad_madd(&a3, &v, &p);                                      \
        }                                                                    \
        o0[j] = skp_finish_##SUF(&a0, z, x0, f, d);                          \
        o1[j] = skp_finish_##SUF(&a1, z, x1, f, d);                          \
        o2[j] = skp_finish_##SUF(&a2, z, x2, f, d);                          \
        o3[j] = skp_finish_##SUF(&a3, z, x3, f, d);                          \
    }                                                                        \
    if (mode == 1) {                                                         \
        for (b = 0; b < SKP_PROBES; b++)                                     \
            for (j = start; j < stop; j++) {                                 \
                double s = (zsq[j] + xsq[b]) - 2.0 * out[b][j - start];      \
                out[b][j - start] = skp_clamp_log(-gamma * (s > 0.0 ? s : 0.0)); \
            }                                                                \
    }                                                                        \
}                                                                            \
/* The variance of x[0..n), n > 0: the mean, then the centered squares. */   \
SKP_HELPER double skp_variance_##SUF(const T *x, Py_ssize_t n) {              \
    double s = 0.0, mean, u;                                                 \
    Py_ssize_t j;                                                            \
    for (j = 0; j < n; j++) s += x[j];                                       \
    mean = s / (double)n;                                                    \
    s = 0.0;                                                                 \
    for (j = 0; j < n; j++) {                                                \
        u = x[j] - mean;                                                     \
        s += u * u;                                                          \
    }                                                                        \
    return s / (double)n;                                                    \
}

SKP_ROWS(d, double)
SKP_ROWS(f, float)

/* buf[j] = exp(buf[j]) for buf[j] in [-708.3964, 0]. */
SKP_HELPER void skp_exp_line(double *buf, Py_ssize_t n) {
    for (Py_ssize_t j = 0; j < n; j++) buf[j] = skp_exp(buf[j]);
}

/* out[j] = skp_exp_single(arg[j]) for arg[j] in [-708.3964, 0]. */
SKP_HELPER void skp_exp_line_single(const double *arg, Py_ssize_t n,
                                    float *out) {
    for (Py_ssize_t j = 0; j < n; j++) out[j] = skp_exp_single(arg[j]);
}

/* 1 if a value is NaN or infinite, else 0: integer tests, which vectorize
   (floating-point comparisons do not, under the default trapping-math). */
SKP_HELPER int skp_any_nonfinite(const double *x, Py_ssize_t n) {
    const uint64_t exponent = 0x7FF0000000000000ULL;
    uint64_t found = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        uint64_t bits;
        memcpy(&bits, x + j, sizeof bits);
        found |= (uint64_t)((bits & exponent) == exponent);
    }
    return found != 0;
}

/* scores[j] += delta * (column[j] + add): a column added to a line of
   scores, from a double or a single-precision cache line. */
SKP_HELPER void skp_axpy(double *scores, const double *column, Py_ssize_t n,
                         double delta, double add) {
    for (Py_ssize_t j = 0; j < n; j++) scores[j] += delta * (column[j] + add);
}

SKP_HELPER void skp_axpy_single(double *scores, const float *column,
                                Py_ssize_t n, double delta, double add) {
    for (Py_ssize_t j = 0; j < n; j++)
        scores[j] += delta * ((double)column[j] + add);
}

#endif
