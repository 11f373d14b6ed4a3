! SPDX-License-Identifier: BSD-3-Clause
! The thesis protocol (thesis §3.3.2-3.3.4) in Fortran through the stock BLACS names:
! blacs_setup at the start (a newcomer joins there), a grid from blacs_get(0, 0) and
! blacs_gridinit, then blacs_exit(1) + blacs_setup to expand as ./blacs_setup.dat says
! (add = 2): 2 -> 4 -> 6. The newcomer learns the step from blacs_dyn_share_state and carries
! on at the same point of the loop. Then back to 2, the leavers ending with blacs_exit(0).
program thesis_protocol
  use, intrinsic :: iso_c_binding, only: c_size_t
  use malleable_blacs_dyn, only: blacs_dyn_is_new, blacs_dyn_clear_new, blacs_dyn_share_state, blacs_dyn_depth, &
       blacs_dyn_shrink_to_level, BLACS_DYN_OK
  implicit none
  integer, parameter :: expected(3) = [2, 4, 6]
  integer :: me, np, ctxt, nprow, npcol, myrow, mycol, step, cont, izero, ione, rc, leaving
  integer :: state(1), flag(1)
  integer(c_size_t) :: len
  double precision :: s(1)
  character(len=64) :: arg, arg2
  logical :: ok

  call blacs_setup(me, np)
  ok = .true.
  if (blacs_dyn_is_new() == 1) then
    len = 4
    rc = blacs_dyn_share_state(state, len, 4_c_size_t)
    ok = rc == BLACS_DYN_OK .and. len == 4
    step = state(1)
    call blacs_dyn_clear_new()
    ! The schema's args reach the newcomers as their command line.
    call get_command_argument(1, arg)
    call get_command_argument(2, arg2)
    ok = ok .and. command_argument_count() == 2 .and. arg == '--from-schema' .and. &
         arg2 == 'two words'
    if (.not. ok) print '(a)', 'FAILED: newcomer arguments: ' // trim(arg) // ' | ' // trim(arg2)
  else
    step = 1
  end if
  izero = 0
  ione = 1
  do
    call blacs_pinfo(me, np)
    call blacs_get(izero, izero, ctxt)
    call blacs_gridinit(ctxt, 'R', ione, np)
    call blacs_gridinfo(ctxt, nprow, npcol, myrow, mycol)
    s(1) = dble(me + 1)
    call dgsum2d(ctxt, 'A', ' ', 1, 1, s, 1, -1, -1)
    ok = ok .and. np == expected(step) .and. nint(s(1)) == np * (np + 1) / 2 .and. &
         mycol == me .and. npcol == np .and. blacs_dyn_depth() == step
    if (me == 0) print '(a,i0,a,i0,a,i0,a,f6.1)', 'step ', step, ': world ', np, &
         ', grid 1x', npcol, ', sum of ranks+1 ', s(1)
    call blacs_gridexit(ctxt)
    if (step == 3) exit
    cont = 1
    call blacs_exit(cont)
    call blacs_setup(me, np)
    step = step + 1
    state(1) = step
    len = 4
    rc = blacs_dyn_share_state(state, len, 4_c_size_t)
    ok = ok .and. rc == BLACS_DYN_OK
  end do
  ! Shrink back to the initial world (§3.3.5); the leaving processes end the thesis way,
  ! with blacs_exit(0), which for them does not return.
  rc = blacs_dyn_shrink_to_level(0, leaving)
  ok = ok .and. rc == BLACS_DYN_OK
  if (leaving == 1) then
    cont = 0
    call blacs_exit(cont)
    print '(a)', 'FAILED: blacs_exit(0) returned on a leaving process'
  end if
  call blacs_pinfo(me, np)
  ok = ok .and. np == 2 .and. blacs_dyn_depth() == 1
  if (me == 0) print '(a,i0)', 'after the shrink: world ', np
  ! Agree on the verdict over the final world.
  call blacs_get(izero, izero, ctxt)
  call blacs_gridinit(ctxt, 'R', ione, np)
  flag(1) = merge(0, 1, ok)
  call igsum2d(ctxt, 'A', ' ', 1, 1, flag, 1, -1, -1)
  if (.not. ok) print '(a,i0)', 'FAILED on rank ', me
  if (me == 0 .and. flag(1) == 0) print '(a)', 'PASS'
  call blacs_gridexit(ctxt)
  call blacs_exit(0)
end program thesis_protocol
