// SPDX-License-Identifier: BSD-3-Clause
// The element type of a registered matrix, by ScaLAPACK's prefix letter (pure: the
// hand-over carries it, the movers act on it), with its size and its name.
#pragma once

#include <complex>
#include <cstddef>

namespace resize::detail {

enum class Scalar { S, D, C, Z };

template <class T> constexpr Scalar scalar_of();
template <> constexpr Scalar scalar_of<float>() { return Scalar::S; }
template <> constexpr Scalar scalar_of<double>() { return Scalar::D; }
template <> constexpr Scalar scalar_of<std::complex<float>>() { return Scalar::C; }
template <> constexpr Scalar scalar_of<std::complex<double>>() { return Scalar::Z; }

constexpr std::size_t scalar_bytes(Scalar t) {
  switch (t) {
    case Scalar::S: return sizeof(float);
    case Scalar::D: return sizeof(double);
    case Scalar::C: return sizeof(std::complex<float>);
    case Scalar::Z: return sizeof(std::complex<double>);
  }
  return 0;
}

constexpr const char* scalar_name(Scalar t) {
  switch (t) {
    case Scalar::S: return "float";
    case Scalar::D: return "double";
    case Scalar::C: return "complex<float>";
    case Scalar::Z: return "complex<double>";
  }
  return "?";
}

}  // namespace resize::detail
