! SPDX-License-Identifier: BSD-3-Clause
! The gridmap Fortran module: topology, Local2 placement, Table 6.4 and an error message.
program fortran_api_test
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_long_long
  use malleable_gridmap
  implicit none
  integer(c_int) :: rows, cols, status, slots(6), ids(4)
  integer(c_long_long) :: rs(2), cs(2)
  real(c_double) :: t
  real(c_double), parameter :: powers(4) = [313.0_c_double, 279.0_c_double, 34.0_c_double, 25.0_c_double]
  real(c_double), parameter :: bad(4) = [313.0_c_double, 0.0_c_double, 34.0_c_double, 25.0_c_double]
  integer :: failures
  failures = 0

  status = gridmap_choose_topology(28_c_int, 0.0_c_double, 0.0_c_double, rows, cols)
  call check(status == GRIDMAP_OK .and. rows == 4 .and. cols == 7, 'choose_topology 28 -> 4x7')

  status = gridmap_place(GRIDMAP_LOCAL2, 1_c_int, 4_c_int, new_rows=1_c_int, new_cols=6_c_int, &
                              m=0_c_long_long, n=0_c_long_long, mb=0_c_long_long, nb=0_c_long_long, &
                              block=1_c_int, slots=slots)
  call check(status == GRIDMAP_OK .and. all(slots == [0, 4, 1, 2, 5, 3]), 'Local2 placement 0 4 1 2 5 3')

  status = gridmap_hetero_map(GRIDMAP_SVD, 0_c_int, 2_c_int, 2_c_int, powers, 4_c_int, &
                                   2000_c_long_long, 2000_c_long_long, ids, rs, cs, iteration_time=t)
  call check(status == GRIDMAP_OK .and. rs(1) + rs(2) == 2000 .and. rs(1) > 1800, 'Table 6.4 rows')
  call check(t < 6479.9_c_double, 'Table 6.4 at least as fast as the thesis')

  status = gridmap_hetero_map(GRIDMAP_SVD, 0_c_int, 2_c_int, 2_c_int, bad, 4_c_int, &
                                   2000_c_long_long, 2000_c_long_long, ids, rs, cs)
  call check(status == GRIDMAP_EINVAL, 'zero power rejected')
  call check(index(gridmap_error_message(), 'powers[1] = 0') > 0, 'message names the value')

  if (failures > 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,a)', 'check failed: ', what
      failures = failures + 1
    end if
  end subroutine

end program fortran_api_test
