! SPDX-License-Identifier: BSD-3-Clause
! Fortran consumer of the installed package: the blacs_dyn module from the installed
! module directory, linked through the CMake package.
program consumer_f
  use mpi
  use malleable_blacs_dyn
  implicit none
  integer :: ierr, np, me
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  if (blacs_dyn_size() /= np .or. blacs_dyn_rank() /= me .or. blacs_dyn_depth() /= 1) then
    print *, 'consumer_f: BAD world', blacs_dyn_size(), np, blacs_dyn_depth()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (me == 0) print '(a,i0,a)', 'consumer_f: world ', np, ', depth 1: OK'
  call MPI_Finalize(ierr)
end program
