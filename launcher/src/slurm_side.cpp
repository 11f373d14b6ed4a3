// SPDX-License-Identifier: BSD-3-Clause
// malleable-run and Slurm: hostlists expanded, the job's nodes read (squeue, as the
// arbiter reads them), nodes given back (scontrol update, checked), a node's state (sinfo)
// and, under a Slurm without job expansion, the job script submitted again. Every command
// is an argument vector; what Slurm prints is parsed bounded (cluster's readers).
#include <algorithm>
#include <chrono>
#include <thread>

#include "malleable/cluster/expander.hpp"
#include "malleable/cluster/slurm.hpp"
#include "node_range.hpp"
#include "run.hpp"

namespace launcher {

namespace sl = cluster::slurm;

namespace {

sl::Runner runner() { return sl::process_runner({60, 8u << 20, {"SLURM_TIME_FORMAT=standard"}}); }

// The value of KEY= in `scontrol show job -o`'s record after its user-chosen name (JobName
// comes before UserId; a name holding " Command=..." is not read as the field).
std::string field(const std::string& rec, const std::string& key) {
  std::size_t from = rec.find(" UserId=");
  if (from == std::string::npos) from = 0;
  const std::size_t at = rec.find(" " + key + "=", from);
  if (at == std::string::npos) return {};
  const std::size_t v = at + key.size() + 2, end = rec.find_first_of(" \n", v);
  return rec.substr(v, (end == std::string::npos ? rec.size() : end) - v);
}

// A command's first `most` bytes of stdout when it ran well; why not in `why` otherwise.
std::optional<std::string> answer(const sl::Argv& argv, std::size_t most, std::string* why) {
  const sl::Command c = sl::process_runner({20, 2u << 20, {"SLURM_TIME_FORMAT=standard"}})(argv);
  if (c.status == 0) return c.out.substr(0, most);
  *why += (why->empty() ? "" : "; ") + argv[0] + ": " + sl::escaped(c.said().substr(0, 200));
  return std::nullopt;
}

// sacct's SubmitLine of the job. A job that has just started may not be in slurmdbd's
// records yet (sacct answers nothing): asked again once a second, 10 times at most.
std::optional<std::string> submit_line(const std::string& job, std::string* why) {
  for (int i = 0; i < 10; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto a = answer({"sacct", "-n", "-X", "-P", "-j", job, "-o", "SubmitLine"}, 64u << 10, why);
    if (!a) return std::nullopt;
    if (!trimmed(*a).empty()) return trimmed(*a);
  }
  *why += (why->empty() ? "" : "; ") + std::string("sacct: no SubmitLine for job ") + job + " within 10 s";
  return std::nullopt;
}

}  // namespace

cluster::slurm::JobRange slurm_node_range(const std::string& job) {
  using namespace cluster::slurm;  // the node range's reader
  std::string why;
  const auto rec = answer({"scontrol", "show", "job", "-o", job}, 1u << 20, &why);
  const std::string line = rec ? first_line(*rec, 1u << 20) : std::string();
  const auto script = answer({"scontrol", "write", "batch_script", job, "-"}, 1u << 20, &why);
  const auto submit = submit_line(job, &why);
  const RangeRead from_script = script ? script_node_range(*script) : RangeRead{};
  const RangeRead from_line = submit ? submit_line_node_range(*submit, field(line, "Command"), field(line, "WorkDir")) : RangeRead{};
  JobRange out = job_node_range(from_script, from_line);
  if (!script && !submit) out.read = RangeRead{RangeRead::Kind::Bad, {}, why};
  return out;
}

std::vector<std::string> slurm_hostnames(const std::string& list) {
  try {
    return sl::expand_hostlist(list);
  } catch (const std::exception& e) {
    throw Failure(2, "cannot read the Slurm node list '" + sl::escaped(list.substr(0, 200)) + "': " + e.what());
  }
}

std::vector<std::string> slurm_held(const std::string& job, int status) {
  try {
    sl::Client c(runner(), job);
    return c.held();
  } catch (const std::exception& e) {
    throw Failure(status, "cannot read Slurm job " + job + ": " + e.what());
  }
}

std::string slurm_node_state(const std::string& host) {
  const sl::Command c = runner()({"sinfo", "-h", "-n", host, "-o", "%t"});
  if (c.status != 0) return {};
  const std::string s = trimmed(first_line(c.out, 64));
  const bool plain = std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isalnum(ch) || ch == '*' || ch == '+' || ch == '~' || ch == '#' || ch == '!' || ch == '%' || ch == '$' || ch == '@' || ch == '^' || ch == '-'; });
  return plain ? s : std::string();
}

void slurm_give_back(const std::string& job, const std::vector<std::string>& held, const std::vector<std::string>& keep) {
  std::vector<std::string> back;
  for (const auto& h : held)
    if (std::find(keep.begin(), keep.end(), h) == keep.end()) back.push_back(h);
  std::string said;
  try {
    sl::Client c(runner(), job);
    c.release(keep);
  } catch (const std::exception& e) {
    said = e.what();
  }
  std::string now;
  try {
    now = sl::compress_hostlist(slurm_held(job, 4));
  } catch (const Failure& e) {
    now = e.what();
  }
  if (!said.empty())
    throw Failure(4, "giving " + joined(back, ",") + " back to Slurm failed (" + said + "); the job holds " + now);
  say("gave " + joined(back, ",") + " back to Slurm; job " + job + " now holds " + now);
}

void submit_successor(Run& r, const std::string& hosts) {
  const std::string job = r.env.value("SLURM_JOB_ID");
  const sl::Command info = runner()({"scontrol", "show", "job", "-o", job});
  if (info.status != 0) throw Failure(4, "cannot read Slurm job " + job + ": " + sl::escaped(info.said().substr(0, 500)));
  const std::string rec = first_line(info.out, 1u << 20);
  const std::string cmd = field(rec, "Command"), out = field(rec, "StdOut"), wd = field(rec, "WorkDir");
  // the name runs from " JobName=" to " UserId=" (it may hold blanks)
  std::string name;
  if (const auto at = rec.find(" JobName="), user = rec.find(" UserId="); at != std::string::npos && user != std::string::npos && user > at)
    name = rec.substr(at + 9, user - at - 9);
  if (name.rfind("malleable-next-", 0) == 0) name = name.substr(15);
  const auto list = host_list(hosts);
  const int n = list ? static_cast<int>(list->size()) : 0;
  const int np = r.p * r.q;
  if (n == 0 || np % n != 0) throw Failure(4, std::to_string(np) + " processes do not divide evenly over the hosts " + hosts);
  if (cmd.empty() || cmd[0] != '/' || ::access(cmd.c_str(), X_OK) != 0)
    throw Failure(4, "job " + job + "'s script '" + sl::escaped(cmd) + "' is not an executable file: cannot submit it again");
  sl::Argv argv{"sbatch", "--parsable", "-N", std::to_string(n), "-w", hosts, "--ntasks-per-node=" + std::to_string(np / n),
                "-J", "malleable-next-" + name, "-o", out.empty() ? "slurm-%j.out" : out, "--open-mode=append",
                "--dependency=afterany:" + job};
  if (!wd.empty()) argv.push_back("--chdir=" + wd);
  argv.push_back(cmd);
  const std::string resume = std::to_string(r.p) + " " + std::to_string(r.q) + " " + r.file;
  // The successor's range is this job's (its own command line says -N n): the settings go along.
  std::vector<std::string> env{"MALLEABLE_RUN_RESUME=" + resume};
  for (const char* k : {"RESIZE_POLICY", "RESIZE_SLURM_MIN_NODES", "RESIZE_SLURM_MAX_NODES"})
    if (const std::string* v = r.env.get(k)) env.push_back(std::string(k) + "=" + *v);
  const sl::Command c = sl::process_runner({60, 1u << 20, env})(argv);
  std::string succ;
  try {
    if (c.status != 0) throw std::runtime_error(c.said());
    succ = sl::parse_sbatch_id(c.out);
  } catch (const std::exception& e) {
    throw Failure(4, "submitting the job again on " + hosts + " failed: " + sl::escaped(std::string(e.what()).substr(0, 500)));
  }
  say("no job expansion in this Slurm: submitted job " + succ + " on " + hosts + " (" + std::to_string(np) +
      " processes, grid " + grid_text(r.p, r.q) + ") to continue from " + r.file + " once job " + job + " ends");
}

}  // namespace launcher
