// SPDX-License-Identifier: BSD-3-Clause
// The shell of single-copy transfers (single_copy.hpp): the cross-memory reads.
#include "single_copy.hpp"
#include "../config.hpp"

#include "../mpi_guard.hpp"
#include "tags.hpp"
#include "waiting.hpp"

#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

namespace {
constexpr int kFallbackTag = tags::kSingleFallback;
// The words of a transfer the receiver reads (where A is; it has read) and of one the
// sender writes (where B is; it has written): apart, so that a pair with a transfer each
// way, one of each kind, matches its words.
int where_tag(bool reads) { return reads ? tags::kSingleWhere : tags::kSingleWhereB; }
int done_tag(bool reads) { return reads ? tags::kSingleDone : tags::kSingleWrote; }
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
  const int peer = in ? t.src : t.dst, reads = copy_reads(t);
  check_mpi(MPI_Isend(h, kWhere, MPI_INT64_T, peer, where_tag(reads), env_.comm, &where_req_[k]), "MPI_Isend (single copy)");
  check_mpi(MPI_Irecv(&said_[k], 1, MPI_INT, peer, done_tag(reads), env_.comm, &done_req_[k]), "MPI_Irecv (single copy)");
}

void SingleCopyStep::begin() {
  using detail::check_mpi;
  const std::size_t n = in_.size() + out_.size();
  here_.assign(kWhere * n, 0);
  where_.assign(kWhere * n, 0);
  said_.assign(n, 0);
  where_req_.assign(n, MPI_REQUEST_NULL);
  done_req_.assign(n, MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < n; ++k) {
    if (!copies(k)) {
      tell(k);
      continue;
    }
    const Transfer& t = slot(k);
    const int peer = k < in_.size() ? t.src : t.dst;
    check_mpi(MPI_Irecv(&where_[kWhere * k], kWhere, MPI_INT64_T, peer, where_tag(copy_reads(t)), env_.comm, &where_req_[k]),
              "MPI_Irecv (single copy)");
  }
}

// The copier of slot k: checks the other process's token, then reads the sender's A into
// this rank's B (a receive) or writes this rank's A into the receiver's B (a send).
int SingleCopyStep::copy(std::size_t k) {
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
    if (!copies(k)) continue;
    said_[k] = copy(k);
    const Transfer& t = slot(k);
    // A receive whose read failed waits for the message before the word goes.
    if (said_[k] != 0 && k < in_.size()) by_message(k, types, back);
    check_mpi(MPI_Isend(&said_[k], 1, MPI_INT, k < in_.size() ? t.src : t.dst, done_tag(copy_reads(t)), env_.comm,
                        &done_req_[k]),
              "MPI_Isend (single copy)");
  }
  wait_all(done_req_, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy)");
  const auto esize = static_cast<std::int64_t>(env_.esize);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t bytes = slot(k).elements() * esize;
    (k < in_.size() ? moved.received : moved.sent) += bytes;
    if (said_[k] == 0) {
      if (k < in_.size()) moved.single += bytes;
    } else if (k >= in_.size() || !copies(k)) {
      by_message(k, types, back);  // a send whose copy failed (either end's), or a receive the sender could not write
    }
  }
  wait_all(back, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy refused)");
  return moved;
}

}  // namespace redist::exec
