// The resize session's MPI shell (seed 002 §3.1 remap points, §3.3 expand/shrink,
// seed 003 cost breakdown). Decisions come from the pure core; this file only acts.
#include "malleable/redist/cost_model.hpp"
#include "malleable/resize/session.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <new>
#include <optional>
#include <stdexcept>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "malleable/resize/grid_choice.hpp"
#include "malleable/resize/kernel_meter.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"
#include "malleable/redist/traffic.hpp"
#include "blacs_grid.hpp"
#include "mover.hpp"
#include "world.hpp"

extern "C" void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myprow, int* mypcol);
extern "C" int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc,
                       const int* nprocs);

namespace resize {

std::string to_string(Mover m) { return m == Mover::Redist ? "redist" : "pdgemr2d"; }
Mover parse_mover(const std::string& s) {
  if (s == "redist") return Mover::Redist;
  if (s == "pdgemr2d") return Mover::Pdgemr2d;
  throw Error("redistribution: expected redist or pdgemr2d, got '" + s + "'");
}

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Byte packing for the state handed to newcomers.
struct Writer {
  std::vector<char> b;
  template <class T> void put(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    b.insert(b.end(), p, p + sizeof v);
  }
  void put_ints(const std::vector<int>& v) {
    put(static_cast<int>(v.size()));
    for (int x : v) put(x);
  }
  void put_doubles(const std::vector<double>& v) {
    put(static_cast<int>(v.size()));
    for (double x : v) put(x);
  }
  void put_bytes(const std::vector<char>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    b.insert(b.end(), v.begin(), v.end());
  }
};
struct Reader {
  const std::vector<char>& b;
  std::size_t at = 0;
  template <class T> T get() {
    if (at + sizeof(T) > b.size()) throw Error("session state: truncated hand-over");
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::vector<int> get_ints() {
    std::vector<int> v(static_cast<std::size_t>(get<int>()));
    for (int& x : v) x = get<int>();
    return v;
  }
  std::vector<double> get_doubles() {
    std::vector<double> v(static_cast<std::size_t>(get<int>()));
    for (double& x : v) x = get<double>();
    return v;
  }
  std::vector<char> get_bytes() {
    const auto n = get<std::uint64_t>();
    if (at + n > b.size()) throw Error("session state: truncated hand-over");
    std::vector<char> v(b.begin() + static_cast<std::ptrdiff_t>(at),
                        b.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    return v;
  }
};

std::string comma_list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

void put_grid(Writer& w, const Grid& g) {
  w.put(g.nprow);
  w.put(g.npcol);
  w.put_ints(g.rank_map());
}
Grid get_grid(Reader& r) {
  Grid g;
  g.nprow = r.get<int>();
  g.npcol = r.get<int>();
  g.ranks = r.get_ints();
  return g;
}

// A watchdog for resizes: a process that dies during a spawn or a redistribution would
// otherwise leave the others blocked for ever in a collective. Armed per resize; if the
// resize has not finished within the timeout it reports the phase and ends the process
// (mpiexec then tears the job down).
class Watchdog {
 public:
  explicit Watchdog(double seconds) : seconds_(seconds) {}
  void set_timeout(double seconds) { seconds_ = seconds; }
  ~Watchdog() { disarm(); }
  void arm(const std::string& what) {
    disarm();
    std::lock_guard<std::mutex> lk(m_);
    what_ = what;
    phase_ = "start";
    armed_ = true;
    thread_ = std::thread([this] { run(); });
  }
  void phase(const std::string& p) {
    std::lock_guard<std::mutex> lk(m_);
    phase_ = p;
  }
  void disarm() {
    {
      std::lock_guard<std::mutex> lk(m_);
      armed_ = false;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lk(m_);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(seconds_);
    if (cv_.wait_until(lk, deadline, [this] { return !armed_; })) return;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "resize: FAILED - %s did not finish within %.0f s (stuck in phase '%s'); a "
                 "process died or stopped answering. Ending the job (pid %d).\n",
                 what_.c_str(), seconds_, phase_.c_str(), static_cast<int>(getpid()));
    std::fflush(stderr);
    std::_Exit(75);
  }
  double seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false;
  std::string what_, phase_;
};

}  // namespace

namespace {

// A registered matrix's local buffer, whatever its element type and owner: the
// application's std::vector (C++) or a malloc()'ed pointer the session owns (C, Fortran).
// A move writes into a staged buffer, swapped in by commit() once every rank has its data.
class Storage {
 public:
  virtual ~Storage() = default;
  virtual const void* data() const = 0;
  // The buffer becomes `n` zeroed elements.
  virtual void reset(std::size_t n) = 0;
  // A newcomer before its first move: no data.
  virtual void clear() = 0;
  // A zeroed buffer of `n` elements to move into; commit() makes it the buffer.
  virtual void* stage(std::size_t n) = 0;
  virtual void commit() = 0;
};

template <class T>
class VectorStorage final : public Storage {
 public:
  explicit VectorStorage(std::vector<T>& v) : v_(v) {}
  const void* data() const override { return v_.data(); }
  void reset(std::size_t n) override { v_.assign(n, T{}); }
  void clear() override { v_.clear(); }
  void* stage(std::size_t n) override {
    staged_.assign(n, T{});
    return staged_.data();
  }
  void commit() override {
    v_.swap(staged_);
    std::vector<T>().swap(staged_);
  }

 private:
  std::vector<T>& v_;
  std::vector<T> staged_;
};

// At least one element is allocated, so the pointer is valid for PDGEMR2D and Fortran.
template <class T>
class MallocStorage final : public Storage {
 public:
  explicit MallocStorage(T** p) : p_(p) {}
  // The session owns the buffer (resize.h): what it allocated is freed here and the
  // caller's pointer set to NULL, so a caller's own free() afterwards is harmless. A
  // pointer the session never allocated (a registration that failed) is left alone.
  ~MallocStorage() override {
    std::free(staged_);
    if (owned_) {
      std::free(*p_);
      *p_ = nullptr;
    }
  }
  MallocStorage(const MallocStorage&) = delete;
  MallocStorage& operator=(const MallocStorage&) = delete;
  const void* data() const override { return *p_; }
  void reset(std::size_t n) override {
    if (owned_) std::free(*p_);
    *p_ = allocate(n);
    owned_ = true;
  }
  void clear() override {
    if (owned_) std::free(*p_);
    *p_ = nullptr;
    owned_ = true;
  }
  void* stage(std::size_t n) override {
    std::free(staged_);
    staged_ = allocate(n);
    return staged_;
  }
  void commit() override {
    if (owned_) std::free(*p_);
    *p_ = staged_;
    staged_ = nullptr;
    owned_ = true;
  }

 private:
  static T* allocate(std::size_t n) {
    // calloc's all-zero bytes are 0 and (0, 0) for IEEE floats and their complex pairs.
    auto* p = static_cast<T*>(std::calloc(std::max<std::size_t>(n, 1), sizeof(T)));
    if (!p) throw std::bad_alloc();  // named with the matrix by Registered::reset/stage
    return p;
  }
  T** p_;
  bool owned_ = false;  // *p_ is the session's (it allocated it)
  T* staged_ = nullptr;
};

}  // namespace

struct Registered {
  std::string name;
  int* desc = nullptr;
  std::unique_ptr<Storage> store;
  detail::Scalar type = detail::Scalar::D;
  Distribution dist = Distribution::BlockCyclic;
  int m = 0, n = 0, mb = 1, nb = 1;    // global shape and the block-cyclic block
  Session::BlockSizes sizes;           // set: an extended-descriptor matrix (no desc)
  int* lld = nullptr;                  // its leading dimension, for the application
  // Its layout now (extended-descriptor matrices): a regrid may change the powers its
  // block sizes follow, so the source of the next move is this, not sizes() again.
  std::optional<redist::Layout> layout;
  const void* data() const { return store->data(); }
  std::int64_t bytes(std::int64_t elements) const {
    return elements * static_cast<std::int64_t>(detail::scalar_bytes(type));
  }
  // The buffer on a new grid (reset) or the one a move writes into (stage). A size that
  // does not fit in memory is named with the matrix, not as std::bad_alloc.
  void reset(std::size_t elements) { sized("its buffer", elements, [&] { store->reset(elements); }); }
  void* stage(std::size_t elements) {
    void* p = nullptr;
    sized("the buffer it moves into", elements, [&] { p = store->stage(elements); });
    return p;
  }

 private:
  template <class F>
  void sized(const char* what, std::size_t elements, F&& allocate) {
    try {
      allocate();
    } catch (const std::bad_alloc&) {
      throw Error(out_of_memory(what, elements));
    } catch (const std::length_error&) {
      throw Error(out_of_memory(what, elements));
    }
  }
  std::string out_of_memory(const char* what, std::size_t elements) const {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>(elements) * detail::scalar_bytes(type) / 1073741824.0);
    return "session: matrix '" + name + "' (" + std::to_string(m) + " x " + std::to_string(n) + "): " + what +
           " of " + std::to_string(elements) + " elements (" + gib + " GiB) on this process does not fit in memory";
  }
};

struct Session::Impl {
  SessionOptions opt;
  std::string exe;
  std::vector<std::string> args;
  MPI_Comm world = MPI_COMM_NULL;
  detail::BlacsGrid grid;
  Grid shape;  // current grid (also on processes outside it)
  std::vector<Registered> mats;
  Metrics metrics;
  int iteration = 0;
  double t_wall0 = 0, t_cpu0 = 0, t_kernel0 = 0;
  std::string pending_note;
  std::function<std::vector<char>()> pack;
  std::function<void(const std::vector<char>&)> unpack;
  Watchdog dog{60.0};
  bool started = false;
  // Node id of every rank of the world a redistribution runs in (empty: not known), so
  // move_all can count bytes within and between nodes (issue 10).
  std::vector<int> node_of_rank;
  // The machine's calibrated redistribution costs (malleable-calibrate; world rank 0 only):
  // each resize records the redistribution time they predict beside the measured one.
  std::optional<redist::CostParams> cost_model;
  // Node of every rank of the current world (for policies that manage nodes, issue 12).
  std::vector<std::string> rank_hosts;
  // Issue 13: this iteration's reported compute (this process), the measured speeds and
  // the resize history (world rank 0), the mapping powers (every process).
  double work_acc = 0, compute_acc = 0;
  SpeedEstimator speeds;
  ResizeHistory history;
  std::string history_path;  // empty: not persisted
  std::vector<double> powers, powers_before;  // now, and before the resize under way
  // Rank 0's predictions for the resize being made (copied into its record).
  double pred_spawn = -1, pred_other = -1, pred_iteration = -1, iteration_before = -1;
  std::string pred_text;

  // What act() planned for a resize besides the target grid (issue 10).
  struct NodePlan {
    std::vector<int> keep;                              // shrink: old ranks that stay, in order
    std::vector<std::string> release;                   // shrink: nodes given back
    std::vector<std::pair<std::string, int>> spawn;     // expand: new processes per host
    std::vector<std::string> hosts_before;              // node of every rank before
  };

  int rank() const {
    int r = 0;
    MPI_Comm_rank(world, &r);
    return r;
  }
  int size() const {
    int s = 0;
    MPI_Comm_size(world, &s);
    return s;
  }
  bool root() const { return rank() == 0; }

  void desc_for(const Registered& r, const detail::BlacsGrid& g, int* d) const {
    const Grid& s = g.grid();
    const int mb = r.dist == Distribution::Block ? std::max(1, (r.m + s.nprow - 1) / s.nprow) : r.mb;
    const int nb = r.dist == Distribution::Block ? std::max(1, (r.n + s.npcol - 1) / s.npcol) : r.nb;
    const int zero = 0;
    int lld = 1;
    if (g.member()) {
      const int pr = g.myrow(), nr = s.nprow;
      lld = std::max(1, numroc_(&r.m, &mb, &pr, &zero, &nr));
    }
    const int v[9] = {1, g.member() ? g.ctxt() : -1, r.m, r.n, mb, nb, 0, 0, lld};
    std::copy(v, v + 9, d);
  }

  // Redistributes every registered matrix from grid `from` to grid `to` (both contexts
  // on the current world); returns bytes moved between ranks.
  std::int64_t move_all(const detail::BlacsGrid& from, const detail::BlacsGrid& to,
                        ResizeRecord* rec = nullptr) {
    Grid all{1, size(), {}};
    detail::BlacsGrid whole(world, all);
    std::int64_t moved = 0;
    const bool predict = rec && root() && cost_model && opt.mover == Mover::Redist;
    if (predict) rec->t_redist_predicted = 0;
    for (auto& r : mats) {
      if (r.sizes) {
        moved += move_blocks(r, from, to, rec);
        continue;
      }
      int da[9], db[9];
      desc_for(r, from, da);
      // Keep the caller's leading dimension on the old grid (it owns that buffer).
      if (from.member()) da[8] = r.desc[8];
      desc_for(r, to, db);
      void* nbuf = r.stage(Session::local_size(db));
      const detail::MatrixMove mv{.m = r.m, .n = r.n, .type = r.type, .a = r.data(), .desca = da,
                                  .b = nbuf, .descb = db, .grid_a = &from.grid(), .grid_b = &to.grid()};
      detail::move_matrix(opt.mover, mv, world, whole.ctxt());
      if (predict) rec->t_redist_predicted += detail::predict_move_seconds(*cost_model, mv, size(), node_of_rank);
      if (root()) {
        moved += r.bytes(detail::moved_elements(mv));
        if (rec && !node_of_rank.empty()) {
          const auto t = detail::node_traffic(mv, node_of_rank);
          rec->bytes_intra_node += r.bytes(t.elements_intra_node);
          rec->bytes_inter_node += r.bytes(t.elements_inter_node);
        }
      }
      r.store->commit();
      std::copy(db, db + 9, r.desc);
    }
    if (rec && root()) {
      if (predict) {
        rec->redist_predicted_by = "cost model";
      } else if (const auto t = history.predict_redist(static_cast<double>(moved))) {
        // No calibration: the bytes this resize's plans move, on the line through the
        // earlier resizes (known before the data moved; set here where the count is).
        rec->t_redist_predicted = *t;
        rec->redist_predicted_by = "history";
      }
    }
    return moved;
  }

  // The extended-descriptor layout of a block-sizes matrix on a grid.
  redist::Layout layout_of(const Registered& r, const Grid& g) const {
    std::vector<long long> rows, cols;
    r.sizes(g, rows, cols);
    std::vector<std::int64_t> rb(rows.begin(), rows.end()), cb(cols.begin(), cols.end());
    return redist::Layout::from_blocks(rb, cb, g.nprow, g.npcol, 0, 0, g.rank_map());
  }
  // Local rows and columns of this process in a layout (0 x 0 off the grid).
  std::pair<std::int64_t, std::int64_t> local_dims(const redist::Layout& l) const {
    int pr = -1, pc = -1;
    if (!l.coords_of(rank(), pr, pc)) return {0, 0};
    return {l.local_rows(pr), l.local_cols(pc)};
  }
  void size_blocks(Registered& r, const Grid& g) {
    r.layout = layout_of(r, g);
    const auto [lr, lc] = local_dims(*r.layout);
    r.reset(static_cast<std::size_t>(lr * lc));
    *r.lld = static_cast<int>(std::max<std::int64_t>(1, lr));
  }
  std::int64_t move_blocks(Registered& r, const detail::BlacsGrid& from, const detail::BlacsGrid& to,
                           ResizeRecord* rec) {
    const redist::Layout la = r.layout ? *r.layout : layout_of(r, from.grid()), lb = layout_of(r, to.grid());
    const auto [ar, ac] = local_dims(la);
    const auto [br, bc] = local_dims(lb);
    void* nbuf = r.stage(static_cast<std::size_t>(br * bc));
    detail::move_layout(r.type, world, la, ar * ac > 0 ? r.data() : nullptr, std::max<std::int64_t>(1, ar), lb,
                        br * bc > 0 ? nbuf : nullptr, std::max<std::int64_t>(1, br));
    r.store->commit();
    *r.lld = static_cast<int>(std::max<std::int64_t>(1, br));
    r.layout = lb;
    if (!root()) return 0;
    if (rec && rec->t_redist_predicted >= 0 && cost_model)
      rec->t_redist_predicted +=
          detail::predict_layout_move_seconds(*cost_model, r.type, la, lb, size(), node_of_rank);
    if (rec && static_cast<int>(node_of_rank.size()) >= size()) {
      const auto t = redist::node_traffic(la, lb, redist::Region::whole(la), size(), node_of_rank);
      rec->bytes_intra_node += r.bytes(t.elements_intra_node);
      rec->bytes_inter_node += r.bytes(t.elements_inter_node);
    }
    return r.bytes(redist::plan_stats(la, lb, size()).elements_moved);
  }

  // A grid for `target` on the current world, and every registered matrix moved onto it
  // from the current grid; the redistribution's time and bytes go into `rec`.
  detail::BlacsGrid move_onto(const Grid& target, ResizeRecord& rec) {
    dog.phase("BLACS grids");
    detail::BlacsGrid to(world, target);
    dog.phase("redistribution");
    const double t1 = MPI_Wtime();
    rec.bytes_moved = move_all(grid, to, &rec);
    rec.t_redist = MPI_Wtime() - t1;
    rec.bytes_total = total_bytes();
    return to;
  }

  std::int64_t total_bytes() const {
    std::int64_t t = 0;
    for (const auto& r : mats) t += r.bytes(static_cast<std::int64_t>(r.m) * r.n);
    return t;
  }

  // Same layout and buffers, new BLACS context (after the world changed under them).
  void relabel_descs() {
    for (auto& r : mats)
      if (r.desc) r.desc[1] = grid.member() ? grid.ctxt() : -1;
  }

  std::vector<char> pack_expansion(const Decision& d, const Grid& from, const Grid& to) {
    Writer w;
    w.put(iteration);
    w.put(static_cast<int>(d.placement));
    // The job's mover: a newcomer must run the same collective code (RESIZE_MOVER from
    // the environment need not reach spawned processes).
    w.put(static_cast<int>(opt.mover));
    put_grid(w, from);
    put_grid(w, to);
    w.put(static_cast<int>(mats.size()));
    for (const auto& r : mats) {
      w.put(r.m);
      w.put(r.n);
      w.put(r.mb);
      w.put(r.nb);
      w.put(static_cast<int>(r.type));
    }
    w.put_bytes(pack ? pack() : std::vector<char>{});
    w.put_doubles(powers_before);  // what the old layouts were computed with
    w.put_doubles(powers);
    return w.b;
  }

  void progress(const std::string& line) {
    if (opt.progress && root()) {
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
  }

  RemapResult act(Decision d);
  ResizeRecord begin_resize(const Decision& d, const Grid& target);
  RemapResult expand(const Decision& d, const Grid& target, const NodePlan& np, double t_start);
  RemapResult shrink(const Decision& d, const Grid& target, const NodePlan& np, double t_start);
  RemapResult regrid(const Decision& d, const Grid& target, double t_start);
  void predict_before(const Decision& d, const Grid& target);
  void record_outcome(const ResizeRecord& rec);
  void conclude(const Decision& d, int from_procs, const ResizeRecord& rec, const std::string& line);
  RemapResult refuse(const Decision& d, const std::string& why);
  void finish_expansion(const Grid& from, const Grid& to, ResizeRecord* rec, double t_start);
};

Session::Session(int argc, char** argv, SessionOptions opts) : impl_(std::make_unique<Impl>()) {
  auto& I = *impl_;
  I.opt = std::move(opts);
  if (!I.opt.policy) I.opt.policy = std::make_unique<FixedPolicy>();
  I.dog.set_timeout(I.opt.resize_timeout);
  if (!I.opt.spawn_command.empty()) {
    I.exe = I.opt.spawn_command;
  } else {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    I.exe = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string(argv ? argv[0] : "");
  }
  if (!I.opt.spawn_args.empty()) {
    I.args = I.opt.spawn_args;
  } else if (argc > 0 && argv) {
    for (int i = 1; i < argc; ++i) I.args.emplace_back(argv[i]);
  } else {
    // No argv (Fortran callers): spawned copies get this process's own arguments.
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::size_t at = all.find('\0');
    while (at != std::string::npos && at + 1 < all.size()) {
      const std::size_t end = all.find('\0', at + 1);
      I.args.push_back(all.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
      at = end;
    }
  }
  I.world = detail::World::comm();
  if (I.root()) {
    const std::string path = redist::default_cost_model_path();
    if (::access(path.c_str(), F_OK) == 0) {
      try {
        I.cost_model = redist::load_cost_params(path);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[%s] the cost model %s is not used: %s\n", I.opt.app.c_str(), path.c_str(), e.what());
      }
    }
    // MALLEABLE_RESIZE_HISTORY set but empty: keep the history in memory only.
    const char* hv = std::getenv("MALLEABLE_RESIZE_HISTORY");
    if (I.opt.persist_history && !(hv && !*hv)) {
      I.history_path = default_resize_history_path();
      if (::access(I.history_path.c_str(), F_OK) == 0) {
        try {
          I.history = ResizeHistory::load(I.history_path);
        } catch (const std::exception& e) {
          // A damaged history only costs predictions: start a new one (and say so).
          std::fprintf(stderr, "[%s] the resize history is not used (it will be rewritten): %s\n",
                       I.opt.app.c_str(), e.what());
        }
      }
    }
  }
}

Session::~Session() = default;

bool Session::is_newcomer() const { return detail::World::is_new(); }

void Session::set_app_state(std::function<std::vector<char>()> pack,
                            std::function<void(const std::vector<char>&)> unpack) {
  impl_->pack = std::move(pack);
  impl_->unpack = std::move(unpack);
}

namespace {
void check_shape(const std::string& name, int m, int n, int mb, int nb) {
  if (m < 0 || n < 0 || mb < 1 || nb < 1)
    throw Error("register_matrix " + name + ": need M, N >= 0 and MB, NB >= 1 (got " +
                std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(mb) + ", " +
                std::to_string(nb) + ")");
}
Registered uniform(const std::string& name, int m, int n, int mb, int nb, Distribution dist, int* desc) {
  check_shape(name, m, n, mb, nb);
  if (!desc) throw Error("register_matrix " + name + ": desc must not be null");
  Registered r;
  r.name = name;
  r.desc = desc;
  r.dist = dist;
  r.m = m;
  r.n = n;
  r.mb = mb;
  r.nb = nb;
  return r;
}
}  // namespace

template <class T>
void Session::register_vector(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                              int* desc, std::vector<T>& buf) {
  Registered r = uniform(name, m, n, mb, nb, dist, desc);
  r.store = std::make_unique<VectorStorage<T>>(buf);
  r.type = detail::scalar_of<T>();
  impl_->mats.push_back(std::move(r));
}

template <class T>
void Session::register_malloc(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                              int* desc, T** buf) {
  if (!buf) throw Error("register_matrix " + name + ": buf must not be null");
  Registered r = uniform(name, m, n, mb, nb, dist, desc);
  r.store = std::make_unique<MallocStorage<T>>(buf);
  r.type = detail::scalar_of<T>();
  impl_->mats.push_back(std::move(r));
  *buf = nullptr;
}

template <class T>
void Session::register_blocks(const std::string& name, int m, int n, BlockSizes sizes, std::vector<T>& buf,
                              int* lld) {
  if (!sizes || !lld) throw Error("register_matrix_blocks " + name + ": sizes and lld must be given");
  Registered r;
  r.name = name;
  r.store = std::make_unique<VectorStorage<T>>(buf);
  r.type = detail::scalar_of<T>();
  r.m = m;
  r.n = n;
  r.sizes = std::move(sizes);
  r.lld = lld;
  impl_->mats.push_back(std::move(r));
}

#define RESIZE_REGISTER_FOR(T)                                                                                \
  void Session::register_matrix(const std::string& name, int m, int n, int mb, int nb, Distribution dist,  \
                                int* desc, std::vector<T>& buf) {                                            \
    register_vector(name, m, n, mb, nb, dist, desc, buf);                                                    \
  }                                                                                                          \
  void Session::register_matrix_c(const std::string& name, int m, int n, int mb, int nb, Distribution dist, \
                                  int* desc, T** buf) {                                                      \
    register_malloc(name, m, n, mb, nb, dist, desc, buf);                                                    \
  }                                                                                                          \
  void Session::register_matrix_blocks(const std::string& name, int m, int n, BlockSizes sizes,              \
                                       std::vector<T>& buf, int* lld) {                                      \
    register_blocks(name, m, n, std::move(sizes), buf, lld);                                                 \
  }
RESIZE_REGISTER_FOR(float)
RESIZE_REGISTER_FOR(double)
RESIZE_REGISTER_FOR(std::complex<float>)
RESIZE_REGISTER_FOR(std::complex<double>)
#undef RESIZE_REGISTER_FOR

void Session::make_desc(int m, int n, int mb, int nb, Distribution dist, int* desc) const {
  Registered r;
  r.m = m;
  r.n = n;
  r.mb = mb;
  r.nb = nb;
  r.dist = dist;
  impl_->desc_for(r, impl_->grid, desc);
}

std::size_t Session::local_size(const int* desc) {
  if (desc[1] < 0) return 0;
  int nprow = 0, npcol = 0, myrow = 0, mycol = 0;
  Cblacs_gridinfo(desc[1], &nprow, &npcol, &myrow, &mycol);
  const int zero = 0;
  const int nloc = numroc_(&desc[3], &desc[5], &mycol, &zero, &npcol);
  return static_cast<std::size_t>(desc[8]) * static_cast<std::size_t>(std::max(nloc, 1));
}

namespace {
// "; predicted: spawn 812.0 ms (history), redistribution 12.3 ms (cost model), other
// 4.1 ms (history); measured/predicted 1.10x" for the parts that were predicted.
std::string predicted_note(const ResizeRecord& r) {
  std::string out;
  char part[96];
  const auto add = [&](const char* what, double v, const char* source) {
    if (v < 0) return;
    std::snprintf(part, sizeof part, "%s%s %.1f ms (%s)", out.empty() ? "; predicted: " : ", ", what, v * 1e3, source);
    out += part;
  };
  if (r.action != Action::Regrid) add(r.action == Action::Shrink ? "exit" : "spawn", r.t_spawn_predicted, "history");
  add("redistribution", r.t_redist_predicted, r.redist_predicted_by.c_str());
  add("other", r.t_other_predicted, "history");
  if (r.t_total_predicted() > 0) {
    std::snprintf(part, sizeof part, "; measured/predicted %.2fx", r.t_total / r.t_total_predicted());
    out += part;
  } else if (r.t_redist_predicted > 0) {
    std::snprintf(part, sizeof part, "; redistribution measured/predicted %.2fx", r.t_redist / r.t_redist_predicted);
    out += part;
  }
  return out;
}

// What start() must agree on: the grid and every registration, in order.
std::string start_signature(const Grid& g, const std::vector<Registered>& mats) {
  std::string sig = "grid " + g.shape();
  for (const auto& r : mats) {
    sig += "; " + r.name + " " + std::to_string(r.m) + "x" + std::to_string(r.n) + " " + detail::scalar_name(r.type);
    if (r.sizes)
      sig += " extended blocks";
    else
      sig += (r.dist == Distribution::Block ? " block" : " block-cyclic " + std::to_string(r.mb) + "x" + std::to_string(r.nb));
  }
  return sig;
}

std::string broadcast_text(std::string text, int root, MPI_Comm comm) {
  int len = static_cast<int>(text.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), len, MPI_CHAR, root, comm);
  return text;
}

// Collective: every process starts the same grid with the same registered matrices, or
// every process throws the same message naming the first process that differs (a
// difference would otherwise hang the first collective that depends on it).
void agree_on_start(const Grid& g, const std::vector<Registered>& mats, MPI_Comm comm) {
  const std::string mine = start_signature(g, mats);
  const std::uint64_t h = std::hash<std::string>{}(mine);
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  const auto odd = std::find_if(all.begin(), all.end(), [&](std::uint64_t x) { return x != all[0]; });
  if (odd == all.end()) return;
  const int bad = static_cast<int>(odd - all.begin());
  const std::string first = broadcast_text(mine, 0, comm), other = broadcast_text(mine, bad, comm);
  throw Error("session start: every process must start the same grid with the same registered matrices; world rank " +
              std::to_string(bad) + " has [" + other + "], rank 0 has [" + first + "]");
}
}  // namespace

int Session::start(const Grid& g) {
  auto& I = *impl_;
  agree_on_start(g, I.mats, I.world);
  if (g.nprow < 1 || g.npcol < 1) throw Error("session: grid " + g.shape() + " must be at least 1x1");
  if (g.size() > I.size())
    throw Error("session: grid " + g.shape() + " needs " + std::to_string(g.size()) +
                " processes, the world has " + std::to_string(I.size()));
  I.shape = g;
  I.grid = detail::BlacsGrid(I.world, g);
  I.started = true;
  for (auto& r : I.mats) {
    if (r.sizes) {
      I.size_blocks(r, g);
      continue;
    }
    I.desc_for(r, I.grid, r.desc);
    r.reset(local_size(r.desc));
  }
  I.rank_hosts = detail::World::hosts();
  I.progress("[" + I.opt.app + "] start on " + g.shape() + " (" + std::to_string(I.size()) +
             " processes; world: " + detail::World::backend() + "; policy " + I.opt.policy->name() +
             "; redistribution " + mover_name() + ")");
  return 0;
}

int Session::join() {
  auto& I = *impl_;
  I.world = detail::World::comm();
  I.dog.arm("joining an expansion");
  I.dog.phase("state hand-over");
  std::vector<char> bytes;
  std::string err;
  if (detail::World::share_state(bytes, err) != 0) throw Error("session join: " + err);
  if (const char* f = std::getenv("RESIZE_FAULT");
      f && std::string(f) == "kill-newcomer" && I.rank() == I.size() - 1) {
    // Fault injection for the tests: the last newcomer dies in the middle of the resize,
    // after the state hand-over and before the redistribution.
    std::fprintf(stderr, "resize: fault injection - newcomer (pid %d) kills itself\n", getpid());
    std::fflush(stderr);
    raise(SIGKILL);
  }
  if (const char* f = std::getenv("RESIZE_FAULT");
      f && std::string(f) == "stall-newcomer" && I.rank() == I.size() - 1) {
    // Fault injection: the last newcomer stops answering (a hung node); the watchdogs
    // of the others must end the job.
    std::fprintf(stderr, "resize: fault injection - newcomer (pid %d) stalls\n", getpid());
    std::fflush(stderr);
    for (;;) pause();
  }
  Reader r{bytes};
  I.iteration = r.get<int>();
  (void)r.get<int>();
  I.opt.mover = static_cast<Mover>(r.get<int>());
  const Grid from = get_grid(r), to = get_grid(r);
  const int nm = r.get<int>();
  if (nm != static_cast<int>(I.mats.size()))
    throw Error("session join: the job has " + std::to_string(nm) + " matrices, this process registered " +
                std::to_string(I.mats.size()));
  for (auto& m : I.mats) {
    m.m = r.get<int>();
    m.n = r.get<int>();
    m.mb = r.get<int>();
    m.nb = r.get<int>();
    const auto type = static_cast<detail::Scalar>(r.get<int>());
    if (type != m.type)
      throw Error("session join: matrix " + m.name + " holds " + detail::scalar_name(type) +
                  " in the job, this process registered " + detail::scalar_name(m.type));
    m.store->clear();
    if (!m.desc) continue;
    // Off the old grid: the descriptor PDGEMR2D expects from a non-member.
    const int off[9] = {1, -1, m.m, m.n, m.mb, m.nb, 0, 0, 1};
    std::copy(off, off + 9, m.desc);
  }
  const auto app = r.get_bytes();
  I.powers = r.get_doubles();
  if (I.unpack) I.unpack(app);
  // The old layouts as the old processes hold them (computed with the powers before the
  // decision), then the powers after it for the new layouts.
  for (auto& m : I.mats)
    if (m.sizes) m.layout = I.layout_of(m, from);
  I.powers = r.get_doubles();
  // The same collective as the old processes make after the hand-over (Impl::expand).
  I.rank_hosts = detail::World::hosts();
  I.node_of_rank = redist::node_ids(I.rank_hosts);
  I.dog.phase("redistribution");
  detail::BlacsGrid old_grid(I.world, from);
  detail::BlacsGrid new_grid(I.world, to);
  I.move_all(old_grid, new_grid);
  I.grid = std::move(new_grid);
  I.shape = to;
  I.started = true;
  detail::World::clear_new();
  I.dog.disarm();
  return I.iteration;
}

void Session::report_compute(double work, double seconds) {
  if (!std::isfinite(work) || !std::isfinite(seconds) || work < 0 || seconds < 0)
    throw Error("report_compute: work and seconds must be finite and >= 0 (got " + std::to_string(work) + ", " +
                std::to_string(seconds) + ")");
  impl_->work_acc += work;
  impl_->compute_acc += seconds;
}

void Session::begin_iteration() {
  impl_->work_acc = impl_->compute_acc = 0;
  impl_->t_wall0 = MPI_Wtime();
  impl_->t_cpu0 = cpu_seconds();
  impl_->t_kernel0 = kernel_cpu_seconds();
}

void Session::end_iteration(const std::string& note) {
  auto& I = *impl_;
  // One gather: the maxima of the three clocks and every rank's reported compute.
  const double loc[5] = {MPI_Wtime() - I.t_wall0, cpu_seconds() - I.t_cpu0, kernel_cpu_seconds() - I.t_kernel0,
                         I.work_acc, I.compute_acc};
  std::vector<double> all(I.root() ? 5 * static_cast<std::size_t>(I.size()) : 0);
  MPI_Gather(loc, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, I.world);
  I.work_acc = I.compute_acc = 0;
  ++I.iteration;
  if (I.root()) {
    double mx[3] = {0, 0, 0};
    bool reported = false;
    for (int r = 0; r < I.size(); ++r) {
      const double* v = &all[5 * static_cast<std::size_t>(r)];
      for (int k = 0; k < 3; ++k) mx[k] = std::max(mx[k], v[k]);
      reported = reported || v[3] > 0;
    }
    IterationSample s{I.iteration, I.shape.size(), I.shape.shape(), mx[0], mx[1], mx[2]};
    if (reported) {
      RankSamples rs;
      rs.iteration = I.iteration;
      for (int r = 0; r < I.size(); ++r) {
        const double* v = &all[5 * static_cast<std::size_t>(r)];
        I.speeds.add(r, v[3], v[4]);
        rs.work.push_back(v[3]);
        rs.compute.push_back(v[4]);
      }
      rs.powers = I.speeds.powers(I.size());
      I.metrics.add_rank_samples(std::move(rs));
    }
    I.metrics.add_iteration(s);
    char line[256];
    std::snprintf(line, sizeof line,
                  "[%s] iter %4d  grid %-5s (%2d procs)  wall %9.2f ms  dedicated-core: cpu %8.2f ms, "
                  "compute %8.2f ms%s%s",
                  I.opt.app.c_str(), I.iteration, s.grid.c_str(), s.procs, s.wall * 1e3, s.dedicated * 1e3,
                  s.compute * 1e3, note.empty() ? "" : "  ", note.c_str());
    I.progress(line);
  }
}

RemapResult Session::remap_point() {
  auto& I = *impl_;
  Decision d;
  if (I.root()) {
    try {
      PolicyInput in{I.iteration, I.shape, I.size(), &I.metrics, &I.rank_hosts};
      in.speeds = &I.speeds;
      in.history = &I.history;
      in.cost_model = I.cost_model ? &*I.cost_model : nullptr;
      in.powers = &I.powers;
      in.remaining = I.opt.total_iterations >= 0 ? std::max(0, I.opt.total_iterations - I.iteration) : -1;
      d = I.opt.policy->decide(in);
    } catch (const std::exception& e) {
      d = Decision::none(std::string("policy error: ") + e.what());
    }
  }
  return I.act(d);
}

RemapResult Session::resize_now(const Decision& d) { return impl_->act(d); }

// Broadcasts rank 0's decision, validates it into a target grid and acts.
RemapResult Session::Impl::act(Decision d) {
  const double t_start = MPI_Wtime();
  Writer w;
  w.put(static_cast<int>(d.action));
  w.put(d.procs);
  w.put(d.nprow);
  w.put(d.npcol);
  w.put(static_cast<int>(d.placement));
  w.put_bytes(std::vector<char>(d.schema.begin(), d.schema.end()));
  w.put_ints(d.ranks);
  w.put(static_cast<int>(d.hosts.size()));
  for (const auto& h : d.hosts) {
    w.put_bytes(std::vector<char>(h.host.begin(), h.host.end()));
    w.put(h.count);
  }
  w.put_doubles(d.powers);
  std::uint64_t n = w.b.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, world);
  w.b.resize(n);
  MPI_Bcast(w.b.data(), static_cast<int>(n), MPI_BYTE, 0, world);
  Reader r{w.b};
  d.action = static_cast<Action>(r.get<int>());
  d.procs = r.get<int>();
  d.nprow = r.get<int>();
  d.npcol = r.get<int>();
  d.placement = static_cast<Placement>(r.get<int>());
  const auto sch = r.get_bytes();
  d.schema.assign(sch.begin(), sch.end());
  d.ranks = r.get_ints();
  d.hosts.resize(static_cast<std::size_t>(r.get<int>()));
  for (auto& h : d.hosts) {
    const auto name = r.get_bytes();
    h.host.assign(name.begin(), name.end());
    h.count = r.get<int>();
  }
  d.powers = r.get_doubles();
  if (d.action == Action::None) return {};
  // Every rank's node (one allgather): placement and the shrink's kept ranks depend on it,
  // and the record counts bytes within and between nodes.
  NodePlan np;
  np.hosts_before = detail::World::hosts();

  // The target grid (a pure decision, the same on every rank).
  Grid target;
  std::string why;
  try {
    if (!d.powers.empty()) {
      // Powers by world rank after the resize: the grown world for an expansion.
      const int n = d.action == Action::Expand ? std::max(d.procs, size()) : size();
      if (static_cast<int>(d.powers.size()) != n)
        throw Error(to_string(d.action) + ": the decision gives " + std::to_string(d.powers.size()) +
                    " powers, the world " + (d.action == Action::Expand ? "will have " : "has ") + std::to_string(n) +
                    " processes");
      for (std::size_t k = 0; k < d.powers.size(); ++k)
        if (!std::isfinite(d.powers[k]) || d.powers[k] <= 0)
          throw Error(to_string(d.action) + ": power of world rank " + std::to_string(k) + " is " +
                      std::to_string(d.powers[k]) + ", must be finite and > 0");
      if (d.action == Action::Shrink) throw Error("shrink: a decision cannot set powers (the world is renumbered)");
    }
    if (d.action != Action::Regrid) {
      // Expansions and shrinks count on the grid holding world ranks 0..P-1 (the new
      // ranks follow them; a shrink keeps the first ones); a regrid may have left another
      // set, e.g. {0, 2, 3} after dropping rank 1.
      std::vector<int> held = shape.rank_map();
      std::sort(held.begin(), held.end());
      for (std::size_t k = 0; k < held.size(); ++k)
        if (held[k] != static_cast<int>(k))
          throw Error(to_string(d.action) + ": the grid holds world ranks other than 0.." +
                      std::to_string(held.size() - 1) + " after a regrid; regrid onto those first");
    }
    if (d.action == Action::Regrid) {
      // The same world, any subset of its ranks on any grid shape.
      if (d.nprow < 1 || d.npcol < 1) throw Error("regrid: the grid must be at least 1x1");
      std::vector<int> rk = d.ranks;
      if (rk.empty())
        for (int k = 0; k < d.nprow * d.npcol; ++k) rk.push_back(k);
      if (static_cast<int>(rk.size()) != d.nprow * d.npcol)
        throw Error("regrid: " + std::to_string(rk.size()) + " ranks for a " + std::to_string(d.nprow) + "x" +
                    std::to_string(d.npcol) + " grid");
      std::vector<int> sorted = rk;
      std::sort(sorted.begin(), sorted.end());
      if (sorted.front() < 0 || sorted.back() >= size() ||
          std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw Error("regrid: the ranks must be distinct world ranks 0.." + std::to_string(size() - 1));
      target = Grid{d.nprow, d.npcol, rk};
      d.placement = Placement::Given;
    } else if (d.action == Action::Expand) {
      if (d.procs <= shape.size() && d.schema.empty())
        throw Error("expand to " + std::to_string(d.procs) + " processes: the grid already has " +
                    std::to_string(shape.size()));
      Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}}
                       : (d.placement == Placement::Global ? choose_topology(d.procs)
                                                           : choose_local_topology(shape, d.procs));
      // The grid holds world ranks 0..size-1 (shrinks keep the first ranks); the
      // processes added to it are the next ones, spawned or already idle in the world.
      MatrixInfo info;
      if (!mats.empty()) {
        const auto& m0 = mats.front();  // the first registered matrix steers Optimal
        info = MatrixInfo{m0.m, m0.n, m0.mb, m0.nb, m0.dist == Distribution::Block};
      }
      std::vector<std::string> hosts_after = np.hosts_before;
      if (!d.hosts.empty()) {
        if (!d.schema.empty()) throw Error("expand: a schema file and hosts cannot both say where processes go");
        np.spawn = resolve_host_counts(d.hosts, std::max(0, t.size() - size()));
        for (const auto& [h, c] : np.spawn) hosts_after.insert(hosts_after.end(), static_cast<std::size_t>(c), h);
      }
      if (!d.ranks.empty()) {
        // The policy placed the processes itself: check it is a grid of 0..procs-1.
        std::vector<int> sorted = d.ranks;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t k = 0; k < sorted.size(); ++k)
          if (sorted[k] != static_cast<int>(k) || d.nprow * d.npcol != static_cast<int>(sorted.size()))
            throw Error("expand: the policy's rank map is not a " + std::to_string(d.nprow) + "x" +
                        std::to_string(d.npcol) + " grid of ranks 0.." + std::to_string(sorted.size() - 1));
        target = Grid{d.nprow, d.npcol, d.ranks};
        d.placement = Placement::Given;
      } else {
        target = plan_expansion(shape, shape.size(), t.nprow, t.npcol, d.placement,
                                mats.empty() ? nullptr : &info);
        // Nodes known for every rank of the grown world: put the newcomers near their data.
        if (static_cast<int>(hosts_after.size()) >= target.size())
          target = place_on_nodes(target, shape, size(), d.placement, mats.empty() ? nullptr : &info,
                                  hosts_after);
      }
    } else {
      if (d.procs >= shape.size())
        throw Error("shrink to " + std::to_string(d.procs) + " processes: the grid has only " +
                    std::to_string(shape.size()));
      if (d.hosts.empty()) {
        for (int k = 0; k < d.procs; ++k) np.keep.push_back(k);
      } else {
        // Giving nodes back: every process elsewhere stays, and the grid must hold them all.
        for (const auto& h : d.hosts) {
          if (std::find(np.hosts_before.begin(), np.hosts_before.end(), h.host) == np.hosts_before.end())
            throw Error("shrink: no process runs on host " + h.host);
          np.release.push_back(h.host);
        }
        for (int k = 0; k < size(); ++k)
          if (std::find(np.release.begin(), np.release.end(), np.hosts_before[static_cast<std::size_t>(k)]) ==
              np.release.end())
            np.keep.push_back(k);
        if (static_cast<int>(np.keep.size()) != d.procs)
          throw Error("shrink: giving back the node(s) leaves " + std::to_string(np.keep.size()) +
                      " processes, but the target grid holds " + std::to_string(d.procs));
      }
      Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}} : choose_topology(d.procs);
      target = plan_shrink(shape, np.keep, t.nprow, t.npcol);
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) return refuse(d, why);
  if (root()) predict_before(d, target);
  if (d.action == Action::Regrid) return regrid(d, target, t_start);
  return d.action == Action::Expand ? expand(d, target, np, t_start) : shrink(d, target, np, t_start);
}

// A resize that did not happen: recorded, reported to the policy; the job stays as it was.
RemapResult Session::Impl::refuse(const Decision& d, const std::string& why) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = rec.to_grid = shape.shape();
  rec.ok = false;
  rec.message = why;
  rec.hosts = d.hosts;
  if (root()) {
    metrics.add_resize(rec);
    opt.policy->completed(d, shape.size(), false);
  }
  progress("   remap after iter " + std::to_string(iteration) + ": " + to_string(d.action) +
           " REFUSED (" + why + "); staying on " + shape.shape());
  return {d.action, false, why};
}

// The record of one resize, and the watchdog armed for it (both directions alike).
ResizeRecord Session::Impl::begin_resize(const Decision& d, const Grid& target) {
  ResizeRecord rec;
  rec.after_iteration = iteration;
  rec.action = d.action;
  rec.from_grid = shape.shape();
  rec.to_grid = target.shape();
  rec.from_procs = shape.size();
  rec.to_procs = target.size();
  rec.placement = d.placement;
  rec.hosts = d.hosts;
  rec.t_spawn_predicted = pred_spawn;
  rec.t_other_predicted = pred_other;
  rec.t_iteration_predicted = pred_iteration;
  rec.t_iteration_before = iteration_before;
  rec.t_resize_policy = d.predicted_resize;
  rec.prediction_clock = d.prediction_clock == "compute" || d.prediction_clock == "dedicated" ? d.prediction_clock : "wall";
  rec.prediction = pred_text;
  powers_before = powers;
  if (!d.powers.empty()) powers = d.powers;
  dog.arm(std::string(d.action == Action::Expand ? "expansion " : d.action == Action::Regrid ? "regrid " : "shrink ") + shape.shape() +
          " -> " + target.shape() + " after iteration " + std::to_string(iteration));
  return rec;
}

RemapResult Session::Impl::expand(const Decision& d, const Grid& target, const NodePlan& np, double t_start) {
  const Grid from = shape;
  ResizeRecord rec = begin_resize(d, target);
  // Spawn only what the world lacks (a world may already hold idle processes).
  const int nnew = std::max(0, target.size() - size());
  const double t0 = MPI_Wtime();
  int rc = 0;
  std::string err;
  if (!d.schema.empty()) {
    dog.phase("spawn (schema " + d.schema + ")");
    rc = detail::World::expand_schema(d.schema, err);
  } else if (!np.spawn.empty()) {
    dog.phase("spawn of " + std::to_string(nnew) + " processes on " + std::to_string(np.spawn.size()) + " host(s)");
    rc = detail::World::expand_hosts(np.spawn, exe, args, err);
  } else if (nnew > 0) {
    dog.phase("spawn of " + std::to_string(nnew) + " processes");
    rc = detail::World::expand(nnew, exe, args, err);
  }
  rec.t_spawn = MPI_Wtime() - t0;
  if (rc != 0) {
    // Nothing was touched yet: the job continues on its old grid with its data.
    dog.disarm();
    rec.ok = false;
    rec.to_grid = target.shape();
    rec.message = "expansion failed: " + err;
    powers = powers_before;
    rec.t_total = MPI_Wtime() - t_start;
    if (root()) {
      metrics.add_resize(rec);
      opt.policy->completed(d, from.size(), false);
    }
    progress("   remap after iter " + std::to_string(iteration) + ": expand " + from.shape() + " -> " +
             target.shape() + " FAILED (" + err + "); continuing on " + from.shape() +
             " with its data");
    return {Action::Expand, false, err};
  }
  world = detail::World::comm();
  if (size() < target.size()) {
    dog.disarm();
    throw Error("expansion: the world has " + std::to_string(size()) + " processes after spawning, " +
                target.shape() + " needs " + std::to_string(target.size()));
  }
  dog.phase("state hand-over");
  std::vector<char> bytes = pack_expansion(d, from, target);
  if (detail::World::share_state(bytes, err) != 0) throw Error("expansion: " + err);
  if (!root() && unpack) {
    // Everyone, not only the newcomers, takes rank 0's application state: a policy that
    // runs on rank 0 may have changed it (e.g. the powers of the processes it added).
    Reader rd{bytes};
    (void)rd.get<int>();
    (void)rd.get<int>();
    (void)rd.get<int>();
    (void)get_grid(rd);
    (void)get_grid(rd);
    const int nm = rd.get<int>();
    for (int k = 0; k < nm * 5; ++k) (void)rd.get<int>();  // m, n, mb, nb, type per matrix
    unpack(rd.get_bytes());
  }
  rec.rank_hosts = rank_hosts = detail::World::hosts();
  node_of_rank = redist::node_ids(rec.rank_hosts);
  finish_expansion(from, target, &rec, t_start);
  if (root()) opt.policy->completed(d, from.size(), true);
  return {Action::Expand, true, {}};
}

void Session::Impl::finish_expansion(const Grid& from, const Grid& to, ResizeRecord* rec, double t_start) {
  dog.phase("BLACS grids");
  detail::BlacsGrid old_grid(world, from);
  detail::BlacsGrid new_grid(world, to);
  dog.phase("redistribution");
  const double t1 = MPI_Wtime();
  const std::int64_t moved = move_all(old_grid, new_grid, rec);
  rec->t_redist = MPI_Wtime() - t1;
  grid = std::move(new_grid);
  old_grid.release();
  shape = to;
  rec->bytes_moved = moved;
  rec->bytes_total = total_bytes();
  rec->t_total = MPI_Wtime() - t_start;
  rec->t_other = rec->t_total - rec->t_spawn - rec->t_redist;
  dog.disarm();
  if (root()) {
    metrics.add_resize(*rec);
    record_outcome(*rec);
    char line[256];
    std::snprintf(line, sizeof line,
                  "   remap after iter %d: expand %s -> %s (%s, %d procs): spawn %.1f ms, "
                  "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                  iteration, rec->from_grid.c_str(), rec->to_grid.c_str(),
                  to_string(rec->placement).c_str(), to.size(), rec->t_spawn * 1e3,
                  rec->t_redist * 1e3, rec->t_other * 1e3, rec->t_total * 1e3);
    progress(line + predicted_note(*rec));
  }
}

RemapResult Session::Impl::shrink(const Decision& d, const Grid& target, const NodePlan& np, double t_start) {
  const Grid from = shape;
  ResizeRecord rec = begin_resize(d, target);
  // Redistribute on the big world, then let the extra processes go (§3.1 iii.4). The data
  // moves inside blacs-dyn's shrink, once it has validated the request and before anybody
  // leaves: a refused shrink (a node that cannot be given back whole) touches no data.
  node_of_rank = redist::node_ids(np.hosts_before);
  bool moved = false;
  const auto move = [&]() {
    moved = true;
    detail::BlacsGrid small = move_onto(target, rec);
    grid.release();
    small.release();
    dog.phase("exit of the released processes");
    return true;
  };
  const double t2 = MPI_Wtime();
  bool leaving = false;
  std::string err;
  if (detail::World::shrink(np.keep, np.release, move, leaving, err) != 0) {
    dog.disarm();
    if (moved) throw Error("shrink: " + err);  // failed after the data moved: cannot continue
    return refuse(d, err);
  }
  if (leaving) {
    dog.disarm();
    detail::World::leave();
  }
  world = detail::World::comm();
  rec.t_spawn = MPI_Wtime() - t2 - rec.t_redist;
  dog.phase("BLACS grid on the new world");
  const Grid renumbered = renumber(target, np.keep);
  grid = detail::BlacsGrid(world, renumbered);
  shape = renumbered;
  relabel_descs();
  // New world rank k is old rank keep[k]: powers, speeds and layouts follow.
  if (!powers.empty()) {
    std::vector<double> kept;
    for (int k : np.keep) kept.push_back(k < static_cast<int>(powers.size()) ? powers[static_cast<std::size_t>(k)] : 1.0);
    powers = std::move(kept);
  }
  speeds.renumber(np.keep);
  for (auto& r : mats) r.layout.reset();
  rec.rank_hosts = rank_hosts = detail::World::hosts();
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_spawn - rec.t_redist;
  dog.disarm();
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: shrink %s -> %s (%d procs%s%s): exit %.1f ms, "
                "redistribution %.1f ms, other %.1f ms, total %.1f ms",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), target.size(),
                np.release.empty() ? "" : "; gave back ", comma_list(np.release).c_str(), rec.t_spawn * 1e3,
                rec.t_redist * 1e3, rec.t_other * 1e3, rec.t_total * 1e3);
  conclude(d, from.size(), rec, line);
  return {Action::Shrink, true, {}};
}

// Same world, new grid and/or new block sizes (issue 13 §3). Nobody joins or leaves, so
// this is one redistribution between two grids of the current world.
RemapResult Session::Impl::regrid(const Decision& d, const Grid& target, double t_start) {
  const Grid from = shape;
  ResizeRecord rec = begin_resize(d, target);
  node_of_rank = redist::node_ids(rank_hosts);
  grid = move_onto(target, rec);
  shape = target;
  rec.rank_hosts = rank_hosts;
  rec.t_total = MPI_Wtime() - t_start;
  rec.t_other = rec.t_total - rec.t_redist;
  dog.disarm();
  char line[320];
  std::snprintf(line, sizeof line,
                "   remap after iter %d: regrid %s -> %s (%d of %d procs): redistribution %.1f ms, other %.1f ms, "
                "total %.1f ms%s%s",
                iteration, rec.from_grid.c_str(), rec.to_grid.c_str(), target.size(), size(), rec.t_redist * 1e3,
                rec.t_other * 1e3, rec.t_total * 1e3, d.reason.empty() ? "" : "; ", d.reason.c_str());
  conclude(d, from.size(), rec, line);
  return {Action::Regrid, true, {}};
}

// Rank 0, before acting: spawn/exit and other time from the history, the iteration time
// now (measured) and after (the policy's), for the record (issue 13 §2).
void Session::Impl::predict_before(const Decision& d, const Grid& target) {
  pred_spawn = pred_other = -1;
  if (d.action == Action::Regrid) {
    pred_spawn = 0;  // nobody is spawned or ends
  } else if (const auto t = history.predict_spawn(d.action, shape.size(), target.size())) {
    pred_spawn = *t;
  }
  if (const auto t = history.predict_other(d.action, shape.size(), target.size())) pred_other = *t;
  pred_iteration = d.predicted_iteration;
  pred_text = d.prediction;
  // The iteration time before, on the clock the policy predicted (the latest segment's
  // median, the transient first iteration left out).
  iteration_before = d.measured_iteration;
  const auto segs = metrics.segments();
  if (iteration_before < 0 && !segs.empty()) iteration_before = segs.back().median_on(d.prediction_clock);
}

// Rank 0, a resize that succeeded: its record, the history, the policy told, the line.
void Session::Impl::conclude(const Decision& d, int from_procs, const ResizeRecord& rec, const std::string& line) {
  if (!root()) return;
  metrics.add_resize(rec);
  record_outcome(rec);
  opt.policy->completed(d, from_procs, true);
  progress(line + predicted_note(rec));
}

// Rank 0, after a resize that succeeded: into the history (and its file).
void Session::Impl::record_outcome(const ResizeRecord& rec) {
  if (rec.action != Action::Expand && rec.action != Action::Shrink && rec.action != Action::Regrid) return;
  ResizeEvent e;
  e.action = rec.action;
  e.from_procs = rec.from_procs;
  e.to_procs = rec.to_procs;
  e.hosts = static_cast<int>(rec.hosts.size());
  e.t_spawn = std::max(0.0, rec.t_spawn);
  e.t_redist = std::max(0.0, rec.t_redist);
  e.t_other = std::max(0.0, rec.t_other);
  e.bytes_moved = static_cast<double>(rec.bytes_moved);
  history.add(e);
  if (history_path.empty()) return;
  try {
    history.save(history_path);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "[%s] the resize history is not saved: %s\n", opt.app.c_str(), ex.what());
    history_path.clear();  // say it once
  }
}

MPI_Comm Session::world() const { return impl_->world; }
int Session::world_rank() const { return impl_->rank(); }
int Session::world_size() const { return impl_->size(); }
int Session::context() const { return impl_->grid.ctxt(); }
bool Session::in_grid() const { return impl_->grid.member(); }
int Session::myrow() const { return impl_->grid.myrow(); }
int Session::mycol() const { return impl_->grid.mycol(); }
const Grid& Session::grid() const { return impl_->shape; }
int Session::iteration() const { return impl_->iteration; }
const Metrics& Session::metrics() const { return impl_->metrics; }
const SpeedEstimator& Session::speeds() const { return impl_->speeds; }
const std::vector<double>& Session::powers() const { return impl_->powers; }
std::string Session::mover_name() const { return to_string(impl_->opt.mover); }

}  // namespace resize
