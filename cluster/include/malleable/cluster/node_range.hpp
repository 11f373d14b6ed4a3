// SPDX-License-Identifier: BSD-3-Clause
// The node range a Slurm job asked for (sbatch -N MIN-MAX), read back from what Slurm keeps
// of its submission (pure). A running job's record holds neither end: Slurm 22.05 shows a job
// submitted -N 2-4 and started on three nodes as NumNodes=3 in `scontrol show job`, squeue's
// MaxNodes as 3, squeue --json's max_nodes as 0, and sacct's ReqNodes keeps only the
// minimum. What keeps both is the submission: its batch script's #SBATCH lines (`scontrol
// write batch_script J -`) and, with accounting, its command line (`sacct -o SubmitLine`),
// whose options win over the script's as sbatch reads them. Both come from the user and
// Slurm: read with bounds, words split at blanks, never through a shell. Read by
// the launcher (malleable-run's RESIZE_SLURM_MIN/MAX_NODES) and by the arbiter daemon (the
// limit of a job Slurm started below the top of its range: --extend-limits).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cluster::slurm {

struct NodeRange {
  int min = 0, max = 0;  // 1 <= min <= max <= 999999
};
std::string range_text(const NodeRange& r);  // "2-4", or "3" when min == max

// What a source says of -N: nothing, a range, or a value that is none (why says which).
struct RangeRead {
  enum class Kind { None, Found, Bad } kind = Kind::None;
  NodeRange range;
  std::string why;
};

// A -N / --nodes value as sbatch takes it: "N" (min = max = N) or "MIN-MAX", whole numbers
// 1..999999 with MIN <= MAX; nullopt for anything else (a suffix such as "2k", a list).
std::optional<NodeRange> parse_node_count(const std::string& value);
// The node range among sbatch's words (its options): -N V, -NV, --nodes V, --nodes=V; the
// last one wins (as getopt). Words are scanned up to the first one equal to `stop_at` (the
// batch script: what follows are its own arguments) or a --wrap (its command follows).
RangeRead nodes_in_words(const std::vector<std::string>& words, const std::string& stop_at = {});
// A batch script's #SBATCH directives: lines "#SBATCH ..." before its first line that is
// neither blank nor a comment (where sbatch stops reading them), a word starting with '#'
// ending a directive, double quotes removed. At most 1 MiB and 10000 lines are read.
RangeRead script_node_range(const std::string& script);
// sacct's SubmitLine of the job ("sbatch -N 2-4 job.sh ARGS"; its first line, at most 64 KiB):
// the words after the command, up to the batch script (`command`, the job's Command=, as the
// line names it: the same path, or relative to `workdir`, the job's WorkDir=). Where no word
// is the script every word is read (*command_found, when given, says which).
RangeRead submit_line_node_range(const std::string& line, const std::string& command, const std::string& workdir,
                                 bool* command_found = nullptr);

// The job's range from both sources: the submit line's -N wins over the script's; Bad in
// either is Bad (nothing is guessed). `from` names where it was read.
struct JobRange {
  RangeRead read;
  std::string from;  // "the batch script", "the sbatch command line"
};
JobRange job_node_range(const RangeRead& script, const RangeRead& submit_line);

}  // namespace cluster::slurm
