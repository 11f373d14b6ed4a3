// SPDX-License-Identifier: BSD-3-Clause
// How a transfer travels: as an MPI derived datatype read and written in place
// (PieceType, built from a transfer's runs in O(runs) entries) or packed into a staging
// buffer (packs() decides under Transport::Auto). Internal to redist.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>

#include "local_copy.hpp"
#include "malleable/redist/redistribute.hpp"

namespace redist::exec {

template <class T> MPI_Datatype mpi_type();
template <> inline MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <> inline MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <> inline MPI_Datatype mpi_type<std::complex<float>>() { return MPI_C_FLOAT_COMPLEX; }
template <> inline MPI_Datatype mpi_type<std::complex<double>>() { return MPI_C_DOUBLE_COMPLEX; }

// v as an int for MPI, or Error(Internal) naming `what`.
int narrow(std::int64_t v, const char* what);

// Indexed rows x indexed columns of a column-major array with leading dimension ld: the
// pieces of one transfer, described in place so MPI reads/writes them directly.
class PieceType {
 public:
  PieceType(MPI_Datatype base, std::size_t esize, const Side& s, const Transfer& t);
  ~PieceType();
  PieceType(PieceType&& o) noexcept : type_(o.type_) { o.type_ = MPI_DATATYPE_NULL; }
  PieceType(const PieceType&) = delete;
  PieceType& operator=(const PieceType&) = delete;
  PieceType& operator=(PieceType&&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Whether transfer t travels packed under transport tr (Auto: when its pieces are short).
bool packs(const Transfer& t, Transport tr, std::size_t esize);

}  // namespace redist::exec
