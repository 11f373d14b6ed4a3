// SPDX-License-Identifier: BSD-3-Clause
// An expansion by spawning (Expand, expand.hpp): spawning newcomers, the hand-shake with
// them and the merge into the world; schema files.
#include "runtime/expand.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"


#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <csignal>
#include <sys/stat.h>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable/blacs_dyn/mpi_flavour.hpp"
#include "protocol/schema.hpp"
#include "platform/blacs_glue.hpp"
#include "malleable_internal/collective.hpp"
#include "protocol/messages.hpp"


namespace blacs_dyn {

using namespace detail;

namespace {

// The MPI_Info of one spawn: the caller's keys, the host (added to the launcher's pool
// for a per-host group), the working folder and BLACS_DYN_JOIN in the children's env.
MPI_Info spawn_info(const SpawnRequest& req, int level) {
  MPI_Info info = MPI_INFO_NULL;
  if (req.info != MPI_INFO_NULL) check(MPI_Info_dup(req.info, &info), "MPI_Info_dup");
  else check(MPI_Info_create(&info), "MPI_Info_create");
  if (!req.hosts.empty()) MPI_Info_set(info, "host", req.hosts.c_str());
  // A per-host group's host joins the launcher's pool if it is not there yet (Open MPI's
  // "add-host"; harmless when it is): a job started on one node (mpiexec --host node1:4)
  // grows onto any node it is given, and the launcher starts a daemon there only then.
  if (req.per_host && info_get(info, "add-host").empty()) MPI_Info_set(info, "add-host", req.hosts.c_str());
  if (!req.wdir.empty()) MPI_Info_set(info, "wdir", req.wdir.c_str());
  // Open MPI's "env" key: newline-separated assignments added to the children's
  // environment. BLACS_DYN_JOIN marks them as newcomers of this expansion.
  std::string env = info_get(info, "env");
  if (!env.empty()) env += "\n";
  env += std::string(kJoinEnv) + "=" + std::to_string(level);
  // Every process of a world must choose the same PML: the newcomers get the spawner's
  // BLACS_DYN_PML (a remote node's daemon forwards only OMPI_ variables).
  if (const Text pml = read_config().pml) env += "\nBLACS_DYN_PML=" + *pml;
  MPI_Info_set(info, "env", env.c_str());
  return info;
}

// A spawn that failed (rc, or `failed` of req.nnew processes not started): an MPI that
// cannot spawn at all is told apart from one spawn that failed.
[[noreturn]] void throw_spawn_failure(const SpawnRequest& req, int rc, int failed) {
  // Not freed: after a failed spawn Open MPI 4.1 leaves an invalid handle in `link`
  // (MPI_Comm_free on it is fatal), and the standard does not define its value.
  // Ask the MPI what the failure means rather than assuming Open MPI's behaviour.
  int cls = MPI_ERR_SPAWN;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  const std::string text = mpi_error_text(rc != MPI_SUCCESS ? rc : MPI_ERR_SPAWN);
  const std::string library = library_version();
  if (classify_spawn_failure(flavour_from_library_version(library), cls == MPI_ERR_SPAWN, text) ==
      SpawnFailure::Unsupported) {
    std::string last = text.substr(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1);
    throw Error(BLACS_DYN_ERR_UNSUPPORTED,
                "spawn not supported by this MPI (" + short_library_name(library) +
                    "): MPI_Comm_spawn fails with \"" + last +
                    "\" (error class " + std::to_string(cls) +
                    "); nothing changed, and expansions are refused from now on "
                    "(docs/guide/mpi-flavours.md)");
  }
  throw Error(BLACS_DYN_ERR_SPAWN,
              "MPI_Comm_spawn of " + std::to_string(req.nnew) + " x '" + req.command +
                  "' failed: " + mpi_error_text(rc != MPI_SUCCESS ? rc : MPI_ERR_SPAWN) + " (" +
                  std::to_string(failed) + " of " + std::to_string(req.nnew) +
                  " processes not started)");
}

// The newcomers' check-ins of one spawn: every hello received, or the deadline passed.
struct CheckIn {
  std::size_t hb = hello_bytes();
  std::vector<char> hello;
  std::vector<MPI_Request> reqs;
  bool all = false;
};

// Every newcomer checks in within the timeout, else the expansion is cancelled: a
// newcomer that died (or is not a blacs-dyn program) must not hang the world in
// MPI_Intercomm_merge.
CheckIn await_check_in(MPI_Comm link, int nnew, double timeout) {
  CheckIn in;
  in.hello.resize(in.hb * static_cast<std::size_t>(nnew));
  in.reqs.assign(static_cast<std::size_t>(nnew), MPI_REQUEST_NULL);
  for (int i = 0; i < nnew; ++i)
    check(MPI_Irecv(&in.hello[in.hb * static_cast<std::size_t>(i)], static_cast<int>(in.hb), MPI_BYTE, i, kTagHello,
                    link, &in.reqs[static_cast<std::size_t>(i)]),
          "MPI_Irecv (hello)");
  const double deadline = now() + timeout;
  while (true) {
    // MPI_Testsome, not MPI_Testall: Testall leaves every request active unless all
    // completed, and the newcomers that did check in must be told apart on a timeout.
    int done = 0;
    std::vector<int> idx(static_cast<std::size_t>(nnew));
    check(MPI_Testsome(nnew, in.reqs.data(), &done, idx.data(), MPI_STATUSES_IGNORE), "MPI_Testsome (hello)");
    in.all = std::all_of(in.reqs.begin(), in.reqs.end(), [](MPI_Request q) { return q == MPI_REQUEST_NULL; });
    if (in.all || now() > deadline) break;
    sleep_for(200000);
  }
  return in;
}

// A newcomer of another build (its check-in of another version) cannot join either:
// what is wrong with the first such hello, "" when every one reads.
std::string foreign_newcomer(const CheckIn& in, int nnew) {
  for (int i = 0; i < nnew; ++i) {
    try {
      decode_hello(std::span<const char>(&in.hello[in.hb * static_cast<std::size_t>(i)], in.hb));
    } catch (const malleable::wire::Error& e) {
      return "spawned process " + std::to_string(i) + ": " + e.what();
    }
  }
  return {};
}

// Some newcomers did not check in: their receives are cancelled, the others are sent
// away, and the expansion fails with the missing ranks.
[[noreturn]] void cancel_missing(MPI_Comm& link, CheckIn& in, const SpawnRequest& req, int level, double timeout) {
  const std::vector<char> abort_msg = encode(cancelled_go(level));
  std::string missing;
  int nmissing = 0;
  for (int i = 0; i < req.nnew; ++i) {
    auto& r = in.reqs[static_cast<std::size_t>(i)];
    if (r != MPI_REQUEST_NULL) {
      MPI_Cancel(&r);
      MPI_Request_free(&r);
      if (nmissing++ < 8) {
        if (!missing.empty()) missing.push_back(',');
        missing.append(std::to_string(i));
      }
    } else {
      MPI_Send(abort_msg.data(), static_cast<int>(abort_msg.size()), MPI_BYTE, i, kTagGo, link);
    }
  }
  MPI_Comm_free(&link);
  throw Error(BLACS_DYN_ERR_TIMEOUT,
              std::to_string(nmissing) + " of " + std::to_string(req.nnew) + " spawned processes (ranks " + missing +
                  " of the new group) did not join within " + seconds_text(timeout) +
                  " s (BLACS_DYN_JOIN_TIMEOUT): died, or not linked with "
                  "blacs-dyn; the expansion is cancelled and the world is unchanged");
}

}  // namespace

// One MPI_Comm_spawn of req.nnew processes over MPI_COMM_SELF: their link.
MPI_Comm Expand::spawn_group(const SpawnRequest& req) {
  MPI_Info info = spawn_info(req, level_);
  std::vector<char*> argv;
  for (const auto& a : req.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<int> errcodes(static_cast<std::size_t>(req.nnew), MPI_SUCCESS);
  MPI_Comm link = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  // Open MPI's MPI_Comm_spawn returns only once every child is through MPI_Init: a child
  // that dies or exits first (a crash, or an executable that is no blacs-dyn program)
  // would block it for minutes or for ever. The join timeout covers the spawn too.
  rt_.dog_.phase("MPI_Comm_spawn of " + std::to_string(req.nnew) + " x '" + req.command + "'" +
                 (req.hosts.empty() ? std::string() : " on " + req.hosts),
             join_timeout_seconds(),
             "a spawned process died or exited before its MPI_Init completed (killed, crashed, or '" +
                 req.command + "' is no MPI program linked with blacs-dyn)");
  const int rc = MPI_Comm_spawn(req.command.c_str(), req.args.empty() ? MPI_ARGV_NULL : argv.data(),
                                req.nnew, info, 0, MPI_COMM_SELF, &link, errcodes.data());
  MPI_Info_free(&info);
  int failed = 0;
  for (int e : errcodes) failed += e != MPI_SUCCESS;
  if (rc != MPI_SUCCESS || failed) {
    throw_spawn_failure(req, rc, failed);
  }
  MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
  return link;
}

MPI_Comm Expand::spawn_and_handshake(const SpawnRequest& req) {
  const int level = level_;
  MPI_Comm link = spawn_group(req);
  rt_.dog_.phase("check-in of " + std::to_string(req.nnew) + " newcomers", join_timeout_seconds() + 10,
             "the check-in loop itself did not return");
  const double timeout = join_timeout_seconds();
  CheckIn in = await_check_in(link, req.nnew, timeout);
  const std::string foreign = in.all ? foreign_newcomer(in, req.nnew) : std::string();
  if (!foreign.empty()) {
    const std::vector<char> abort_msg = encode(cancelled_go(level));
    for (int i = 0; i < req.nnew; ++i)
      MPI_Send(abort_msg.data(), static_cast<int>(abort_msg.size()), MPI_BYTE, i, kTagGo, link);
    MPI_Comm_free(&link);
    throw Error(BLACS_DYN_ERR_SPAWN, foreign + "; the expansion is cancelled and the world is unchanged");
  }
  if (!in.all) cancel_missing(link, in, req, level, timeout);
  return link;
}

namespace {

// Hand-over: a group spawned by a rank other than 0 gets a link with rank 0 (an
// intercommunicator made over the new world) and disconnects from its spawner, so the
// group is tied to rank 0 alone, as a group rank 0 spawned is: release messages and the
// final disconnect go through rank 0 whatever happens to the spawner later.
void hand_links_to_rank0(MPI_Comm cur, const std::vector<int>& spawner, int mine, std::vector<MPI_Comm>& links,
                         const std::vector<int>& first_rank) {
  const int k = static_cast<int>(spawner.size());
  int r = 0;
  MPI_Comm_rank(cur, &r);
  for (int i = 0; i < k; ++i) {
    const int s = spawner[static_cast<std::size_t>(i)];
    if (s == 0) continue;
    auto& l = links[static_cast<std::size_t>(i)];
    if (i == mine) {
      MPI_Comm l0 = MPI_COMM_NULL;
      check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, cur, 0, kTagHandover + i, &l0),
            "newcomer: MPI_Intercomm_create (link with rank 0)");
      check(MPI_Comm_disconnect(&l), "newcomer: MPI_Comm_disconnect (spawner's link)");
      MPI_Comm_set_errhandler(l0, MPI_ERRORS_RETURN);
      l = l0;
    } else if (mine < 0 && r == 0) {
      MPI_Comm l0 = MPI_COMM_NULL;
      check(MPI_Intercomm_create(MPI_COMM_SELF, 0, cur, first_rank[static_cast<std::size_t>(i)],
                                 kTagHandover + i, &l0),
            "MPI_Intercomm_create (rank 0's link with a spawn group)");
      MPI_Comm_set_errhandler(l0, MPI_ERRORS_RETURN);
      l = l0;
    } else if (mine < 0 && r == s) {
      check(MPI_Comm_disconnect(&l), "MPI_Comm_disconnect (spawn link after the hand-over)");
    }
  }
}

}  // namespace

MPI_Comm detail::merge_groups(MPI_Comm w, const std::vector<int>& spawner, int mine,
                               std::vector<MPI_Comm>& links, const std::vector<int>& first_rank) {
  // Group by group, in order, the world grows: the group's spawning parent merges its
  // spawn link into a bridge, the world and the group make an intercommunicator over it,
  // and merge, old ranks first (§3.3.3: parents keep their ranks, newcomers follow). A
  // newcomer takes part from its own group's step on.
  const int k = static_cast<int>(spawner.size());
  MPI_Comm cur = mine < 0 ? w : MPI_COMM_NULL;
  for (int i = std::max(mine, 0); i < k; ++i) {
    MPI_Comm m1 = MPI_COMM_NULL, ia = MPI_COMM_NULL, next = MPI_COMM_NULL;
    if (i == mine) {
      check(MPI_Intercomm_merge(links[static_cast<std::size_t>(i)], 1, &m1),
            "newcomer: MPI_Intercomm_merge (spawner)");
      check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, m1, 0, kTagMerge + i, &ia),
            "newcomer: MPI_Intercomm_create");
      check(MPI_Intercomm_merge(ia, 1, &next), "newcomer: MPI_Intercomm_merge (world)");
    } else {
      int r = 0;
      MPI_Comm_rank(cur, &r);
      if (r == spawner[static_cast<std::size_t>(i)])
        check(MPI_Intercomm_merge(links[static_cast<std::size_t>(i)], 0, &m1),
              "MPI_Intercomm_merge (spawner and newcomers)");
      check(MPI_Intercomm_create(cur, spawner[static_cast<std::size_t>(i)], m1, 1, kTagMerge + i, &ia),
            "MPI_Intercomm_create");
      check(MPI_Intercomm_merge(ia, 0, &next), "MPI_Intercomm_merge (world and newcomers)");
    }
    MPI_Comm_free(&ia);
    if (m1 != MPI_COMM_NULL) MPI_Comm_free(&m1);
    if (cur != MPI_COMM_NULL && cur != w) MPI_Comm_free(&cur);
    cur = next;
  }
  hand_links_to_rank0(cur, spawner, mine, links, first_rank);
  return cur;
}

// Rank 0's request reaches every rank (the spawners of the other groups need it), and
// with it the keys of rank 0's MPI_Info (an MPI_Info object cannot be sent).
void Expand::share_request() {
  SpawnRequest& req = req_;
  std::vector<char> bytes;
  if (rank_ == 0) {
    SharedRequest m{req.command, req.wdir, req.hosts, req.args, {}, {}};
    for (const auto& g : req.groups) m.groups.emplace_back(g.host, g.count);
    int nkeys = 0;
    if (req.info != MPI_INFO_NULL) MPI_Info_get_nkeys(req.info, &nkeys);
    for (int i = 0; i < nkeys; ++i) {
      char key[MPI_MAX_INFO_KEY + 1];
      MPI_Info_get_nthkey(req.info, i, key);
      m.info.emplace_back(key, info_get(req.info, key));
    }
    bytes = encode(m);
  }
  malleable::collective::broadcast_bytes(world_, 0, bytes, [](int rc, const char* what) { check(rc, what); });
  if (rank_ == 0) return;
  SharedRequest m;
  try {
    m = decode_request(bytes);
  } catch (const malleable::wire::Error& e) {
    throw Error(BLACS_DYN_ERR_MPI, e.what());
  }
  req.command = m.command;
  req.wdir = m.wdir;
  req.hosts = m.hosts;
  req.args = m.args;
  req.groups.clear();
  for (const auto& [host, count] : m.groups) req.groups.push_back(GroupRequest{host, count});
  req.info = MPI_INFO_NULL;
  if (!m.info.empty()) {
    check(MPI_Info_create(&req.info), "MPI_Info_create");
    for (const auto& [key, value] : m.info) MPI_Info_set(req.info, key.c_str(), value.c_str());
  }
}

// Rank 0's checks of an expansion before anything is spawned (the others learn the
// outcome in agree()): BLACS interposed, counts and hosts valid, spawning supported, the
// executable there and slots enough for `total` new processes.
void Expand::check_request(const SpawnRequest& request, int total) const {
  if (!rt_.blacs_interposed_)
    throw Error(BLACS_DYN_ERR_STATE,
                "blacs-dyn's BLACS entry points are not the ones in use: link "
                "libmalleable_blacs_dyn ahead of ScaLAPACK (or LD_PRELOAD it)");
  if (request.groups.empty() && request.nnew < 1)
    throw Error(BLACS_DYN_ERR_ARG, "nnew must be >= 1, got " + std::to_string(request.nnew));
  for (std::size_t i = 0; i < request.groups.size(); ++i) {
    const auto& g = request.groups[i];
    if (g.count < 1)
      throw Error(BLACS_DYN_ERR_ARG, "counts[" + std::to_string(i) + "] must be >= 1, got " +
                                        std::to_string(g.count));
    if (g.host.empty() || g.host.find_first_of(", \t\n") != std::string::npos)
      throw Error(BLACS_DYN_ERR_ARG, "hosts[" + std::to_string(i) + "] = '" + g.host +
                                        "' is not one host name");
  }
  if (const std::string& why = rt_.spawn_unsupported_reason(); !why.empty())
    throw Error(BLACS_DYN_ERR_UNSUPPORTED, why);
  check_executable(request.command, request.wdir.empty() ? info_get(request.info, "wdir") : request.wdir);
  check_capacity(cur_->alive(), total);
}

// Every group spawned and checked in: the go message with the grown stack, the merges,
// and the grown world installed (or left pending for the main thread).
void Expand::finish(PhaseTrace& trace) {
  const SpawnRequest& req = req_;
  std::vector<MPI_Comm>& links = links_;
  const int r = rank_, n = size_;
  const int k = static_cast<int>(req.groups.size());
  const int level = level_;
  const double timeout = join_timeout_seconds();
  LevelStack next = *cur_;
  std::vector<int> counts;
  std::vector<std::string> hosts;
  for (const auto& g : req.groups) {
    counts.push_back(g.count);
    // a group spread over a host list is pinned to no single node
    hosts.push_back(g.host.find(',') == std::string::npos ? g.host : std::string());
  }
  const std::vector<int> ids = next.push_expansion(counts, hosts);
  std::vector<int> first_rank;
  for (int id : ids) first_rank.push_back(next.rank_at(next.group(id).first, next.depth() - 1));
  const auto enc = next.encode();
  for (int i = r; i < k; i += n) {
    const std::vector<char> go = encode(Go{true, level, k, i, spawner_, enc});
    for (int m = 0; m < req.groups[static_cast<std::size_t>(i)].count; ++m)
      check(MPI_Send(go.data(), static_cast<int>(go.size()), MPI_BYTE, m, kTagGo,
                     links[static_cast<std::size_t>(i)]),
            "MPI_Send (go)");
  }
  trace.mark("go");
  rt_.dog_.phase("expansion to level " + std::to_string(level) + ": merge of the newcomers into the world", timeout,
             "a process of the world or a newcomer died or hangs");
  const MPI_Comm merged = merge_groups(world_, spawner_, -1, links, first_rank);
  trace.mark("merges + hand-over");
  std::map<int, MPI_Comm> new_links;
  if (r == 0)
    for (int i = 0; i < k; ++i) new_links[ids[static_cast<std::size_t>(i)]] = links[static_cast<std::size_t>(i)];
  rt_.commit_level(merged, std::move(next), std::move(new_links), trace, bg_);
}


// The counts agreed everywhere (like nnew of MPI_Comm_spawn, the number of groups and
// of processes must be the same on every rank; everything else is read on rank 0) and
// rank 0's checks: the processes to spawn, or every rank throws the same error.
int Expand::agree_counts(const SpawnRequest& request) {
  const int r = rank_;
  std::optional<Error> err;
  int total = request.nnew, ngroups = 1;
  if (!request.groups.empty()) {
    ngroups = static_cast<int>(request.groups.size());
    total = 0;
    for (const auto& g : request.groups) total += g.count;
  }
  const auto [nnew, nhosts] = malleable::collective::ranges<2>(world_, {total, ngroups}, [](int rc, const char* what) {
    check(rc, what);
  });
  if (!request.invalid.empty())
    err = Error(BLACS_DYN_ERR_ARG, request.invalid + " (on rank " + std::to_string(r) + ")");
  else if (!nnew.same())
    err = Error(BLACS_DYN_ERR_ARG, "nnew differs across ranks (" + std::to_string(nnew.lo) + " .. " +
                                  std::to_string(nnew.hi) + ")");
  else if (!nhosts.same())
    err = Error(BLACS_DYN_ERR_ARG, "the number of hosts differs across ranks (" + std::to_string(nhosts.lo) +
                                  " .. " + std::to_string(nhosts.hi) + ")");
  if (r == 0 && !err) {
    try {
      check_request(request, total);
    } catch (const Error& e) {
      err = e;
    }
  }
  agree(world_, err, bg_);
  return total;
}

// Group i is spawned by world rank i % n: spawns of different nodes run at the same
// time (rank 0 alone would start them one after the other). This rank's groups, each
// spawned and checked in; the first failure is returned, the groups after it not spawned.
std::optional<Error> Expand::spawn_groups(bool per_host) {
  const SpawnRequest& req = req_;
  const int r = rank_, n = size_;
  const int k = static_cast<int>(req.groups.size());
  std::optional<Error> err;
  for (int i = r; i < k && !err; i += n) {
    SpawnRequest one = req;
    one.nnew = req.groups[static_cast<std::size_t>(i)].count;
    one.hosts = req.groups[static_cast<std::size_t>(i)].host;
    one.per_host = per_host;
    try {
      links_[static_cast<std::size_t>(i)] = spawn_and_handshake(one);
    } catch (const Error& e) {
      err = e;
    }
  }
  return err;
}

// Every rank learns whether every spawn succeeded; if one failed, the groups that did
// start are sent away and every rank throws.
void Expand::agree_spawned(const std::optional<Error>& err) {
  const SpawnRequest& req = req_;
  const int r = rank_, n = size_;
  const int k = static_cast<int>(req.groups.size());
  try {
    agree(world_, err, bg_);
  } catch (const Error& e) {
    // Every rank remembers an MPI that cannot spawn (the same message everywhere).
    if (e.code() == BLACS_DYN_ERR_UNSUPPORTED) rt_.spawn_unsupported_ = e.what();
    // Another spawn failed: the groups that did start are sent away.
    for (int i = r; i < k; i += n) {
      auto& l = links_[static_cast<std::size_t>(i)];
      if (l == MPI_COMM_NULL) continue;
      const std::vector<char> abort_msg = encode(cancelled_go(level_));
      for (int m = 0; m < req.groups[static_cast<std::size_t>(i)].count; ++m)
        MPI_Send(abort_msg.data(), static_cast<int>(abort_msg.size()), MPI_BYTE, m, kTagGo, l);
      MPI_Comm_free(&l);
    }
    throw;
  }
}

void Expand::run(const SpawnRequest& request) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_expand", bg_);
  world_ = rt_.priv(bg_);
  rank_ = rt_.rank(bg_);
  size_ = rt_.size(bg_);
  const int r = rank_, n = size_;
  // A copy: the main thread may record a grid on the stack meanwhile (note_grid) when
  // this runs on the background thread.
  {
    std::lock_guard<std::mutex> lk(rt_.stack_mutex_);
    cur_ = *rt_.stack_;
  }
  PhaseTrace trace(r == 0);
  const double timeout = join_timeout_seconds();
  WatchdogScope watch(rt_.dog_);
  rt_.dog_.arm(rt_.who(), "expansion: checks", timeout, "a process of the world died or hangs");
  const int total = agree_counts(request);
  req_ = request;
  SpawnRequest& req = req_;
  share_request();
  if (req.groups.empty()) req.groups.push_back(GroupRequest{req.hosts, total});
  const int k = static_cast<int>(req.groups.size());
  trace.mark("checks");

  level_ = cur_->depth();
  const int level = level_;
  spawner_.assign(static_cast<std::size_t>(k), 0);
  for (int i = 0; i < k; ++i) spawner_[static_cast<std::size_t>(i)] = i % n;
  links_.assign(static_cast<std::size_t>(k), MPI_COMM_NULL);
  // Ranks that spawn nothing wait for the spawners in agree(): the spawners' own
  // deadlines (spawn, then check-in) come first.
  const std::string wait_spawners = "expansion to level " + std::to_string(level) +
                                    ": waiting for the spawning rank(s) (MPI_Comm_spawn and check-in)";
  rt_.dog_.phase(wait_spawners, 2 * timeout + 20, "a spawning rank died or hangs");
  const std::optional<Error> err = spawn_groups(!request.groups.empty());
  if (r != 0 && req.info != MPI_INFO_NULL) MPI_Info_free(&req.info);
  trace.mark("spawn + check-in");
  rt_.dog_.phase(wait_spawners, 2 * timeout + 20, "a spawning rank died or hangs");
  agree_spawned(err);
  trace.mark("agree");

  finish(trace);
}

bool Expand::from_schema(const char* path, bool missing_ok) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_expand_schema", bg_);
  const MPI_Comm w = rt_.priv(bg_);
  const int r = rt_.rank(bg_);
  std::optional<Error> err;
  SpawnRequest req;
  SchemaOutcome state;
  if (r == 0) {
    const Text setup_file = read_config().setup_file;
    const std::string file = schema_path(path, setup_file ? setup_file->c_str() : nullptr);
    std::ifstream in(file);
    if (!in) {
      if (missing_ok) state.missing = true;
      else err = Error(BLACS_DYN_ERR_SCHEMA, "cannot read schema file '" + file + "': " + std::strerror(errno));
    } else {
      try {
        std::stringstream ss;
        ss << in.rdbuf();
        const Schema s = parse_schema(ss.str(), file);
        req.command = s.executable;
        req.args = s.args;
        req.nnew = s.add;
        req.wdir = s.wdir;
        for (std::size_t i = 0; i < s.hosts.size(); ++i) req.hosts += (i ? "," : "") + s.hosts[i];
        state.nnew = s.add;
      } catch (const Error& e) {
        err = e;
      }
    }
  }
  agree(w, err, bg_);
  std::vector<char> bytes = encode(state);
  check(MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, w), "MPI_Bcast (schema)");
  try {
    state = decode_schema_outcome(bytes);
  } catch (const malleable::wire::Error& e) {
    throw Error(BLACS_DYN_ERR_MPI, e.what());
  }
  if (state.missing) return false;
  req.nnew = state.nnew;
  run(req);
  return true;
}

}  // namespace blacs_dyn
