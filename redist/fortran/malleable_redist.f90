! SPDX-License-Identifier: BSD-3-Clause
! Fortran access to redist: the extended descriptor and a PDGEMR2D-shaped
! redistribution, through ISO_C_BINDING over redist.h. Indices are 1-based as in
! ScaLAPACK; COMM is a Fortran MPI communicator handle containing both grids.
module malleable_redist
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: REDIST_SUCCESS = 0
  integer(c_int), parameter, public :: REDIST_ERR_INVALID_LAYOUT = 1, REDIST_ERR_SIZE_MISMATCH = 2, &
       REDIST_ERR_REGION = 3, REDIST_ERR_LLD = 4, REDIST_ERR_NULL_BUFFER = 5, REDIST_ERR_NOT_IN_GRID = 6, &
       REDIST_ERR_INCONSISTENT = 7, REDIST_ERR_MPI = 8, REDIST_ERR_INTERNAL = 9, &
       REDIST_ERR_INVALID_ARGUMENT = 10
  integer(c_int), parameter, public :: REDIST_CATERPILLAR = 0, REDIST_CIRCULANT = 1, REDIST_MATCHING = 2, &
       REDIST_ALLATONCE = 3, REDIST_DEFAULT = 4
  integer(c_int), parameter, public :: REDIST_ROWS = 0, REDIST_COLS = 1

  ! Mirrors struct redist_desc. Block-size arrays are borrowed: give them the TARGET
  ! attribute and keep them alive while the descriptor is used.
  type, bind(C), public :: redist_desc
     integer(c_int) :: ctxt = -1, nprow = 0, npcol = 0, rsrc = 0, csrc = 0, mb = 0, nb = 0
     integer(c_int64_t) :: m = 0, n = 0, lld = 0, nrow_blocks = 0, ncol_blocks = 0
     type(c_ptr) :: row_blocks = c_null_ptr, col_blocks = c_null_ptr, ranks = c_null_ptr
  end type redist_desc

  public :: redist_desc_from_scalapack, redist_desc_init_blocks, redist_numroc, redist_g2l, redist_l2g, &
       redist_pdgemr2d, redist_psgemr2d, redist_pzgemr2d, redist_pcgemr2d, redist_error_message

  interface redist_pdgemr2d
     module procedure pdgemr2d_ext, pdgemr2d_std
  end interface redist_pdgemr2d
  interface redist_psgemr2d
     module procedure psgemr2d_ext, psgemr2d_std
  end interface redist_psgemr2d
  interface redist_pzgemr2d
     module procedure pzgemr2d_ext, pzgemr2d_std
  end interface redist_pzgemr2d
  interface redist_pcgemr2d
     module procedure pcgemr2d_ext, pcgemr2d_std
  end interface redist_pcgemr2d

  interface
     integer(c_int) function c_from_scalapack(d, desc) bind(C, name='redist_desc_from_scalapack')
       import :: c_int, redist_desc
       type(redist_desc), intent(out) :: d
       integer(c_int), intent(in) :: desc(9)
     end function c_from_scalapack
     integer(c_int) function c_init_blocks(d, ctxt, nrb, rb, ncb, cb, rsrc, csrc, lld) &
          bind(C, name='redist_desc_init_blocks')
       import :: c_int, c_int64_t, c_ptr, redist_desc
       type(redist_desc), intent(out) :: d
       integer(c_int), value :: ctxt, rsrc, csrc
       integer(c_int64_t), value :: nrb, ncb, lld
       type(c_ptr), value :: rb, cb
     end function c_init_blocks
     integer(c_int) function c_numroc(d, dim, iproc, count) bind(C, name='redist_numroc')
       import :: c_int, c_int64_t, redist_desc
       type(redist_desc), intent(in) :: d
       integer(c_int), value :: dim, iproc
       integer(c_int64_t), intent(out) :: count
     end function c_numroc
     integer(c_int) function c_g2l(d, dim, ig, iproc, il) bind(C, name='redist_g2l')
       import :: c_int, c_int64_t, redist_desc
       type(redist_desc), intent(in) :: d
       integer(c_int), value :: dim
       integer(c_int64_t), value :: ig
       integer(c_int), intent(out) :: iproc
       integer(c_int64_t), intent(out) :: il
     end function c_g2l
     integer(c_int) function c_l2g(d, dim, iproc, il, ig) bind(C, name='redist_l2g')
       import :: c_int, c_int64_t, redist_desc
       type(redist_desc), intent(in) :: d
       integer(c_int), value :: dim, iproc
       integer(c_int64_t), value :: il
       integer(c_int64_t), intent(out) :: ig
     end function c_l2g
     integer(c_int) function c_pdgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pdgemr2d_f')
       import :: c_int, c_int64_t, c_double, redist_desc
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       real(c_double), intent(in) :: a(*)
       type(redist_desc), intent(in) :: da, db
       real(c_double), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pdgemr2d
     integer(c_int) function c_psgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_psgemr2d_f')
       import :: c_int, c_int64_t, c_float, redist_desc
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       real(c_float), intent(in) :: a(*)
       type(redist_desc), intent(in) :: da, db
       real(c_float), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_psgemr2d
     integer(c_int) function c_pzgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pzgemr2d_f')
       import :: c_int, c_int64_t, c_double_complex, redist_desc
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       complex(c_double_complex), intent(in) :: a(*)
       type(redist_desc), intent(in) :: da, db
       complex(c_double_complex), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pzgemr2d
     integer(c_int) function c_pcgemr2d(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pcgemr2d_f')
       import :: c_int, c_int64_t, c_float_complex, redist_desc
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       complex(c_float_complex), intent(in) :: a(*)
       type(redist_desc), intent(in) :: da, db
       complex(c_float_complex), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pcgemr2d
     integer(c_int) function c_pdgemr2d_std(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pdgemr2d_fstd')
       import :: c_int, c_int64_t, c_double
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       real(c_double), intent(in) :: a(*)
       integer(c_int), intent(in) :: da(9), db(9)
       real(c_double), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pdgemr2d_std
     integer(c_int) function c_psgemr2d_std(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_psgemr2d_fstd')
       import :: c_int, c_int64_t, c_float
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       real(c_float), intent(in) :: a(*)
       integer(c_int), intent(in) :: da(9), db(9)
       real(c_float), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_psgemr2d_std
     integer(c_int) function c_pzgemr2d_std(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pzgemr2d_fstd')
       import :: c_int, c_int64_t, c_double_complex
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       complex(c_double_complex), intent(in) :: a(*)
       integer(c_int), intent(in) :: da(9), db(9)
       complex(c_double_complex), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pzgemr2d_std
     integer(c_int) function c_pcgemr2d_std(m, n, a, ia, ja, da, b, ib, jb, db, comm, schedule) &
          bind(C, name='redist_pcgemr2d_fstd')
       import :: c_int, c_int64_t, c_float_complex
       integer(c_int64_t), value :: m, n, ia, ja, ib, jb
       complex(c_float_complex), intent(in) :: a(*)
       integer(c_int), intent(in) :: da(9), db(9)
       complex(c_float_complex), intent(inout) :: b(*)
       integer(c_int), value :: comm, schedule
     end function c_pcgemr2d_std
     type(c_ptr) function c_error_message() bind(C, name='redist_error_message')
       import :: c_ptr
     end function c_error_message
     integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
       import :: c_size_t, c_ptr
       type(c_ptr), value :: s
     end function c_strlen
  end interface

contains

  ! From a standard 9-integer DESC.
  subroutine redist_desc_from_scalapack(d, desc, info)
    type(redist_desc), intent(out) :: d
    integer, intent(in) :: desc(9)
    integer, intent(out) :: info
    integer(c_int) :: cdesc(9)
    cdesc = int(desc, c_int)
    info = int(c_from_scalapack(d, cdesc))
  end subroutine redist_desc_from_scalapack

  ! Heterogeneous descriptor on BLACS grid ICTXT: one size per row block / column block.
  subroutine redist_desc_init_blocks(d, ictxt, row_blocks, col_blocks, rsrc, csrc, lld, info)
    type(redist_desc), intent(out) :: d
    integer, intent(in) :: ictxt, rsrc, csrc, lld
    integer(c_int64_t), intent(in), target, contiguous :: row_blocks(:), col_blocks(:)
    integer, intent(out) :: info
    info = int(c_init_blocks(d, int(ictxt, c_int), size(row_blocks, kind=c_int64_t), c_loc(row_blocks), &
         size(col_blocks, kind=c_int64_t), c_loc(col_blocks), int(rsrc, c_int), int(csrc, c_int), &
         int(lld, c_int64_t)))
  end subroutine redist_desc_init_blocks

  ! Generalised NUMROC: rows (REDIST_ROWS) or columns held by process row/column IPROC.
  integer function redist_numroc(d, dim, iproc) result(count)
    type(redist_desc), intent(in) :: d
    integer, intent(in) :: dim, iproc
    integer(c_int64_t) :: c
    if (c_numroc(d, int(dim, c_int), int(iproc, c_int), c) /= REDIST_SUCCESS) then
       count = -1
    else
       count = int(c)
    end if
  end function redist_numroc

  ! Global index IG (1-based) -> owning process IPROC and local index IL (1-based).
  subroutine redist_g2l(d, dim, ig, iproc, il, info)
    type(redist_desc), intent(in) :: d
    integer, intent(in) :: dim, ig
    integer, intent(out) :: iproc, il, info
    integer(c_int) :: p
    integer(c_int64_t) :: l
    info = int(c_g2l(d, int(dim, c_int), int(ig, c_int64_t), p, l))
    iproc = int(p)
    il = int(l)
  end subroutine redist_g2l

  ! Local index IL on process IPROC -> global index IG (1-based).
  subroutine redist_l2g(d, dim, iproc, il, ig, info)
    type(redist_desc), intent(in) :: d
    integer, intent(in) :: dim, iproc, il
    integer, intent(out) :: ig, info
    integer(c_int64_t) :: g
    info = int(c_l2g(d, int(dim, c_int), int(iproc, c_int), int(il, c_int64_t), g))
    ig = int(g)
  end subroutine redist_l2g

  ! B(IB:IB+M-1, JB:JB+N-1) := A(IA:IA+M-1, JA:JA+N-1) with extended descriptors.
  subroutine pdgemr2d_ext(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    real(c_double), intent(in) :: a(*)
    real(c_double), intent(inout) :: b(*)
    type(redist_desc), intent(in) :: desca, descb
    integer, intent(out) :: info
    info = int(c_pdgemr2d(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), desca, &
         b, int(ib, c_int64_t), int(jb, c_int64_t), descb, int(comm, c_int), int(schedule, c_int)))
  end subroutine pdgemr2d_ext

  ! The same with standard ScaLAPACK DESCs (DESC(CTXT_) = -1 outside a grid).
  subroutine pdgemr2d_std(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    real(c_double), intent(in) :: a(*)
    real(c_double), intent(inout) :: b(*)
    integer, intent(in) :: desca(9), descb(9)
    integer, intent(out) :: info
    info = int(c_pdgemr2d_std(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), &
         int(desca, c_int), b, int(ib, c_int64_t), int(jb, c_int64_t), int(descb, c_int), int(comm, c_int), &
         int(schedule, c_int)))
  end subroutine pdgemr2d_std

  ! As redist_pdgemr2d, for real(c_float).
  subroutine psgemr2d_ext(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    real(c_float), intent(in) :: a(*)
    real(c_float), intent(inout) :: b(*)
    type(redist_desc), intent(in) :: desca, descb
    integer, intent(out) :: info
    info = int(c_psgemr2d(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), desca, &
         b, int(ib, c_int64_t), int(jb, c_int64_t), descb, int(comm, c_int), int(schedule, c_int)))
  end subroutine psgemr2d_ext

  ! The same with standard ScaLAPACK DESCs (DESC(CTXT_) = -1 outside a grid).
  subroutine psgemr2d_std(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    real(c_float), intent(in) :: a(*)
    real(c_float), intent(inout) :: b(*)
    integer, intent(in) :: desca(9), descb(9)
    integer, intent(out) :: info
    info = int(c_psgemr2d_std(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), &
         int(desca, c_int), b, int(ib, c_int64_t), int(jb, c_int64_t), int(descb, c_int), int(comm, c_int), &
         int(schedule, c_int)))
  end subroutine psgemr2d_std

  ! As redist_pdgemr2d, for complex(c_double_complex).
  subroutine pzgemr2d_ext(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    complex(c_double_complex), intent(in) :: a(*)
    complex(c_double_complex), intent(inout) :: b(*)
    type(redist_desc), intent(in) :: desca, descb
    integer, intent(out) :: info
    info = int(c_pzgemr2d(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), desca, &
         b, int(ib, c_int64_t), int(jb, c_int64_t), descb, int(comm, c_int), int(schedule, c_int)))
  end subroutine pzgemr2d_ext

  ! The same with standard ScaLAPACK DESCs (DESC(CTXT_) = -1 outside a grid).
  subroutine pzgemr2d_std(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    complex(c_double_complex), intent(in) :: a(*)
    complex(c_double_complex), intent(inout) :: b(*)
    integer, intent(in) :: desca(9), descb(9)
    integer, intent(out) :: info
    info = int(c_pzgemr2d_std(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), &
         int(desca, c_int), b, int(ib, c_int64_t), int(jb, c_int64_t), int(descb, c_int), int(comm, c_int), &
         int(schedule, c_int)))
  end subroutine pzgemr2d_std

  ! As redist_pdgemr2d, for complex(c_float_complex).
  subroutine pcgemr2d_ext(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    complex(c_float_complex), intent(in) :: a(*)
    complex(c_float_complex), intent(inout) :: b(*)
    type(redist_desc), intent(in) :: desca, descb
    integer, intent(out) :: info
    info = int(c_pcgemr2d(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), desca, &
         b, int(ib, c_int64_t), int(jb, c_int64_t), descb, int(comm, c_int), int(schedule, c_int)))
  end subroutine pcgemr2d_ext

  ! The same with standard ScaLAPACK DESCs (DESC(CTXT_) = -1 outside a grid).
  subroutine pcgemr2d_std(m, n, a, ia, ja, desca, b, ib, jb, descb, comm, schedule, info)
    integer, intent(in) :: m, n, ia, ja, ib, jb, comm, schedule
    complex(c_float_complex), intent(in) :: a(*)
    complex(c_float_complex), intent(inout) :: b(*)
    integer, intent(in) :: desca(9), descb(9)
    integer, intent(out) :: info
    info = int(c_pcgemr2d_std(int(m, c_int64_t), int(n, c_int64_t), a, int(ia, c_int64_t), int(ja, c_int64_t), &
         int(desca, c_int), b, int(ib, c_int64_t), int(jb, c_int64_t), int(descb, c_int), int(comm, c_int), &
         int(schedule, c_int)))
  end subroutine pcgemr2d_std

  ! Message of the last error of this thread.
  function redist_error_message() result(msg)
    character(len=:), allocatable :: msg
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: k, length
    p = c_error_message()
    length = int(c_strlen(p))
    allocate(character(len=length) :: msg)
    if (length == 0) return
    call c_f_pointer(p, chars, [length])
    do k = 1, length
       msg(k:k) = chars(k)
    end do
  end function redist_error_message

end module malleable_redist
