// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint levels, the recovery from what survived onto a new grid: every
// process lists its node's level files, world rank 0 chooses the newest version complete
// across the levels (levels.hpp choose_version) and who reads each old process's copy, the
// holders read and verify them (a damaged copy: choose again without it), and every matrix
// moves onto the new grid through redist's engine (the old grid's rank map lists each
// holder at the coordinates of the copies it holds). A version some old
// process's blocks are missing from falls back to the global HDF5 checkpoint.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/broadcast.hpp"
#include "common/tags.hpp"
#include "checkpoint/file/io.hpp"
#include "checkpoint/levels/levels.hpp"
#include "checkpoint/levels/node_io.hpp"
#include "malleable/redist/redistribute.hpp"
#include "move/move_items.hpp"
#include "checkpoint/session_checkpoint.hpp"
#include "parts/grid_switch.hpp"
#include "parts/resize_phases.hpp"

namespace resize {

detail::CheckpointMatrix describe(const Registered& r, const blacs_dyn::Grid& grid, int rank);  // session_checkpoint.cpp

using namespace detail;

namespace {

namespace lv = resize::levels;
namespace io = detail::level_io;

// A level file on this node that this process reads if chosen.
struct File {
  lv::LevelName n;
  std::string path;
};

// A verified level file, mapped: its header and its bytes where they lie in the page cache
// (no copy, no fresh pages; the redistribution sends each matrix from there). A format 3
// file's payload starts 64-byte aligned in the file, so in the mapping too; a format 2
// file's may not be (move_from_copies copies a matrix not aligned to its element).
// The mapping is private and read-only, held until the recovery ends; the recovery does not
// run beside a checkpoint of the same files (a file cut short under a mapping would fault).
struct Loaded {
  lv::LevelHeader h;
  void* map = nullptr;
  std::size_t size = 0;     // the file's length
  std::size_t payload = 0;  // offset of the payload in the file
  Loaded() = default;
  Loaded(Loaded&& o) noexcept : h(std::move(o.h)), map(std::exchange(o.map, nullptr)), size(o.size), payload(o.payload) {}
  Loaded& operator=(Loaded&&) = delete;
  Loaded(const Loaded&) = delete;
  ~Loaded() {
    if (map) ::munmap(map, size);
  }
  const char* data() const { return static_cast<const char*>(map); }
};

// A copy by (kind, old rank, version): what a damaged file is known by on every process.
using Copy = std::tuple<int, int, int>;
Copy copy_of(const lv::LevelName& n) { return {static_cast<int>(n.kind), n.rank, n.iteration}; }

// The outcome of the choice, the same on every process.
struct Plan {
  lv::RecoveryChoice choice;
  int old_nprocs = 0;
  std::vector<int> holder;  // per old rank: the new rank that reads its copy (-1: none)
};

// This node's level files of `app`; each is listed to world rank 0 by one process of the
// node (round robin over the sorted names); any process of the node may read it.
std::vector<File> files_of_node(const std::string& here, const std::string& app, const Nodes& nd) {
  std::vector<File> mine;
  int k = 0;
  for (const auto& f : io::list_dir(here)) {
    lv::LevelName n;
    if (!lv::parse_level_file_name(f, app, n)) continue;
    if (k++ % nd.local_size == nd.local) mine.push_back({n, here + "/" + f});
  }
  return mine;
}

// The iterations of the global checkpoints in `global_dir` ("" or unreadable: none).
std::vector<int> global_versions(const std::string& global_dir, const std::string& app) {
  std::vector<int> out;
  if (global_dir.empty()) return out;
  for (const auto& f : io::list_dir(global_dir))
    if (f.rfind(app + "-", 0) == 0 && f.size() == app.size() + 1 + 6 + 3 && f.compare(f.size() - 3, 3, ".h5") == 0)
      out.push_back(checkpoint::iteration_of(f));
  return out;
}

// World rank 0's decision from every process's usable files, 4 ints each (kind, old rank,
// old nprocs, version), process r's from displs[r] for counts[r] ints, and every process's
// node index: the old job's size is the newest version's; the newest version complete
// across levels; per old rank the source and the new rank that reads the chosen copy
// (levels::assign_readers). Returns {version, old_nprocs, then per old rank: source, holder}.
std::vector<int> decide(const std::vector<int>& all, const std::vector<int>& counts, const std::vector<int>& displs,
                        const std::vector<int>& node_of, const std::vector<int>& globals) {
  int newest = -1, old_nprocs = 0;
  for (std::size_t k = 0; k + 3 < all.size(); k += 4)
    if (all[k + 3] > newest) {
      newest = all[k + 3];
      old_nprocs = all[k + 2];
    }
  std::vector<lv::Survived> surv(static_cast<std::size_t>(old_nprocs));
  std::map<std::tuple<int, int, int>, int> where;  // (rank, kind, version) -> new rank that listed it
  for (std::size_t r = 0; r < counts.size(); ++r)
    for (int k = displs[r]; k < displs[r] + counts[r]; k += 4) {
      const auto at = [&](int d) { return all[static_cast<std::size_t>(k + d)]; };
      if (at(2) != old_nprocs) continue;
      auto& s = surv[static_cast<std::size_t>(at(1))];
      (at(0) == static_cast<int>(lv::Level::Local) ? s.local : s.partner).push_back(at(3));
      where.emplace(std::make_tuple(at(1), at(0), at(3)), static_cast<int>(r));
    }
  const lv::RecoveryChoice choice = lv::choose_version(surv, old_nprocs > 0 ? globals : std::vector<int>{});
  std::vector<int> lister(static_cast<std::size_t>(old_nprocs), -1);
  for (int r = 0; r < old_nprocs; ++r) {
    const lv::Source s = choice.source[static_cast<std::size_t>(r)];
    if (s == lv::Source::Local || s == lv::Source::Partner) {
      const int kind = static_cast<int>(s == lv::Source::Local ? lv::Level::Local : lv::Level::Partner);
      lister[static_cast<std::size_t>(r)] = where.at({r, kind, choice.version});
    }
  }
  const std::vector<int> holder = lv::assign_readers(lister, node_of);
  std::vector<int> decision{choice.version, old_nprocs};
  for (int r = 0; r < old_nprocs; ++r) {
    decision.push_back(static_cast<int>(choice.source[static_cast<std::size_t>(r)]));
    decision.push_back(holder[static_cast<std::size_t>(r)]);
  }
  return decision;
}

// Every process's usable files to world rank 0, its decision back to every process.
Plan choose(MPI_Comm world, const std::vector<File>& mine, const std::set<Copy>& bad, int node,
            const std::vector<int>& globals) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  std::vector<int> rows;
  for (const auto& f : mine)
    if (!bad.count(copy_of(f.n)))
      rows.insert(rows.end(), {static_cast<int>(f.n.kind), f.n.rank, f.n.nprocs, f.n.iteration});
  int mine2[2] = {static_cast<int>(rows.size()), node};  // the row count, the node index
  const std::size_t n = rank == 0 ? static_cast<std::size_t>(size) : 0;
  std::vector<int> both(2 * n), counts(n), displs(n), node_of(n), all;
  MPI_Gather(mine2, 2, MPI_INT, both.data(), 2, MPI_INT, 0, world);
  for (std::size_t r = 0, at = 0; r < n; at += static_cast<std::size_t>(counts[r]), ++r) {
    counts[r] = both[2 * r];
    node_of[r] = both[2 * r + 1];
    displs[r] = static_cast<int>(at);
  }
  if (rank == 0) all.resize(counts.empty() ? 0 : static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Gatherv(rows.data(), mine2[0], MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0, world);
  std::vector<int> decision;
  if (rank == 0) decision = decide(all, counts, displs, node_of, globals);
  int dlen = static_cast<int>(decision.size());
  MPI_Bcast(&dlen, 1, MPI_INT, 0, world);
  decision.resize(static_cast<std::size_t>(dlen));
  MPI_Bcast(decision.data(), dlen, MPI_INT, 0, world);
  Plan p;
  p.choice.version = decision[0];
  p.old_nprocs = decision[1];
  p.choice.source.resize(static_cast<std::size_t>(p.old_nprocs));
  p.holder.assign(static_cast<std::size_t>(p.old_nprocs), -1);
  for (int r = 0; r < p.old_nprocs; ++r) {
    const auto s = static_cast<lv::Source>(decision[static_cast<std::size_t>(2 + 2 * r)]);
    p.choice.source[static_cast<std::size_t>(r)] = s;
    p.holder[static_cast<std::size_t>(r)] = decision[static_cast<std::size_t>(3 + 2 * r)];
    (s == lv::Source::Local ? p.choice.from_local : s == lv::Source::Partner ? p.choice.from_partner : p.choice.from_global)++;
  }
  return p;
}

// Maps and verifies one level file (length, checksum, header against its name); throws
// Error naming the fault. The pages are mapped up front (MAP_POPULATE: one pass in the
// kernel rather than a fault per page) and the checksum reads them in place.
Loaded read_level_file(const File& f, const std::string& app) {
  Loaded L;
  const int fd = ::open(f.path.c_str(), O_RDONLY);
  if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno));
  struct stat sb {};
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd);
    throw Error("not a regular file");
  }
  L.size = static_cast<std::size_t>(sb.st_size);
  if (L.size < lv::kLevelPrefix) {
    ::close(fd);
    throw Error("level file: truncated (" + std::to_string(L.size) + " bytes)");
  }
  void* p = ::mmap(nullptr, L.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw Error(std::string("cannot map: ") + std::strerror(err));
  L.map = p;
  L.h = lv::decode_header(L.data(), L.size, L.payload);
  if (L.size - L.payload != L.h.payload_bytes) throw Error("the payload is truncated");
  lv::PayloadChecksum c;
  c.update(L.data() + L.payload, L.h.payload_bytes);
  if (c.value() != L.h.payload_checksum) throw Error("checksum mismatch: the data is damaged");
  if (L.h.rank != f.n.rank || L.h.iteration != f.n.iteration || L.h.nprocs != f.n.nprocs || L.h.program != app)
    throw Error("its header does not match its name");
  return L;
}

// The chosen copies this process reads (any file of its node's directory `here`), mapped
// and verified; the damaged ones go into `failed` and their reasons into `why`.
std::map<int, Loaded> load_chosen(const std::string& here, const Plan& p, int rank, const std::string& app,
                                  std::vector<int>& failed, std::string& why) {
  std::map<int, Loaded> loaded;
  for (int r = 0; r < p.old_nprocs; ++r) {
    if (p.holder[static_cast<std::size_t>(r)] != rank) continue;
    const auto s = p.choice.source[static_cast<std::size_t>(r)];
    File f;
    f.n.kind = s == lv::Source::Local ? lv::Level::Local : lv::Level::Partner;
    f.n.rank = r;
    f.n.nprocs = p.old_nprocs;
    f.n.iteration = p.choice.version;
    f.path = here + "/" + lv::level_file_name(app, f.n.kind, r, p.old_nprocs, p.choice.version);
    try {
      loaded.emplace(r, read_level_file(f, app));
    } catch (const Error& e) {
      const Copy c = copy_of(f.n);
      failed.insert(failed.end(), {std::get<0>(c), std::get<1>(c), std::get<2>(c)});
      why += (why.empty() ? "" : "; ") + f.path + ": " + e.what();
    }
  }
  return loaded;
}

// Every process's damaged copies, on every process (rare: only after a failed read).
std::set<Copy> gather_failed(MPI_Comm world, const std::vector<int>& failed) {
  int size = 0;
  MPI_Comm_size(world, &size);
  int count = static_cast<int>(failed.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, world);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(failed.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, world);
  std::set<Copy> out;
  for (std::size_t k = 0; k + 2 < all.size(); k += 3) out.insert({all[k], all[k + 1], all[k + 2]});
  return out;
}

// Chooses and loads until no chosen copy is damaged (damaged copies are dropped and the
// choice made again: another level or version), or the choice needs the global file.
Plan choose_and_load(MPI_Comm world, const std::vector<File>& mine, const std::string& here, int node,
                     const std::vector<int>& globals, const std::string& app, const std::string& dir,
                     std::map<int, Loaded>& loaded) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  std::set<Copy> bad;
  for (int round = 0;; ++round) {
    Plan p = choose(world, mine, bad, node, globals);
    if (p.choice.version < 0 || p.choice.from_global > 0) return p;
    std::vector<int> failed;
    std::string why;
    loaded = load_chosen(here, p, rank, app, failed, why);
    int nfailed = static_cast<int>(failed.size() / 3), any = 0;
    MPI_Allreduce(&nfailed, &any, 1, MPI_INT, MPI_SUM, world);
    if (!any) return p;
    const std::set<Copy> now = gather_failed(world, failed);
    bad.insert(now.begin(), now.end());
    const std::string said = io::agree(world, why);
    if (rank == 0) {
      std::printf("[%s] restart from levels: %s; choosing again without %d damaged cop%s\n", app.c_str(), said.c_str(),
                  any, any == 1 ? "y" : "ies");
      std::fflush(stdout);
    }
    if (round > 64) throw Error("restart from levels in " + dir + ": too many damaged copies");
  }
}

// Whether every loaded copy holds the matrices this program registered ("" or why not).
std::string check_against(const std::map<int, Loaded>& loaded, const std::vector<Registered>& mats) {
  for (const auto& [r, L] : loaded) {
    if (L.h.matrices.size() != mats.size())
      return "old rank " + std::to_string(r) + "'s copy holds " + std::to_string(L.h.matrices.size()) +
             " matrices, this program registered " + std::to_string(mats.size());
    for (std::size_t k = 0; k < mats.size(); ++k) {
      const auto& m = L.h.matrices[k].global;
      const auto& reg = mats[k];
      if (m.name != reg.mat().name || m.type != reg.mat().type || m.m != reg.mat().m || m.n != reg.mat().n)
        return "matrix " + std::to_string(k) + " is '" + m.name + "' (" + scalar_letter(m.type) + ", " + std::to_string(m.m) + " x " +
               std::to_string(m.n) + ") in the copy, this program registered '" + reg.mat().name + "' (" +
               scalar_letter(reg.mat().type) + ", " + std::to_string(reg.mat().m) + " x " + std::to_string(reg.mat().n) + ")";
    }
  }
  return {};
}

redist::BlockSizes blocks(std::int64_t extent, std::int64_t b, const std::vector<std::int64_t>& list) {
  return b > 0 ? redist::BlockSizes::uniform(extent, b) : redist::BlockSizes(list);
}

// The old grid of every matrix, the same on every process: its shape and blocks (from the
// holder of old rank 0's copy, broadcast) and, per old grid coordinate, the new rank that
// holds the copy of the old process there (one MPI_Allgatherv of every process's loaded
// coordinates). A process holding several copies holds several coordinates of the old
// grid: the layout's rank map lists it at each (redist::RankMap::holding_several); when
// none does, the map is an ordinary list.
std::vector<redist::Layout> old_layouts(MPI_Comm world, const std::map<int, Loaded>& loaded, const Plan& p,
                                        std::size_t nmats) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  std::vector<std::int64_t> shape;  // per matrix: m, n, mb, nb, nprow, npcol, rsrc, csrc, #rows, #cols, lists
  if (rank == p.holder[0])
    for (const auto& m : loaded.at(0).h.matrices) {
      const auto& g = m.global;
      shape.insert(shape.end(), {g.m, g.n, g.mb, g.nb, m.layout.nprow, m.layout.npcol, m.layout.rsrc, m.layout.csrc,
                                 static_cast<std::int64_t>(g.row_blocks.size()), static_cast<std::int64_t>(g.col_blocks.size())});
      shape.insert(shape.end(), g.row_blocks.begin(), g.row_blocks.end());
      shape.insert(shape.end(), g.col_blocks.begin(), g.col_blocks.end());
    }
  std::vector<char> bytes(reinterpret_cast<const char*>(shape.data()),
                          reinterpret_cast<const char*>(shape.data() + shape.size()));
  bytes = broadcast_bytes(std::move(bytes), p.holder[0], world);
  shape.resize(bytes.size() / sizeof(std::int64_t));
  std::memcpy(shape.data(), bytes.data(), shape.size() * sizeof(std::int64_t));
  std::vector<int> mine;  // (matrix, pr, pc) of every copy this process holds
  for (const auto& [r, L] : loaded)
    for (std::size_t k = 0; k < L.h.matrices.size(); ++k)
      if (L.h.matrices[k].pr >= 0) mine.insert(mine.end(), {static_cast<int>(k), L.h.matrices[k].pr, L.h.matrices[k].pc});
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, world);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, world);
  std::vector<redist::Layout> out;
  std::size_t at = 0;
  for (std::size_t k = 0; k < nmats; ++k) {
    const auto f = [&](std::size_t d) { return shape.at(at + d); };
    const auto nprow = static_cast<int>(f(4)), npcol = static_cast<int>(f(5));
    const auto nr = static_cast<std::size_t>(f(8)), nc = static_cast<std::size_t>(f(9));
    const std::vector<std::int64_t> rl(shape.begin() + static_cast<std::ptrdiff_t>(at + 10),
                                       shape.begin() + static_cast<std::ptrdiff_t>(at + 10 + nr));
    const std::vector<std::int64_t> cl(shape.begin() + static_cast<std::ptrdiff_t>(at + 10 + nr),
                                       shape.begin() + static_cast<std::ptrdiff_t>(at + 10 + nr + nc));
    std::vector<int> holder(static_cast<std::size_t>(nprow) * static_cast<std::size_t>(npcol), -1);
    for (int r = 0; r < size; ++r)
      for (int q = displs[static_cast<std::size_t>(r)]; q < displs[static_cast<std::size_t>(r)] + counts[static_cast<std::size_t>(r)]; q += 3)
        if (all[static_cast<std::size_t>(q)] == static_cast<int>(k))
          holder.at(static_cast<std::size_t>(all[static_cast<std::size_t>(q + 1)] * npcol + all[static_cast<std::size_t>(q + 2)])) = r;
    if (std::find(holder.begin(), holder.end(), -1) != holder.end())
      throw Error("restart from levels: matrix " + std::to_string(k) + ": a coordinate of the old grid is in no loaded copy");
    // A rank map listing no rank twice is an ordinary one: the engine's plan steps
    // (fused local copies) takes a lone matrix then.
    std::vector<int> sorted = holder;
    std::sort(sorted.begin(), sorted.end());
    const bool several = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
    out.push_back(redist::Layout::from_blocks(
        blocks(f(0), f(2), rl), blocks(f(1), f(3), cl), nprow, npcol, static_cast<int>(f(6)), static_cast<int>(f(7)),
        several ? redist::RankMap::holding_several(std::move(holder)) : redist::RankMap(std::move(holder))));
    at += 10 + nr + nc;
  }
  return out;
}

// Every matrix from the old layout (each old process's local array in its loaded copy, on
// its holder) onto the new grid in one exchange of redist's engine, every matrix's pieces
// for one peer in the same messages. Returns the bytes this process sent to others;
// `planning` = the seconds before the exchange (the old layouts, the plans, the items).
std::int64_t move_from_copies(MPI_Comm world, const std::map<int, Loaded>& loaded, const Plan& p,
                              const std::vector<CheckpointMatrix>& nw, double& planning) {
  const double t0 = MPI_Wtime();
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const std::vector<redist::Layout> old = old_layouts(world, loaded, p, nw.size());
  std::vector<std::vector<char>> realigned;  // copies of payloads not aligned to their element size
  realigned.reserve(loaded.size() * nw.size());
  MoveItems batch;
  for (std::size_t k = 0; k < nw.size(); ++k) {
    const std::size_t es = scalar_bytes(nw[k].spec.type);
    std::vector<HeldCopy> held;
    for (const auto& [r, L] : loaded) {
      const auto& m = L.h.matrices[k];
      if (m.pr < 0) continue;
      const char* src = L.data() + L.payload + m.offset;
      if (reinterpret_cast<std::uintptr_t>(src) % es != 0) {  // the kernels read whole elements
        realigned.emplace_back(src, src + m.bytes);
        src = realigned.back().data();
      }
      held.push_back({m.pr, m.pc, src, m.rows});
    }
    batch.add_held(old[k], std::move(held), nw[k].layout, nw[k].local, nw[k].lld, nw[k].spec.type, size, rank);
  }
  // The engine's transports as `redistribute` chooses them by default (single copy, the
  // node window for every pair of one node; each send from its held copy's array).
  planning = MPI_Wtime() - t0;
  batch.run(world);
  return batch.sent_bytes(rank);
}

// The message when some old processes' blocks are in no level.
std::string global_fallback_line(const std::string& app, const Plan& p, const std::string& file) {
  std::string lost;
  int shown = 0;
  for (int r = 0; r < p.old_nprocs; ++r)
    if (p.choice.source[static_cast<std::size_t>(r)] == lv::Source::Global && shown++ < 8) {
      if (!lost.empty()) lost += ',';
      lost += std::to_string(r);
    }
  if (p.choice.from_global > 8) lost += ",...";
  std::string line = "[" + app + "] restart from levels: the blocks of " + std::to_string(p.choice.from_global) + " of ";
  line += std::to_string(p.old_nprocs) + " old processes (ranks " + lost + ") are in no level; reading iteration ";
  line += std::to_string(p.choice.version) + " from the global checkpoint " + file;
  return line;
}

}  // namespace

int detail::restart_from_level_copies(CheckpointView v, const std::string& dir_in, const Grid& g,
                                      const std::string& global_dir, const StartOn& start) {
  // The parts it uses: the world, the registered matrices (and the application's state).
  const detail::SessionWorld& job = v.job;
  const detail::MatrixRegistry& reg = v.registry;
  MPI_Barrier(job.world);
  const double t0 = MPI_Wtime();
  const std::string app = v.opt.app;
  const std::string dir = dir_in.empty() ? io::default_dir(app, v.cfg) : dir_in;
  const std::unique_ptr<Nodes> nd = io::discover(job.world, v.cfg);
  const int rank = job.rank(), size = job.size();
  const std::string here = dir + "/" + nd->name;
  const std::vector<File> mine = files_of_node(here, app, *nd);
  const std::vector<int> globals = job.root() ? global_versions(global_dir, app) : std::vector<int>{};
  std::map<int, Loaded> loaded;
  double part[6] = {MPI_Wtime() - t0, 0, 0, 0, 0, 0};  // files, choose and read, grid, move; the whole; planning
  const Plan p = choose_and_load(job.world, mine, here, nd->index, globals, app, dir, loaded);
  part[1] = MPI_Wtime() - t0 - part[0];
  if (p.choice.version < 0)
    throw Error("restart from levels in " + dir + ": no version is complete across the levels on these nodes" +
                (global_dir.empty() ? std::string(" and no global checkpoint directory was given")
                                    : " or in the global checkpoints of " + global_dir));
  if (p.choice.from_global > 0) {
    const std::string file = checkpoint::file_name(global_dir, app, p.choice.version);
    progress_line(v.opt, job.root(), global_fallback_line(app, p, file));
    return restart_from_file(v, file, g, start);
  }
  const std::string why = io::agree(job.world, check_against(loaded, reg.mats));
  if (!why.empty()) throw Error("restart from levels in " + dir + ": " + why);
  const double t_grid = MPI_Wtime();
  start(g, true);  // its new arrays serve a recovery (move/pages.hpp)
  // The application state, from the holder of old rank 0's copy.
  std::vector<char> state;
  if (rank == p.holder[0]) state = loaded.at(0).h.state;
  state = broadcast_bytes(std::move(state), p.holder[0], job.world);
  if (reg.unpack) reg.unpack(state);
  // Every matrix from the old layout (each old process's blocks now on its holder) onto
  // the new grid.
  std::vector<CheckpointMatrix> nw;
  for (const auto& r : reg.mats) nw.push_back(describe(r, job.grid, rank));
  const double t_move = MPI_Wtime();
  part[2] = t_move - t_grid;
  const std::int64_t moved = move_from_copies(job.world, loaded, p, nw, part[5]);
  v.iteration = p.choice.version;
  std::int64_t moved_all = 0;
  MPI_Allreduce(&moved, &moved_all, 1, MPI_INT64_T, MPI_SUM, job.world);
  part[3] = MPI_Wtime() - t_move;
  part[4] = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, part, 6, MPI_DOUBLE, MPI_MAX, job.world);  // each part's slowest process
  char line[448];
  std::snprintf(line, sizeof line,
                " at iteration %d: %d old processes from local copies, %d from partner copies, 0 bytes from the "
                "global checkpoint; %d -> %d processes, now on %s, %.1f MB moved between processes (%.1f ms: files "
                "%.1f, choose and read %.1f, grid %.1f, move %.1f of which planning %.1f)",
                p.choice.version, p.choice.from_local, p.choice.from_partner, p.old_nprocs, size, g.shape().c_str(),
                static_cast<double>(moved_all) / 1e6, part[4] * 1e3, part[0] * 1e3, part[1] * 1e3, part[2] * 1e3,
                part[3] * 1e3, part[5] * 1e3);
  progress_line(v.opt, job.root(), "[" + app + "] restart from levels in " + dir + line);
  return v.iteration;
}

}  // namespace resize
