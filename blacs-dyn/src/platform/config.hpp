// SPDX-License-Identifier: BSD-3-Clause
// Every environment variable blacs-dyn reads, as one typed value (docs/guide/configuration.md
// has the table). `read_config()` is the only place that looks at the environment; it
// reads it each time it is called, so a variable set while the process runs counts from
// the next call on. Values whose parsing can fail stay text and are parsed where they are
// used, with that operation's message. (Release 0.3 dropped the 0.1 spelling BDYN_<name>
// of the BLACS_DYN_<name> settings, docs/reference/naming.md.)
#pragma once

#include <optional>
#include <string>

namespace blacs_dyn {

// An environment variable as set: nullopt when unset, else its text (possibly empty).
using Text = std::optional<std::string>;

struct Config {
  Text join;                     // BLACS_DYN_JOIN: set by the spawner in a newcomer (the level it joins)
  Text setup_file;               // BLACS_SETUP_FILE: the schema file of blacs_setup
  Text join_timeout;             // BLACS_DYN_JOIN_TIMEOUT: seconds a join may take
  Text max_procs;                // BLACS_DYN_MAX_PROCS: the most processes the world may grow to
  bool slot_check = true;        // BLACS_DYN_SLOT_CHECK is not "0"
  Text spawn;                    // BLACS_DYN_SPAWN: "0", "off", "no", "false" disable spawning
  bool allow_any_scalapack = false;  // BLACS_DYN_ALLOW_ANY_SCALAPACK set
  bool verbose = false;          // BLACS_DYN_VERBOSE truthy
  bool trace = false;            // BLACS_DYN_TRACE set
  bool keep_pmix_gds = false;    // BLACS_DYN_PMIX_GDS=keep
  bool keep_sharedfp = false;    // BLACS_DYN_SHAREDFP=keep
  Text pml;                      // BLACS_DYN_PML: "ucx" (shared memory between old and new processes)
  Text fault;                    // BLACS_DYN_FAULT: a fault to inject
  Text leave_wait;               // BLACS_DYN_LEAVE_WAIT: seconds a leaving process waits for its PMIx server
  Text pmix_server_uri;          // PMIX_SERVER_URI41, ..4, ..3, ..21 or ..2 (the first set): the launcher's PMIx server
  Text launcher_rank;            // OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK (the first set, not empty)
  Text ompi_world_rank;          // OMPI_COMM_WORLD_RANK
  Text ompi_world_size;          // OMPI_COMM_WORLD_SIZE
  Text path;                     // PATH: where a program to spawn is looked up
  bool oversubscribe = false;    // OMPI_MCA_rmaps_base_oversubscribe truthy
};

// The environment as it is now.
Config read_config();

// The settings of growing by joining (docs/reference/blacs-dyn.md, "Growing by joining").
struct JoinConfig {
  Text job_dir;       // BLACS_DYN_JOB_DIR: the job's private directory (the job and its launches)
  Text launch;        // BLACS_DYN_JOIN_LAUNCH: set in a launch that joins a running job: its id
  Text start;         // BLACS_DYN_JOIN_START: the job's first launch: the ids of its start's other launches
  Text incarnation;   // BLACS_DYN_JOB_INCARNATION: the job: its run's id (else random)
  Text for_run;       // BLACS_DYN_JOIN_INCARNATION: a launch: the run it joins (else DIR/job's)
  bool at_start = false;  // BLACS_DYN_JOIN_AT_START truthy: a launch of the job's start
  bool agent = false;     // BLACS_DYN_JOIN_AGENT truthy: the job's launcher starts the launches it orders
  Text job_lost;      // BLACS_DYN_JOB_LOST: seconds without the job's heartbeat before a joined launch ends
  Text proof_timeout; // BLACS_DYN_JOIN_PROOF_TIMEOUT: seconds a joining launch has to prove itself
};
JoinConfig read_join_config();

// "1", "true", "yes", "on" (any case but "1").
bool truthy(const char* v);

}  // namespace blacs_dyn
