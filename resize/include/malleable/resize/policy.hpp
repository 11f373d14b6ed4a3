// SPDX-License-Identifier: BSD-3-Clause
// Resize policies: what to do at a remap point. Pure, no MPI: the MPI
// shell calls decide() on world rank 0 only and broadcasts the decision.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/schedule.hpp"
#include "malleable/resize/types.hpp"

namespace redist {
struct CostParams;
}

namespace resize {

struct PolicyInput {
  int iteration = 0;        // completed iterations (the remap point follows this one)
  Grid grid;                // current grid
  int world_size = 0;       // processes in the current world
  const Metrics* metrics = nullptr;
  // Node of every rank of the current world; may be null.
  const std::vector<std::string>* rank_hosts = nullptr;
  // Any may be null: measured speeds of the world's ranks, the history of
  // resize times, the machine's calibrated redistribution costs, the mapping powers in
  // use (Session::powers(), by world rank), and the iterations left after this remap
  // point (< 0: the job's length is unknown).
  const SpeedEstimator* speeds = nullptr;
  const ResizeHistory* history = nullptr;
  const redist::CostParams* cost_model = nullptr;
  const std::vector<double>* powers = nullptr;
  int remaining = -1;
  // Growing by joining (docs/guide/joining.md): the launches waiting to join the job now
  // (world rank 0's view of the job's directory); null or empty: none. A policy that
  // started them (the Slurm policy's expander jobs) decides an expansion by them
  // (Decision::by = ExpandBy::Waiting, Decision::launches).
  struct Launch {
    std::string id, host;
    int procs = 0;
  };
  const std::vector<Launch>* waiting = nullptr;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual Decision decide(const PolicyInput& in) = 0;
  // The session reports how the decision went (a failed expansion must not be retried
  // forever; a completed shrink is signalled to the scheduler, §3.1 step iii.5).
  virtual void completed(const Decision&, int /*from_procs*/, bool /*ok*/) {}
  virtual std::string name() const = 0;
  // Whether this policy decides on the launches waiting to join the job (PolicyInput::
  // waiting; the Slurm policy, whose expander jobs they are). True: the session fills
  // PolicyInput::waiting and leaves the launches to the policy. False (the default): the
  // session leaves PolicyInput::waiting empty and, at a remap point where the policy
  // decided nothing, expands by every launch waiting (docs/guide/joining.md).
  virtual bool decides_on_waiting_launches() const { return false; }
  // A respawn (docs/reference/apps.md, "Merge or respawn") ends world rank 0, where the
  // policy runs: its state goes to the new rank 0's policy (made by the same program) as
  // these bytes, given to restore() there. A policy that cannot hand its state over returns
  // nothing (the default): the session then resizes it by merge, never by respawn.
  virtual std::optional<std::string> state() const { return std::nullopt; }
  virtual void restore(const std::string& /*state*/) {}
};

// Never resizes (a fixed-grid run).
class FixedPolicy final : public Policy {
 public:
  Decision decide(const PolicyInput&) override { return Decision::none(); }
  std::string name() const override { return "fixed"; }
  std::optional<std::string> state() const override { return std::string(); }  // none
};

// Follows a Schedule; deterministic, used by the tests and the demo.
class ScriptedPolicy final : public Policy {
 public:
  explicit ScriptedPolicy(Schedule s) : schedule_(std::move(s)), ran_(schedule_.size(), 0) {}
  Decision decide(const PolicyInput& in) override;
  std::string name() const override { return "scripted"; }
  const Schedule& schedule() const { return schedule_; }
  // The entries no remap point reached so far (the session warns about them at the end).
  Schedule not_run() const;
  // Which entries ran: one character per entry ('1' ran, '0' not); restore() takes the same
  // (a text of another length is an Error).
  std::optional<std::string> state() const override;
  void restore(const std::string& state) override;

 private:
  Schedule schedule_;
  std::vector<char> ran_;
};

// The scheduler side of the thesis's negotiation (steps ii and iii):
//   expand:  scheduler offers up to N more -> app picks k <= N -> scheduler confirms k;
//   shrink:  scheduler asks for at least M back -> app releases k >= M (redistributing
//            first) -> app signals completion so the scheduler can reuse them.
// A real resource manager implements this; the file/env stand-in below is for the demo.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Step 1.b: performance data for the previous step, sent with every resize request.
  virtual void report(int /*procs*/, double /*iteration_seconds*/) {}
  // How many more processes the application may take now (0: none).
  virtual int expand_offer(int current_procs) = 0;
  // The application's pick; true if the scheduler still grants it.
  virtual bool confirm_expand(int current_procs, int extra) = 0;
  // Minimum number of processes the application must give back now (0: none).
  virtual int shrink_request(int current_procs) = 0;
  // The application finished releasing `released` processes.
  virtual void released(int released) = 0;
};

// A pool of `available` free processes; a release request can be posted (tests, demo).
class PoolScheduler final : public Scheduler {
 public:
  explicit PoolScheduler(int available) : free_(available) {}
  int expand_offer(int) override { return free_; }
  bool confirm_expand(int, int extra) override;
  int shrink_request(int) override { return want_back_; }
  void released(int n) override;
  void request_release(int n) { want_back_ = n; }
  int free_processes() const { return free_; }

 private:
  int free_ = 0, want_back_ = 0;
};

// Stand-in scheduler read from a file (re-read at every remap point) or, if the path is
// empty, from $RESIZE_OFFER (read once, when the scheduler is made). Content: "offer=N"
// and/or "release=M" (tokens separated by spaces, commas or newlines). An offer is granted
// once; a release is honoured once per distinct content of the file, so the demo can
// append "release=3" while the job runs.
class OfferFileScheduler final : public Scheduler {
 public:
  explicit OfferFileScheduler(std::string path);
  int expand_offer(int current) override;
  bool confirm_expand(int, int extra) override;
  int shrink_request(int current) override;
  void released(int n) override;

 private:
  void reload();
  std::string path_, last_content_;
  std::string env_offer_;  // $RESIZE_OFFER when the scheduler was made (an empty path)
  int offer_ = 0, release_ = 0;
  bool release_done_ = false;
};

// Sweet spot: while the scheduler offers processes, expand one grid
// step at a time (one more process row or column, Local2) and measure; as soon as an
// expansion does not improve the (median) iteration time by at least `min_gain` (relative),
// the previous size was the bottom of the U-curve: shrink back to it and stop
// expanding. Shrink requests from the scheduler are always honoured.
class SweetSpotPolicy final : public Policy {
 public:
  struct Options {
    int measure_iters = 2;     // steady-state iterations needed on a size before deciding
    double min_gain = 0.05;    // an expansion must cut the iteration time by 5%
    bool use_dedicated = false;  // judge by the dedicated-core clock instead of wall
    Placement placement = Placement::Local2;
  };
  SweetSpotPolicy(std::shared_ptr<Scheduler> s, Options o) : sched_(std::move(s)), opt_(o) {}
  Decision decide(const PolicyInput& in) override;
  void completed(const Decision& d, int from_procs, bool ok) override;
  std::string name() const override { return "sweetspot"; }

  // The size found to be best so far, and whether the U-curve bottom was reached.
  std::optional<int> sweet_spot() const { return found_ ? std::optional<int>(best_procs_) : std::nullopt; }
  const std::map<int, double>& measured() const { return time_by_procs_; }

 private:
  std::shared_ptr<Scheduler> sched_;
  Options opt_;
  std::map<int, double> time_by_procs_;  // procs -> mean iteration time
  std::map<int, Grid> grid_by_procs_;
  bool found_ = false;
  int best_procs_ = 0;
  int prev_procs_ = 0;  // size before the last expansion
  int last_measured_iteration_ = -1;
};

// Next larger grid when adding one process row or column, keeping it near square:
// 2x2 -> 3x2 -> 3x3 -> 4x3 ... (the local expansion optimiser with the aspect constraint).
Grid next_grid_step(const Grid& g);

// Builds a policy from its command-line name: "fixed", "scripted" (needs `schedule`),
// "sweetspot" (offers from `offer_file` or $RESIZE_OFFER), "slurm" (the job's Slurm
// allocation (cluster/include/malleable/cluster/slurm.hpp); the run's iterations for its
// payoff test: `schedule` "iterations=N", else `total_iterations`, either overridden by
// $RESIZE_SLURM_ITERATIONS).
std::unique_ptr<Policy> make_policy(const std::string& name, const std::string& schedule,
                                    const std::string& offer_file, int total_iterations = 0);

}  // namespace resize
