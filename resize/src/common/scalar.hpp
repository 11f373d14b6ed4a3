// SPDX-License-Identifier: BSD-3-Clause
// The element type of a registered matrix, by ScaLAPACK's prefix letter (pure: the
// hand-over carries it, the movers act on it).
#pragma once

namespace resize::detail {

enum class Scalar { S, D, C, Z };

}  // namespace resize::detail
