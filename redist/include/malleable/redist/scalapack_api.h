/* SPDX-License-Identifier: BSD-3-Clause */
/* Prototypes of the BLACS, PBLAS and ScaLAPACK entry points this project calls, as
 * Debian's libscalapack-openmpi (ScaLAPACK 2.2) exports them. ScaLAPACK ships no C
 * header; declaring them once here keeps every caller consistent. */
#ifndef REDIST_SCALAPACK_API_H
#define REDIST_SCALAPACK_API_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BLACS, C interface */
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_setup(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* icontxt, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myprow, int* mypcol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
/* BLACS built with the C interface (BLACS/SRC/sys2blacs_.c, blacs2sys_.c): the handles are
 * real MPI_Comm values. Cblacs2sys_handle takes a *system* context handle (from
 * Csys2blacs_handle or Cblacs_get(ctxt, 10, &sys) for a grid context) and returns the
 * communicator the grid was built on, not a communicator of the grid itself. */
int Csys2blacs_handle(MPI_Comm sysctxt);
MPI_Comm Cblacs2sys_handle(int blacs_sysctxt);
void Cfree_blacs_system_handle(int blacs_sysctxt);
void Cdgsum2d(int icontxt, const char* scope, const char* top, int m, int n, double* a, int lda,
              int rdest, int cdest);

/* ScaLAPACK tools, Fortran interface */
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
int indxg2p_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc,
             const int* nprocs);
int indxg2l_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc,
             const int* nprocs);
int indxl2g_(const int* indxloc, const int* nb, const int* iproc, const int* isrcproc,
             const int* nprocs);

/* Redistribution (the caterpillar algorithm), C interface of ScaLAPACK's REDIST */
void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b,
               int ib, int jb, const int* descb, int gcontext);
void Cpsgemr2d(int m, int n, const float* a, int ia, int ja, const int* desca, float* b,
               int ib, int jb, const int* descb, int gcontext);
/* Complex variants take interleaved (re, im) arrays. */
void Cpcgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b,
               int ib, int jb, const int* descb, int gcontext);
void Cpzgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b,
               int ib, int jb, const int* descb, int gcontext);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja,
               const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);

/* PBLAS / ScaLAPACK computational routines, Fortran interface */
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
             const int* ia, const int* ja, const int* desca, const double* x, const int* ix,
             const int* jx, const int* descx, const int* incx, const double* beta, double* y,
             const int* iy, const int* jy, const int* descy, const int* incy);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              int* ipiv, int* info);
void pdgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* ia,
              const int* ja, const int* desca, const int* ipiv, double* b, const int* ib,
              const int* jb, const int* descb, int* info);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja,
             const int* desca, int* ipiv, double* b, const int* ib, const int* jb,
             const int* descb, int* info);
double pdlange_(const char* norm, const int* m, const int* n, const double* a, const int* ia,
                const int* ja, const int* desca, double* work);

#ifdef __cplusplus
}
#endif
#endif
