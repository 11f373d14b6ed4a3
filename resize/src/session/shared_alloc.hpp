// SPDX-License-Identifier: BSD-3-Clause
// Where the session's own arrays come from (move/pages.hpp, SharedAlloc): redist's mapped
// arrays under RESIZE_MAPPED_ARRAYS=on (docs/reference/mapped-arrays.md), else the ordinary
// allocation (calloc, PageArray's own mappings). Internal to the resize library.
#pragma once

#include "common/config.hpp"
#include "malleable/redist/mapped.h"
#include "move/pages.hpp"

namespace resize::detail {

inline SharedAlloc shared_alloc(const config::Session& s) {
  return s.mapped_arrays ? SharedAlloc{&redist_alloc, &redist_free} : SharedAlloc{};
}

}  // namespace resize::detail
