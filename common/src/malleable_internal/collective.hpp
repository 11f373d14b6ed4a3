// SPDX-License-Identifier: BSD-3-Clause
// Two collectives every part needs: "every process learns the error of the lowest
// failing rank" (so a collective call fails the same way everywhere and nothing is left
// half done) and "broadcast a length, then the bytes" (a message of any size, in chunks
// MPI's int counts can hold). Header-only, over any communicator. A part passes how it
// waits for a request (a background thread or an idle process sleeps instead of
// spinning) and how it checks an MPI return code (its own error type).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

namespace malleable::collective {

// The default wait: MPI_Wait.
struct BlockingWait {
  void operator()(MPI_Request& req) const { MPI_Wait(&req, MPI_STATUS_IGNORE); }
};
// The default check: return codes are not looked at (the communicator's error handler decides).
struct IgnoreErrors {
  void operator()(int, const char*) const {}
};

inline constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << 30;

// Collective: `n` (significant at `root`) on every process.
template <class Check = IgnoreErrors>
std::uint64_t broadcast_length(MPI_Comm comm, int root, std::uint64_t n, const Check& check = {}) {
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm), "MPI_Bcast (length)");
  return n;
}

// Collective: `n` bytes at `p` from `root` to every process, in chunks of at most 1 GiB.
template <class Check = IgnoreErrors>
void broadcast_chunks(MPI_Comm comm, int root, char* p, std::uint64_t n, const Check& check = {}) {
  for (std::uint64_t at = 0; at < n;) {
    const int chunk = static_cast<int>(std::min(n - at, kChunkBytes));
    check(MPI_Bcast(p + at, chunk, MPI_BYTE, root, comm), "MPI_Bcast (bytes)");
    at += static_cast<std::uint64_t>(chunk);
  }
}

// Collective: `root`'s bytes (a std::string or a std::vector<char>) on every process.
template <class Bytes, class Check = IgnoreErrors>
void broadcast_bytes(MPI_Comm comm, int root, Bytes& bytes, const Check& check = {}) {
  const std::uint64_t n = broadcast_length(comm, root, bytes.size(), check);
  bytes.resize(static_cast<std::size_t>(n));
  broadcast_chunks(comm, root, bytes.data(), n, check);
}

// The lowest and highest value of one quantity over the processes.
struct Range {
  long long lo = 0, hi = 0;
  bool same() const { return lo == hi; }
};

// Collective: the Range of each of `values` over `comm` (one MPI_Allreduce of MAX over
// {v, -v}): whether every process passed the same counts, and if not, between what.
template <std::size_t N, class Check = IgnoreErrors>
std::array<Range, N> ranges(MPI_Comm comm, const std::array<long long, N>& values, const Check& check = {}) {
  std::array<long long, 2 * N> both{};
  for (std::size_t i = 0; i < N; ++i) {
    both[2 * i] = values[i];
    both[2 * i + 1] = -values[i];
  }
  check(MPI_Allreduce(MPI_IN_PLACE, both.data(), static_cast<int>(both.size()), MPI_LONG_LONG, MPI_MAX, comm),
        "MPI_Allreduce (ranges)");
  std::array<Range, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = Range{-both[2 * i + 1], both[2 * i]};
  return out;
}

// The error every process agrees on: the lowest failing rank, its code and its text.
struct Failure {
  int rank = -1;
  int code = 0;
  std::string text;
};

// Collective: whether any process failed (`failed`, with its `code` and `text`), and if
// so the Failure of the lowest failing rank, the same on every process.
template <class Wait = BlockingWait, class Check = IgnoreErrors>
std::optional<Failure> lowest_failure(MPI_Comm comm, bool failed, int code, const std::string& text,
                                      const Wait& wait = {}, const Check& check = {}) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = failed ? rank : INT_MAX, first = INT_MAX;
  // Non-blocking on every process, so `wait` may sleep between tests.
  MPI_Request req = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req), "MPI_Iallreduce (lowest failing rank)");
  wait(req);
  if (first == INT_MAX) return std::nullopt;
  Failure f{first, code, rank == first ? text : std::string()};
  check(MPI_Bcast(&f.code, 1, MPI_INT, first, comm), "MPI_Bcast (error code)");
  broadcast_bytes(comm, first, f.text, check);
  return f;
}

}  // namespace malleable::collective
