// SPDX-License-Identifier: BSD-3-Clause
// The one place resize reads the environment (config.hpp).
#include "common/config.hpp"

#include <cstdlib>

namespace resize::config {

namespace {
Text text(const char* name) {
  const char* v = std::getenv(name);
  return v ? Text(v) : std::nullopt;
}
bool set_not_empty_not_zero(const Text& v) { return v && !v->empty() && *v != "0"; }

// One reader per section of Config, so that each stays a plain list of variables.
void read_policy(Config& c) {
  c.policy.choice = text("RESIZE_POLICY");
  c.policy.offer = text("RESIZE_OFFER");
  c.policy.history = text("RESIZE_HISTORY");
  c.policy.xdg_cache_home = text("XDG_CACHE_HOME");
  c.policy.home = text("HOME");
  const Text meter = text("RESIZE_METER_KERNELS");
  c.policy.meter_kernels = meter && (*meter == "1" || *meter == "on" || *meter == "yes");
}

void read_slurm(Config& c) {
  c.slurm.job_id = text("SLURM_JOB_ID");
  c.slurm.procs_per_node = text("RESIZE_SLURM_PROCS_PER_NODE");
  c.slurm.min_nodes = text("RESIZE_SLURM_MIN_NODES");
  c.slurm.max_nodes = text("RESIZE_SLURM_MAX_NODES");
  c.slurm.iterations = text("RESIZE_SLURM_ITERATIONS");
  c.slurm.interval = text("RESIZE_SLURM_INTERVAL");
  c.slurm.backoff = text("RESIZE_SLURM_BACKOFF");
  c.slurm.jitter = text("RESIZE_SLURM_JITTER");
  c.slurm.levers.grow = text("RESIZE_SLURM_GROW");
  c.slurm.levers.give_back = text("RESIZE_SLURM_GIVE_BACK");
  c.slurm.shared = text("RESIZE_SLURM_SHARED");
  c.slurm.expansion = text("RESIZE_SLURM_EXPANSION");
  c.slurm.late_daemons = text("RESIZE_SLURM_LATE_DAEMONS");
  c.slurm.home = text("HOME");
  c.slurm.launched_hosts = text("MALLEABLE_RUN_HOSTS");
  c.slurm.arbiter.socket = text("RESIZE_ARBITER");
  c.slurm.arbiter.munge = text("RESIZE_ARBITER_MUNGE");
  c.slurm.arbiter.user = text("RESIZE_ARBITER_USER");
  c.slurm.join = text("RESIZE_SLURM_JOIN");
  c.slurm.join_deadline = text("RESIZE_SLURM_JOIN_DEADLINE");
  c.slurm.job_dir = text("BLACS_DYN_JOB_DIR");
  c.slurm.launcher = text("MALLEABLE_RUN");
}

void read_session(Config& c) {
  c.session.fault = text("RESIZE_FAULT");
  c.session.mover = text("RESIZE_MOVER");
  c.session.move_budget = text("RESIZE_MOVE_BUDGET");
  c.session.check_constant = set_not_empty_not_zero(text("RESIZE_CHECK_CONSTANT"));
  c.session.dry_run = set_not_empty_not_zero(text("RESIZE_DRY_RUN"));
  c.session.background_timeout = text("RESIZE_BACKGROUND_TIMEOUT");
  c.session.remap_timeout = text("RESIZE_REMAP_TIMEOUT");
  c.session.spawn_fallback = text("RESIZE_SPAWN_FALLBACK");
  c.session.spawn_deadline = text("RESIZE_SPAWN_DEADLINE");
  c.session.refresh_after = text("RESIZE_REFRESH_AFTER");
  c.session.expand = text("RESIZE_EXPAND");
  c.session.reconfigure = text("RESIZE_RECONFIGURE");
  c.session.ucx_check = text("RESIZE_UCX_CHECK");
  c.session.mpi_yield_set = text("OMPI_MCA_mpi_yield_when_idle").has_value();
  const Text prefault = text("RESIZE_PREFAULT");
  c.session.prefault = !(prefault && (*prefault == "off" || *prefault == "0"));
  const Text free_on_thread = text("RESIZE_FREE_ON_THREAD");
  c.session.free_on_thread = !(free_on_thread && (*free_on_thread == "off" || *free_on_thread == "0"));
  const Text heap_trim = text("RESIZE_HEAP_TRIM");
  c.session.heap_trim = !(heap_trim && (*heap_trim == "off" || *heap_trim == "0"));

  const Text huge = text("RESIZE_HUGEPAGES");
  if (huge && (*huge == "on" || *huge == "1" || *huge == "yes")) c.session.hugepages = HugePages::On;
  if (huge && (*huge == "off" || *huge == "0" || *huge == "no")) c.session.hugepages = HugePages::Off;
  const Text mapped = text("RESIZE_MAPPED_ARRAYS");
  c.session.mapped_arrays = mapped && (*mapped == "on" || *mapped == "1" || *mapped == "yes");
}

// After read_slurm: MALLEABLE_JOB_ID falls back on SLURM_JOB_ID.
void read_checkpoint(Config& c) {
  c.checkpoint.fault = text("MALLEABLE_CHECKPOINT_FAULT");
  c.checkpoint.independent_io = text("MALLEABLE_CHECKPOINT_IO") == Text("independent");
  c.checkpoint.blocks = text("MALLEABLE_CHECKPOINT_BLOCKS");
  c.checkpoint.direct_chunks = text("MALLEABLE_CHECKPOINT_DIRECT") != Text("0");
  c.checkpoint.format = text("MALLEABLE_CHECKPOINT_FORMAT");
  c.checkpoint.trace = set_not_empty_not_zero(text("MALLEABLE_CHECKPOINT_TRACE"));
  c.checkpoint.levels_trace = text("MALLEABLE_LEVELS_TRACE").has_value();
  c.checkpoint.node_map = text("MALLEABLE_NODE_MAP");
  c.checkpoint.switch_map = text("MALLEABLE_SWITCH_MAP");
  c.checkpoint.job_id = text("MALLEABLE_JOB_ID");
  if (!c.checkpoint.job_id || c.checkpoint.job_id->empty()) c.checkpoint.job_id = c.slurm.job_id;
}
void read_report(Config& c) {
  c.report.bound = text("MALLEABLE_BOUND");
  c.report.bound_copy_bps = text("MALLEABLE_BOUND_COPY_BPS");
  c.report.bound_shm_bps = text("MALLEABLE_BOUND_SHM_BPS");
  c.report.bare_spawn_s = text("MALLEABLE_BARE_SPAWN_S");
  c.report.bare_join_s = text("MALLEABLE_BARE_JOIN_S");
}
}  // namespace

Config read() {
  Config c;
  read_policy(c);
  read_slurm(c);
  read_session(c);
  read_checkpoint(c);
  read_report(c);
  return c;
}

}  // namespace resize::config
