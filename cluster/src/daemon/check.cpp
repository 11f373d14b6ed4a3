// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd --check, pure (check.hpp).
#include "daemon/check.hpp"

#include <cstddef>

namespace cluster::arbiter {

namespace {

using K = Finding::Kind;

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// A text as the report shows it: at most `most` bytes, control bytes as '?'.
std::string shown(const std::string& s, std::size_t most = 200) {
  std::string out = trim(s).substr(0, most);
  for (char& c : out)
    if (c == '\n' || c == '\t') c = ' ';
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

Finding ok(const std::string& what) { return {K::Ok, what, {}}; }
Finding missing(const std::string& what, const std::string& fix) { return {K::Missing, what, fix}; }
Finding by_hand(const std::string& what) { return {K::ByHand, what, {}}; }

void munge_and_user(const CheckFacts& f, std::vector<Finding>& out) {
  const std::string sock = f.munge_socket.empty() ? "libmunge's default socket" : f.munge_socket;
  if (f.munge_error.empty())
    out.push_back(ok("MUNGE: a credential made and read back through " + sock));
  else
    out.push_back(missing("MUNGE: " + shown(f.munge_error) + " (" + sock + ")",
                          "install munge, give every node the cluster's /etc/munge/munge.key and `systemctl enable --now "
                          "munge`; or set munge-socket = PATH in arbiterd.conf"));
  if (f.user_uid)
    out.push_back(ok("the daemon's user " + shown(f.user, 64) + " has uid " + std::to_string(*f.user_uid)));
  else
    out.push_back(missing("the daemon's user '" + shown(f.user, 64) + "' does not exist on this host",
                          "`systemd-sysusers` (the package's sysusers.d/malleable-arbiter.conf; the .deb runs it), or "
                          "`useradd --system " + shown(f.user, 64) + "`, with the same uid on every node"));
}

void listeners(const CheckFacts& f, std::vector<Finding>& out) {
  if (f.socket.empty() && f.listen.empty()) {
    out.push_back(missing("no listener: neither socket nor listen is set",
                          "socket = /run/malleable-arbiter/socket, and listen = *:7070 for jobs on other nodes"));
    return;
  }
  if (!f.socket.empty())
    out.push_back(ok("socket " + shown(f.socket) + (f.socket_dir_exists ? "" : " (its folder is made at the unit's start)")));
  if (!f.listen.empty())
    out.push_back(ok("TCP listener " + shown(f.listen) + ": jobs set RESIZE_ARBITER=tcp://THIS-HOST:PORT"));
  else
    out.push_back(missing("no TCP listener: a job on another node cannot reach the socket",
                          "listen = *:7070 in arbiterd.conf (or the address the compute nodes reach), then "
                          "RESIZE_ARBITER=tcp://THIS-HOST:7070 in the jobs' environment"));
}

void slurm_user(const CheckFacts& f, std::vector<Finding>& out) {
  const auto su = slurm_config_value(f.config, "SlurmUser");
  if (!su) return;
  const std::string name = su->substr(0, su->find('('));
  const std::string uid = su->find('(') == std::string::npos ? std::string() : su->substr(su->find('(') + 1, su->find(')') - su->find('(') - 1);
  if (f.slurm_user == name || f.slurm_user == uid)
    out.push_back(ok("slurm-user " + shown(f.slurm_user, 64) + " is Slurm's SlurmUser"));
  else
    out.push_back(missing("slurm-user is '" + shown(f.slurm_user, 64) + "', Slurm's SlurmUser " + shown(*su, 64),
                          "slurm-user = " + shown(name, 64) + " in arbiterd.conf"));
}

void slurm_settings(const CheckFacts& f, std::vector<Finding>& out) {
  if (f.config_status != 0) {
    out.push_back(missing("Slurm's client: `scontrol show config` failed (" + shown(f.config) + ")",
                          "install slurm-client with the cluster's slurm.conf (and munge) on this host"));
    return;
  }
  const std::string sched = slurm_config_value(f.config, "SchedulerParameters").value_or("");
  const bool permits = sched.find("permit_job_expansion") != std::string::npos;
  if (f.expansion && !permits)
    out.push_back(missing("expansion = on, but this Slurm does not permit job expansion (SchedulerParameters: " +
                              shown(sched.empty() ? "(null)" : sched, 120) + ")",
                          "expansion = off in arbiterd.conf (a stock Slurm: jobs grow by expander jobs)"));
  else
    out.push_back(ok(std::string("expansion = ") + (f.expansion ? "on" : "off") + ", Slurm " +
                     (permits ? "permits" : "does not permit") + " job expansion"));
  const std::string acct = slurm_config_value(f.config, "AccountingStorageType").value_or("");
  if (acct == "accounting_storage/slurmdbd")
    out.push_back(ok("accounting through slurmdbd (a running job may change size more than once; QOS limits)"));
  else
    out.push_back(missing("accounting: AccountingStorageType is '" + shown(acct, 64) +
                              "': Slurm 22.05 then lets a running job change size only once",
                          "AccountingStorageType=accounting_storage/slurmdbd in slurm.conf, with slurmdbd running"));
  slurm_user(f, out);
  if (!f.extend_limits) return;
  const std::string level = shown(f.admin_level, 64);
  if (f.admin_status == 0 && (level == "Operator" || level == "Administrator"))
    out.push_back(ok("extend-limits = on: " + shown(f.user, 64) + " is a Slurm " + level));
  else
    out.push_back(missing("extend-limits = on, but " + shown(f.user, 64) + " is no Slurm operator (AdminLevel '" + level + "')",
                          "sacctmgr add user " + shown(f.user, 64) + " account=root; sacctmgr modify user " +
                              shown(f.user, 64) + " set AdminLevel=Operator"));
}

}  // namespace

std::optional<std::string> slurm_config_value(const std::string& config, const std::string& key) {
  const std::string text = config.substr(0, 1u << 20);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, std::min<std::size_t>(end - at, 64u << 10));
    at = end + 1;
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos && trim(line.substr(0, eq)) == key) return trim(line.substr(eq + 1));
  }
  return std::nullopt;
}

std::vector<Finding> check_findings(const CheckFacts& f) {
  std::vector<Finding> out;
  munge_and_user(f, out);
  listeners(f, out);
  slurm_settings(f, out);
  out.push_back(by_hand("the daemon's user has uid " + (f.user_uid ? std::to_string(*f.user_uid) : std::string("?")) +
                        " on every node (`getent passwd " + shown(f.user, 64) + "` there): jobs take replies only in its credential"));
  out.push_back(by_hand("a job's batch host may run sbatch (its expander jobs) and ssh into the job's own nodes "
                        "(pam_slurm_adopt lets it in)"));
  out.push_back(by_hand("a recipe job (docs/guide/slurm.md) with RESIZE_ARBITER set says `mode arbiter` in its [slurm] lines"));
  return out;
}

int missing_count(const std::vector<Finding>& findings) {
  int n = 0;
  for (const auto& x : findings) n += x.kind == K::Missing;
  return n;
}

std::string check_report(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& x : findings) {
    out += x.kind == K::Ok ? "ok       " : x.kind == K::Missing ? "MISSING  " : "by hand  ";
    out += x.what + "\n";
    if (x.kind == K::Missing) out += "         fix: " + x.fix + "\n";
  }
  const int n = missing_count(findings);
  out += n == 0 ? "nothing missing here; check the 'by hand' lines on the nodes\n"
                : std::to_string(n) + " missing piece" + (n == 1 ? "" : "s") + "\n";
  return out;
}

}  // namespace cluster::arbiter
