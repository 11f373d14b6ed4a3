// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's pure core: no process, no file, no MPI. What it reads comes from others
// (the program's .next file, mpiexec's output, Slurm, the environment): every reader is
// bounded and says what is wrong instead of guessing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace launcher {

// The squarest grid P x Q with P <= Q and P * Q = n (n >= 1): the grid gridmap's
// squarest_factorization and choose_topology give with no aspect limit, kept here because
// malleable-run cannot link gridmap: it is one file for both MPI flavours (bin/, component
// common, docs/guide/mpi-flavours.md) while libmalleable_gridmap is built and installed per
// flavour (lib/ or lib/malleable-mpich/), and gridmap stops at 65,536 processes where -n
// goes to 999,999.
std::pair<int, int> squarest(int n);
std::string grid_text(int p, int q);  // "PxQ"

// DIR/<app>.next: "NPROW NPCOL FILE" ("levels": the checkpoint levels), and optionally the
// lines "hosts H1,H2,...", "new-allocation", "spawn-fallback". At most 64 KiB and 256 hosts
// per line are read; P, Q in 1..999999 with P*Q <= 999999.
struct NextFile {
  int p = 0, q = 0;
  std::string file;  // empty for "levels"
  std::string hosts;  // the "hosts" line's list, as written
  bool new_allocation = false;
  bool spawn_fallback = false;
};
// nullopt and `why` set when the text is no .next file.
std::optional<NextFile> parse_next(const std::string& text, std::string* why);
// Whether a line of the text is exactly "spawn-fallback"; the first line's third word.
bool has_spawn_fallback(const std::string& text);
std::string next_from(const std::string& text);

// Open MPI's banner for a process's non-zero exit, left out of a line stream: a block of
// lines between two rules (40 or more '-') holding "terminated normally, but" or "exited
// with non-zero status" is dropped; every other line passes at once. Fed in any chunks.
class BannerFilter {
 public:
  std::string feed(const std::string& chunk);  // what may be shown now
  std::string finish();                        // the rest (an open block, a last partial line)

 private:
  std::string line_(const std::string& line);
  std::string partial_, block_;
  bool in_block_ = false;
};

// The first line of mpiexec's log that says it lost `host` ("... on node H exited on
// signal ...", "... on node H ... killed|terminated", "Remote daemon: ... on node H"),
// blanks squeezed, or "".
std::string lost_line(const std::string& log, const std::string& host);
// sinfo's state (%t) of a node counts as lost: down*, drain*, fail*.
bool lost_state(const std::string& state);

// A word for a POSIX shell's command line: as it is when it holds only [A-Za-z0-9,._+:@%/=-]
// (and is not empty), else in single quotes ('\'' for a quote). Used for the one command
// line a remote shell reads (--join --host through ssh).
std::string shell_quote(const std::string& word);
std::string shell_line(const std::vector<std::string>& argv);

// MALLEABLE_MPIEXEC's words: its first line split at blanks (as bash's `read -a`).
std::vector<std::string> split_words(const std::string& s);

// The variables a job's start saves for its expanders' launches (DIR/environment).
bool saved_variable(const std::string& name);
// DIR/environment read back: NAME=VALUE words, each ended by a NUL, as write_environment
// writes them; each NAME one of the saved variables, none twice, at most 4096 of them.
// Anything else (a variable the launcher never saves, such as LD_PRELOAD; a word without
// '='; a last word without its NUL) refuses the whole file: nullopt, `why` naming it.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_environment(const std::string& text,
                                                                                  std::string* why);
// The variables a launch on another host takes along (through the remote shell).
bool forwarded_variable(const std::string& name);
// MPI runtime variables an expander's launch must not inherit (OMPI_, PMIX_, ORTE_, ...).
bool runtime_variable(const std::string& name);

// Hosts: "H1,H2" -> {H1, H2} (empty words dropped); at most 65536, each a host name; nullopt otherwise.
std::optional<std::vector<std::string>> host_list(const std::string& csv);
std::string joined(const std::vector<std::string>& words, const char* sep);
// mpiexec's --host value: H1:k,H2:k,...
std::string host_arg(const std::vector<std::string>& hosts, int ppn);
// The environment of a launch with hosts: MALLEABLE_RUN_HOSTS, and with Slurm its SLURM_ variables.
std::vector<std::pair<std::string, std::string>> placement_env(const std::vector<std::string>& hosts, int ppn, int np,
                                                              bool slurm, const std::string& cpus_per_node);
// The first count of SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE ("4(x2),3" -> "4").
std::string first_count(const std::string& v);

// The program's arguments as the loop reads them: its --checkpoint DIR, whether it keeps
// checkpoint levels; and its arguments without a previous launch's grid and restart.
struct CheckpointArgs {
  std::string dir;
  bool levels = false;
};
CheckpointArgs checkpoint_args(const std::vector<std::string>& args);
std::vector<std::string> drop_grid_args(const std::vector<std::string>& args);
// The newest complete checkpoint among file names (<name>-<6 digits>.h5; never a .tmp), or "".
std::string newest_checkpoint(const std::vector<std::string>& names);

// An order (DIR/orders/<id>): "host H" and "procs K" lines (first 4 KiB).
struct Order {
  std::string host, procs;
  bool valid() const;
};
Order parse_order(const std::string& text);

// MALLEABLE_RUN_RESUME "P Q FILE".
struct Resume {
  int p = 0, q = 0;
  std::string file;
};
std::optional<Resume> parse_resume(const std::string& s);

// `squeue -h -j J -o %T` (stdout and stderr, its first line) for --while-job: whether the
// job runs, is gone (ended: the state, or "gone"), or Slurm's answer says nothing (ask again).
enum class JobState { Runs, Gone, Unknown };
JobState while_job_state(const std::string& first_line, std::string* shown);

// The first line of a text (without its line end), at most `most` bytes.
std::string first_line(const std::string& text, std::size_t most = 4096);
// `text` without leading and trailing blanks (spaces, tabs, line ends): a command's answer
// or a file's word.
std::string trimmed(const std::string& text);

}  // namespace launcher
