! SPDX-License-Identifier: BSD-3-Clause
! Harness for docs/guide/checkpoint.md's Fortran loop (tests/docs/check_snippets.py).
program checkpoint_loop
  use, intrinsic :: iso_c_binding
  use mpi
  use malleable_resize
  ! @INCLUDES@
  implicit none
  type(c_ptr) :: s
  character(len=256) :: restart_file
  integer(c_int) :: rc, it, p, q, iters, step, action
  integer :: ierr
  logical :: written
  restart_file = ''
  p = 2
  q = 2
  iters = 10
  ! @SNIPPET@
end program
