! SPDX-License-Identifier: BSD-3-Clause
! The dry run from Fortran (module malleable_resize's resize_dry_run): 4 processes on 2x2,
! a scripted expansion to 2x3 after iteration 2 asked for with resize_dry_run instead of a
! remap point: the JSON names its schema, the expansion and the grids, the table says it, a
! JSON variable too short is RESIZE_ERR_ARG; the grid and A's descriptor are unchanged
! after it. Prints PASS on world rank 0.
!   mpiexec -n 4 dry_run_f_test
program dry_run_f_test
  use, intrinsic :: iso_c_binding
  use mpi
  use malleable_resize
  implicit none
  integer(c_int), target :: desc(9), before(9)
  type(c_ptr), target :: buf
  type(c_ptr) :: s_
  character(len=16384) :: json
  character(len=4096) :: table
  character(len=16) :: tiny
  integer(c_int) :: ctxt, nprow, npcol, myrow, mycol, act
  integer :: ierr, it, rank
  logical :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call check(resize_create('dry_run_f_test', 'scripted', '2:expand:2x3', s_), 'create')
  buf = c_null_ptr
  call check(resize_register(s_, 'A', 40, 40, 4, 4, RESIZE_DIST_BLOCK_CYCLIC, desc, buf), 'register A')
  call check(resize_start(s_, 2, 2), 'start')
  before = desc
  ok = .true.
  do it = 1, 3
    call resize_begin_iteration(s_)
    call resize_end_iteration(s_)
    if (it == 2) then
      call check(resize_dry_run(s_, json, table), 'dry run')
      ok = ok .and. index(json, '"schema":"malleable.plan/1"') > 0 .and. index(json, '"action":"expand"') > 0
      ok = ok .and. index(json, '"grid":"2x3"') > 0 .and. index(table, 'dry run: expand 2x2 -> 2x3') == 1
      if (resize_dry_run(s_, tiny, table) /= RESIZE_ERR_ARG) ok = .false.
    else
      call check(resize_remap_point(s_, act), 'remap point')
      if (act /= RESIZE_NONE) ok = .false.
    end if
  end do
  call check(resize_grid(s_, ctxt, nprow, npcol, myrow, mycol), 'grid')
  ok = ok .and. nprow == 2 .and. npcol == 2 .and. all(desc == before)
  if (.not. ok) then
    print '(A, I0, A)', 'dry_run_f_test: FAILED on rank ', rank, ': ' // trim(table)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call resize_destroy(s_)
  if (rank == 0) print '(A)', 'PASS'
  call MPI_Finalize(ierr)

contains

  subroutine check(rc, what)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: what
    integer :: e
    if (rc /= RESIZE_OK) then
      print '(A)', 'dry_run_f_test: FAILED: ' // what // ': ' // resize_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine

end program dry_run_f_test
