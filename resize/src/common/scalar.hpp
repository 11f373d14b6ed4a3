// SPDX-License-Identifier: BSD-3-Clause
// The element type of a registered matrix (Scalar, by ScaLAPACK's prefix letter, in the
// public matrix_desc.hpp; pure: the hand-over carries it, the movers act on it), with its
// size, its name and its letter.
#pragma once

#include <complex>
#include <cstddef>

#include "malleable/resize/matrix_desc.hpp"

namespace resize::detail {

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

// ScaLAPACK's prefix letter of an element type (s, d, c, z): the one conversion to the
// checkpoint and level files' spelling of it.
constexpr char scalar_letter(Scalar t) {
  switch (t) {
    case Scalar::S: return 's';
    case Scalar::D: return 'd';
    case Scalar::C: return 'c';
    case Scalar::Z: return 'z';
  }
  return '?';
}

}  // namespace resize::detail
