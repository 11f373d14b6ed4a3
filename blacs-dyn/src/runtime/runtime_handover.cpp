// SPDX-License-Identifier: BSD-3-Clause
// The expansion's hand-over (HandOver, handover.hpp): after an expansion, rank 0's bytes
// (the application's state) reach every process of the grown world, the newcomers
// included, each rank's buffer checked first.
#include "runtime/handover.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <optional>
#include <string>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable_internal/collective.hpp"

namespace blacs_dyn {

using namespace detail;

HandOver::HandOver(Runtime& rt, const BackgroundExpansion* bg) : bg_(bg) {
  rt.ensure_init();
  rt.require_active("blacs_dyn_share_state", bg);
  world_ = rt.priv(bg);
  rank_ = rt.rank(bg);
}

void HandOver::share(void* buf, std::size_t* len, std::size_t cap) {
  const MPI_Comm w = world_;
  const int r = rank_;
  std::optional<Error> err;
  unsigned long long n = 0;
  if (r == 0) {
    if (!len) err = Error(BLACS_DYN_ERR_ARG, "len is NULL on rank 0");
    else n = *len;
    if (!err && n > 0 && !buf) err = Error(BLACS_DYN_ERR_ARG, "buf is NULL on rank 0 with len " + std::to_string(n));
  }
  const auto checked = [](int rc, const char* what) { check(rc, what); };
  n = malleable::collective::broadcast_length(w, 0, n, checked);
  if (r != 0 && !err) {
    if (!len) err = Error(BLACS_DYN_ERR_ARG, "len is NULL on rank " + std::to_string(r));
    else if (n > cap)
      err = Error(BLACS_DYN_ERR_ARG, "state of " + std::to_string(n) + " bytes exceeds cap " +
                                    std::to_string(cap) + " on rank " + std::to_string(r));
    else if (n > 0 && !buf) err = Error(BLACS_DYN_ERR_ARG, "buf is NULL on rank " + std::to_string(r));
  }
  agree(w, err, bg_);
  malleable::collective::broadcast_chunks(w, 0, static_cast<char*>(buf), n, checked);
  if (r != 0) *len = static_cast<std::size_t>(n);
}

}  // namespace blacs_dyn
