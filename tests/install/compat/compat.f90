! Written against malleable 0.1's Fortran modules blacs_dyn and mall_gridmap.
program compat
  use mpi
  use blacs_dyn, only: bdyn_size, bdyn_depth, BDYN_OK
  use mall_gridmap, only: mall_gridmap_choose_topology, MALL_GRIDMAP_OK
  implicit none
  integer :: ierr, p, q, rc
  call MPI_Init(ierr)
  rc = mall_gridmap_choose_topology(6, 0.0d0, 0.0d0, p, q)
  if (bdyn_size() < 1 .or. bdyn_depth() /= 1 .or. rc /= MALL_GRIDMAP_OK .or. p * q /= 6 .or. BDYN_OK /= 0) then
    print *, 'compat.f90: 0.1 names FAILED'
    stop 1
  end if
  call MPI_Finalize(ierr)
end program compat
