! SPDX-License-Identifier: BSD-3-Clause
! A plain ScaLAPACK program in Fortran (the "before" of docs/guide/porting.md): x <- A x + b with
! PDGEMV on a fixed 2x2 grid, checked against the same recurrence computed serially.
!   mpiexec -n 4 porting_plain_f
program plain
  use mpi
  implicit none
  integer, parameter :: n = 120, nb = 16, iters = 8
  integer :: ierr, me, np, ctxt, nprow, npcol, myrow, mycol, info, ml, nl, lld, il, jl, it, i, j
  integer :: desca(9), descx(9)
  real(8), allocatable :: a(:, :), x(:), y(:)
  real(8) :: ref(n), tmp(n), err, max_err
  integer, external :: numroc, indxl2g

  call MPI_Init(ierr)
  call blacs_pinfo(me, np)
  call blacs_get(-1, 0, ctxt)
  call blacs_gridinit(ctxt, 'R', 2, 2)
  call blacs_gridinfo(ctxt, nprow, npcol, myrow, mycol)
  err = 0.0d0
  if (myrow >= 0) then
    ml = numroc(n, nb, myrow, 0, nprow)
    nl = numroc(n, nb, mycol, 0, npcol)
    lld = max(1, ml)
    call descinit(desca, n, n, nb, nb, 0, 0, ctxt, lld, info)
    call descinit(descx, n, 1, nb, 1, 0, 0, ctxt, lld, info)
    allocate (a(lld, max(1, nl)), x(lld), y(lld))
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
    do it = 1, iters
      call pdgemv('N', n, n, 1.0d0, a, 1, 1, desca, x, 1, 1, descx, 1, 0.0d0, y, 1, 1, descx, 1)
      if (mycol == 0) then
        do il = 1, ml
          x(il) = y(il) + b_entry(indxl2g(il, nb, myrow, 0, nprow))
        end do
      end if
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
    if (mycol == 0) then
      do il = 1, ml
        err = max(err, abs(x(il) - ref(indxl2g(il, nb, myrow, 0, nprow))))
      end do
    end if
    call blacs_gridexit(ctxt)
  end if
  call MPI_Allreduce(err, max_err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (me == 0) print '(A,I0,A,ES9.2,A,A)', 'porting_plain_f: ', iters, ' iterations on 2x2, max error ', &
      max_err, ': ', merge('OK    ', 'FAILED', max_err < 1.0d-12)
  call MPI_Finalize(ierr)
  if (max_err >= 1.0d-12) stop 1

contains

  real(8) function a_entry(i, j)  ! 1-based global indices
    integer, intent(in) :: i, j
    a_entry = sin(0.3d0 * (i - 1) + 0.7d0 * (j - 1)) / n
  end function

  real(8) function b_entry(i)
    integer, intent(in) :: i
    b_entry = cos(0.1d0 * (i - 1))
  end function

end program plain
