! SPDX-License-Identifier: BSD-3-Clause
! Checkpoint cadence and resize by restart from Fortran (module malleable_resize;
! docs/guide/checkpoint.md, "From C and Fortran"): the same program as by_restart_c.c. An
! N x N block-cyclic matrix A starts as A(i,j) = i + N j (0-based global indices) and
! iteration k adds k to every element, so after ITERS iterations A(i,j) = i + N j +
! ITERS (ITERS + 1) / 2 whatever grids, checkpoints and restarts happened on the way.
!   malleable-run -n 4 -- by_restart_f N ITERS --checkpoint DIR --every 2 \
!                 --schedule 3:expand:2x3 --mechanism restart
! Exit 0 with "result check: ... OK" on world rank 0; 1 on a wrong result; 4 when leaving
! for a resize by restart; 5 when a checkpoint could not be written.
program by_restart_f
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi
  use malleable_resize
  implicit none
  integer(c_int), target :: desc(9)
  type(c_ptr), target :: buf
  type(c_ptr) :: s_
  character(len=512) :: dir, every, schedule, mech, restart, grid, text, local_every, partner_every, local_dir
  integer :: n, iters, keep, nprow, npcol, ierr, rc, it, step, act, mechanism
  integer(c_int) :: level_written
  logical :: written
  integer(int64) :: bad, all

  call MPI_Init(ierr)
  n = int_arg(1)
  iters = int_arg(2)
  dir = option('--checkpoint', '')
  every = option('--every', '')
  keep = 0
  text = option('--keep', '0')
  read (text, *) keep
  schedule = option('--schedule', '')
  mech = option('--mechanism', 'spawn')
  restart = option('--restart', '')
  grid = option('-g', '2x2')
  ! Checkpoint levels, as by_restart_c.c.
  local_every = option('--local', '')
  partner_every = option('--partner', '')
  local_dir = option('--local-dir', '')
  grid(index(grid, 'x'):index(grid, 'x')) = ' '
  read (grid, *) nprow, npcol
  mechanism = RESIZE_MECHANISM_SPAWN
  if (mech == 'restart') mechanism = RESIZE_MECHANISM_RESTART

  if (len_trim(schedule) > 0) then
    call check(resize_create('by_restart_f', 'scripted', schedule, s_), 'create')
  else
    call check(resize_create('by_restart_f', 'fixed', '', s_), 'create')
  end if
  buf = c_null_ptr
  call check(resize_register(s_, 'A', n, n, 4, 4, RESIZE_DIST_BLOCK_CYCLIC, desc, buf), 'register A')
  if (resize_is_newcomer(s_) == 1) then
    call check(resize_join(s_, it), 'join')
  else if (flag('--restart-levels')) then
    call check(resize_restart_from_levels(s_, local_dir, nprow, npcol, dir, it), 'restart from levels')
  else if (len_trim(restart) > 0) then
    call check(resize_restart(s_, restart, nprow, npcol, it), 'restart')
  else
    call check(resize_start(s_, nprow, npcol), 'start')
    it = 0
    call visit(0, 0.0d0)
  end if
  if (len_trim(dir) > 0) call check(resize_set_checkpointing(s_, dir, every, 0.0d0, keep), 'set_checkpointing')
  if (len_trim(local_every) + len_trim(partner_every) > 0) &
    call check(resize_set_level_checkpointing(s_, local_dir, local_every, partner_every, 0.0d0, 0.0d0, 2), &
               'set_level_checkpointing')

  do while (it < iters)
    call resize_begin_iteration(s_)
    call visit(1, dble(it + 1))
    call resize_end_iteration(s_)
    it = it + 1
    if (len_trim(dir) > 0) then
      rc = resize_checkpoint_if_due(s_, it == iters, written)
      if (rc /= RESIZE_OK) call leave(5, 'checkpoint failed: ')
    end if
    if (len_trim(local_every) + len_trim(partner_every) > 0) then
      rc = resize_level_checkpoint_if_due(s_, merge(1, 0, it == iters), level_written)
      if (rc /= RESIZE_OK) call leave(5, 'level checkpoint failed: ')
    end if
    if (it == iters) exit
    rc = resize_remap_or_restart(s_, mechanism, step, act)
    if (rc == RESIZE_ERR_CHECKPOINT) call leave(5, 'checkpoint failed: ')
    if (rc /= RESIZE_OK .and. resize_world_rank(s_) == 0) print '(2A)', 'by_restart_f: resize failed: ', resize_last_error()
    if (step == RESIZE_STEP_EXIT_FOR_RESTART) call leave(RESIZE_EXIT_RESIZE_BY_RESTART, '')
  end do

  bad = 0
  call visit(2, dble(iters) * dble(iters + 1) / 2)
  call MPI_Allreduce(bad, all, 1, MPI_INTEGER8, MPI_SUM, resize_world(s_), ierr)
  if (all == 0) then
    write (text, '(A,I0,A)') 'A = A0 + ITERS(ITERS+1)/2 after ', iters, ' iterations: OK'
  else
    write (text, '(A,I0,A)') 'A = A0 + ITERS(ITERS+1)/2: ', all, ' elements wrong: FAILED'
  end if
  rc = resize_print_summary(s_, '', text, all == 0)
  call resize_destroy(s_)
  call MPI_Finalize(ierr)
  if (all /= 0) stop 1

contains

  ! mode 0: A(i,j) = i + N j; 1: A += k; 2: count elements /= i + N j + k into bad.
  subroutine visit(mode, k)
    integer, intent(in) :: mode
    real(c_double), intent(in) :: k
    integer :: ctxt, pr, pc, myrow, mycol, ml, nl, il, jl, i, j
    integer, external :: numroc, indxl2g
    real(c_double), pointer :: a(:, :)
    rc = resize_grid(s_, ctxt, pr, pc, myrow, mycol)
    if (ctxt < 0) return
    ml = numroc(n, desc(5), myrow, 0, pr)
    nl = numroc(n, desc(6), mycol, 0, pc)
    if (ml < 1 .or. nl < 1) return
    call c_f_pointer(buf, a, [desc(9), nl])
    do jl = 1, nl
      j = indxl2g(jl, desc(6), mycol, 0, pc) - 1
      do il = 1, ml
        i = indxl2g(il, desc(5), myrow, 0, pr) - 1
        select case (mode)
        case (0)
          a(il, jl) = dble(i) + dble(n) * dble(j)
        case (1)
          a(il, jl) = a(il, jl) + k
        case default
          if (a(il, jl) /= dble(i) + dble(n) * dble(j) + k) bad = bad + 1
        end select
      end do
    end do
  end subroutine

  subroutine leave(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    if (len(what) > 0) print '(3A)', 'by_restart_f: ', what, resize_last_error()
    call resize_destroy(s_)
    call MPI_Finalize(ierr)
    call exit(code)
  end subroutine

  subroutine check(code, what)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: what
    if (code /= RESIZE_OK) then
      print '(4A)', 'by_restart_f: ', what, ': ', resize_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
  end subroutine

  integer function int_arg(k)
    integer, intent(in) :: k
    character(len=64) :: a
    call get_command_argument(k, a)
    read (a, *) int_arg
  end function

  ! The value after option `name` on the command line, else `fallback`.
  function option(name, fallback) result(v)
    character(len=*), intent(in) :: name, fallback
    character(len=512) :: v, a
    integer :: k
    v = fallback
    do k = 1, command_argument_count() - 1
      call get_command_argument(k, a)
      if (trim(a) == name) then
        call get_command_argument(k + 1, v)
        return
      end if
    end do
  end function

  ! Whether `name` is on the command line.
  logical function flag(name)
    character(len=*), intent(in) :: name
    character(len=512) :: a
    integer :: k
    flag = .false.
    do k = 1, command_argument_count()
      call get_command_argument(k, a)
      if (trim(a) == name) flag = .true.
    end do
  end function

end program by_restart_f
