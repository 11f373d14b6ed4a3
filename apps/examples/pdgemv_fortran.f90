! SPDX-License-Identifier: BSD-3-Clause
! A resizable PDGEMV written in Fortran against the session's Fortran module:
! x <- s * (A * x) repeated, s = 1/sqrt(N), on a grid that a scripted schedule grows and
! shrinks; checked against serial BLAS DGEMV of the same recurrence.
! Usage: pdgemv_fortran [N] [ITERS] [SCHEDULE] [background]   (grid starts at 2x2;
! "background": A is constant and resizes begin in the background; another
! mode is refused with status 2)
program pdgemv_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use malleable_resize
  implicit none
  integer :: n, nb, iters, ierr, it, act, rc, ctxt, nprow, npcol, myrow, mycol
  integer :: mloc, nloc, xloc, i, j, il, jl, ig, jg, rank, comm
  double precision :: t0
  integer(c_int), target :: desca(9), descx(9)
  type(c_ptr), target :: abuf, xbuf
  type(c_ptr) :: s
  real(8), pointer :: a(:, :), x(:, :)
  real(8), allocatable :: y(:, :), ga(:, :), gx(:), gt(:)
  real(8) :: scale, err, gerr, tol, xmax
  character(len=256) :: arg, schedule
  character(len=200) :: msg
  integer, external :: numroc, indxl2g

  n = 400
  iters = 6
  nb = 32
  schedule = '2:expand:3x3:local2,4:shrink:2x2'
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 3) call get_command_argument(3, schedule)
  scale = 1.0d0 / sqrt(dble(n))

  call MPI_Init(ierr)
  if (command_argument_count() >= 4) then
    ! An unknown mode is refused, not run as the blocking default.
    call get_command_argument(4, arg)
    if (trim(arg) /= 'background') then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      if (rank == 0) write (0, '(3a)') "pdgemv_fortran: unknown mode '", trim(arg), "': the only mode is background"
      call MPI_Finalize(ierr)
      call exit(2)
    end if
  end if
  rc = resize_create('pdgemv_fortran', 'scripted', trim(schedule), s)
  if (rc /= RESIZE_OK) call fail('create')
  abuf = c_null_ptr
  xbuf = c_null_ptr
  rc = resize_register(s, 'A', n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, desca, abuf)
  rc = resize_register(s, 'x', n, 1, nb, 1, RESIZE_DIST_BLOCK_CYCLIC, descx, xbuf)
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    if (trim(arg) == 'background') then
      rc = resize_mark_constant(s, 'A')
      if (rc /= RESIZE_OK) call fail('mark_constant')
      rc = resize_set_background(s, RESIZE_BACKGROUND_WAIT, 1)
      if (rc /= RESIZE_OK) call fail('set_background')
    end if
  end if
  if (resize_is_newcomer(s) == 1) then
    rc = resize_join(s, it)
    if (rc /= RESIZE_OK) call fail('join')
  else
    rc = resize_start(s, 2, 2)
    if (rc /= RESIZE_OK) call fail('start')
    it = 0
    call bind_arrays()
    if (ctxt >= 0) then
      do jl = 1, nloc
        jg = indxl2g(jl, nb, mycol, 0, npcol)
        do il = 1, mloc
          ig = indxl2g(il, nb, myrow, 0, nprow)
          a(il, jl) = entry_a(ig, jg)
        end do
      end do
      do il = 1, xloc
        ig = indxl2g(il, nb, myrow, 0, nprow)
        x(il, 1) = entry_x(ig)
      end do
    end if
  end if

  do while (it < iters)
    call resize_begin_iteration(s)
    call bind_arrays()
    if (ctxt >= 0) then
      allocate (y(max(1, descx(9)), 1))
      y = 0.0d0
      t0 = mpi_wtime()
      call pdgemv('N', n, n, 1.0d0, a, 1, 1, desca, x, 1, 1, descx, 1, 0.0d0, y, 1, 1, descx, 1)
      ! This process's share of the flops and its time: the measured speed.
      rc = resize_report_compute(s, 2.0d0 * n * max(0, xloc), mpi_wtime() - t0)
      if (xloc > 0) x(1:xloc, 1) = scale * y(1:xloc, 1)
      deallocate (y)
    end if
    call resize_end_iteration(s)
    it = it + 1
    if (it < iters) then
      rc = resize_remap_point(s, act)
    end if
  end do
  ! A resize still under way in the background at the end: cancelled, not completed (no
  ! iteration would use its grid; its newcomers exit).
  rc = resize_cancel(s, act)
  if (rc /= RESIZE_OK) call fail('cancel')
  if (act /= RESIZE_NONE .and. resize_world_rank(s) == 0) &
    print '(a)', 'pdgemv_fortran: the resize under way at the end was cancelled'

  ! Serial reference on world rank 0, broadcast, compared element by element.
  comm = resize_world(s)
  rank = resize_world_rank(s)
  allocate (gx(n), gt(n))
  if (rank == 0) then
    allocate (ga(n, n))
    do j = 1, n
      do i = 1, n
        ga(i, j) = entry_a(i, j)
      end do
    end do
    do i = 1, n
      gx(i) = entry_x(i)
    end do
    do i = 1, iters
      call dgemv('N', n, n, scale, ga, n, gx, 1, 0.0d0, gt, 1)
      gx = gt
    end do
  end if
  call MPI_Bcast(gx, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
  call bind_arrays()
  err = 0.0d0
  if (ctxt >= 0) then
    do il = 1, xloc
      ig = indxl2g(il, nb, myrow, 0, nprow)
      err = max(err, abs(x(il, 1) - gx(ig)))
    end do
  end if
  call MPI_Allreduce(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
  xmax = maxval(abs(gx))
  tol = 1.0d-12 * n * iters * xmax  ! relative: the scale of x drifts
  write (msg, '(A,I0,A,ES10.3,A,ES8.1,A)') 'x = (sA)^', iters, ' x0: max |x - x_blas| = ', gerr, &
      ' (tol ', tol, ')'
  if (gerr <= tol) then
    msg = trim(msg)//': OK'
  else
    msg = trim(msg)//': FAILED'
  end if
  write (arg, '(A,I0,A,I0)') 'N=', n, ' NB=', nb
  rc = resize_print_summary(s, trim(arg), trim(msg), gerr <= tol)
  call resize_destroy(s)
  call MPI_Finalize(ierr)
  if (gerr > tol) stop 1

contains

  ! The arrays move at every resize: take them again from the session's buffers.
  subroutine bind_arrays()
    rc = resize_grid(s, ctxt, nprow, npcol, myrow, mycol)
    if (ctxt < 0) return
    mloc = numroc(n, nb, myrow, 0, nprow)
    nloc = numroc(n, nb, mycol, 0, npcol)
    xloc = 0
    if (mycol == 0) xloc = mloc
    call c_f_pointer(abuf, a, [desca(9), max(1, nloc)])
    call c_f_pointer(xbuf, x, [descx(9), 1])
  end subroutine

  real(8) function entry_a(i, j)
    integer, intent(in) :: i, j
    entry_a = sin(0.37d0 * i + 1.31d0 * j) + cos(0.11d0 * i * j)
  end function

  real(8) function entry_x(i)
    integer, intent(in) :: i
    entry_x = cos(0.7d0 * i)
  end function

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (*, '(A,A,A,A)') 'pdgemv_fortran: ', what, ' failed: ', resize_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end subroutine

end program pdgemv_fortran
