! SPDX-License-Identifier: BSD-3-Clause
! Fortran interface to blacs-dyn (ISO_C_BINDING). The BLACS entry points themselves
! (blacs_setup, blacs_pinfo, blacs_get, blacs_exit, ...) need no module: they are the
! stock names, provided by libmalleable_blacs_dyn. This module adds the explicit API.
module malleable_blacs_dyn
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: BLACS_DYN_OK = 0, BLACS_DYN_ERR_ARG = 1, BLACS_DYN_ERR_SCHEMA = 2, &
       BLACS_DYN_ERR_SPAWN = 3, BLACS_DYN_ERR_STATE = 4, BLACS_DYN_ERR_MPI = 5, BLACS_DYN_ERR_TIMEOUT = 6, &
       BLACS_DYN_ERR_UNSUPPORTED = 7, BLACS_DYN_ERR_JOIN = 8
  integer(c_int), parameter, public :: BLACS_DYN_STAY = 0, BLACS_DYN_EXIT = 1, BLACS_DYN_PARK = 2

  public :: blacs_dyn_c_string
  public :: blacs_dyn_rank, blacs_dyn_size, blacs_dyn_world_f, blacs_dyn_depth, blacs_dyn_joined_level, blacs_dyn_is_new, &
       blacs_dyn_clear_new, blacs_dyn_leave, blacs_dyn_leaving, blacs_dyn_shrink_to_level, blacs_dyn_level_size, &
       blacs_dyn_level_grid, blacs_dyn_process_counts, blacs_dyn_share_state, blacs_dyn_expand_schema, &
       blacs_dyn_expand, blacs_dyn_shrink_to_ranks, blacs_dyn_last_error, &
       blacs_dyn_join_supported, blacs_dyn_expand_join, blacs_dyn_expand_join_host

  interface
    function blacs_dyn_rank() bind(C, name='blacs_dyn_rank') result(r)
      import :: c_int
      integer(c_int) :: r
    end function
    function blacs_dyn_size() bind(C, name='blacs_dyn_size') result(n)
      import :: c_int
      integer(c_int) :: n
    end function
    ! The current world as a Fortran MPI communicator handle.
    function blacs_dyn_world_f() bind(C, name='blacs_dyn_world_f') result(comm)
      import :: c_int
      integer(c_int) :: comm
    end function
    function blacs_dyn_depth() bind(C, name='blacs_dyn_depth') result(d)
      import :: c_int
      integer(c_int) :: d
    end function
    function blacs_dyn_joined_level() bind(C, name='blacs_dyn_joined_level') result(l)
      import :: c_int
      integer(c_int) :: l
    end function
    function blacs_dyn_is_new() bind(C, name='blacs_dyn_is_new') result(n)
      import :: c_int
      integer(c_int) :: n
    end function
    subroutine blacs_dyn_clear_new() bind(C, name='blacs_dyn_clear_new')
    end subroutine
    subroutine blacs_dyn_leave() bind(C, name='blacs_dyn_leave')
    end subroutine
    function blacs_dyn_leaving() bind(C, name='blacs_dyn_leaving') result(d)
      import :: c_int
      integer(c_int) :: d
    end function
    function blacs_dyn_shrink_to_level(level, leaving) bind(C, name='blacs_dyn_shrink_to_level') result(rc)
      import :: c_int
      integer(c_int), value :: level
      integer(c_int), intent(out) :: leaving
      integer(c_int) :: rc
    end function
    function blacs_dyn_level_size(level, size) bind(C, name='blacs_dyn_level_size') result(rc)
      import :: c_int
      integer(c_int), value :: level
      integer(c_int), intent(out) :: size
      integer(c_int) :: rc
    end function
    function blacs_dyn_level_grid(level, nprow, npcol) bind(C, name='blacs_dyn_level_grid') result(rc)
      import :: c_int
      integer(c_int), value :: level
      integer(c_int), intent(out) :: nprow, npcol
      integer(c_int) :: rc
    end function
    function blacs_dyn_process_counts(active, parked, exited) bind(C, name='blacs_dyn_process_counts') &
         result(rc)
      import :: c_int
      integer(c_int), intent(out) :: active, parked, exited
      integer(c_int) :: rc
    end function
    ! Rank 0 sends len bytes of buf; the others receive up to cap bytes (len returns the
    ! length). Collective over the current world.
    function blacs_dyn_share_state(buf, len, cap) bind(C, name='blacs_dyn_share_state') result(rc)
      import :: c_int, c_size_t
      type(*), dimension(*) :: buf
      integer(c_size_t), intent(inout) :: len
      integer(c_size_t), value :: cap
      integer(c_int) :: rc
    end function
    function c_expand_schema(path) bind(C, name='blacs_dyn_expand_schema') result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: path
      integer(c_int) :: rc
    end function
    function c_expand_args(nnew, command, args, hosts) bind(C, name='blacs_dyn_expand_args') result(rc)
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: nnew
      character(kind=c_char), dimension(*) :: command
      type(c_ptr), value :: args, hosts
      integer(c_int) :: rc
    end function
    function c_shrink_to_ranks(keep, nkeep, leaving) bind(C, name='blacs_dyn_shrink_to_ranks') result(rc)
      import :: c_int
      integer(c_int), dimension(*), intent(in) :: keep
      integer(c_int), value :: nkeep
      integer(c_int), intent(out) :: leaving
      integer(c_int) :: rc
    end function
    ! Growing by joining (docs/guide/joining.md). Collective: 1 if this job can.
    function blacs_dyn_join_supported() bind(C, name='blacs_dyn_join_supported') result(ok)
      import :: c_int
      integer(c_int) :: ok
    end function
    function c_expand_join(n, launches, wait) bind(C, name='blacs_dyn_expand_join') result(rc)
      import :: c_int, c_ptr, c_double
      integer(c_int), value :: n
      type(c_ptr), value :: launches
      real(c_double), value :: wait
      integer(c_int) :: rc
    end function
    function c_expand_join_hosts(n, hosts, counts, wait) bind(C, name='blacs_dyn_expand_join_hosts') result(rc)
      import :: c_int, c_ptr, c_double
      integer(c_int), value :: n
      type(c_ptr), dimension(*), intent(in) :: hosts
      integer(c_int), dimension(*), intent(in) :: counts
      real(c_double), value :: wait
      integer(c_int) :: rc
    end function
    function c_last_error() bind(C, name='blacs_dyn_last_error') result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    function c_strlen(s) bind(C, name='strlen') result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
  end interface

contains

  ! Expand as the schema file says (absent: $BLACS_SETUP_FILE, else ./blacs_setup.dat).
  function blacs_dyn_expand_schema(path) result(rc)
    character(len=*), intent(in), optional :: path
    integer(c_int) :: rc
    character(kind=c_char), allocatable, target :: cpath(:)
    if (present(path)) then
      call to_c(path, cpath)
      rc = c_expand_schema(c_loc(cpath))
    else
      rc = c_expand_schema(c_null_ptr)
    end if
  end function

  ! Expand by nnew processes of command; args is one string split like a shell would.
  function blacs_dyn_expand(nnew, command, args, hosts) result(rc)
    integer, intent(in) :: nnew
    character(len=*), intent(in) :: command
    character(len=*), intent(in), optional :: args, hosts
    integer(c_int) :: rc
    character(kind=c_char), allocatable, target :: ccmd(:), cargs(:), chosts(:)
    type(c_ptr) :: pargs, phosts
    call to_c(command, ccmd)
    pargs = c_null_ptr
    phosts = c_null_ptr
    if (present(args)) then
      call to_c(args, cargs)
      pargs = c_loc(cargs)
    end if
    if (present(hosts)) then
      call to_c(hosts, chosts)
      phosts = c_loc(chosts)
    end if
    rc = c_expand_args(int(nnew, c_int), ccmd, pargs, phosts)
  end function

  ! Keep the 0-based ranks keep(:) of the current world, in that order.
  function blacs_dyn_shrink_to_ranks(keep, leaving) result(rc)
    integer, intent(in) :: keep(:)
    integer, intent(out) :: leaving
    integer(c_int) :: rc, cl
    integer(c_int), allocatable :: ck(:)
    allocate(ck(size(keep)))
    ck(:) = int(keep(:), c_int)
    rc = c_shrink_to_ranks(ck, int(size(keep), c_int), cl)
    leaving = int(cl)
  end function

  ! Collective: the first nlaunches launches ready join (0: every launch ready now),
  ! waiting at most wait seconds (<= 0: the join timeout).
  function blacs_dyn_expand_join(nlaunches, wait) result(rc)
    integer, intent(in) :: nlaunches
    real(c_double), intent(in) :: wait
    integer(c_int) :: rc
    rc = c_expand_join(int(nlaunches, c_int), c_null_ptr, wait)
  end function

  ! Collective: one launch of count processes on host ("" where the launcher runs) ordered
  ! from the job's launcher (malleable-run --job-dir), then joined.
  function blacs_dyn_expand_join_host(host, count, wait) result(rc)
    character(len=*), intent(in) :: host
    integer, intent(in) :: count
    real(c_double), intent(in) :: wait
    integer(c_int) :: rc
    character(kind=c_char), allocatable, target :: chost(:)
    type(c_ptr) :: hosts(1)
    integer(c_int) :: counts(1)
    call to_c(host, chost)
    hosts(1) = c_loc(chost)
    counts(1) = int(count, c_int)
    rc = c_expand_join_hosts(1_c_int, hosts, counts, wait)
  end function

  function blacs_dyn_last_error() result(msg)
    character(len=:), allocatable :: msg
    msg = blacs_dyn_c_string(c_last_error())
  end function

  ! A NUL-terminated C string as a Fortran string (shared with the other modules'
  ! message functions, e.g. malleable_resize).
  function blacs_dyn_c_string(p) result(msg)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: msg
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: msg)
    do i = 1, n
      msg(i:i) = chars(i)
    end do
  end function

  subroutine to_c(s, c)
    character(len=*), intent(in) :: s
    character(kind=c_char), allocatable, intent(out) :: c(:)
    integer :: i, n
    n = len_trim(s)
    allocate(c(n + 1))
    do i = 1, n
      c(i) = s(i:i)
    end do
    c(n + 1) = c_null_char
  end subroutine

end module malleable_blacs_dyn
