// SPDX-License-Identifier: BSD-3-Clause
// The one place blacs-dyn reads the environment (config.hpp).
#include "platform/config.hpp"

#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace blacs_dyn {

namespace {
Text text(const char* name) {
  const char* v = std::getenv(name);
  return v ? Text(v) : std::nullopt;
}
}  // namespace

bool truthy(const char* v) {
  return v && (!std::strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
               !strcasecmp(v, "on"));
}

Config read_config() {
  Config c;
  c.join = text("BLACS_DYN_JOIN");
  c.setup_file = text("BLACS_SETUP_FILE");
  c.join_timeout = text("BLACS_DYN_JOIN_TIMEOUT");
  c.max_procs = text("BLACS_DYN_MAX_PROCS");
  c.slot_check = text("BLACS_DYN_SLOT_CHECK") != Text("0");
  c.spawn = text("BLACS_DYN_SPAWN");
  c.allow_any_scalapack = text("BLACS_DYN_ALLOW_ANY_SCALAPACK").has_value();
  c.verbose = truthy(std::getenv("BLACS_DYN_VERBOSE"));
  c.trace = text("BLACS_DYN_TRACE").has_value();
  c.keep_pmix_gds = text("BLACS_DYN_PMIX_GDS") == Text("keep");
  c.keep_sharedfp = text("BLACS_DYN_SHAREDFP") == Text("keep");
  c.pml = text("BLACS_DYN_PML");
  c.fault = text("BLACS_DYN_FAULT");
  c.leave_wait = text("BLACS_DYN_LEAVE_WAIT");
  for (const char* v : {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"})
    if (Text u = text(v); u && !u->empty()) {
      c.pmix_server_uri = u;
      break;
    }
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (Text r = text(v); r && !r->empty()) {
      c.launcher_rank = r;
      break;
    }
  c.ompi_world_rank = text("OMPI_COMM_WORLD_RANK");
  c.ompi_world_size = text("OMPI_COMM_WORLD_SIZE");
  c.path = text("PATH");
  c.oversubscribe = truthy(std::getenv("OMPI_MCA_rmaps_base_oversubscribe"));
  return c;
}

JoinConfig read_join_config() {
  JoinConfig c;
  c.job_dir = text("BLACS_DYN_JOB_DIR");
  c.proof_timeout = text("BLACS_DYN_JOIN_PROOF_TIMEOUT");
  c.launch = text("BLACS_DYN_JOIN_LAUNCH");
  c.start = text("BLACS_DYN_JOIN_START");
  c.incarnation = text("BLACS_DYN_JOB_INCARNATION");
  c.for_run = text("BLACS_DYN_JOIN_INCARNATION");
  c.at_start = truthy(std::getenv("BLACS_DYN_JOIN_AT_START"));
  c.agent = truthy(std::getenv("BLACS_DYN_JOIN_AGENT"));
  c.job_lost = text("BLACS_DYN_JOB_LOST");
  if (c.job_dir && c.job_dir->empty()) c.job_dir.reset();
  if (c.launch && c.launch->empty()) c.launch.reset();
  if (c.start && c.start->empty()) c.start.reset();
  return c;
}

}  // namespace blacs_dyn
