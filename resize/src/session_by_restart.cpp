// SPDX-License-Identifier: BSD-3-Clause
// A resize decided by the policy but carried out by checkpoint, exit and restart with
// the new process count (issue 20 §3): the decision without the act.
#include "session_impl.hpp"

#include <cmath>

namespace resize {

Decision Session::next_decision() {
  auto& I = *impl_;
  Decision d;
  if (I.root()) {
    d = I.ask_policy();
    if (d.action != Action::None && (d.nprow < 1 || d.npcol < 1)) {
      const int p = d.procs > 0 ? d.procs : I.shape.size();
      int r = static_cast<int>(std::sqrt(static_cast<double>(p)));
      while (r > 1 && p % r != 0) --r;
      d.nprow = std::max(1, r);
      d.npcol = p / d.nprow;
    }
    if (d.action != Action::None) d.procs = d.nprow * d.npcol;
  }
  int v[4] = {static_cast<int>(d.action), d.procs, d.nprow, d.npcol};
  MPI_Bcast(v, 4, MPI_INT, 0, I.world);
  // World rank 0 keeps the whole decision (placement, hosts, powers) so that it can still
  // be carried out in place (resize_now); everyone has the action and the target grid.
  Decision out = I.root() ? d : Decision{};
  out.action = static_cast<Action>(v[0]);
  out.procs = v[1];
  out.nprow = v[2];
  out.npcol = v[3];
  out.reason = d.reason;
  return out;
}

const std::vector<std::string>& Session::rank_hosts() const { return impl_->rank_hosts; }

}  // namespace resize
