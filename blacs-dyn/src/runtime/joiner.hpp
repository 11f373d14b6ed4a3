// SPDX-License-Identifier: BSD-3-Clause
// A joining launch's side of growing by joining (docs/reference/blacs-dyn.md, "Growing by
// joining"), at MPI_Init in a process started with BLACS_DYN_JOIN_LAUNCH: the request in
// the job's directory, the job's connection accepted, the hand-shake, the newcomers' side
// of the merge, then the rest of the expansion as a process of the grown world. One
// JoiningLaunch per process; a refusal, a call-off or no connection by the deadline ends
// the launch.
#ifndef BLACS_DYN_RUNTIME_JOINER_HPP
#define BLACS_DYN_RUNTIME_JOINER_HPP

namespace blacs_dyn {
class Runtime;

class JoiningLaunch {
 public:
  explicit JoiningLaunch(Runtime& rt) : rt_(rt) {}
  void run();

 private:
  Runtime& rt_;
};

}  // namespace blacs_dyn
#endif
