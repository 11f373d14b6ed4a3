/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef BLACS_DYN_TESTS_UNMODIFIED_SOLVE_H
#define BLACS_DYN_TESTS_UNMODIFIED_SOLVE_H
#ifdef __cplusplus
extern "C" {
#endif
/* Collective over the BLACS world; prints "RESULT ..." on rank 0; returns pdgesv's info. */
int unmodified_solve(int n, int nb);
#ifdef __cplusplus
}
#endif
#endif
