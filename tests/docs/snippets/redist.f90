! SPDX-License-Identifier: BSD-3-Clause
! Harness for docs/guide/README.md's redist call in Fortran (tests/docs/check_snippets.py).
subroutine run(m, n, a, ia, ja, desca, b, ib, jb, descb)
  use mpi
  ! @INCLUDES@
  implicit none
  integer, intent(in) :: m, n, ia, ja, ib, jb, desca(9), descb(9)
  double precision, intent(in) :: a(*)
  double precision, intent(inout) :: b(*)
  integer :: info
  ! @SNIPPET@
end subroutine
