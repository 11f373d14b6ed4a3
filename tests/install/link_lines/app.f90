! SPDX-License-Identifier: BSD-3-Clause
! An unmodified ScaLAPACK program in Fortran (it knows nothing of malleable), for the
! README's link lines: a BLACS grid, a global sum over it, checked on every process.
program app
  implicit none
  integer :: me, np, ctxt, nprow, npcol, myrow, mycol
  double precision :: x(1)
  call blacs_pinfo(me, np)
  call blacs_get(-1, 0, ctxt)
  call blacs_gridinit(ctxt, 'R', 1, np)
  call blacs_gridinfo(ctxt, nprow, npcol, myrow, mycol)
  x(1) = dble(mycol + 1)
  call dgsum2d(ctxt, 'A', ' ', 1, 1, x, 1, -1, -1)
  if (abs(x(1) - dble(np * (np + 1) / 2)) > 0.5d0) then
    print *, 'app.f90: wrong global sum', x(1)
    stop 1
  end if
  if (me == 0) print '(a, i0, a)', 'app.f90: BLACS grid 1 x ', npcol, ', global sum ok'
  call blacs_gridexit(ctxt)
  call blacs_exit(0)
end program app
