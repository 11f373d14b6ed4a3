! SPDX-License-Identifier: BSD-3-Clause
! The session from Fortran (module malleable_resize) registers real(c_float),
! real(c_double), complex(c_float_complex) and complex(c_double_complex) matrices
! (resize_register_s / _d / _c / _z) and moves them bit for bit at an expansion
! 2x2 -> 2x3 and a shrink back to 2x2 (scripted remap points; the mover comes from
! RESIZE_MOVER). After start, join and every remap point each process compares every
! local element with a formula of its global indices (as bits) and the local parts must
! add up to M x N; a difference ends the job with a non-zero status. The application's
! own state (resize_set_app_state: two reals the originals hold) reaches the newcomers,
! and the status codes are resize.h's: a NULL state is RESIZE_ERR_ARG, a NULL session
! RESIZE_ERR_STATE (resize_last_error_code and _part: the state code of the session).
!   mpiexec -n 4 resize_types_f_test
program resize_types_f_test
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use mpi
  use malleable_resize
  implicit none
  integer, parameter :: iters = 3
  ! M, N, MB, NB and the distribution (0 block-cyclic, 1 block) of S, D, C, Z
  integer, parameter :: shp(5, 4) = reshape([50, 23, 5, 7, 0, 37, 29, 4, 3, 0, 31, 41, 1, 1, 1, 45, 38, 8, 2, 0], [5, 4])
  integer(c_int), target :: desc(9, 4)
  type(c_ptr), target :: bufs(4)
  real(c_float), pointer :: as(:, :)
  real(c_double), pointer :: ad(:, :)
  complex(c_float_complex), pointer :: ac(:, :)
  complex(c_double_complex), pointer :: az(:, :)
  type(c_ptr) :: s_
  integer :: ierr, it, act, rc, expansions, shrinks
  integer(int64) :: errors   ! differences found by the current visit
  real(c_double), target :: app(2)   ! the application's own state, handed to newcomers

  call MPI_Init(ierr)
  call check(resize_create('resize_types_f_test', 'scripted', '1:expand:2x3,2:shrink:2x2', s_), 'create')
  bufs = c_null_ptr
  call check(resize_register_s(s_, 'S', shp(1, 1), shp(2, 1), shp(3, 1), shp(4, 1), shp(5, 1), desc(:, 1), bufs(1)), &
             'register S')
  call check(resize_register_d(s_, 'D', shp(1, 2), shp(2, 2), shp(3, 2), shp(4, 2), shp(5, 2), desc(:, 2), bufs(2)), &
             'register D')
  call check(resize_register_c(s_, 'C', shp(1, 3), shp(2, 3), shp(3, 3), shp(4, 3), shp(5, 3), desc(:, 3), bufs(3)), &
             'register C')
  call check(resize_register_z(s_, 'Z', shp(1, 4), shp(2, 4), shp(3, 4), shp(4, 4), shp(5, 4), &
             desc(:, 4), bufs(4)), 'register Z')
  if (RESIZE_OK /= 0 .or. RESIZE_ERR_ARG /= 1 .or. RESIZE_ERR_STATE /= 2 .or. RESIZE_ERR_RESIZE /= 3 &
      .or. RESIZE_ERR_CHECKPOINT /= 4) then
    print '(A)', 'resize_types_f_test: FAILED: the status codes differ from resize.h'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (resize_set_app_state(s_, c_null_ptr, 16_c_size_t) /= RESIZE_ERR_ARG) then
    print '(A)', 'resize_types_f_test: FAILED: a NULL state is not RESIZE_ERR_ARG'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (resize_set_app_state(c_null_ptr, c_loc(app), c_sizeof(app)) /= RESIZE_ERR_STATE) then
    print '(A)', 'resize_types_f_test: FAILED: a NULL session is not RESIZE_ERR_STATE'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  ! Its code and part in the one form (malleable/error.h: MALLEABLE_ERR_STATE 2, MALLEABLE_PART_RESIZE 4).
  if (resize_last_error_code() /= 2 .or. resize_last_error_part() /= 4) then
    print '(A)', 'resize_types_f_test: FAILED: a NULL session is not code 2 of part 4: ' // resize_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  app = 0
  if (resize_is_newcomer(s_) /= 1) app = [42.5_c_double, -7.25_c_double]
  call check(resize_set_app_state(s_, c_loc(app), c_sizeof(app)), 'set_app_state')
  expansions = 0
  shrinks = 0
  if (resize_is_newcomer(s_) == 1) then
    call check(resize_join(s_, it), 'join')
    if (app(1) /= 42.5_c_double .or. app(2) /= -7.25_c_double) then
      print '(A,2F8.3)', 'resize_types_f_test: FAILED: a newcomer got the application state ', app
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    if (resize_is_newcomer(s_) /= 1) then  ! still a newcomer after the join
      print '(A)', 'resize_types_f_test: FAILED: resize_is_newcomer is not 1 after resize_join'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    expansions = 1
    call visit(.false., 'after join')
  else
    call check(resize_start(s_, 2, 2), 'start')
    it = 0
    call visit(.true., 'fill')
    call visit(.false., 'after start')
  end if
  do while (it < iters)
    call resize_begin_iteration(s_)
    call resize_end_iteration(s_)
    it = it + 1
    act = RESIZE_NONE
    call check(resize_remap_point(s_, act), 'remap point')
    if (act == RESIZE_EXPAND) expansions = expansions + 1
    if (act == RESIZE_SHRINK) shrinks = shrinks + 1
    if (act == RESIZE_EXPAND) then
      call visit(.false., 'after the expansion')
    else if (act == RESIZE_SHRINK) then
      call visit(.false., 'after the shrink')
    else
      call visit(.false., 'after a remap point')
    end if
  end do
  if (expansions /= 1 .or. shrinks /= 1) then
    print '(A,I0,A,I0,A)', 'resize_types_f_test: FAILED: ', expansions, ' expansions and ', shrinks, &
        ' shrinks, expected one each'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (resize_world_rank(s_) == 0) print '(A)', 'PASS'
  call resize_destroy(s_)
  call MPI_Finalize(ierr)

contains

  ! fill: write the formula into every local element; else compare every one with it.
  subroutine visit(fill, phase)
    logical, intent(in) :: fill
    character(len=*), intent(in) :: phase
    integer :: ctxt, nprow, npcol, myrow, mycol, ml, nl, il, jl, i, j, m, comm
    integer(int64) :: total, local, all
    integer, external :: numroc, indxl2g
    rc = resize_grid(s_, ctxt, nprow, npcol, myrow, mycol)
    comm = resize_world(s_)
    errors = 0
    do m = 1, 4
      local = 0
      if (ctxt >= 0) then
        if (desc(2, m) /= ctxt .or. desc(9, m) < max(1, numroc(desc(3, m), desc(5, m), myrow, 0, nprow))) then
          print '(A,A,A,I0)', phase, ': wrong descriptor for matrix ', 'SDCZ'(m:m), desc(9, m)
          errors = errors + 1
          cycle
        end if
        ml = numroc(desc(3, m), desc(5, m), myrow, 0, nprow)
        nl = numroc(desc(4, m), desc(6, m), mycol, 0, npcol)
        select case (m)
        case (1)
          call c_f_pointer(bufs(1), as, [desc(9, 1), max(1, nl)])
        case (2)
          call c_f_pointer(bufs(2), ad, [desc(9, 2), max(1, nl)])
        case (3)
          call c_f_pointer(bufs(3), ac, [desc(9, 3), max(1, nl)])
        case (4)
          call c_f_pointer(bufs(4), az, [desc(9, 4), max(1, nl)])
        end select
        do jl = 1, nl
          do il = 1, ml
            i = indxl2g(il, desc(5, m), myrow, 0, nprow)
            j = indxl2g(jl, desc(6, m), mycol, 0, npcol)
            select case (m)
            case (1)
              if (fill) then
                as(il, jl) = s_entry(i, j)
              else if (transfer(as(il, jl), 0_int32) /= transfer(s_entry(i, j), 0_int32)) then
                call report(phase, m, i, j)
              end if
            case (2)
              if (fill) then
                ad(il, jl) = d_entry(i, j)
              else if (transfer(ad(il, jl), 0_int64) /= transfer(d_entry(i, j), 0_int64)) then
                call report(phase, m, i, j)
              end if
            case (3)
              if (fill) then
                ac(il, jl) = c_entry(i, j)
              else if (transfer(ac(il, jl), 0_int64) /= transfer(c_entry(i, j), 0_int64)) then
                call report(phase, m, i, j)
              end if
            case (4)
              if (fill) then
                az(il, jl) = z_entry(i, j)
              else if (any(transfer(az(il, jl), [0_int64, 0_int64]) /= transfer(z_entry(i, j), [0_int64, 0_int64]))) then
                call report(phase, m, i, j)
              end if
            end select
          end do
        end do
        local = int(ml, int64) * nl
      end if
      call MPI_Allreduce(local, all, 1, MPI_INTEGER8, MPI_SUM, comm, ierr)
      if (all /= int(shp(1, m), int64) * shp(2, m)) then
        if (resize_world_rank(s_) == 0) print '(A,A,A,A,I0,A)', phase, ': matrix ', 'SDCZ'(m:m), ': local parts hold ', &
            all, ' elements'
        errors = errors + 1
      end if
    end do
    call MPI_Allreduce(errors, total, 1, MPI_INTEGER8, MPI_SUM, comm, ierr)
    if (total /= 0) then
      if (resize_world_rank(s_) == 0) print '(A,A,A,I0,A)', 'resize_types_f_test: FAILED ', phase, ': ', total, &
          ' differences'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    if (.not. fill .and. resize_world_rank(s_) == 0) print '(A,A,A,I0,A,I0,A)', 'resize_types_f_test: ', phase, &
        ' on ', nprow, 'x', npcol, ': all elements exact'
  end subroutine

  subroutine report(phase, mat, gi, gj)
    character(len=*), intent(in) :: phase
    integer, intent(in) :: mat, gi, gj
    errors = errors + 1
    if (errors <= 5) print '(A,A,I0,A,A,A,I0,A,I0,A)', phase, ': rank ', resize_world_rank(s_), ': matrix ', &
        'SDCZ'(mat:mat), ' (', gi, ', ', gj, ') differs from the formula'
  end subroutine

  subroutine check(code, what)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: what
    if (code /= RESIZE_OK) then
      print '(A,A,A,A)', 'resize_types_f_test: FAILED: ', what, ': ', resize_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  ! 1-based global indices; the same values as the C test's (0-based) formulas shifted.
  real(c_float) function s_entry(i, j)
    integer, intent(in) :: i, j
    s_entry = 1.0_c_float / (3.0_c_float + real(i - 1, c_float) + 51.0_c_float * real(j - 1, c_float))
  end function
  real(c_double) function d_entry(i, j)
    integer, intent(in) :: i, j
    d_entry = 1.0_c_double / (1.0_c_double + (i - 1) + 97.0_c_double * (j - 1)) - 0.001_c_double * (j - 1)
  end function
  complex(c_float_complex) function c_entry(i, j)
    integer, intent(in) :: i, j
    c_entry = cmplx(1.0_c_float / real(i + j - 1, c_float), -0.5_c_float * real(i - 1, c_float), c_float_complex)
  end function
  complex(c_double_complex) function z_entry(i, j)
    integer, intent(in) :: i, j
    z_entry = cmplx(1.0_c_double / j - (i - 1), real(i - 1, c_double) / (j + 2), c_double_complex)
  end function

end program resize_types_f_test
