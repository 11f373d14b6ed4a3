// SPDX-License-Identifier: BSD-3-Clause
// The shell of single-copy transfers (single_copy.hpp): which ranks share this node, and
// the cross-memory reads.
#include "single_copy.hpp"

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

namespace {

int node_keyval() {
  static int key = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* v, void*) -> int {
      delete static_cast<std::vector<int>*>(v);
      return MPI_SUCCESS;
    };
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr);
    return k;
  }();
  return key;
}

}  // namespace

const std::vector<int>& node_ranks(MPI_Comm comm) {
  const int key = node_keyval();
  void* v = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, key, &v, &found);
  if (found && v) return *static_cast<std::vector<int>*>(v);
  MPI_Comm node = MPI_COMM_NULL;
  auto* ranks = new std::vector<int>;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS && node != MPI_COMM_NULL) {
    int n = 0;
    MPI_Comm_size(node, &n);
    MPI_Group gn = MPI_GROUP_NULL, gc = MPI_GROUP_NULL;
    MPI_Comm_group(node, &gn);
    MPI_Comm_group(comm, &gc);
    std::vector<int> in(static_cast<std::size_t>(n));
    std::iota(in.begin(), in.end(), 0);
    ranks->resize(static_cast<std::size_t>(n));
    MPI_Group_translate_ranks(gn, n, in.data(), gc, ranks->data());
    MPI_Group_free(&gn);
    MPI_Group_free(&gc);
    MPI_Comm_free(&node);
    ranks->erase(std::remove(ranks->begin(), ranks->end(), MPI_UNDEFINED), ranks->end());
    std::sort(ranks->begin(), ranks->end());
  }
  MPI_Comm_set_attr(comm, key, ranks);
  return *ranks;
}

ProcessToken process_token() {
  static const std::uint64_t value = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid());
  }();
  return {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&value)), value};
}

int check_peer(long pid, std::uint64_t address, std::uint64_t value) {
  if (const char* f = std::getenv("MALLEABLE_REDIST_FAULT"); f && std::string_view(f) == "single-copy-refused") return EPERM;
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

}  // namespace redist::exec
