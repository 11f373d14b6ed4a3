// SPDX-License-Identifier: BSD-3-Clause
// Every environment variable resize reads, as one typed value (docs/guide/configuration.md has
// the table: variable, type, default, effect, when it is read). `read()` is the only place
// that looks at the environment, and it is called once per entry, never at use:
//   - a Session, when it is made (a newcomer: when its spawned copy makes it); it keeps
//     the value (SessionState::cfg) and hands its parts the fields they need;
//   - the C API's resize_create (RESIZE_MOVER, RESIZE_MOVE_BUDGET, RESIZE_POLICY), beside its Session;
//   - the policies, when they are made (the offer scheduler, make_slurm_policy);
//   - resize_history_location, at its call; the kernel meter's switch, when the library
//     is loaded.
// A variable set after that (a test's setenv) counts from the next entry on. Values whose
// parsing can fail stay text here and are parsed where they are used, so a bad value is
// reported by the operation that needs it, with that operation's message.
#pragma once

#include <optional>
#include <string>

namespace resize::config {

// An environment variable as set: nullopt when unset, else its text (possibly empty).
using Text = std::optional<std::string>;

// RESIZE_HUGEPAGES: which of the session's own new arrays are on huge pages (move/pages.hpp,
// huge_pages_for): none, level recovery's only (the default), or all of them.
enum class HugePages { Off, Auto, On };

// The policies (policy/): offers, the run history, the kernel meter.
struct Policies {
  Text choice;                 // RESIZE_POLICY: the run's policy in place of the program's (policy_setting.hpp)
  Text offer;                  // RESIZE_OFFER: the offer text of the `offer` policy without a file
  Text history;                // RESIZE_HISTORY: history file, or "off"/"" for none
  Text xdg_cache_home;         // XDG_CACHE_HOME: the default history and cost-model folder
  Text home;                   // HOME: the fallback of XDG_CACHE_HOME
  bool meter_kernels = false;  // RESIZE_METER_KERNELS in {1, on, yes}
};

// The Slurm policy (policy/slurm*): the job and its limits, all text (parsed with errors).
struct Slurm {
  Text job_id;          // SLURM_JOB_ID
  Text procs_per_node;  // RESIZE_SLURM_PROCS_PER_NODE
  Text min_nodes;       // RESIZE_SLURM_MIN_NODES
  Text max_nodes;       // RESIZE_SLURM_MAX_NODES
  Text iterations;      // RESIZE_SLURM_ITERATIONS
  Text interval;        // RESIZE_SLURM_INTERVAL (seconds)
  Text backoff;         // RESIZE_SLURM_BACKOFF (seconds)
  Text jitter;          // RESIZE_SLURM_JITTER (fraction of the interval, < 0.9)
  struct Levers {
    Text grow;          // RESIZE_SLURM_GROW: on (the default) or off: never add nodes
    Text give_back;     // RESIZE_SLURM_GIVE_BACK: on (the default) or off: never give nodes back
  } levers;
  Text shared;          // RESIZE_SLURM_SHARED: the jobs' shared directory, or off
  Text expansion;       // RESIZE_SLURM_EXPANSION: auto, on or off
  Text late_daemons;    // RESIZE_SLURM_LATE_DAEMONS: on or off (Open MPI 4.1: off)
  Text home;            // HOME: the shared directory's default parent
  Text launched_hosts;  // MALLEABLE_RUN_HOSTS: the hosts malleable-run placed the job on
  struct Arbiter {
    Text socket;        // RESIZE_ARBITER: the arbiter daemon's socket (malleable-arbiterd)
    Text munge;         // RESIZE_ARBITER_MUNGE: munged's socket for the arbiter's credentials
    Text user;          // RESIZE_ARBITER_USER: who the arbiter runs as (its replies' uid)
  } arbiter;
  Text join;            // RESIZE_SLURM_JOIN: auto or off (growth by expander jobs)
  Text join_deadline;   // RESIZE_SLURM_JOIN_DEADLINE: seconds an expander's launch has to ask to join
  Text job_dir;         // BLACS_DYN_JOB_DIR: the job's directory (malleable-run --job-dir)
  Text launcher;        // MALLEABLE_RUN: malleable-run's path, exported by it
};

// The session (session/, background/, common/fault).
struct Session {
  Text fault;                   // RESIZE_FAULT: a fault to inject (common/fault.hpp)
  Text mover;                   // RESIZE_MOVER: the C API's mover
  Text move_budget;             // RESIZE_MOVE_BUDGET: the C API's move budget
  bool check_constant = false;  // RESIZE_CHECK_CONSTANT set, not empty and not "0"
  bool dry_run = false;         // RESIZE_DRY_RUN set, not empty and not "0": remap points print their plan, resize nothing
  Text background_timeout;      // RESIZE_BACKGROUND_TIMEOUT: seconds a newcomer waits at most
  Text remap_timeout;           // RESIZE_REMAP_TIMEOUT: seconds of the arrival check at a remap point
  Text spawn_fallback;          // RESIZE_SPAWN_FALLBACK: on/off, the checkpoint before a spawn
  Text spawn_deadline;          // RESIZE_SPAWN_DEADLINE: FLOOR[:FACTOR[:CAP]] of a spawn's deadline
  Text refresh_after;           // RESIZE_REFRESH_AFTER: processes a launch spawns before an expansion by restart
  Text expand;                  // RESIZE_EXPAND: auto, spawn or join (how expansions bring processes)
  Text reconfigure;             // RESIZE_RECONFIGURE: auto, merge or respawn (policy/reconfigure.hpp)
  Text ucx_check;               // RESIZE_UCX_CHECK: auto, on or off (policy/generation_reach.hpp)
  bool mpi_yield_set = false;   // OMPI_MCA_mpi_yield_when_idle is set: a respawn leaves Open MPI's yield alone
  bool prefault = true;         // RESIZE_PREFAULT is not "off" or "0": the move's arrays faulted in ahead
  bool free_on_thread = true;   // RESIZE_FREE_ON_THREAD is not "off" or "0": the old arrays freed after the move
  bool heap_trim = true;        // RESIZE_HEAP_TRIM is not "off" or "0": free heap given back after each resize
  HugePages hugepages = HugePages::Auto;  // RESIZE_HUGEPAGES on/1/yes, off/0/no or auto (else this default)
  bool mapped_arrays = false;  // RESIZE_MAPPED_ARRAYS on/1/yes: the session's arrays from redist_alloc
};

// Checkpoints (checkpoint/).
struct Checkpoint {
  Text fault;                  // MALLEABLE_CHECKPOINT_FAULT
  bool independent_io = false; // MALLEABLE_CHECKPOINT_IO=independent
  Text blocks;                 // MALLEABLE_CHECKPOINT_BLOCKS: always, never, or auto
  bool direct_chunks = true;   // MALLEABLE_CHECKPOINT_DIRECT is not "0"
  Text format;                 // MALLEABLE_CHECKPOINT_FORMAT: the format version to write
  bool trace = false;          // MALLEABLE_CHECKPOINT_TRACE set, not empty and not "0"
  bool levels_trace = false;   // MALLEABLE_LEVELS_TRACE set
  Text node_map;               // MALLEABLE_NODE_MAP
  Text switch_map;             // MALLEABLE_SWITCH_MAP
  Text job_id;                 // MALLEABLE_JOB_ID, else SLURM_JOB_ID
};

// The run report's bounds (report/bounds.cpp, resize_bounds): read when the report is made.
struct Report {
  Text bound;           // MALLEABLE_BOUND: "off": no "bound" in the resizes' JSON
  Text bound_copy_bps;  // MALLEABLE_BOUND_COPY_BPS: bytes/s per rank of a copy, all ranks at once
  Text bound_shm_bps;   // MALLEABLE_BOUND_SHM_BPS: bytes/s per rank between ranks of a node
  Text bare_spawn_s;    // MALLEABLE_BARE_SPAWN_S: a bare spawn of the same processes, seconds
  Text bare_join_s;     // MALLEABLE_BARE_JOIN_S: a bare join of the same processes, seconds
};

struct Config {
  Policies policy;
  Slurm slurm;
  Session session;
  Checkpoint checkpoint;
  Report report;
};

// The environment as it is now (the entries above, once each).
Config read();

}  // namespace resize::config
