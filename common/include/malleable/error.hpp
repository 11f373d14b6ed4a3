// SPDX-License-Identifier: BSD-3-Clause
// The one form of an error in malleable: malleable::Error, a std::runtime_error carrying a
// code of one enumeration (Errc, the values of malleable/error.h), the part that raised it
// and a message naming the argument and value at fault. Every part's error type is one:
// blacs_dyn::Error, redist::Error, gridmap::Error and cluster::Error derive from it, and
// resize::Error is this type, so an error raised in a part below the session reaches the
// session's caller as the object that was thrown, its code and part intact. Header only.
#ifndef MALLEABLE_ERROR_HPP
#define MALLEABLE_ERROR_HPP

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "malleable/error.h"

namespace malleable {

// What went wrong (malleable/error.h for each value's meaning).
enum class Errc : int {
  Ok = MALLEABLE_OK,
  InvalidArgument = MALLEABLE_ERR_ARG,
  State = MALLEABLE_ERR_STATE,
  Mpi = MALLEABLE_ERR_MPI,
  Internal = MALLEABLE_ERR_INTERNAL,
  Inconsistent = MALLEABLE_ERR_INCONSISTENT,
  Timeout = MALLEABLE_ERR_TIMEOUT,
  Schema = MALLEABLE_ERR_SCHEMA,
  Spawn = MALLEABLE_ERR_SPAWN,
  SpawnUnsupported = MALLEABLE_ERR_SPAWN_UNSUPPORTED,
  Join = MALLEABLE_ERR_JOIN,
  Layout = MALLEABLE_ERR_LAYOUT,
  SizeMismatch = MALLEABLE_ERR_SIZE_MISMATCH,
  Region = MALLEABLE_ERR_REGION,
  LeadingDimension = MALLEABLE_ERR_LLD,
  NullBuffer = MALLEABLE_ERR_NULL_BUFFER,
  NotInGrid = MALLEABLE_ERR_NOT_IN_GRID,
  Impossible = MALLEABLE_ERR_IMPOSSIBLE,
  ResizeFailed = MALLEABLE_ERR_RESIZE,
  Checkpoint = MALLEABLE_ERR_CHECKPOINT,
  BatchSystem = MALLEABLE_ERR_BATCH,
};

// The part that raised an error.
enum class Part : int {
  None = MALLEABLE_PART_NONE,
  BlacsDyn = MALLEABLE_PART_BLACS_DYN,
  Redist = MALLEABLE_PART_REDIST,
  Gridmap = MALLEABLE_PART_GRIDMAP,
  Resize = MALLEABLE_PART_RESIZE,
  Cluster = MALLEABLE_PART_CLUSTER,
};

// A few words for a code ("spawn failed or refused"); "unknown error code" outside the
// enumeration.
constexpr const char* to_string(Errc c) noexcept {
  switch (c) {
    case Errc::Ok: return "ok";
    case Errc::InvalidArgument: return "bad argument";
    case Errc::State: return "call out of order";
    case Errc::Mpi: return "MPI error";
    case Errc::Internal: return "internal error";
    case Errc::Inconsistent: return "processes passed different arguments";
    case Errc::Timeout: return "no answer in time";
    case Errc::Schema: return "schema file missing or malformed";
    case Errc::Spawn: return "spawn failed or refused";
    case Errc::SpawnUnsupported: return "spawn not supported by this MPI";
    case Errc::Join: return "expansion by joining refused or failed";
    case Errc::Layout: return "invalid descriptor field";
    case Errc::SizeMismatch: return "global sizes differ";
    case Errc::Region: return "submatrix out of range";
    case Errc::LeadingDimension: return "local leading dimension too small";
    case Errc::NullBuffer: return "null buffer on a process that holds data";
    case Errc::NotInGrid: return "not in the grid";
    case Errc::Impossible: return "no plan exists";
    case Errc::ResizeFailed: return "resize failed";
    case Errc::Checkpoint: return "checkpoint failed";
    case Errc::BatchSystem: return "batch system's answer cannot be used";
  }
  return "unknown error code";
}

// The part's name as its folder spells it ("blacs-dyn"); "none" for Part::None.
constexpr const char* to_string(Part p) noexcept {
  switch (p) {
    case Part::None: return "none";
    case Part::BlacsDyn: return "blacs-dyn";
    case Part::Redist: return "redist";
    case Part::Gridmap: return "gridmap";
    case Part::Resize: return "resize";
    case Part::Cluster: return "cluster";
  }
  return "unknown part";
}

// A part's own codes (its C API's values) beside the common ones, a pair for each: one
// table that both directions read, so they cannot disagree.
template <class Code, std::size_t N>
struct CodeTable {
  struct Pair {
    Code code;
    Errc errc;
  };
  Pair pairs[N];
  constexpr Errc errc_of(Code c, Errc otherwise) const noexcept {
    for (const Pair& p : pairs)
      if (p.code == c) return p.errc;
    return otherwise;
  }
  constexpr Code code_of(Errc e, Code otherwise) const noexcept {
    for (const Pair& p : pairs)
      if (p.errc == e) return p.code;
    return otherwise;
  }
};

class Error : public std::runtime_error {
 public:
  Error(Part part, Errc code, const std::string& message)
      : std::runtime_error(message),
        text_(std::make_shared<const std::string>(message)),
        code_(code),
        part_(part) {}
  // A message alone (with a code): an error of the resize session's own, which names this
  // type resize::Error; the parts below raise theirs through their own types, with their
  // part.
  explicit Error(const std::string& message, Errc code = Errc::InvalidArgument)
      : Error(Part::Resize, code, message) {}

  Errc errc() const noexcept { return code_; }
  Part part() const noexcept { return part_; }
  const char* what() const noexcept override { return text_->c_str(); }

  // Says where the error was met, `context` before its message, keeping the object, its
  // code and part: catch it by reference, prepend, rethrow with `throw;`.
  void prepend(std::string_view context) {
    text_ = std::make_shared<const std::string>(std::string(context) + *text_);
  }

 protected:
  // Another part's error met on this part's way, for a part whose callers catch its own
  // type: the cause's code and part, `context` before its message.
  Error(const Error& cause, std::string_view context)
      : Error(cause.part_, cause.code_, std::string(context) + cause.what()) {}

 private:
  std::shared_ptr<const std::string> text_;  // what(): shared, so a copy cannot throw
  Errc code_;
  Part part_;
};

}  // namespace malleable
#endif
