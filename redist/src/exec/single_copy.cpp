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

SegmentReader::SegmentReader(long pid, std::uint64_t remote, char* local, std::size_t esize)
    : pid_(pid), remote_(remote), local_(local), esize_(esize) {
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
  l[n_] = {local_ + static_cast<std::size_t>(s.dst) * esize_, bytes};
  r[n_] = {reinterpret_cast<void*>(remote_ + static_cast<std::uint64_t>(s.src) * esize_), bytes};
  ++n_;
  want_ += bytes;
  if (n_ == batch_) flush();
}

int SegmentReader::finish() {
  if (!err_ && n_ > 0) flush();
  return err_;
}

void SegmentReader::flush() {
#if defined(SMPI_SHARED_MALLOC) || !defined(__linux__)
  err_ = ENOSYS;
#else
  const ssize_t got = process_vm_readv(static_cast<pid_t>(pid_), reinterpret_cast<iovec*>(liov_.data()), n_,
                                       reinterpret_cast<iovec*>(riov_.data()), n_, 0);
  if (got < 0)
    err_ = errno ? errno : EIO;
  else if (static_cast<std::size_t>(got) != want_)
    err_ = EIO;  // a partial read happens only on a fault
  else
    bytes_ += got;
#endif
  n_ = 0;
  want_ = 0;
}

namespace {
constexpr int kWhereTag = tags::kSingleWhere;
constexpr int kDoneTag = tags::kSingleDone;
constexpr int kFallbackTag = tags::kSingleFallback;
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
                                   (said_out_.capacity() + said_in_.capacity()) * sizeof(int) +
                                   (where_req_.capacity() + done_req_.capacity()) * sizeof(MPI_Request));
}

void SingleCopyStep::begin() {
  using detail::check_mpi;
  const ProcessToken tok = process_token();
  here_.assign(kWhere * out_.size(), 0);
  for (std::size_t k = 0; k < out_.size(); ++k) {
    std::int64_t* h = &here_[kWhere * k];
    h[0] = static_cast<std::int64_t>(getpid());
    h[1] = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(from_[k].a));
    h[2] = from_[k].sa->ld;
    h[3] = static_cast<std::int64_t>(tok.address);
    h[4] = static_cast<std::int64_t>(tok.value);
  }
  where_.assign(kWhere * in_.size(), 0);
  said_out_.assign(out_.size(), 0);
  said_in_.assign(in_.size(), 0);
  where_req_.assign(in_.size() + out_.size(), MPI_REQUEST_NULL);
  done_req_.assign(in_.size() + out_.size(), MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < in_.size(); ++k)
    check_mpi(MPI_Irecv(&where_[kWhere * k], kWhere, MPI_INT64_T, in_[k]->src, kWhereTag, env_.comm, &where_req_[k]),
              "MPI_Irecv (single copy)");
  for (std::size_t k = 0; k < out_.size(); ++k) {
    check_mpi(MPI_Isend(&here_[kWhere * k], kWhere, MPI_INT64_T, out_[k]->dst, kWhereTag, env_.comm, &where_req_[in_.size() + k]),
              "MPI_Isend (single copy)");
    check_mpi(MPI_Irecv(&said_out_[k], 1, MPI_INT, out_[k]->dst, kDoneTag, env_.comm, &done_req_[in_.size() + k]),
              "MPI_Irecv (single copy)");
  }
}

SingleCopyStep::Moved SingleCopyStep::end() {
  using detail::check_mpi;
  Moved moved;
  if (out_.empty() && in_.empty()) return moved;
  wait_all(where_req_, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy)");
  std::vector<PieceType> types;  // the transfers whose read was refused, by message
  std::vector<MPI_Request> back;
  types.reserve(in_.size() + out_.size());
  back.reserve(in_.size() + out_.size());
  const auto esize = static_cast<std::int64_t>(env_.esize);
  for (std::size_t k = 0; k < in_.size(); ++k) {
    const Transfer& t = *in_[k];
    const std::int64_t* w = &where_[kWhere * k];
    said_in_[k] = check_peer(static_cast<long>(w[0]), static_cast<std::uint64_t>(w[3]), static_cast<std::uint64_t>(w[4]));
    if (said_in_[k] == 0) {
      const Walk ws(*env_.sa, t), wd(*env_.sb, t);
      SegmentReader rd(static_cast<long>(w[0]), static_cast<std::uint64_t>(w[1]), static_cast<char*>(env_.b), env_.esize);
      for_each_segment(ws, w[2], wd, env_.sb->ld, [&](const Segment& sg) { rd.add(sg); });
      said_in_[k] = rd.finish();
    }
    const std::int64_t bytes = t.elements() * esize;
    moved.received += bytes;
    if (said_in_[k] == 0) {
      moved.single += bytes;
    } else {
      types.emplace_back(env_.type, env_.esize, *env_.sb, t);
      back.emplace_back();
      check_mpi(MPI_Irecv(env_.b, 1, types.back().get(), t.src, kFallbackTag, env_.comm, &back.back()),
                "MPI_Irecv (single copy refused)");
    }
    check_mpi(MPI_Isend(&said_in_[k], 1, MPI_INT, t.src, kDoneTag, env_.comm, &done_req_[k]), "MPI_Isend (single copy)");
  }
  wait_all(done_req_, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy)");
  for (std::size_t k = 0; k < out_.size(); ++k) {
    const Transfer& t = *out_[k];
    moved.sent += t.elements() * esize;
    if (said_out_[k] == 0) continue;
    types.emplace_back(env_.type, env_.esize, *from_[k].sa, t);
    back.emplace_back();
    check_mpi(MPI_Isend(from_[k].a, 1, types.back().get(), t.dst, kFallbackTag, env_.comm, &back.back()),
              "MPI_Isend (single copy refused)");
  }
  wait_all(back, env_.sleep, env_.sleep_us, "MPI_Waitall (single copy refused)");
  return moved;
}

}  // namespace redist::exec
