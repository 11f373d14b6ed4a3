// SPDX-License-Identifier: BSD-3-Clause
// Communicator-stack bookkeeping (pure).
#include "protocol/level_stack.hpp"

#include <algorithm>
#include <string>

#include "malleable/blacs_dyn/error.hpp"

namespace blacs_dyn {

LevelStack::LevelStack(int n0) {
  if (n0 < 1) throw Error(BLACS_DYN_ERR_ARG, "initial world size must be >= 1, got " + std::to_string(n0));
  Level l0;
  l0.kind = LevelKind::Initial;
  for (int p = 0; p < n0; ++p) l0.members.push_back(p);
  levels_.push_back(std::move(l0));
  group_.assign(static_cast<std::size_t>(n0), 0);
  state_.assign(static_cast<std::size_t>(n0), ProcState::Active);
  host_.assign(static_cast<std::size_t>(n0), std::string());
  groups_.push_back(SpawnGroup{0, 0, n0, {}, {}});
}

const Level& LevelStack::level(int l) const {
  if (l < 0 || l >= depth())
    throw Error(BLACS_DYN_ERR_ARG, "level " + std::to_string(l) + " does not exist (depth " +
                                  std::to_string(depth()) + ")");
  return levels_[static_cast<std::size_t>(l)];
}

int LevelStack::group_of(ProcId p) const {
  if (p < 0 || p >= nprocs_started())
    throw Error(BLACS_DYN_ERR_ARG, "unknown process id " + std::to_string(p));
  return group_[static_cast<std::size_t>(p)];
}

const SpawnGroup& LevelStack::group(int id) const {
  if (id < 0 || id >= ngroups())
    throw Error(BLACS_DYN_ERR_ARG, "unknown spawn group " + std::to_string(id));
  return groups_[static_cast<std::size_t>(id)];
}

std::vector<ProcId> LevelStack::group_members(int id) const {
  const SpawnGroup& g = group(id);
  std::vector<ProcId> out;
  for (int i = 0; i < g.size; ++i) out.push_back(g.first + i);
  return out;
}

const std::string& LevelStack::host_of(ProcId p) const {
  group_of(p);  // range check
  return host_[static_cast<std::size_t>(p)];
}

void LevelStack::set_host(ProcId p, const std::string& host) {
  group_of(p);
  host_[static_cast<std::size_t>(p)] = host;
}

ProcState LevelStack::state(ProcId p) const {
  group_of(p);  // range check
  return state_[static_cast<std::size_t>(p)];
}

int LevelStack::rank_at(ProcId p, int l) const {
  const auto& m = level(l).members;
  const auto it = std::find(m.begin(), m.end(), p);
  return it == m.end() ? -1 : static_cast<int>(it - m.begin());
}

int LevelStack::alive() const {
  return static_cast<int>(std::count_if(state_.begin(), state_.end(),
                                        [](ProcState s) { return s != ProcState::Exited; }));
}
int LevelStack::parked() const {
  return static_cast<int>(std::count(state_.begin(), state_.end(), ProcState::Parked));
}
int LevelStack::exited() const {
  return static_cast<int>(std::count(state_.begin(), state_.end(), ProcState::Exited));
}

std::vector<ProcId> LevelStack::push_expansion(int nnew) {
  const int counts[] = {nnew};
  const ProcId first = nprocs_started();
  push_expansion(counts, {});
  std::vector<ProcId> ids;
  for (int i = 0; i < nnew; ++i) ids.push_back(first + i);
  return ids;
}

std::vector<int> LevelStack::push_expansion(std::span<const int> counts,
                                            std::span<const std::string> hosts) {
  if (counts.empty()) throw Error(BLACS_DYN_ERR_ARG, "an expansion needs at least one spawn group");
  if (!hosts.empty() && hosts.size() != counts.size())
    throw Error(BLACS_DYN_ERR_ARG, std::to_string(hosts.size()) + " hosts for " +
                                      std::to_string(counts.size()) + " spawn groups");
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] < 1)
      throw Error(BLACS_DYN_ERR_ARG, "spawn group " + std::to_string(i) + ": nnew must be >= 1, got " +
                                        std::to_string(counts[i]));
  Level next;
  next.kind = LevelKind::Expansion;
  next.members = top().members;
  // Group ids count spawns, never levels: a level popped and pushed again gets new
  // groups, so a group's members are exactly the processes of one MPI_Comm_spawn.
  std::vector<int> ids;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const int id = ngroups();
    const std::string host = hosts.empty() ? std::string() : hosts[i];
    groups_.push_back(SpawnGroup{depth(), nprocs_started(), counts[i], host, {}});
    for (int k = 0; k < counts[i]; ++k) {
      next.members.push_back(nprocs_started());
      group_.push_back(id);
      state_.push_back(ProcState::Active);
      host_.push_back(host);
    }
    ids.push_back(id);
  }
  levels_.push_back(std::move(next));
  return ids;
}

std::vector<int> LevelStack::push_joined(std::span<const int> counts, std::span<const std::string> hosts,
                                         std::span<const std::string> launches) {
  if (launches.size() != counts.size())
    throw Error(BLACS_DYN_ERR_ARG, std::to_string(launches.size()) + " launches for " + std::to_string(counts.size()) +
                                      " groups");
  std::vector<int> ids = push_expansion(counts, hosts);
  for (std::size_t i = 0; i < ids.size(); ++i) groups_[static_cast<std::size_t>(ids[i])].launch = launches[i];
  return ids;
}

std::vector<int> LevelStack::dead_levels() const {
  std::vector<int> out;
  for (int l = 0; l < depth(); ++l)
    for (ProcId p : levels_[static_cast<std::size_t>(l)].members)
      if (state_[static_cast<std::size_t>(p)] == ProcState::Exited) {
        out.push_back(l);
        break;
      }
  return out;
}

void LevelStack::set_grid(int l, int nprow, int npcol) {
  level(l);
  levels_[static_cast<std::size_t>(l)].nprow = nprow;
  levels_[static_cast<std::size_t>(l)].npcol = npcol;
}

// Who exits and who parks. A spawned group can leave MPI early only as a whole: its
// processes share an MPI_COMM_WORLD whose MPI_Finalize is collective. So leavers of
// group g exit when no member of g stays active (members parked earlier are woken to
// exit with them); otherwise they park. The originals (group 0) share the job's
// MPI_COMM_WORLD with rank 0, which never leaves, so they always park.
void LevelStack::plan_departures(ShrinkPlan& plan) const {
  std::vector<bool> stays(state_.size(), false);
  for (ProcId p : plan.new_members) stays[static_cast<std::size_t>(p)] = true;
  std::vector<ProcId> leaving;
  for (ProcId p : top().members)
    if (!stays[static_cast<std::size_t>(p)]) leaving.push_back(p);
  for (ProcId p : leaving) {
    const int g = group_of(p);
    bool group_leaves = g > 0;
    for (ProcId q : group_members(g))
      if (state_[static_cast<std::size_t>(q)] == ProcState::Active && stays[static_cast<std::size_t>(q)])
        group_leaves = false;
    if (group_leaves) {
      plan.exit_now.push_back(p);
      if (std::find(plan.groups_exiting.begin(), plan.groups_exiting.end(), g) ==
          plan.groups_exiting.end()) {
        plan.groups_exiting.push_back(g);
        for (ProcId q : group_members(g))
          if (state_[static_cast<std::size_t>(q)] == ProcState::Parked) plan.wake_to_exit.push_back(q);
      }
    } else {
      plan.park_now.push_back(p);
    }
  }
  std::sort(plan.groups_exiting.begin(), plan.groups_exiting.end());
  std::sort(plan.wake_to_exit.begin(), plan.wake_to_exit.end());
}

ShrinkPlan LevelStack::plan_shrink_to_level(int l) const {
  const int d = depth();
  if (d == 1)
    throw Error(BLACS_DYN_ERR_ARG, "cannot shrink to level " + std::to_string(l) +
                                  ": the stack holds only level 0, nothing to pop");
  if (l < 0 || l >= d - 1)
    throw Error(BLACS_DYN_ERR_ARG, "cannot shrink to level " + std::to_string(l) +
                                  ": valid levels are 0.." + std::to_string(d - 2) +
                                  " below the current level " + std::to_string(d - 1));
  for (ProcId p : level(l).members)
    if (rank_at(p, d - 1) < 0)
      throw Error(BLACS_DYN_ERR_STATE, "cannot shrink to level " + std::to_string(l) + ": process " +
                                      std::to_string(p) +
                                      " of that level has already left the world");
  ShrinkPlan plan;
  plan.pop_to = l;
  plan.new_members = level(l).members;
  plan_departures(plan);
  return plan;
}

ShrinkPlan LevelStack::plan_shrink_to_ranks(std::span<const int> keep) const {
  const int n = world_size();
  if (keep.empty()) throw Error(BLACS_DYN_ERR_ARG, "nkeep must be >= 1, got 0");
  if (static_cast<int>(keep.size()) > n)
    throw Error(BLACS_DYN_ERR_ARG, "nkeep " + std::to_string(keep.size()) +
                                  " exceeds the world size " + std::to_string(n));
  if (keep[0] != 0)
    throw Error(BLACS_DYN_ERR_ARG, "keep[0] must be 0 (rank 0 stays rank 0: it roots spawns and "
                              "releases parked processes), got " + std::to_string(keep[0]));
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  ShrinkPlan plan;
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const int r = keep[i];
    if (r < 0 || r >= n)
      throw Error(BLACS_DYN_ERR_ARG, "keep[" + std::to_string(i) + "] = " + std::to_string(r) +
                                    " is not a rank of the world of size " + std::to_string(n));
    if (used[static_cast<std::size_t>(r)])
      throw Error(BLACS_DYN_ERR_ARG, "keep[" + std::to_string(i) + "] = " + std::to_string(r) +
                                    " is listed twice");
    used[static_cast<std::size_t>(r)] = true;
    plan.new_members.push_back(top().members[static_cast<std::size_t>(r)]);
  }
  // A kept set that is exactly a lower level (same processes, same order) pops back to it
  // instead of pushing a copy: the stack does not grow on a return to an earlier world,
  // and the levels above are freed (§3.3.5). The lowest such level frees the most.
  plan.pop_to = -1;
  for (int l = 0; l < depth() - 1 && plan.pop_to < 0; ++l)
    if (level(l).members == plan.new_members) plan.pop_to = l;
  plan_departures(plan);
  return plan;
}

ShrinkPlan LevelStack::plan_release_hosts(std::span<const std::string> hosts) const {
  if (hosts.empty()) throw Error(BLACS_DYN_ERR_ARG, "no host to release");
  const auto released = [&](const std::string& h) {
    return !h.empty() && std::find(hosts.begin(), hosts.end(), h) != hosts.end();
  };
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i].empty()) throw Error(BLACS_DYN_ERR_ARG, "hosts[" + std::to_string(i) + "] is empty");
    bool used = false;
    for (ProcId p : top().members) used = used || host_of(p) == hosts[i];
    if (!used)
      throw Error(BLACS_DYN_ERR_ARG, "host '" + hosts[i] + "' runs no process of the current world");
  }
  std::vector<int> keep;
  for (int r = 0; r < world_size(); ++r)
    if (!released(host_of(top().members[static_cast<std::size_t>(r)]))) keep.push_back(r);
  if (keep.empty() || keep.front() != 0)
    throw Error(BLACS_DYN_ERR_ARG, "cannot release host '" + host_of(top().members.front()) +
                                      "': it runs rank 0, which roots every spawn and stays");
  ShrinkPlan plan = plan_shrink_to_ranks(keep);
  // A node is free only if every process of the job on it ends: parking keeps a process
  // (and its MPI_COMM_WORLD) alive. Name what would stay behind.
  std::string stuck;
  for (ProcId p : plan.park_now) {
    if (!stuck.empty()) stuck += "; ";
    const int g = group_of(p);
    stuck += "process " + std::to_string(p) + " on " + host_of(p) +
             (g == 0 ? " is one of the job's original processes (they share MPI_COMM_WORLD with rank 0)"
                     : " is in spawn group " + std::to_string(g) + ", which keeps members elsewhere");
  }
  for (int g = 1; g < ngroups(); ++g)
    for (ProcId q : group_members(g))
      if (state_[static_cast<std::size_t>(q)] == ProcState::Parked && released(host_of(q)) &&
          std::find(plan.wake_to_exit.begin(), plan.wake_to_exit.end(), q) == plan.wake_to_exit.end()) {
        if (!stuck.empty()) stuck += "; ";
        stuck += "process " + std::to_string(q) + " on " + host_of(q) + " is parked in spawn group " +
                 std::to_string(g) + ", which keeps members elsewhere";
      }
  if (!stuck.empty())
    throw Error(BLACS_DYN_ERR_STATE,
                "cannot give the host(s) back whole: " + stuck +
                    " (start the job on the node of rank 0 and grow onto other nodes with one spawn "
                    "group per node: blacs_dyn_expand_hosts)");
  return plan;
}

void LevelStack::apply(const ShrinkPlan& plan) {
  if (plan.pop_to >= 0) {
    levels_.resize(static_cast<std::size_t>(plan.pop_to) + 1);
  } else {
    Level next;
    next.kind = LevelKind::Subset;
    next.members = plan.new_members;
    levels_.push_back(std::move(next));
  }
  for (ProcId p : plan.park_now) state_[static_cast<std::size_t>(p)] = ProcState::Parked;
  for (ProcId p : plan.exit_now) state_[static_cast<std::size_t>(p)] = ProcState::Exited;
  for (ProcId p : plan.wake_to_exit) state_[static_cast<std::size_t>(p)] = ProcState::Exited;
}

RetirePlan LevelStack::plan_retire() const {
  const int d = depth();
  if (d < 2 || top().kind != LevelKind::Expansion)
    throw Error(BLACS_DYN_ERR_STATE, "a respawn replaces the world by the processes of its last expansion, but the "
                                     "current level is no expansion");
  RetirePlan plan;
  for (int g = 0; g < ngroups(); ++g)
    if (groups_[static_cast<std::size_t>(g)].level == d - 1 && groups_[static_cast<std::size_t>(g)].size > 0) {
      for (ProcId p : group_members(g))
        if (state_[static_cast<std::size_t>(p)] != ProcState::Active || rank_at(p, d - 1) < 0)
          throw Error(BLACS_DYN_ERR_STATE, "a respawn: process " + std::to_string(p) + " of the last expansion left");
      plan.new_groups.push_back(g);
    }
  const auto& members = top().members;
  std::size_t newcomers = 0;
  for (int g : plan.new_groups) newcomers += static_cast<std::size_t>(group(g).size);
  if (newcomers == 0 || newcomers >= members.size())
    throw Error(BLACS_DYN_ERR_STATE, "a respawn needs the last expansion's processes and others to replace");
  plan.stay.assign(members.end() - static_cast<std::ptrdiff_t>(newcomers), members.end());
  for (ProcId p : plan.stay)
    if (std::find(plan.new_groups.begin(), plan.new_groups.end(), group_of(p)) == plan.new_groups.end())
      throw Error(BLACS_DYN_ERR_STATE, "a respawn: the last ranks of the world are not the last expansion's");
  plan.exit_now.assign(members.begin(), members.end() - static_cast<std::ptrdiff_t>(newcomers));
  for (ProcId p = 0; p < nprocs_started(); ++p)
    if (state_[static_cast<std::size_t>(p)] == ProcState::Parked) plan.wake_to_exit.push_back(p);
  return plan;
}

LevelStack LevelStack::after_retire(const RetirePlan& plan) const {
  const SpawnGroup& g0 = group(plan.new_groups.front());
  LevelStack s(g0.size);
  s.groups_[0].host = g0.host;
  s.groups_[0].launch = g0.launch;
  std::vector<int> counts;
  std::vector<std::string> hosts, launches;
  for (std::size_t i = 1; i < plan.new_groups.size(); ++i) {
    const SpawnGroup& g = group(plan.new_groups[i]);
    counts.push_back(g.size);
    hosts.push_back(g.host);
    launches.push_back(g.launch);
  }
  if (!counts.empty()) s.push_joined(counts, hosts, launches);
  for (std::size_t r = 0; r < plan.stay.size(); ++r) s.host_[r] = host_of(plan.stay[r]);
  return s;
}

Departure LevelStack::departure(const ShrinkPlan& plan, ProcId p) {
  if (std::find(plan.exit_now.begin(), plan.exit_now.end(), p) != plan.exit_now.end())
    return Departure::Exit;
  if (std::find(plan.park_now.begin(), plan.park_now.end(), p) != plan.park_now.end())
    return Departure::Park;
  return Departure::Stay;
}

namespace {
void put_string(std::vector<int>& out, const std::string& s) {
  out.push_back(static_cast<int>(s.size()));
  for (char c : s) out.push_back(static_cast<unsigned char>(c));
}
}  // namespace

// Layout: nprocs, group[nprocs], state[nprocs], host[nprocs] (length, chars), ngroups,
// per group: level, first, size, host, launch; depth, then per level: kind, nprow, npcol,
// nmembers, members[nmembers].
std::vector<int> LevelStack::encode() const {
  std::vector<int> out;
  out.push_back(nprocs_started());
  out.insert(out.end(), group_.begin(), group_.end());
  for (ProcState s : state_) out.push_back(static_cast<int>(s));
  for (const auto& h : host_) put_string(out, h);
  out.push_back(ngroups());
  for (const SpawnGroup& g : groups_) {
    out.push_back(g.level);
    out.push_back(g.first);
    out.push_back(g.size);
    put_string(out, g.host);
    put_string(out, g.launch);
  }
  out.push_back(depth());
  for (const Level& l : levels_) {
    out.push_back(static_cast<int>(l.kind));
    out.push_back(l.nprow);
    out.push_back(l.npcol);
    out.push_back(static_cast<int>(l.members.size()));
    out.insert(out.end(), l.members.begin(), l.members.end());
  }
  return out;
}

LevelStack LevelStack::decode(std::span<const int> d) {
  std::size_t i = 0;
  const auto next = [&]() {
    if (i >= d.size()) throw Error(BLACS_DYN_ERR_MPI, "truncated level-stack record");
    return d[i++];
  };
  LevelStack s;
  const int n = next();
  if (n < 1) throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (nprocs " + std::to_string(n) + ")");
  const auto next_string = [&]() {
    const int len = next();
    if (len < 0 || static_cast<std::size_t>(len) > d.size() - i)
      throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (string)");
    std::string str;
    for (int k = 0; k < len; ++k) str.push_back(static_cast<char>(next()));
    return str;
  };
  for (int p = 0; p < n; ++p) s.group_.push_back(next());
  for (int p = 0; p < n; ++p) {
    const int st = next();
    if (st < 0 || st > 2) throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (state)");
    s.state_.push_back(static_cast<ProcState>(st));
  }
  for (int p = 0; p < n; ++p) s.host_.push_back(next_string());
  const int ng = next();
  if (ng < 1 || ng > n + 1) throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (groups)");
  for (int g = 0; g < ng; ++g) {
    SpawnGroup sg;
    sg.level = next();
    sg.first = next();
    sg.size = next();
    sg.host = next_string();
    sg.launch = next_string();
    if (sg.first < 0 || sg.size < 0 || sg.first + sg.size > n)
      throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (group)");
    s.groups_.push_back(std::move(sg));
  }
  for (int p = 0; p < n; ++p)
    if (s.group_[static_cast<std::size_t>(p)] < 0 || s.group_[static_cast<std::size_t>(p)] >= ng)
      throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (group of a process)");
  const int depth = next();
  for (int l = 0; l < depth; ++l) {
    Level lv;
    lv.kind = static_cast<LevelKind>(next());
    lv.nprow = next();
    lv.npcol = next();
    const int m = next();
    for (int k = 0; k < m; ++k) {
      const int p = next();
      if (p < 0 || p >= n) throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (member)");
      lv.members.push_back(p);
    }
    s.levels_.push_back(std::move(lv));
  }
  if (i != d.size() || s.levels_.empty())
    throw Error(BLACS_DYN_ERR_MPI, "corrupt level-stack record (length)");
  return s;
}

}  // namespace blacs_dyn
