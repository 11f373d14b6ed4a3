! SPDX-License-Identifier: BSD-3-Clause
! An ordinary ScaLAPACK program in Fortran that knows nothing of malleable: BLACS grids,
! PDGEMR2D and PSGEMR2D between them (submatrices, RSRC/CSRC /= 0, non-square, processes
! outside a grid), every local element checked against a replica of the global matrix
! (also outside the copied region and in the padding rows), and the local arrays written
! bit for bit to <prefix>.<rank>. The drop-in test runs it stock, relinked with
! libmalleable_redist_gemr2d and with it preloaded, and compares the dumps. 4 processes.
!
! Usage: mpiexec -n 4 gemr2d_program_f <dump prefix>
module gemr2d_matrices
  implicit none
  private
  public :: dmat, smat, dmake, smake, dcopy_global, scopy_global, dcheck, scheck, ddump, sdump, me, nfail, nchecked

  integer, parameter :: dp = kind(1.d0), sp = kind(1.0)
  real(dp), parameter :: dpad = -7.25d300
  real(sp), parameter :: spad = -7.25e30
  integer :: me = 0, nfail = 0, nchecked = 0

  ! A distributed matrix with a replica of its global content on every process.
  type dmat
    integer :: desc(9), myr, myc, nprow, npcol, lrows, lcols
    real(dp), allocatable :: loc(:, :), glob(:, :)
  end type dmat
  type smat
    integer :: desc(9), myr, myc, nprow, npcol, lrows, lcols
    real(sp), allocatable :: loc(:, :), glob(:, :)
  end type smat

  interface
    integer function numroc(n, nb, iproc, isrcproc, nprocs)
      integer, intent(in) :: n, nb, iproc, isrcproc, nprocs
    end function numroc
    integer function indxl2g(indxloc, nb, iproc, isrcproc, nprocs)
      integer, intent(in) :: indxloc, nb, iproc, isrcproc, nprocs
    end function indxl2g
  end interface

contains

  real(dp) function value(tag, i, j)  ! every bit of the mantissa in use
    integer, intent(in) :: tag, i, j
    value = real(tag * 100003 + i * 1009 + j * 17, dp) / 7.0_dp + 1.0_dp / (1.0_dp + i + 3.0_dp * j)
  end function value

  ! The descriptor fields and the local shape; LLD = max(1, local rows) + 1 on odd ranks.
  subroutine local_shape(ctxt, m, n, mb, nb, rsrc, csrc, desc, myr, myc, nprow, npcol, lrows, lcols)
    integer, intent(in) :: ctxt, m, n, mb, nb, rsrc, csrc
    integer, intent(out) :: desc(9), myr, myc, nprow, npcol, lrows, lcols
    integer :: lld
    call blacs_gridinfo(ctxt, nprow, npcol, myr, myc)
    lrows = 0
    lcols = 0
    lld = 1
    if (myr >= 0 .and. myc >= 0 .and. myr < nprow .and. myc < npcol) then
      lrows = numroc(m, mb, myr, rsrc, nprow)
      lcols = numroc(n, nb, myc, csrc, npcol)
      lld = max(1, lrows) + mod(me, 2)
      desc = [1, ctxt, m, n, mb, nb, rsrc, csrc, lld]
    else
      myr = -1
      myc = -1
      desc = [1, -1, m, n, mb, nb, rsrc, csrc, lld]
    end if
  end subroutine local_shape

  subroutine dmake(x, ctxt, tag, m, n, mb, nb, rsrc, csrc)
    type(dmat), intent(out) :: x
    integer, intent(in) :: ctxt, tag, m, n, mb, nb, rsrc, csrc
    integer :: i, j, il, jl
    call local_shape(ctxt, m, n, mb, nb, rsrc, csrc, x%desc, x%myr, x%myc, x%nprow, x%npcol, x%lrows, x%lcols)
    allocate (x%glob(m, n))
    do j = 1, n
      do i = 1, m
        x%glob(i, j) = value(tag, i - 1, j - 1)
      end do
    end do
    allocate (x%loc(x%desc(9), max(1, x%lcols)))
    x%loc = dpad
    do jl = 1, x%lcols
      do il = 1, x%lrows
        x%loc(il, jl) = x%glob(indxl2g(il, mb, x%myr, rsrc, x%nprow), indxl2g(jl, nb, x%myc, csrc, x%npcol))
      end do
    end do
  end subroutine dmake

  subroutine smake(x, ctxt, tag, m, n, mb, nb, rsrc, csrc)
    type(smat), intent(out) :: x
    integer, intent(in) :: ctxt, tag, m, n, mb, nb, rsrc, csrc
    integer :: i, j, il, jl
    call local_shape(ctxt, m, n, mb, nb, rsrc, csrc, x%desc, x%myr, x%myc, x%nprow, x%npcol, x%lrows, x%lcols)
    allocate (x%glob(m, n))
    do j = 1, n
      do i = 1, m
        x%glob(i, j) = real(value(tag, i - 1, j - 1), sp)
      end do
    end do
    allocate (x%loc(x%desc(9), max(1, x%lcols)))
    x%loc = spad
    do jl = 1, x%lcols
      do il = 1, x%lrows
        x%loc(il, jl) = x%glob(indxl2g(il, mb, x%myr, rsrc, x%nprow), indxl2g(jl, nb, x%myc, csrc, x%npcol))
      end do
    end do
  end subroutine smake

  ! The global effect of B(ib:, jb:) := A(ia:, ja:) on the replicas.
  subroutine dcopy_global(a, ia, ja, b, ib, jb, m, n)
    type(dmat), intent(in) :: a
    type(dmat), intent(inout) :: b
    integer, intent(in) :: ia, ja, ib, jb, m, n
    b%glob(ib:ib + m - 1, jb:jb + n - 1) = a%glob(ia:ia + m - 1, ja:ja + n - 1)
  end subroutine dcopy_global

  subroutine scopy_global(a, ia, ja, b, ib, jb, m, n)
    type(smat), intent(in) :: a
    type(smat), intent(inout) :: b
    integer, intent(in) :: ia, ja, ib, jb, m, n
    b%glob(ib:ib + m - 1, jb:jb + n - 1) = a%glob(ia:ia + m - 1, ja:ja + n - 1)
  end subroutine scopy_global

  ! Bit for bit: local elements equal the replica, padding rows are untouched.
  subroutine dcheck(x, what)
    type(dmat), intent(in) :: x
    character(*), intent(in) :: what
    integer :: il, jl, bad
    real(dp) :: want
    if (x%myr < 0) return
    bad = 0
    do jl = 1, x%lcols
      do il = 1, x%desc(9)
        want = dpad
        if (il <= x%lrows) want = x%glob(indxl2g(il, x%desc(5), x%myr, x%desc(7), x%nprow), &
                                         indxl2g(jl, x%desc(6), x%myc, x%desc(8), x%npcol))
        nchecked = nchecked + 1
        if (transfer(x%loc(il, jl), 0_8) /= transfer(want, 0_8)) then
          bad = bad + 1
          if (bad <= 3) write (0, '(a,i0,a,a,a,i0,a,i0,a,es24.16,a,es24.16)') 'rank ', me, ': ', what, &
            ': local (', il, ',', jl, ') = ', x%loc(il, jl), ', expected ', want
        end if
      end do
    end do
    nfail = nfail + bad
  end subroutine dcheck

  subroutine scheck(x, what)
    type(smat), intent(in) :: x
    character(*), intent(in) :: what
    integer :: il, jl, bad
    real(sp) :: want
    if (x%myr < 0) return
    bad = 0
    do jl = 1, x%lcols
      do il = 1, x%desc(9)
        want = spad
        if (il <= x%lrows) want = x%glob(indxl2g(il, x%desc(5), x%myr, x%desc(7), x%nprow), &
                                         indxl2g(jl, x%desc(6), x%myc, x%desc(8), x%npcol))
        nchecked = nchecked + 1
        if (transfer(x%loc(il, jl), 0) /= transfer(want, 0)) then
          bad = bad + 1
          if (bad <= 3) write (0, '(a,i0,a,a,a,i0,a,i0,a,es16.8,a,es16.8)') 'rank ', me, ': ', what, &
            ': local (', il, ',', jl, ') = ', x%loc(il, jl), ', expected ', want
        end if
      end do
    end do
    nfail = nfail + bad
  end subroutine scheck

  subroutine ddump(u, x, what)
    integer, intent(in) :: u
    type(dmat), intent(in) :: x
    character(*), intent(in) :: what
    integer :: il, jl
    write (u, '(a,a,9(1x,i0))') what, ' desc', x%desc
    if (x%myr < 0) return
    do jl = 1, x%lcols
      do il = 1, x%desc(9)
        write (u, '(z16.16)') transfer(x%loc(il, jl), 0_8)
      end do
    end do
  end subroutine ddump

  subroutine sdump(u, x, what)
    integer, intent(in) :: u
    type(smat), intent(in) :: x
    character(*), intent(in) :: what
    integer :: il, jl
    write (u, '(a,a,9(1x,i0))') what, ' desc', x%desc
    if (x%myr < 0) return
    do jl = 1, x%lcols
      do il = 1, x%desc(9)
        write (u, '(z8.8)') transfer(x%loc(il, jl), 0)
      end do
    end do
  end subroutine sdump

end module gemr2d_matrices

program gemr2d_program_f
  use gemr2d_matrices
  implicit none
  integer :: np, sys, g22, g14, g31, gall, u, ios, nprow, npcol, myr, myc
  integer :: map14(1, 4), map31(3, 1)
  character(4096) :: prefix, path
  type(dmat) :: a, b, c
  type(smat) :: s1, s2, s3

  call blacs_pinfo(me, np)
  if (np /= 4 .or. command_argument_count() /= 1) then
    if (me == 0) write (0, '(a)') 'usage: mpiexec -n 4 gemr2d_program_f <dump prefix>'
    call blacs_exit(0)
    error stop 2
  end if
  call get_command_argument(1, prefix)

  ! Grids: 2x2; 1x4 on ranks 3,2,1,0; 3x1 on ranks 1,3,0; 1x4 in rank order spanning all.
  call blacs_get(-1, 0, sys)
  g22 = sys
  call blacs_gridinit(g22, 'R', 2, 2)
  map14 = reshape([3, 2, 1, 0], [1, 4])
  g14 = sys
  call blacs_gridmap(g14, map14, 1, 1, 4)
  map31 = reshape([1, 3, 0], [3, 1])
  g31 = sys
  call blacs_gridmap(g31, map31, 3, 3, 1)
  gall = sys
  call blacs_gridinit(gall, 'R', 1, 4)

  ! Double: 2x2 -> 1x4 -> 3x1 -> back into A on 2x2.
  call dmake(a, g22, 1, 33, 27, 5, 4, 1, 0)
  call dmake(b, g14, 2, 31, 30, 3, 2, 0, 3)
  call dmake(c, g31, 3, 29, 25, 4, 25, 1, 0)
  call pdgemr2d(28, 22, a%loc, 4, 3, a%desc, b%loc, 2, 7, b%desc, gall)
  call dcopy_global(a, 4, 3, b, 2, 7, 28, 22)
  call dcheck(b, 'A(4:31,3:24) -> B(2:29,7:28) on 1x4')
  call pdgemr2d(26, 19, b%loc, 3, 8, b%desc, c%loc, 2, 5, c%desc, gall)
  call dcopy_global(b, 3, 8, c, 2, 5, 26, 19)
  call dcheck(c, 'B -> C on 3x1')
  call pdgemr2d(20, 15, c%loc, 5, 6, c%desc, a%loc, 10, 9, a%desc, gall)
  call dcopy_global(c, 5, 6, a, 10, 9, 20, 15)
  call dcheck(a, 'C -> A(10:29,9:23) on 2x2')

  ! Single: 3x1 -> 2x2 -> 1x4.
  call smake(s1, g31, 4, 17, 23, 2, 3, 2, 0)
  call smake(s2, g22, 5, 19, 21, 4, 1, 0, 1)
  call smake(s3, g14, 6, 12, 40, 12, 3, 0, 1)
  call psgemr2d(15, 20, s1%loc, 2, 3, s1%desc, s2%loc, 5, 2, s2%desc, gall)
  call scopy_global(s1, 2, 3, s2, 5, 2, 15, 20)
  call scheck(s2, 'S1 -> S2 on 2x2')
  call psgemr2d(11, 18, s2%loc, 6, 1, s2%desc, s3%loc, 2, 20, s3%desc, gall)
  call scopy_global(s2, 6, 1, s3, 2, 20, 11, 18)
  call scheck(s3, 'S2 -> S3 on 1x4')
  call scheck(s1, 'S1 unchanged')

  write (path, '(a,a,i0)') trim(prefix), '.', me
  open (newunit=u, file=trim(path), status='replace', action='write', iostat=ios)
  if (ios /= 0) then
    write (0, '(a,i0,a,a)') 'rank ', me, ': cannot write ', trim(path)
    call blacs_abort(gall, 2)
  end if
  call ddump(u, a, 'A')
  call ddump(u, b, 'B')
  call ddump(u, c, 'C')
  call sdump(u, s1, 'S1')
  call sdump(u, s2, 'S2')
  call sdump(u, s3, 'S3')
  close (u)

  call igsum2d(gall, 'A', ' ', 1, 1, nfail, 1, -1, -1)
  call igsum2d(gall, 'A', ' ', 1, 1, nchecked, 1, -1, -1)
  if (me == 0) write (*, '(a,i0,a,i0,a)') 'gemr2d_program_f: ', nchecked, ' local elements checked, ', nfail, ' wrong'
  call blacs_gridinfo(g14, nprow, npcol, myr, myc)
  if (myr >= 0) call blacs_gridexit(g14)
  call blacs_gridinfo(g31, nprow, npcol, myr, myc)
  if (myr >= 0) call blacs_gridexit(g31)
  call blacs_gridexit(g22)
  call blacs_gridexit(gall)
  call blacs_exit(0)
  if (nfail > 0) error stop 1
end program gemr2d_program_f
