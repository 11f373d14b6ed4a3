! SPDX-License-Identifier: BSD-3-Clause
! The malleable version of plain.f90 (docs/guide/porting.md), through the Fortran module
! malleable_resize: the same x <- A x + b with PDGEMV on a grid that grows and shrinks at
! remap points. Lines marked [port] are the changes.
!   mpiexec -n 4 porting_malleable_f [schedule|slurm [run.json]]   (default 3:expand:3x3,6:shrink:2x2)
! Under Slurm by the recipe of docs/guide/slurm.md (RESIZE_POLICY=slurm): any arguments.
program malleable
  use, intrinsic :: iso_c_binding       ! [port]
  use mpi
  use malleable_resize                  ! [port]
  implicit none
  integer, parameter :: n = 120, nb = 16, iters = 8
  integer :: ierr, ctxt, nprow, npcol, myrow, mycol, ml, nl, il, jl, it, i, j, rc, act, comm
  integer(c_int), target :: desca(9), descx(9)   ! [port] filled by the session
  type(c_ptr) :: s, abuf, xbuf                    ! [port] the session and its buffers
  real(8), pointer :: a(:, :), x(:)               ! [port] bound to the buffers (bind below)
  real(8), allocatable :: y(:)
  real(8) :: ref(n), tmp(n), err, max_err
  character(len=200) :: schedule, json, msg
  integer, external :: numroc, indxl2g

  schedule = '3:expand:3x3,6:shrink:2x2'
  if (command_argument_count() >= 1) call get_command_argument(1, schedule)
  call MPI_Init(ierr)
  ! [port] the policy: a schedule, or 'slurm' under Slurm (docs/guide/slurm.md), told the
  ! run's iterations for its payoff test; RESIZE_POLICY=slurm in the environment (the
  ! recipe) replaces either (the iterations then from RESIZE_SLURM_ITERATIONS)
  if (trim(schedule) == 'slurm') then
    write(msg, '(a,i0)') 'iterations=', iters
    rc = resize_create('porting_malleable_f', 'slurm', trim(msg), s)
  else
    rc = resize_create('porting_malleable_f', 'scripted', trim(schedule), s)    ! [port]
  end if
  call check(rc, 'create')
  abuf = c_null_ptr
  xbuf = c_null_ptr
  call check(resize_register(s, 'A', n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, desca, abuf), 'register A')   ! [port]
  call check(resize_register(s, 'x', n, 1, nb, 1, RESIZE_DIST_BLOCK_CYCLIC, descx, xbuf), 'register x')
  if (resize_is_newcomer(s) == 1) then                ! [port] a newcomer resumes at iteration it
    call check(resize_join(s, it), 'join')
  else
    call check(resize_start(s, 0, 0), 'start')        ! [port] 0x0: every process started, near square
    it = 0
    call bind()
    if (ctxt >= 0) then                                ! only the original processes create data
      do jl = 1, nl
        do il = 1, ml
          a(il, jl) = a_entry(indxl2g(il, nb, myrow, 0, nprow), indxl2g(jl, nb, mycol, 0, npcol))
        end do
      end do
      if (mycol == 0) then
        do il = 1, ml
          x(il) = b_entry(indxl2g(il, nb, myrow, 0, nprow))
        end do
      end if
    end if
  end if
  do while (it < iters)
    call resize_begin_iteration(s)                     ! [port]
    call bind()                                        ! [port] the buffers of this grid
    if (ctxt >= 0) then
      allocate (y(max(1, descx(9))))                   ! [port] workspace sized for this grid
      call pdgemv('N', n, n, 1.0d0, a, 1, 1, desca, x, 1, 1, descx, 1, 0.0d0, y, 1, 1, descx, 1)
      if (mycol == 0) then
        do il = 1, ml
          x(il) = y(il) + b_entry(indxl2g(il, nb, myrow, 0, nprow))
        end do
      end if
      deallocate (y)
    end if
    call resize_end_iteration(s)                       ! [port]
    it = it + 1
    if (it == iters) exit                              ! [port] no remap point after the last iteration
    rc = resize_remap_point(s, act)                    ! [port] a, x, desca, descx may change
    if (rc /= RESIZE_OK .and. resize_world_rank(s) == 0) &
        print '(A,A)', 'porting_malleable_f: a resize failed: ', resize_last_error()
  end do
  do i = 1, n
    ref(i) = b_entry(i)
  end do
  do it = 1, iters
    do i = 1, n
      tmp(i) = b_entry(i)
      do j = 1, n
        tmp(i) = tmp(i) + a_entry(i, j) * ref(j)
      end do
    end do
    ref = tmp
  end do
  call bind()
  err = 0.0d0
  if (ctxt >= 0 .and. mycol == 0) then
    do il = 1, ml
      err = max(err, abs(x(il) - ref(indxl2g(il, nb, myrow, 0, nprow))))
    end do
  end if
  comm = resize_world(s)                               ! [port] the session's world, never MPI_COMM_WORLD
  call MPI_Allreduce(err, max_err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
  write (msg, '(A,ES9.2,A)') 'max error ', max_err, ' (tol 1e-12)'   ! [port] the drivers' summary and JSON
  call check(resize_print_summary(s, '', msg, max_err < 1.0d-12), 'summary')
  if (command_argument_count() >= 2) then
    call get_command_argument(2, json)
    call check(resize_write_json(s, json), 'write JSON')
  end if
  if (resize_world_rank(s) == 0) print '(A,I0,A,I0,A,I0,A,ES9.2,A,A)', 'porting_malleable_f: ', iters, &
      ' iterations, now on ', nprow, 'x', npcol, ', max error ', max_err, ': ', merge('OK    ', 'FAILED', max_err < 1.0d-12)
  call resize_destroy(s)                               ! [port] before MPI_Finalize
  call MPI_Finalize(ierr)
  if (max_err >= 1.0d-12) stop 1

contains

  ! [port] the arrays move at every resize: take them again from the session's buffers
  subroutine bind()
    rc = resize_grid(s, ctxt, nprow, npcol, myrow, mycol)
    if (ctxt < 0) return
    ml = numroc(n, nb, myrow, 0, nprow)
    nl = numroc(n, nb, mycol, 0, npcol)
    call c_f_pointer(abuf, a, [desca(9), max(1, nl)])
    call c_f_pointer(xbuf, x, [descx(9)])
  end subroutine

  subroutine check(code, what)                         ! [port] status codes + resize_last_error()
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    if (code /= RESIZE_OK) then
      print '(A,A,A,A)', 'porting_malleable_f: ', what, ': ', resize_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  real(8) function a_entry(i, j)  ! 1-based global indices
    integer, intent(in) :: i, j
    a_entry = sin(0.3d0 * (i - 1) + 0.7d0 * (j - 1)) / n
  end function

  real(8) function b_entry(i)
    integer, intent(in) :: i
    b_entry = cos(0.1d0 * (i - 1))
  end function

end program malleable
