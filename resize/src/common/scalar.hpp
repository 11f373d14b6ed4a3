// SPDX-License-Identifier: BSD-3-Clause
// The element type of a registered matrix inside the session: redist's one enum
// (malleable/redist/matrix.hpp) with its size, name and letter, named here as the
// session's code names them.
#pragma once

#include "malleable/redist/matrix.hpp"

namespace resize::detail {

using redist::Scalar;
using redist::scalar_bytes;
using redist::scalar_letter;
using redist::scalar_name;
using redist::scalar_of;

}  // namespace resize::detail
