! SPDX-License-Identifier: BSD-3-Clause
! Fortran interface to gridmap's C API (include/malleable/gridmap/gridmap.h) via ISO_C_BINDING.
! Process ids and processor indices are 0-based, as in the C API (they are MPI ranks).
! Grids are row-major: slot (i, j) of an r x c grid is element i*c + j + 1 of the array.
module malleable_gridmap
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_long_long, c_ptr, c_char, &
                                         c_f_pointer, c_associated
  implicit none
  private

  integer(c_int), parameter, public :: GRIDMAP_OK = 0, GRIDMAP_EINVAL = 1, &
                                       GRIDMAP_EIMPOSSIBLE = 2, GRIDMAP_EINTERNAL = 3
  integer(c_int), parameter, public :: GRIDMAP_GLOBAL = 0, GRIDMAP_LOCAL1 = 1, &
                                       GRIDMAP_LOCAL2 = 2, GRIDMAP_OPTIMAL = 3
  integer(c_int), parameter, public :: GRIDMAP_SVD = 0, GRIDMAP_NATURAL_BLOCK = 1

  public :: gridmap_choose_topology, gridmap_local_expansion, gridmap_place, &
            gridmap_moved_elements, gridmap_hetero_map, gridmap_error_message

  interface
    integer(c_int) function gridmap_choose_topology(nprocs, p, q, rows, cols) &
        bind(C, name="gridmap_choose_topology")
      import :: c_int, c_double
      integer(c_int), value :: nprocs
      real(c_double), value :: p, q
      integer(c_int), intent(out) :: rows, cols
    end function

    integer(c_int) function gridmap_local_expansion(rows, cols, offered, p, q, final_grid, &
        add_rows, add_cols) bind(C, name="gridmap_local_expansion")
      import :: c_int, c_double
      integer(c_int), value :: rows, cols, offered, final_grid
      real(c_double), value :: p, q
      integer(c_int), intent(out) :: add_rows, add_cols
    end function

    integer(c_int) function gridmap_place(strategy, old_rows, old_cols, old_slots, new_rows, &
        new_cols, m, n, mb, nb, block, slots) bind(C, name="gridmap_place")
      import :: c_int, c_long_long
      integer(c_int), value :: strategy, old_rows, old_cols, new_rows, new_cols, block
      integer(c_int), intent(in), optional :: old_slots(*)
      integer(c_long_long), value :: m, n, mb, nb
      integer(c_int), intent(out) :: slots(*)
    end function

    integer(c_int) function gridmap_moved_elements(old_rows, old_cols, old_slots, new_rows, &
        new_cols, new_slots, m, n, mb, nb, block, moved, kept) bind(C, name="gridmap_moved_elements")
      import :: c_int, c_long_long
      integer(c_int), value :: old_rows, old_cols, new_rows, new_cols, block
      integer(c_int), intent(in), optional :: old_slots(*)
      integer(c_int), intent(in) :: new_slots(*)
      integer(c_long_long), value :: m, n, mb, nb
      integer(c_long_long), intent(out) :: moved, kept
    end function

    integer(c_int) function gridmap_hetero_map(method, thesis_only, rows, cols, powers, nprocs, &
        m, n, ids, row_sizes, col_sizes, t_opt, iteration_time) bind(C, name="gridmap_hetero_map")
      import :: c_int, c_double, c_long_long
      integer(c_int), value :: method, thesis_only, rows, cols, nprocs
      real(c_double), intent(in) :: powers(*)
      integer(c_long_long), value :: m, n
      integer(c_int), intent(out) :: ids(*)
      integer(c_long_long), intent(out) :: row_sizes(*), col_sizes(*)
      real(c_double), intent(out), optional :: t_opt(*)
      real(c_double), intent(out), optional :: iteration_time
    end function

    type(c_ptr) function c_last_error() bind(C, name="gridmap_last_error")
      import :: c_ptr
    end function

    integer(c_int) function c_strlen(s) bind(C, name="strlen")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! The message of the last failed call, as a Fortran string.
  function gridmap_error_message() result(msg)
    character(len=:), allocatable :: msg
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: k, length
    p = c_last_error()
    if (.not. c_associated(p)) then
      msg = ''
      return
    end if
    length = c_strlen(p)
    call c_f_pointer(p, chars, [length])
    allocate(character(len=length) :: msg)
    do k = 1, length
      msg(k:k) = chars(k)
    end do
  end function

end module malleable_gridmap
