// SPDX-License-Identifier: BSD-3-Clause
// What one process hands another, typed (issue 31): the state an expansion hands its
// newcomers (ExpansionState) and a policy's Decision as world rank 0 broadcasts it, each
// packed into bytes and unpacked by the pure code here (no MPI), so the writer and the
// readers cannot disagree field by field. Each buffer starts with a header {magic,
// version, payload bytes}: another kind of buffer, another version (processes of two
// builds of malleable in one job) or a truncated or overlong buffer is an Error naming
// what differs, never a wrongly read field. The MPI shell only moves the bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/resize/types.hpp"

namespace resize::detail {

// Byte packing: plain values in this machine's representation (every process of a job
// runs the same build on the same kind of machine), vectors as a count and their items.
struct Writer {
  std::vector<char> b;
  template <class T> void put(const T& v) {
    const std::size_t at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
  }
  void put_ints(const std::vector<int>& v);
  void put_doubles(const std::vector<double>& v);
  void put_bytes(const std::vector<char>& v);
  void put_string(const std::string& s);
};

// Reads what a Writer wrote; every read past the end, and every count larger than the
// bytes left, throws Error("<what>: truncated ...").
struct Reader {
  const std::vector<char>& b;
  std::size_t at = 0;
  std::string what = "hand-over";
  template <class T> T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::vector<int> get_ints();
  std::vector<double> get_doubles();
  std::vector<char> get_bytes();
  std::string get_string();
  void need(std::uint64_t bytes) const;
  // n items of item_bytes each (no overflow for any n).
  void need_items(std::uint64_t n, std::size_t item_bytes) const;
};

void put_grid(Writer& w, const Grid& g);
Grid get_grid(Reader& r);

// The state an expansion hands its newcomers: everything join() needs to take part in the
// redistribution and the remap points after it as the old processes do.
struct ExpansionState {
  static constexpr std::uint32_t kVersion = 2;  // 2: move_budget
  int iteration = 0;
  int mover = 0;  // the job's Mover: a newcomer must run the same collective code
  Grid from, to;
  struct Matrix {
    int m = 0, n = 0, mb = 1, nb = 1;
    int type = 0;           // detail::Scalar
    bool constant = false;  // marked constant (background resizes)
    bool operator==(const Matrix&) const = default;
  };
  std::vector<Matrix> mats;
  std::vector<char> app;                      // the application's state (set_app_state)
  std::vector<double> powers_before, powers;  // the old layouts' powers, the new ones'
  int background_mode = 0;                    // Background
  int background_min_iterations = 1;
  bool background = false;  // this expansion was begun in the background
  std::int64_t move_budget = 0;  // SessionOptions::move_budget_bytes: every process batches alike
};
std::vector<char> pack(const ExpansionState& s);
ExpansionState unpack_expansion(const std::vector<char>& bytes);

// Every field of a Decision (the policy's prediction and reasoning included), so every
// process acts on, and records, the same decision.
constexpr std::uint32_t kDecisionVersion = 2;  // 2: new_allocation
std::vector<char> pack(const Decision& d);
Decision unpack_decision(const std::vector<char>& bytes);

}  // namespace resize::detail
