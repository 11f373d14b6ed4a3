// SPDX-License-Identifier: BSD-3-Clause
// --extend-limits at a job's start, pure (start_limit.hpp).
#include "daemon/start_limit.hpp"

#include <cmath>

#include "malleable/cluster/error.hpp"
#include "malleable/cluster/node_range.hpp"
#include "malleable_internal/bounded_text.hpp"

namespace cluster::arbiter {

namespace {

using Kind = StartDecision::Kind;

StartDecision decided(Kind k, std::string why) { return StartDecision{k, std::nullopt, std::move(why)}; }

// What Slurm said, for a line of the log: at most 200 bytes, one line.
std::string said(const slurm::Command& c) {
  std::string s = c.said().substr(0, 200);
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return slurm::escaped(s);
}

// The value of KEY= in the record's one line: read only where the record names the key
// exactly once (a job's name or another field its user sets may hold " KEY=...": then the
// record cannot be read, and is refused), at most kMaxField bytes.
std::optional<std::string> field_once(const std::string& rec, const std::string& key, std::string& why) {
  const std::string k = " " + key + "=";
  const std::size_t at = rec.find(k);
  if (at == std::string::npos) {
    why = "its record has no " + key + "=";
    return std::nullopt;
  }
  if (rec.find(k, at + 1) != std::string::npos) {
    why = "its record names " + key + "= more than once (a field its user sets holds it): not read";
    return std::nullopt;
  }
  const std::size_t v = at + k.size(), end = rec.find(' ', v);
  const std::size_t n = (end == std::string::npos ? rec.size() : end) - v;
  if (n > kMaxField) {
    why = "its record's " + key + "= is over " + std::to_string(kMaxField) + " bytes";
    return std::nullopt;
  }
  return rec.substr(v, n);
}

// Slurm's record of the job: its start, nodes and limit (and where its script lies).
struct Record {
  double start = 0, limit_s = -1;
  int nodes = 0;
  std::string command, workdir;
};

std::optional<Record> read_record(const std::string& job, const slurm::Command& c, std::string& why) {
  if (c.status != 0) return why = "scontrol show job failed (status " + std::to_string(c.status) + "): " + said(c), std::nullopt;
  const std::size_t eol = c.out.find('\n');
  if ((eol == std::string::npos ? c.out.size() : eol) > kMaxRecord)
    return why = "its record is over " + std::to_string(kMaxRecord) + " bytes", std::nullopt;
  const std::string rec = c.out.substr(0, eol);
  if (rec.rfind("JobId=" + job + " ", 0) != 0) return why = "the record is not job " + job + "'s", std::nullopt;
  const auto start = field_once(rec, "StartTime", why), limit = field_once(rec, "TimeLimit", why),
             nodes = field_once(rec, "NumNodes", why), command = field_once(rec, "Command", why),
             workdir = field_once(rec, "WorkDir", why);
  if (!start || !limit || !nodes || !command || !workdir) return std::nullopt;
  Record r;
  try {
    r.start = slurm::parse_slurm_time(*start);
    r.limit_s = slurm::parse_time_left(*limit);
  } catch (const Error& e) {
    return why = std::string("its record's times cannot be read: ") + e.what(), std::nullopt;
  }
  if (r.limit_s > 0 && std::fmod(r.limit_s, 60) != 0)  // Slurm keeps a limit in whole minutes
    return why = "its record's TimeLimit=" + slurm::escaped(limit->substr(0, 40)) + " is not whole minutes", std::nullopt;
  const auto n = malleable::text::count_of(*nodes);
  if (!n) return why = "its record's NumNodes=" + slurm::escaped(nodes->substr(0, 40)) + " is no node count", std::nullopt;
  r.nodes = *n;
  r.command = *command;
  r.workdir = *workdir;
  return r;
}

// The range the job was submitted with: sacct's SubmitLine over the batch script's #SBATCH
// lines, as sbatch reads them. Kind::Again: the SubmitLine is not in slurmdbd's records yet.
std::optional<slurm::JobRange> read_range(const StartFacts& f, const StartRead& r, const Record& rec, StartDecision& d) {
  using RK = slurm::RangeRead::Kind;
  const slurm::RangeRead script = r.script.status == 0 ? slurm::script_node_range(r.script.out) : slurm::RangeRead{};
  slurm::RangeRead line;  // no accounting (sacct fails): the script alone
  if (r.submit.status == 0) {
    const std::string first = r.submit.out.substr(0, std::min(r.submit.out.find('\n'), std::size_t{64} << 10));
    if (first.find_first_not_of(" \t\r") == std::string::npos) {
      if (!f.last_try) return d = decided(Kind::Again, "sacct has no SubmitLine for it yet"), std::nullopt;
    } else {
      bool named = false;
      line = slurm::submit_line_node_range(first, rec.command, rec.workdir, &named);
      // a job with no script (sbatch --wrap, Command=(null)): its options end at --wrap
      named = named || (rec.command == "(null)" && (" " + first).find(" --wrap") != std::string::npos);
      if (!named)
        return d = decided(Kind::Refused, "sacct's SubmitLine does not name its batch script (Command=): its -N cannot "
                                          "be told from the script's own arguments"),
               std::nullopt;
    }
  }
  if (r.script.status != 0 && line.kind == RK::None)
    return d = decided(Kind::Refused, "no range read: scontrol write batch_script failed (" + said(r.script) + ")"),
           std::nullopt;
  slurm::JobRange j = slurm::job_node_range(script, line);
  if (j.read.kind == RK::Bad)
    return d = decided(Kind::Refused, "its node range in " + j.from + " cannot be read: " + j.read.why), std::nullopt;
  return j;
}

// The model's iteration on the start size and at the range's top (-1: none, perfect scaling).
std::pair<double, double> model_times(const StartFacts& f, int start_nodes, int top) {
  const auto g = f.growth.find(top - start_nodes);
  if (f.rank_nodes != start_nodes || g == f.growth.end()) return {-1, -1};
  return {g->second.measured_iteration, g->second.predicted_iteration};
}

}  // namespace

slurm::Argv start_record_command(const std::string& job) { return {"scontrol", "show", "job", "-o", job}; }
slurm::Argv start_script_command(const std::string& job) { return {"scontrol", "write", "batch_script", job, "-"}; }
slurm::Argv start_submit_command(const std::string& job) {
  return {"sacct", "-n", "-X", "-P", "-j", job, "-o", "SubmitLine"};
}

StartDecision decide_start_limit(const StartFacts& f, const StartRead& r) {
  if (r.record.status != 0 && !f.last_try) return decided(Kind::Again, "scontrol show job failed: " + said(r.record));
  std::string why;
  const auto rec = read_record(f.job, r.record, why);
  if (!rec) return decided(Kind::Refused, why);
  if (rec->start != f.book.start_s)
    return decided(Kind::Refused, "its StartTime is not the start squeue showed at its first request: not judged");
  if (rec->limit_s <= 0) return decided(Kind::None, "no time limit");
  if (rec->nodes != f.book.start_nodes)
    return decided(Kind::None, "it holds " + std::to_string(rec->nodes) + " node(s), not the " +
                                   std::to_string(f.book.start_nodes) + " it started on: its start is past");
  if (rec->limit_s > f.book.submitted_s)
    return decided(Kind::None, "its TimeLimit is above the one at its first request: raised already, never twice");
  StartDecision d;
  const auto range = read_range(f, r, *rec, d);
  if (!range) return d;
  if (range->read.kind == slurm::RangeRead::Kind::None) return decided(Kind::None, "submitted without -N: no range");
  const slurm::NodeRange n = range->read.range;
  if (rec->nodes < n.min || rec->nodes > n.max)
    return decided(Kind::Refused, "it runs on " + std::to_string(rec->nodes) + " node(s), outside the range -N " +
                                      slurm::range_text(n) + " of " + range->from);
  if (rec->nodes == n.max) return decided(Kind::None, "started at the top of its range -N " + slurm::range_text(n));
  const auto [t_start, t_top] = model_times(f, rec->nodes, n.max);
  d.raise = limits::raise_at_start(rec->limit_s, rec->nodes, n.max, t_start, t_top);
  if (!d.raise) return decided(Kind::None, "the rule gives no whole minute more on its start size");
  d.kind = Kind::Raise;
  d.raise->why = "start-below-range: -N " + slurm::range_text(n) + " (" + range->from + "), " + d.raise->why;
  d.why = d.raise->why;
  return d;
}

}  // namespace cluster::arbiter
