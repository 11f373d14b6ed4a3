// SPDX-License-Identifier: BSD-3-Clause
// The shell of single-copy transfers (single_copy.hpp): the cross-memory reads.
#include "single_copy.hpp"
#include "../config.hpp"

#include "../mpi_guard.hpp"
#include "mapped.hpp"
#include "mapped_registry.hpp"
#include "node_window.hpp"
#include "tags.hpp"
#include "waiting.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <complex>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string_view>

namespace redist::exec {

bool single_copy_supported() {
#if defined(SMPI_SHARED_MALLOC) || !defined(__linux__)
  return false;
#else
  static const bool ok = [] {
#if defined(PR_SET_PTRACER) && defined(PR_SET_PTRACER_ANY)
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // fails harmlessly without Yama
#endif
    return true;
  }();
  return ok;
#endif
}

ProcessToken process_token() {
  static const std::uint64_t value = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid());
  }();
  return {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&value)), value};
}

int check_peer(long pid, std::uint64_t address, std::uint64_t value) {
  if (read_config().fault == EnvText("single-copy-refused")) return EPERM;
  std::uint64_t seen = 0;
  SegmentReader rd(pid, address, reinterpret_cast<char*>(&seen), 1);
  rd.add({0, 0, static_cast<std::int64_t>(sizeof seen)});
  if (const int e = rd.finish(); e != 0) return e;
  return seen == value ? 0 : ESRCH;
}

#if !defined(SMPI_SHARED_MALLOC) && defined(__linux__)
namespace {
// PAGEMAP_SCAN's argument and answer (linux/fs.h, Linux 6.7; spelled here for older headers).
struct PageRegion {
  std::uint64_t start = 0, end = 0, categories = 0;
};
struct PageScanArg {
  std::uint64_t size = sizeof(PageScanArg), flags = 0, start = 0, end = 0, walk_end = 0, vec = 0, vec_len = 0,
                max_pages = 0, category_inverted = 0, category_mask = 0, category_anyof_mask = 0, return_mask = 0;
};
constexpr std::uint64_t kPageIsHuge = 1u << 6;
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PageScanArg);

// /proc/self/pagemap, opened once; -1 where it cannot be.
int pagemap_fd() {
  static const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  return fd;
}
}  // namespace
#endif

bool huge_paged(const void* p, std::int64_t bytes) {
#if defined(SMPI_SHARED_MALLOC) || !defined(__linux__)
  (void)p, (void)bytes;
  return false;
#else
  static std::atomic<bool> unsupported{false};  // sends on any thread (a background resize's too)
  const int fd = pagemap_fd();
  if (unsupported.load(std::memory_order_relaxed) || fd < 0 || !p || bytes <= 0) return false;
  const auto lo = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  const std::uint64_t page = 4096;
  int huge = 0;
  for (int i = 0; i < kHugeProbes; ++i) {
    const std::uint64_t at = (lo + static_cast<std::uint64_t>(bytes - 1) * static_cast<std::uint64_t>(i) / (kHugeProbes - 1)) & ~(page - 1);
    PageRegion r;
    PageScanArg a;
    a.start = at, a.end = at + page, a.vec = reinterpret_cast<std::uintptr_t>(&r), a.vec_len = 1;
    a.category_mask = a.return_mask = kPageIsHuge;
    const int n = ioctl(fd, kPagemapScan, &a);
    if (n < 0) {
      if (errno == ENOTTY || errno == EINVAL || errno == EPERM)  // no PAGEMAP_SCAN: ask no more
        unsupported.store(true, std::memory_order_relaxed);
      return false;
    }
    huge += n > 0 ? 1 : 0;
  }
  return 4 * huge >= 3 * kHugeProbes;
#endif
}

SegmentReader::SegmentReader(long pid, std::uint64_t remote, char* local, std::size_t esize, bool write)
    : pid_(pid), remote_(remote), local_(local), esize_(esize), write_(write) {
  const long max_iov = sysconf(_SC_IOV_MAX);
  batch_ = max_iov > 0 ? static_cast<std::size_t>(max_iov) : 1024;
  liov_.resize(batch_ * sizeof(iovec));
  riov_.resize(batch_ * sizeof(iovec));
}

void SegmentReader::add(const Segment& s) {
  if (err_ || s.len <= 0) return;
  auto* l = reinterpret_cast<iovec*>(liov_.data());
  auto* r = reinterpret_cast<iovec*>(riov_.data());
  const std::size_t bytes = static_cast<std::size_t>(s.len) * esize_;
  char* lp = local_ + static_cast<std::size_t>(write_ ? s.src : s.dst) * esize_;
  auto* rp = reinterpret_cast<char*>(remote_ + static_cast<std::uint64_t>(write_ ? s.dst : s.src) * esize_);
  auto continues = [](const iovec* v, std::size_t n, const char* p) {
    return n > 0 && static_cast<const char*>(v[n - 1].iov_base) + v[n - 1].iov_len == p;
  };
  bool lon = continues(l, nl_, lp), ron = continues(r, nr_, rp);
  if ((!lon && nl_ == batch_) || (!ron && nr_ == batch_)) {
    flush();
    if (err_) return;
    lon = ron = false;
  }
  if (lon) l[nl_ - 1].iov_len += bytes; else l[nl_++] = {lp, bytes};
  if (ron) r[nr_ - 1].iov_len += bytes; else r[nr_++] = {rp, bytes};
  want_ += bytes;
}

int SegmentReader::finish() {
  if (!err_ && nl_ > 0) flush();
  return err_;
}

void SegmentReader::flush() {
#if defined(SMPI_SHARED_MALLOC) || !defined(__linux__)
  err_ = ENOSYS;
#else
  auto* l = reinterpret_cast<iovec*>(liov_.data());
  auto* r = reinterpret_cast<iovec*>(riov_.data());
  const ssize_t got = write_ ? process_vm_writev(static_cast<pid_t>(pid_), l, nl_, r, nr_, 0)
                             : process_vm_readv(static_cast<pid_t>(pid_), l, nl_, r, nr_, 0);
  if (got < 0)
    err_ = errno ? errno : EIO;
  else if (static_cast<std::size_t>(got) != want_)
    err_ = EIO;  // a partial copy happens only on a fault
  else
    bytes_ += got;
#endif
  nl_ = nr_ = 0;
  want_ = 0;
}

void huge_identity(std::int64_t* w3) {
  const ProcessToken tok = process_token();
  w3[0] = static_cast<std::int64_t>(getpid());
  w3[1] = static_cast<std::int64_t>(tok.address), w3[2] = static_cast<std::int64_t>(tok.value);
}

int read_huge_pages(const std::int64_t* who, std::uint64_t remote, const Side& sa, const Side& sb, void* b,
                    std::size_t esize, const Transfer& t) {
  const auto pid = static_cast<long>(who[0]);
  if (const int e = check_peer(pid, static_cast<std::uint64_t>(who[1]), static_cast<std::uint64_t>(who[2])); e != 0) return e;
  SegmentReader rd(pid, remote, static_cast<char*>(b), esize);
  for_each_segment(Walk(sa, t), sa.ld, Walk(sb, t), sb.ld, [&](const Segment& sg) { rd.add(sg); });
  return rd.finish();
}

namespace {
constexpr int kFallbackTag = tags::kSingleFallback;
// A sender's word (where A is) and a receiver's (where B is), so that a pair with a
// transfer each way matches its words; the copier's last word when the receiver copied
// (read) and when the sender did (wrote), apart for the same reason.
int where_tag(bool send) { return send ? tags::kSingleWhere : tags::kSingleWhereB; }
int done_tag(bool reads) { return reads ? tags::kSingleDone : tags::kSingleWrote; }

// The pieces of t from a (sa) into b (sb) with the local-copy kernels, elements of esize
// bytes (the kernels move bytes: double serves complex<float> too).
void copy_erased(std::size_t esize, const Side& sa, const char* a, const Side& sb, void* b, const Transfer& t) {
  if (esize == 4)
    copy_transfer<float>(sa, reinterpret_cast<const float*>(a), sb, static_cast<float*>(b), t);
  else if (esize == 8)
    copy_transfer<double>(sa, reinterpret_cast<const double*>(a), sb, static_cast<double*>(b), t);
  else
    copy_transfer<std::complex<double>>(sa, reinterpret_cast<const std::complex<double>*>(a), sb,
                                        static_cast<std::complex<double>*>(b), t);
}
}  // namespace

SingleCopyStep::SingleCopyStep(const Env& env, std::vector<const Transfer*> out, std::vector<const Transfer*> in,
                               std::vector<SendFrom> from)
    : env_(env), out_(std::move(out)), in_(std::move(in)), from_(std::move(from)) {
  if (from_.empty()) from_.assign(out_.size(), SendFrom{env_.sa, env_.a});
}

std::int64_t SingleCopyStep::bytes_held() const {
  return static_cast<std::int64_t>((out_.capacity() + in_.capacity()) * sizeof(const Transfer*) +
                                   from_.capacity() * sizeof(SendFrom) +
                                   (where_.capacity() + here_.capacity()) * sizeof(std::int64_t) +
                                   said_.capacity() * sizeof(int) +
                                   (where_req_.capacity() + done_req_.capacity()) * sizeof(MPI_Request));
}

void SingleCopyStep::tell(std::size_t k) {
  using detail::check_mpi;
  const ProcessToken tok = process_token();
  const bool in = k < in_.size();
  const Transfer& t = slot(k);
  std::int64_t* h = &here_[kWhere * k];
  h[0] = static_cast<std::int64_t>(getpid());
  h[1] = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in ? env_.b : from_[k - in_.size()].a));
  h[2] = in ? env_.sb->ld : from_[k - in_.size()].sa->ld;
  h[3] = static_cast<std::int64_t>(tok.address);
  h[4] = static_cast<std::int64_t>(tok.value);
  h[9] = -1;
  if (!in && env_.mapped && any_mapped()) {
    const SendFrom& f = from_[k - in_.size()];
    const std::int64_t span = walk_span(Walk(*f.sa, t), f.sa->ld) * static_cast<std::int64_t>(env_.esize);
    if (const auto at = span > 0 ? find_mapped(f.a, span) : std::nullopt)
      h[5] = at->id.fd, h[6] = at->id.gen, h[7] = at->id.token, h[8] = at->id.bytes, h[9] = at->offset;
  }
  const int peer = in ? t.src : t.dst;
  check_mpi(MPI_Isend(h, kWhere, MPI_INT64_T, peer, where_tag(!in), env_.comm, &where_req_[2 * k]), "MPI_Isend (single copy)");
  check_mpi(MPI_Irecv(&where_[kWhere * k], kWhere, MPI_INT64_T, peer, where_tag(in), env_.comm, &where_req_[2 * k + 1]),
            "MPI_Irecv (single copy)");
}

void SingleCopyStep::begin() {
  const std::size_t n = in_.size() + out_.size();
  here_.assign(kWhere * n, 0);
  where_.assign(kWhere * n, 0);
  said_.assign(n, 0);
  where_req_.assign(2 * n, MPI_REQUEST_NULL);
  done_req_.assign(n, MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < n; ++k) tell(k);
}

// A receive out of the sender's mapped array (its word: the segment and A's offset in it),
// mapped read-only (the header's token and generation checked) and copied into this
// rank's B with the local-copy kernels. 0, or the errno (the transfer then goes by message).
int SingleCopyStep::copy_mapped(std::size_t k) {
  const std::int64_t* w = &where_[kWhere * k];
  const Transfer& t = slot(k);
  Side sa = *env_.sa;
  sa.ld = w[2];
  const auto esize = static_cast<std::int64_t>(env_.esize);
  const std::int64_t span = sa.ld < 1 ? 0 : walk_span(Walk(sa, t), sa.ld) * esize;
  int err = 0;
  const char* base = map_peer_array(SegmentId{w[0], w[5], w[6], w[7], w[8]}, &err);
  if (base && (sa.ld < 1 || w[9] % esize != 0 || w[9] > w[8] || span > w[8] - w[9])) base = nullptr, err = EINVAL;
  if (!base) {
    say_mapped_refused(err);
    return err;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the sender's array as of its word
  copy_erased(env_.esize, sa, base + w[9], *env_.sb, env_.b, t);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // read before the word that says done
  return 0;
}

// The copier of slot k: out of the sender's mapped array, or, after checking the other
// process's token, reads the sender's A into this rank's B (a receive) or writes this
// rank's A into the receiver's B (a send) with the kernel.
int SingleCopyStep::copy(std::size_t k) {
  if (k < in_.size() && mapped(k)) return copy_mapped(k);
  const std::int64_t* w = &where_[kWhere * k];
  const long pid = static_cast<long>(w[0]);
  if (const int e = check_peer(pid, static_cast<std::uint64_t>(w[3]), static_cast<std::uint64_t>(w[4])); e != 0) return e;
  const Transfer& t = slot(k);
  const auto remote = static_cast<std::uint64_t>(w[1]);
  if (k < in_.size()) {  // read: the remote A (lda w[2]) into this rank's B
    const Walk ws(*env_.sa, t), wd(*env_.sb, t);
    SegmentReader rd(pid, remote, static_cast<char*>(env_.b), env_.esize);
    for_each_segment(ws, w[2], wd, env_.sb->ld, [&](const Segment& sg) { rd.add(sg); });
    return rd.finish();
  }
  const SendFrom& f = from_[k - in_.size()];  // write: this rank's A into the remote B (ldb w[2])
  const Walk ws(*f.sa, t), wd(*env_.sb, t);
  SegmentReader wr(pid, remote, const_cast<char*>(static_cast<const char*>(f.a)), env_.esize, true);
  for_each_segment(ws, f.sa->ld, wd, w[2], [&](const Segment& sg) { wr.add(sg); });
  return wr.finish();
}

// Slot k as a message (its copy refused): the receive posted, or the send.
void SingleCopyStep::by_message(std::size_t k, std::vector<PieceType>& types, std::vector<MPI_Request>& back) {
  using detail::check_mpi;
  const Transfer& t = slot(k);
  back.emplace_back();
  if (k < in_.size()) {
    types.emplace_back(env_.type, env_.esize, *env_.sb, t);
    check_mpi(MPI_Irecv(env_.b, 1, types.back().get(), t.src, kFallbackTag, env_.comm, &back.back()),
              "MPI_Irecv (single copy refused)");
  } else {
    const SendFrom& f = from_[k - in_.size()];
    types.emplace_back(env_.type, env_.esize, *f.sa, t);
    check_mpi(MPI_Isend(f.a, 1, types.back().get(), t.dst, kFallbackTag, env_.comm, &back.back()),
              "MPI_Isend (single copy refused)");
  }
}

SingleCopyStep::Moved SingleCopyStep::end() {
  using detail::check_mpi;
  Moved moved;
  const std::size_t n = in_.size() + out_.size();
  if (n == 0) return moved;
  wait_all(where_req_, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy)");
  std::vector<PieceType> types;  // the transfers whose copy was refused, by message
  std::vector<MPI_Request> back;
  types.reserve(n);
  back.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const Transfer& t = slot(k);
    const int peer = k < in_.size() ? t.src : t.dst;
    if (!copies(k)) {  // the other end copies: its word
      check_mpi(MPI_Irecv(&said_[k], 1, MPI_INT, peer, done_tag(receiver_copies(k)), env_.comm, &done_req_[k]),
                "MPI_Irecv (single copy)");
      continue;
    }
    said_[k] = copy(k);
    // A receive whose copy failed waits for the message before the word goes.
    if (said_[k] != 0 && k < in_.size()) by_message(k, types, back);
    check_mpi(MPI_Isend(&said_[k], 1, MPI_INT, peer, done_tag(receiver_copies(k)), env_.comm, &done_req_[k]),
              "MPI_Isend (single copy)");
  }
  wait_all(done_req_, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy)");
  const auto esize = static_cast<std::int64_t>(env_.esize);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t bytes = slot(k).elements() * esize;
    (k < in_.size() ? moved.received : moved.sent) += bytes;
    if (said_[k] == 0) {
      if (k < in_.size()) (mapped(k) ? moved.mapped : moved.single) += bytes;
    } else if (k >= in_.size() || !copies(k)) {
      by_message(k, types, back);  // a send whose copy failed (either end's), or a receive the sender could not write
    }
  }
  wait_all(back, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy refused)");
  return moved;
}

}  // namespace redist::exec
