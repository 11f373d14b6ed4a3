! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module `malleable_redist`: PDGEMR2D-shaped call with standard DESCs, bit-identical to
! ScaLAPACK's PDGEMR2D, and a heterogeneous descriptor with explicit block sizes.
! Run on 4 processes.
program redist_fortran_test
  use mpi
  use malleable_redist
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t, c_double_complex
  implicit none
  integer, parameter :: m = 41, n = 29
  integer :: ierr, me, np, ictxt_a, ictxt_b, sys, nprow, npcol, ar, ac, br, bc, info, failures, total
  integer :: desca(9), descb(9), bad(9), lla, llb, locca, loccb, i, j, ig, jg, p, il
  integer :: usermap(2, 1)
  integer, external :: numroc
  real(c_double), allocatable :: a(:), b_ref(:), b_new(:), h(:)
  complex(c_double_complex), allocatable :: za(:), zb_ref(:), zb_new(:)
  integer(c_int64_t), target :: rblocks(3), cblocks(2)
  type(redist_desc) :: dh, da

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, me, ierr)
  call mpi_comm_size(mpi_comm_world, np, ierr)
  failures = 0
  if (np /= 4) error stop 'run on 4 processes'

  call blacs_get(-1, 0, sys)
  ictxt_a = sys
  call blacs_gridinit(ictxt_a, 'R', 1, 4)
  call blacs_gridinfo(ictxt_a, nprow, npcol, ar, ac)
  usermap(1, 1) = 2
  usermap(2, 1) = 0
  ictxt_b = sys
  call blacs_gridmap(ictxt_b, usermap, 2, 2, 1)   ! B: 2 x 1 on ranks 2 and 0
  br = -1
  bc = -1
  if (ictxt_b >= 0) call blacs_gridinfo(ictxt_b, nprow, npcol, br, bc)

  locca = max(1, numroc(n, 3, ac, 1, 4))
  lla = max(1, numroc(m, 5, ar, 0, 1))
  call descinit(desca, m, n, 5, 3, 0, 1, ictxt_a, lla, info)
  allocate(a(lla * locca))
  do j = 1, locca
     do i = 1, lla
        jg = indx_l2g(j, 3, ac, 1, 4)
        a(i + (j - 1) * lla) = real(i * 1000 + jg, c_double)
     end do
  end do

  if (ictxt_b >= 0) then
     llb = max(1, numroc(m, 4, br, 1, 2))
     loccb = max(1, numroc(n, 6, bc, 0, 1))
     call descinit(descb, m, n, 4, 6, 1, 0, ictxt_b, llb, info)
  else
     llb = 1
     loccb = 1
     descb = 0
     descb(1) = 1
     descb(2) = -1
     descb(3) = m
     descb(4) = n
  end if
  allocate(b_ref(llb * loccb), b_new(llb * loccb))
  b_ref = -1
  b_new = -1
  call pdgemr2d(20, 15, a, 3, 4, desca, b_ref, 7, 2, descb, ictxt_a)
  call redist_pdgemr2d(20, 15, a, 3, 4, desca, b_new, 7, 2, descb, mpi_comm_world, REDIST_DEFAULT, info)
  if (info /= REDIST_SUCCESS) then
     failures = failures + 1
     print *, 'rank', me, 'redist_pdgemr2d failed: ', redist_error_message()
  end if
  if (any(b_ref /= b_new)) then
     failures = failures + 1
     print *, 'rank', me, 'differs from PDGEMR2D'
  end if

  ! A DESC with LLD too small on rank 1 only: every rank gets REDIST_ERR_LLD, B untouched.
  bad = desca
  if (me == 1) bad(9) = 1
  b_new = -3
  call redist_pdgemr2d(20, 15, a, 3, 4, bad, b_new, 7, 2, descb, mpi_comm_world, REDIST_DEFAULT, info)
  if (info /= REDIST_ERR_LLD .or. index(redist_error_message(), 'rank 1') == 0 .or. any(b_new /= -3)) then
     failures = failures + 1
     print *, 'rank', me, 'expected REDIST_ERR_LLD naming rank 1, got', info, ': ', redist_error_message()
  end if

  ! Complex through the same path: bit-identical to PZGEMR2D.
  allocate(za(size(a)), zb_ref(llb * loccb), zb_new(llb * loccb))
  za = cmplx(a, -2 * a, c_double_complex)
  zb_ref = (-1, 0)
  zb_new = (-1, 0)
  call pzgemr2d(17, 11, za, 5, 2, desca, zb_ref, 1, 9, descb, ictxt_a)
  call redist_pzgemr2d(17, 11, za, 5, 2, desca, zb_new, 1, 9, descb, mpi_comm_world, REDIST_CIRCULANT, info)
  if (info /= REDIST_SUCCESS .or. any(zb_ref /= zb_new)) then
     failures = failures + 1
     print *, 'rank', me, 'complex differs from PZGEMR2D: ', redist_error_message()
  end if

  ! Heterogeneous rows 10/25/6 and columns 20/9 on the B grid.
  rblocks = [10_c_int64_t, 25_c_int64_t, 6_c_int64_t]
  cblocks = [20_c_int64_t, 9_c_int64_t]
  call redist_desc_from_scalapack(da, desca, info)
  if (ictxt_b >= 0) then
     call redist_desc_init_blocks(dh, ictxt_b, rblocks, cblocks, 0, 0, 1, info)
     llb = max(1, redist_numroc(dh, REDIST_ROWS, br))
     call redist_desc_init_blocks(dh, ictxt_b, rblocks, cblocks, 0, 0, llb, info)
     loccb = max(1, redist_numroc(dh, REDIST_COLS, bc))
  else
     llb = 1
     loccb = 1
  end if
  allocate(h(llb * loccb))
  h = -1
  call redist_pdgemr2d(m, n, a, 1, 1, da, h, 1, 1, dh, mpi_comm_world, REDIST_MATCHING, info)
  if (info /= REDIST_SUCCESS) then
     failures = failures + 1
     print *, 'rank', me, 'heterogeneous failed: ', redist_error_message()
  end if
  if (ictxt_b >= 0) then
     do j = 1, redist_numroc(dh, REDIST_COLS, bc)
        do i = 1, redist_numroc(dh, REDIST_ROWS, br)
           call redist_l2g(dh, REDIST_ROWS, br, i, ig, info)
           call redist_l2g(dh, REDIST_COLS, bc, j, jg, info)
           call redist_g2l(da, REDIST_ROWS, ig, p, il, info)
           if (h(i + (j - 1) * llb) /= real(il * 1000 + jg, c_double)) then
              failures = failures + 1
              print *, 'rank', me, 'wrong B(', ig, ',', jg, ')'
              exit
           end if
        end do
     end do
  end if

  call mpi_allreduce(failures, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  if (ictxt_b >= 0) call blacs_gridexit(ictxt_b)
  call blacs_gridexit(ictxt_a)
  if (me == 0) print *, 'redist Fortran module: failed checks =', total
  call mpi_finalize(ierr)
  if (total /= 0) error stop 1

contains

  integer function indx_l2g(il_, nb, iproc, isrc, nprocs)
    integer, intent(in) :: il_, nb, iproc, isrc, nprocs
    indx_l2g = nprocs * nb * ((il_ - 1) / nb) + mod(il_ - 1, nb) + mod(nprocs + iproc - isrc, nprocs) * nb + 1
  end function indx_l2g

end program redist_fortran_test
