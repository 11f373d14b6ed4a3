// SPDX-License-Identifier: BSD-3-Clause
// A resize decided by the policy but carried out by checkpoint, exit and restart with
// the new process count: the decision without the act.
#include "session/session_impl.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "checkpoint/by_restart.hpp"
#include "common/broadcast.hpp"
#include "session/expansion_fallback_shell.hpp"

namespace resize {

Decision Session::next_decision() {
  auto& I = *impl_;
  I.arrive();  // a remap point: every process arrived, or the job ends naming who did not
  Decision d;
  if (I.job.root()) {
    d = I.ask_policy();
    if (d.action != Action::None && (d.nprow < 1 || d.npcol < 1)) {
      const int p = d.procs > 0 ? d.procs : I.job.shape.size();
      int r = static_cast<int>(std::sqrt(static_cast<double>(p)));
      while (r > 1 && p % r != 0) --r;
      d.nprow = std::max(1, r);
      d.npcol = p / d.nprow;
    }
    if (d.action != Action::None) d.procs = d.nprow * d.npcol;
  }
  // The whole decision on every process (it can still be carried out in place:
  // resize_now, which broadcasts world rank 0's again).
  return I.broadcast_decision(d);
}

const std::vector<std::string>& Session::rank_hosts() const { return impl_->job.rank_hosts; }

Mechanism parse_mechanism(const std::string& s) {
  if (s == "spawn") return Mechanism::Spawn;
  if (s == "restart") return Mechanism::Restart;
  throw Error("mechanism '" + s + "': expected spawn or restart");
}

ResizeStep Session::remap_or_restart(Mechanism m) {
  auto& I = *impl_;
  ResizeStep step;
  if (!I.ckpts.checkpointing) {
    if (m == Mechanism::Restart)
      throw Error("remap_or_restart: a resize by restart needs a checkpoint directory (call set_checkpointing first)");
    const RemapResult r = remap_point();
    step.action = r.action;
    step.ok = r.ok;
    step.message = r.message;
    step.kind = r.ok && r.action != Action::None ? ResizeStep::Kind::Resized : ResizeStep::Kind::Continue;
    return step;
  }
  const Decision d = next_decision();
  step.action = d.action;
  if (d.action == Action::None) return step;
  const auto& c = I.ckpts.checkpointing->cadence;
  // What the expansion fallback needs to know of the session and the decision.
  const auto fallback_inputs = [&](const Decision& dd) {
    detail::FallbackInputs in;
    in.app = I.opt.app;
    in.iteration = I.iteration;
    in.from_grid = I.job.shape.shape();
    in.nprow = dd.nprow;
    in.npcol = dd.npcol;
    in.nnew = std::max(0, dd.nprow * dd.npcol - I.job.size());
    in.dir = c.dir;
    in.hosts = hosts_after_restart(I.job.rank_hosts, dd);
    in.history = &I.recorder.history.events();
    in.world = I.job.world;
    in.root = I.job.root();
    in.progress = I.opt.progress;
    return in;
  };
  std::optional<detail::ExpansionFallback> fallback;
  if (m == Mechanism::Spawn && !d.new_allocation) {
    // An expansion's spawn may never return: the state before it is secured first and a
    // deadline armed, so that it becomes a resize by restart (expansion_fallback.hpp).
    if (d.action == Action::Expand && !I.bg.in_flight && I.bg.mode == Background::Off)
      fallback.emplace(fallback_inputs(d), [&](double* t) {
        const std::string have = detail::checkpoint_of_iteration(I.ckpts.checkpoints, I.iteration, I.job.root(), I.job.world);
        if (have.empty()) return checkpoint_in(c.dir, c.keep, t);
        *t = -1;  // reused
        return have;
      });
    const RemapResult r = resize_now(d);
    step.ok = r.ok;
    step.message = r.message;
    if (r.ok) {
      if (fallback) fallback->succeeded();
      step.kind = ResizeStep::Kind::Resized;
      return step;
    }
    // A failed expansion, or a refused shrink that was to give nodes back whole (e.g.
    // nodes of the job's first launch, which share MPI_COMM_WORLD with rank 0): by
    // restart on the nodes the decision names. World rank 0 holds the nodes.
    int by_restart = d.action == Action::Expand || !d.hosts.empty();
    MPI_Bcast(&by_restart, 1, MPI_INT, 0, I.job.world);
    if (!by_restart) return step;  // Continue, ok == false
    if (I.job.root()) {
      std::printf("[%s] the %s failed (%s): resizing by restart instead\n", I.opt.app.c_str(),
                  d.action == Action::Expand ? "expansion by spawn" : "shrink in place", r.message.c_str());
      std::fflush(stdout);
    }
  }
  // (the state before a failed expansion was secured before its spawn)
  const std::string file = fallback && fallback->active() ? fallback->file() : checkpoint_in(c.dir, c.keep);
  // World rank 0 writes DIR/<app>.next (as .tmp, renamed): with the nodes the decision
  // names (a shrink's given back, an expansion's added, e.g. by the Slurm policy), the
  // launcher runs the next job on exactly those. A failure is an Error on every process.
  std::string why;
  if (I.job.root()) {
    const std::string next = c.dir + "/" + I.opt.app + ".next";
    try {
      std::ofstream out(next + ".tmp");
      out << next_launch_text(d.nprow, d.npcol, file, hosts_after_restart(I.job.rank_hosts, d));
      // The hosts are not the job's yet: the launcher asks for a new allocation with them.
      if (d.new_allocation) out << "new-allocation\n";
      out.close();
      if (!out) why = "cannot write " + next + ".tmp";
      else if (std::rename((next + ".tmp").c_str(), next.c_str()) != 0) why = "cannot rename " + next + ".tmp to " + next;
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty()) {
      std::printf("[%s] resize by restart after iteration %d: %s -> %dx%d (%d processes); checkpoint %s, exit %d\n",
                  I.opt.app.c_str(), I.iteration, I.job.shape.shape().c_str(), d.nprow, d.npcol, d.procs, file.c_str(),
                  kExitResizeByRestart);
      std::fflush(stdout);
    }
  }
  why = detail::broadcast_text(why, 0, I.job.world);
  if (!why.empty()) throw CheckpointFailed("resize by restart: " + why);
  step.kind = ResizeStep::Kind::ExitForRestart;
  step.ok = true;
  step.checkpoint = file;
  step.message = "restart on " + std::to_string(d.nprow) + "x" + std::to_string(d.npcol) + " from " + file;
  return step;
}

}  // namespace resize
