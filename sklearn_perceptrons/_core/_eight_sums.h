/* Authors: The sklearn_perceptrons developers
   SPDX-License-Identifier: BSD-3-Clause

   The end of G dot products summed in eight partial sums (entry j to sum
   j % 8), shared by _dense_dots.h and _sparse_dots.h, whose sums must agree
   to the bit: the entries t = j .. n - 1 left over by the blocks of eight
   are added to sum 0 in order (WEIGHT(r, t) is row r's weight of entry t),
   then the sums of row r are combined as
   ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)) into out[r].  Float64
   sums are two 4-lane vectors per row, lo (s0-s3) and hi (s4-s7); float32
   sums one 8-lane vector, acc.  The caller declares r, t and s0[G]. */
#ifndef SKP_EIGHT_SUMS_H
#define SKP_EIGHT_SUMS_H

#define SKP_LAST_ENTRIES_TO_S0(G, first, WEIGHT, x, j, n)                   \
    for (r = 0; r < G; r++)                                                \
        s0[r] = first[r][0];                                               \
    for (t = j; t < n; t++)                                                \
        for (r = 0; r < G; r++)                                            \
            s0[r] += WEIGHT(r, t) * x[t]

#define SKP_EIGHT_SUMS_END_D(G, lo, hi, WEIGHT, x, j, n, out)               \
    SKP_LAST_ENTRIES_TO_S0(G, lo, WEIGHT, x, j, n);                        \
    for (r = 0; r < G; r++) {                                              \
        __typeof__(lo[0]) v = lo[r] + hi[r];                               \
        out[r] = ((s0[r] + hi[r][0]) + v[1]) + (v[2] + v[3]);              \
    }

#define SKP_EIGHT_SUMS_END_F(G, acc, WEIGHT, x, j, n, out)                  \
    SKP_LAST_ENTRIES_TO_S0(G, acc, WEIGHT, x, j, n);                       \
    for (r = 0; r < G; r++)                                                \
        out[r] = ((s0[r] + acc[r][4]) + (acc[r][1] + acc[r][5]))           \
                 + ((acc[r][2] + acc[r][6]) + (acc[r][3] + acc[r][7]))

#endif
