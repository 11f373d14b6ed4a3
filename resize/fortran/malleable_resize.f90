! SPDX-License-Identifier: BSD-3-Clause
! Fortran interface to the resize session (malleable/resize/resize.h) through ISO_C_BINDING.
! Strings are passed as Fortran character variables; the wrappers add the C NUL.
! Spawned copies of a Fortran program get the same command-line arguments as the
! original (the session reads /proc/self/cmdline), so get_command_argument works there.
module malleable_resize
  use, intrinsic :: iso_c_binding
  use malleable_blacs_dyn, only: blacs_dyn_c_string
  implicit none
  private
  public :: resize_create, resize_register, resize_register_s, resize_register_d, &
            resize_register_c, resize_register_z, resize_is_newcomer, &
            resize_start, resize_join, resize_begin_iteration, &
            resize_checkpoint, resize_restart, &
            resize_end_iteration, resize_report_compute, resize_remap_point, resize_grid, &
            resize_world, resize_world_rank, resize_print_summary, &
            resize_write_json, resize_set_result_check, &
            resize_destroy, resize_last_error, resize_last_error_code, resize_last_error_part, &
            resize_set_app_state, resize_iteration, &
            RESIZE_OK, RESIZE_ERR_ARG, RESIZE_ERR_STATE, RESIZE_ERR_RESIZE, &
            RESIZE_NONE, RESIZE_EXPAND, RESIZE_SHRINK, RESIZE_REGRID, &
            resize_mark_constant, resize_set_background, resize_complete, resize_cancel, &
            RESIZE_BACKGROUND_OFF, RESIZE_BACKGROUND_WAIT, RESIZE_BACKGROUND_CONTINUE, &
            resize_checkpoint_in, resize_set_checkpointing, resize_checkpoint_if_due, &
            resize_remap_or_restart, resize_next_decision, resize_dry_run, &
            resize_set_level_checkpointing, resize_level_checkpoint_if_due, resize_restart_from_levels, &
            RESIZE_ERR_CHECKPOINT, RESIZE_MECHANISM_SPAWN, RESIZE_MECHANISM_RESTART, &
            RESIZE_STEP_CONTINUE, RESIZE_STEP_RESIZED, RESIZE_STEP_EXIT_FOR_RESTART, &
            RESIZE_EXIT_RESIZE_BY_RESTART, RESIZE_DIST_BLOCK_CYCLIC, RESIZE_DIST_BLOCK

  ! Status codes (resize.h's enum resize_status, docs/guide/errors.md).
  integer(c_int), parameter :: RESIZE_OK = 0, RESIZE_ERR_ARG = 1, RESIZE_ERR_STATE = 2, &
                               RESIZE_ERR_RESIZE = 3
  ! Background resizes: resize_set_background's modes.
  integer(c_int), parameter :: RESIZE_BACKGROUND_OFF = 0, RESIZE_BACKGROUND_WAIT = 1, &
                               RESIZE_BACKGROUND_CONTINUE = 2
  integer(c_int), parameter :: RESIZE_NONE = 0, RESIZE_EXPAND = 1, RESIZE_SHRINK = 2, &
                                   RESIZE_REGRID = 3
  ! Checkpoint cadence and resize by restart (resize.h, docs/guide/checkpoint.md "From C and Fortran").
  integer(c_int), parameter :: RESIZE_ERR_CHECKPOINT = 4
  integer(c_int), parameter :: RESIZE_MECHANISM_SPAWN = 0, RESIZE_MECHANISM_RESTART = 1
  integer(c_int), parameter :: RESIZE_STEP_CONTINUE = 0, RESIZE_STEP_RESIZED = 1, &
                               RESIZE_STEP_EXIT_FOR_RESTART = 2
  integer, parameter :: RESIZE_EXIT_RESIZE_BY_RESTART = 4
  ! resize_register's dist (resize.h): block-cyclic with MB x NB, or one block per process row/column.
  integer(c_int), parameter :: RESIZE_DIST_BLOCK_CYCLIC = 0, RESIZE_DIST_BLOCK = 1

  interface
    integer(c_int) function c_create(argc, argv, app, policy, schedule, s) &
        bind(C, name="resize_create")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: argc
      type(c_ptr), value :: argv
      character(kind=c_char), dimension(*) :: app, policy, schedule
      type(c_ptr) :: s
    end function
    integer(c_int) function c_register(s, name, m, n, mb, nb, dist, desc, buf) &
        bind(C, name="resize_register")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: name
      integer(c_int), value :: m, n, mb, nb, dist
      integer(c_int), dimension(9) :: desc
      type(c_ptr) :: buf
    end function
    ! The other element types: the same arguments, the buffer holds real(c_float),
    ! complex(c_float_complex) or complex(c_double_complex) elements.
    integer(c_int) function c_register_s(s, name, m, n, mb, nb, dist, desc, buf) &
        bind(C, name="resize_register_s")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: name
      integer(c_int), value :: m, n, mb, nb, dist
      integer(c_int), dimension(9) :: desc
      type(c_ptr) :: buf
    end function
    integer(c_int) function c_register_c(s, name, m, n, mb, nb, dist, desc, buf) &
        bind(C, name="resize_register_c")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: name
      integer(c_int), value :: m, n, mb, nb, dist
      integer(c_int), dimension(9) :: desc
      type(c_ptr) :: buf
    end function
    integer(c_int) function c_register_z(s, name, m, n, mb, nb, dist, desc, buf) &
        bind(C, name="resize_register_z")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: name
      integer(c_int), value :: m, n, mb, nb, dist
      integer(c_int), dimension(9) :: desc
      type(c_ptr) :: buf
    end function
    integer(c_int) function resize_is_newcomer(s) bind(C, name="resize_is_newcomer")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
    end function
    ! nprow = npcol = 0: every process of the world on a near-square grid (P <= Q).
    integer(c_int) function resize_start(s, nprow, npcol) bind(C, name="resize_start")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int), value :: nprow, npcol
    end function
    integer(c_int) function c_checkpoint(s, path) bind(C, name="resize_checkpoint")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: path
    end function
    integer(c_int) function c_restart(s, file, nprow, npcol, iteration) bind(C, name="resize_restart")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: file
      integer(c_int), value :: nprow, npcol
      integer(c_int) :: iteration
    end function
    integer(c_int) function c_checkpoint_in(s, dir, keep, file, file_len) bind(C, name="resize_checkpoint_in")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: dir, file
      integer(c_int), value :: keep, file_len
    end function
    integer(c_int) function c_set_checkpointing(s, dir, every, mtbf_seconds, keep) &
        bind(C, name="resize_set_checkpointing")
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: dir, every
      real(c_double), value :: mtbf_seconds
      integer(c_int), value :: keep
    end function
    integer(c_int) function c_checkpoint_if_due(s, last, written) bind(C, name="resize_checkpoint_if_due")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int), value :: last
      integer(c_int) :: written
    end function
    integer(c_int) function c_set_level_checkpointing(s, dir, local_every, partner_every, local_mtbf, &
        partner_mtbf, keep) bind(C, name="resize_set_level_checkpointing")
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: dir, local_every, partner_every
      real(c_double), value :: local_mtbf, partner_mtbf
      integer(c_int), value :: keep
    end function
    integer(c_int) function resize_level_checkpoint_if_due(s, last, written) &
        bind(C, name="resize_level_checkpoint_if_due")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int), value :: last
      integer(c_int) :: written
    end function
    integer(c_int) function c_restart_from_levels(s, dir, nprow, npcol, global_dir, iteration) &
        bind(C, name="resize_restart_from_levels")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: dir, global_dir
      integer(c_int), value :: nprow, npcol
      integer(c_int) :: iteration
    end function
    integer(c_int) function resize_remap_or_restart(s, mechanism, step, action) &
        bind(C, name="resize_remap_or_restart")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int), value :: mechanism
      integer(c_int) :: step, action
    end function
    integer(c_int) function resize_next_decision(s, action, nprow, npcol) bind(C, name="resize_next_decision")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: action, nprow, npcol
    end function
    integer(c_int) function c_dry_run(s, json, json_len, table, table_len) bind(C, name="resize_dry_run")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: json, table
      integer(c_size_t), value :: json_len, table_len
    end function
    integer(c_int) function resize_join(s, iteration) bind(C, name="resize_join")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: iteration
    end function
    subroutine resize_begin_iteration(s) bind(C, name="resize_begin_iteration")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    subroutine resize_end_iteration(s) bind(C, name="resize_end_iteration")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    integer(c_int) function resize_report_compute(s, work, seconds) bind(C, name="resize_report_compute")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: s
      real(c_double), value :: work, seconds
    end function
    integer(c_int) function c_mark_constant(s, name) bind(C, name="resize_mark_constant")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: name
    end function
    integer(c_int) function resize_set_background(s, mode, min_iterations) &
        bind(C, name="resize_set_background")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int), value :: mode, min_iterations
    end function
    integer(c_int) function resize_complete(s, action) bind(C, name="resize_complete")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: action
    end function
    integer(c_int) function resize_cancel(s, action) bind(C, name="resize_cancel")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: action
    end function
    integer(c_int) function resize_remap_point(s, action) bind(C, name="resize_remap_point")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: action
    end function
    ! The application's own state (bytes it cannot recompute), handed to the newcomers at
    ! every expansion and kept in checkpoints: state = c_loc(x) of a variable with the
    ! target attribute that lives as long as the session, bytes = c_sizeof(x); before
    ! resize_start / resize_join / resize_restart. c_null_ptr with bytes > 0: RESIZE_ERR_ARG.
    integer(c_int) function resize_set_app_state(s, state, bytes) bind(C, name="resize_set_app_state")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: s, state
      integer(c_size_t), value :: bytes
    end function
    ! The session's iteration count (resize_iteration).
    integer(c_int) function resize_iteration(s) bind(C, name="resize_iteration")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
    end function
    integer(c_int) function resize_grid(s, ctxt, nprow, npcol, myrow, mycol) &
        bind(C, name="resize_grid")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
      integer(c_int) :: ctxt, nprow, npcol, myrow, mycol
    end function
    integer(c_int) function resize_world(s) bind(C, name="resize_world_f")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
    end function
    integer(c_int) function resize_world_rank(s) bind(C, name="resize_world_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: s
    end function
    integer(c_int) function c_summary(s, problem, check, ok) bind(C, name="resize_print_summary")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: problem, check
      integer(c_int), value :: ok
    end function
    integer(c_int) function c_write_json(s, path) bind(C, name="resize_write_json")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      character(kind=c_char), dimension(*) :: path
    end function
    integer(c_int) function c_set_check(s, ok, message) bind(C, name="resize_set_result_check")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: s
      integer(c_int), value :: ok
      character(kind=c_char), dimension(*) :: message
    end function
    subroutine resize_destroy(s) bind(C, name="resize_destroy")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    type(c_ptr) function c_last_error() bind(C, name="resize_last_error")
      import :: c_ptr
    end function
    ! The last failure's code and part, as the part that raised it said them (malleable/error.h:
    ! MALLEABLE_ERR_*, MALLEABLE_PART_*; 0 before the first).
    integer(c_int) function resize_last_error_code() bind(C, name="resize_last_error_code")
      import :: c_int
    end function
    integer(c_int) function resize_last_error_part() bind(C, name="resize_last_error_part")
      import :: c_int
    end function
  end interface

contains
  ! The application does not change matrix `name` between remap points.
  integer(c_int) function resize_mark_constant(s, name)
    type(c_ptr), value :: s
    character(len=*), intent(in) :: name
    resize_mark_constant = c_mark_constant(s, trim(name)//c_null_char)
  end function

  ! policy and schedule as resize.h's resize_create; RESIZE_POLICY=slurm or fixed in the
  ! environment replaces the program's policy (docs/guide/configuration.md).
  integer(c_int) function resize_create(app, policy, schedule, s)
    character(len=*), intent(in) :: app, policy, schedule
    type(c_ptr), intent(out) :: s
    resize_create = c_create(0_c_int, c_null_ptr, trim(app)//c_null_char, &
                                  trim(policy)//c_null_char, trim(schedule)//c_null_char, s)
  end function

  ! The session owns the buffer: after start/join and after every remap point, fetch
  ! the array again with c_f_pointer(buf, a, [desc(9), local columns]).
  integer(c_int) function resize_register(s, name, m, n, mb, nb, dist, desc, buf)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: m, n, mb, nb, dist
    integer(c_int), intent(inout), target :: desc(9)
    type(c_ptr), intent(inout), target :: buf
    resize_register = c_register(s, trim(name)//c_null_char, m, n, mb, nb, dist, desc, buf)
  end function

  ! resize_register for real(c_float) (s), real(c_double) (d, the same as resize_register),
  ! complex(c_float_complex) (c) and complex(c_double_complex) (z) matrices: bind the
  ! buffer with c_f_pointer to an array of that type.
  integer(c_int) function resize_register_s(s, name, m, n, mb, nb, dist, desc, buf)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: m, n, mb, nb, dist
    integer(c_int), intent(inout), target :: desc(9)
    type(c_ptr), intent(inout), target :: buf
    resize_register_s = c_register_s(s, trim(name)//c_null_char, m, n, mb, nb, dist, desc, buf)
  end function

  integer(c_int) function resize_register_d(s, name, m, n, mb, nb, dist, desc, buf)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: m, n, mb, nb, dist
    integer(c_int), intent(inout), target :: desc(9)
    type(c_ptr), intent(inout), target :: buf
    resize_register_d = c_register(s, trim(name)//c_null_char, m, n, mb, nb, dist, desc, buf)
  end function

  integer(c_int) function resize_register_c(s, name, m, n, mb, nb, dist, desc, buf)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: m, n, mb, nb, dist
    integer(c_int), intent(inout), target :: desc(9)
    type(c_ptr), intent(inout), target :: buf
    resize_register_c = c_register_c(s, trim(name)//c_null_char, m, n, mb, nb, dist, desc, buf)
  end function

  integer(c_int) function resize_register_z(s, name, m, n, mb, nb, dist, desc, buf)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: m, n, mb, nb, dist
    integer(c_int), intent(inout), target :: desc(9)
    type(c_ptr), intent(inout), target :: buf
    resize_register_z = c_register_z(s, trim(name)//c_null_char, m, n, mb, nb, dist, desc, buf)
  end function

  ! Collective: one parallel HDF5 checkpoint file (resize.h resize_checkpoint).
  integer(c_int) function resize_checkpoint(s, path)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: path
    resize_checkpoint = c_checkpoint(s, trim(path)//c_null_char)
  end function

  ! Instead of resize_start: start on nprow x npcol from checkpoint `file`
  ! (resize.h resize_restart); iteration = completed iterations to continue from.
  integer(c_int) function resize_restart(s, file, nprow, npcol, iteration)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: file
    integer(c_int), intent(in) :: nprow, npcol
    integer(c_int), intent(out) :: iteration
    resize_restart = c_restart(s, trim(file)//c_null_char, nprow, npcol, iteration)
  end function

  ! Collective: checkpoint into dir/<app>-<iteration>.h5 (dir created), keeping the newest
  ! `keep` (0: all); `file` receives the file name (resize.h resize_checkpoint_in).
  integer(c_int) function resize_checkpoint_in(s, dir, keep, file)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: dir
    integer(c_int), intent(in) :: keep
    character(len=*), intent(out) :: file
    character(kind=c_char) :: buf(4096)
    integer :: k
    buf = c_null_char
    resize_checkpoint_in = c_checkpoint_in(s, trim(dir)//c_null_char, keep, buf, int(size(buf), c_int))
    file = ''
    do k = 1, min(len(file), size(buf))
      if (buf(k) == c_null_char) exit
      file(k:k) = buf(k)
    end do
  end function

  ! Checkpoint levels (resize.h resize_set_level_checkpointing): dir ('' = /dev/shm/
  ! malleable-<job>), local_every / partner_every ('N', '<T>s', 'auto', '' never), the
  ! MTBFs 'auto' uses, keep versions per level.
  integer(c_int) function resize_set_level_checkpointing(s, dir, local_every, partner_every, local_mtbf, &
                                                         partner_mtbf, keep)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: dir, local_every, partner_every
    real(c_double), intent(in) :: local_mtbf, partner_mtbf
    integer(c_int), intent(in) :: keep
    resize_set_level_checkpointing = c_set_level_checkpointing(s, trim(dir)//c_null_char, &
        trim(local_every)//c_null_char, trim(partner_every)//c_null_char, local_mtbf, partner_mtbf, keep)
  end function

  ! Instead of resize_start after a failure (resize.h resize_restart_from_levels).
  integer(c_int) function resize_restart_from_levels(s, dir, nprow, npcol, global_dir, iteration)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: dir, global_dir
    integer(c_int), intent(in) :: nprow, npcol
    integer(c_int), intent(out) :: iteration
    resize_restart_from_levels = c_restart_from_levels(s, trim(dir)//c_null_char, nprow, npcol, &
                                                       trim(global_dir)//c_null_char, iteration)
  end function

  ! The checkpoint cadence (resize.h resize_set_checkpointing): every = 'N', '<T>s|m|h',
  ! 'auto' (with mtbf_seconds > 0) or '' (only when asked); keep newest (0: all).
  integer(c_int) function resize_set_checkpointing(s, dir, every, mtbf_seconds, keep)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: dir, every
    real(c_double), intent(in) :: mtbf_seconds
    integer(c_int), intent(in) :: keep
    resize_set_checkpointing = c_set_checkpointing(s, trim(dir)//c_null_char, trim(every)//c_null_char, &
                                                   mtbf_seconds, keep)
  end function

  ! Collective, after each iteration (last = .true. after the last one): checkpoints when
  ! due; written = .true. if it did.
  integer(c_int) function resize_checkpoint_if_due(s, last, written)
    type(c_ptr), intent(in) :: s
    logical, intent(in) :: last
    logical, intent(out) :: written
    integer(c_int) :: ilast, iwritten
    ilast = 0
    if (last) ilast = 1
    iwritten = 0
    resize_checkpoint_if_due = c_checkpoint_if_due(s, ilast, iwritten)
    written = iwritten /= 0
  end function

  integer(c_int) function resize_print_summary(s, problem, check, ok)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: problem, check
    logical, intent(in) :: ok
    integer(c_int) :: iok
    iok = 0
    if (ok) iok = 1
    resize_print_summary = c_summary(s, trim(problem)//c_null_char, trim(check)//c_null_char, iok)
  end function

  ! The run as JSON (what malleable-plot draws) on world rank 0; '-' = standard output.
  integer(c_int) function resize_write_json(s, path)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(in) :: path
    resize_write_json = c_write_json(s, trim(path)//c_null_char)
  end function

  ! The application's result check, for the summary and the JSON.
  integer(c_int) function resize_set_result_check(s, ok, message)
    type(c_ptr), intent(in) :: s
    logical, intent(in) :: ok
    character(len=*), intent(in) :: message
    integer(c_int) :: iok
    iok = 0
    if (ok) iok = 1
    resize_set_result_check = c_set_check(s, iok, trim(message)//c_null_char)
  end function

  ! Collective: a dry run of the next resize (resize.h resize_dry_run): the plan as JSON in
  ! `json` and as a table in `table` (blank-padded; RESIZE_ERR_ARG when one is too short for
  ! it, its text cut), nothing carried out.
  integer(c_int) function resize_dry_run(s, json, table)
    type(c_ptr), intent(in) :: s
    character(len=*), intent(out) :: json, table
    character(kind=c_char), allocatable :: jbuf(:), tbuf(:)
    allocate(jbuf(len(json) + 1), tbuf(len(table) + 1))
    jbuf = c_null_char
    tbuf = c_null_char
    resize_dry_run = c_dry_run(s, jbuf, int(size(jbuf), c_size_t), tbuf, int(size(tbuf), c_size_t))
    call from_c_chars(jbuf, json)
    call from_c_chars(tbuf, table)
  end function

  ! A NUL-terminated C string in `buf` as Fortran text (blank-padded, cut at len(text)).
  subroutine from_c_chars(buf, text)
    character(kind=c_char), intent(in) :: buf(:)
    character(len=*), intent(out) :: text
    integer :: k
    text = ''
    do k = 1, min(len(text), size(buf))
      if (buf(k) == c_null_char) exit
      text(k:k) = buf(k)
    end do
  end subroutine

  function resize_last_error() result(msg)
    character(len=:), allocatable :: msg
    msg = blacs_dyn_c_string(c_last_error())
  end function

end module malleable_resize
