// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, the pure core (checkpoint.hpp): format validation, hyperslab
// pieces, checksum, the when-to-checkpoint rule, file names and retention.
#include "checkpoint/file/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace resize::checkpoint {

const char* to_string(redist::Distribution k) {
  switch (k) {
    case redist::Distribution::BlockCyclic: return "block-cyclic";
    case redist::Distribution::Block: return "block";
    case redist::Distribution::Extended: return "extended";
  }
  return "?";
}

redist::Distribution parse_layout_kind(const std::string& s) {
  if (s == "block-cyclic") return redist::Distribution::BlockCyclic;
  if (s == "block") return redist::Distribution::Block;
  if (s == "extended") return redist::Distribution::Extended;
  throw Error("checkpoint: unknown layout kind '" + s + "' (expected block-cyclic, block or extended)");
}

redist::Scalar parse_type_letter(char letter, const std::string& where) {
  redist::Scalar t = redist::Scalar::D;
  if (!redist::scalar_from_letter(letter, t))
    throw Error(where + "unknown element type " +
                (letter > ' ' && letter < 127 ? "'" + std::string(1, letter) + "'"
                                              : "of code " + std::to_string(static_cast<unsigned char>(letter))) +
                " (expected s, d, c or z)");
  return t;
}

namespace {
std::string type_name(redist::Scalar t) {
  switch (t) {
    case redist::Scalar::S: return "float (s)";
    case redist::Scalar::D: return "double (d)";
    case redist::Scalar::C: return "complex float (c)";
    case redist::Scalar::Z: return "complex double (z)";
  }
  return "?";
}
std::string names(const std::vector<MatrixInfo>& v) {
  std::string out;
  for (const auto& m : v) out += (out.empty() ? "" : ", ") + m.name;
  return "[" + out + "]";
}
}  // namespace

std::string mismatch(const std::string& path, const Header& file, const Expected& want) {
  const std::string p = "checkpoint " + path + ": ";
  if (file.version < kOldestFormatVersion || file.version > kFormatVersion)
    return p + "format version " + std::to_string(file.version) + ", this library reads versions " +
           std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion);
  if (file.program != want.program)
    return p + "written by program '" + file.program + "', this is '" + want.program + "'";
  if (file.matrices.size() != want.matrices.size())
    return p + "holds " + std::to_string(file.matrices.size()) + " matrices " + names(file.matrices) +
           ", this program registered " + std::to_string(want.matrices.size()) + " " + names(want.matrices);
  for (std::size_t k = 0; k < file.matrices.size(); ++k) {
    const auto &f = file.matrices[k], &w = want.matrices[k];
    const std::string at = "matrix " + std::to_string(k + 1) + " ";
    if (f.name != w.name) return p + at + "is '" + f.name + "' in the file, this program registered '" + w.name + "'";
    if (f.type != w.type)
      return p + "matrix '" + f.name + "' holds " + type_name(f.type) + " in the file, this program registered " +
             type_name(w.type);
    if (f.m != w.m || f.n != w.n)
      return p + "matrix '" + f.name + "' is " + std::to_string(f.m) + " x " + std::to_string(f.n) +
             " in the file, this program registered " + std::to_string(w.m) + " x " + std::to_string(w.n);
  }
  return {};
}

std::vector<Run> runs(const redist::Axis& axis, int p) {
  std::vector<Run> out;
  for (std::size_t k = 0; k < axis.nblocks(); ++k) {
    if (axis.block_owner(k) != p || axis.block_size(k) == 0) continue;
    const std::int64_t s = axis.block_start(k), len = axis.block_size(k);
    if (!out.empty() && out.back().start + out.back().length == s)
      out.back().length += len;
    else
      out.push_back({s, len});
  }
  return out;
}

std::vector<Strided> cover(const std::vector<Run>& r) {
  std::vector<Strided> out;
  std::size_t k = 0;
  while (k < r.size()) {
    Strided s{r[k].start, 1, 1, r[k].length};
    std::size_t e = k + 1;
    if (e < r.size() && r[e].length == s.block) {
      s.stride = r[e].start - r[k].start;
      while (e < r.size() && r[e].length == s.block && r[e].start - r[e - 1].start == s.stride) ++e;
      s.count = static_cast<std::int64_t>(e - k);
    }
    if (s.count == 1) s.stride = 1;
    out.push_back(s);
    k = e;
  }
  return out;
}

std::vector<Slab> slabs(const redist::Layout& l, int pr, int pc) {
  std::vector<Slab> out;
  if (pr < 0 || pc < 0 || pr >= l.nprow || pc >= l.npcol) return out;
  const auto rows = cover(runs(l.row_axis(), pr)), cols = cover(runs(l.col_axis(), pc));
  for (const auto& r : rows)
    for (const auto& c : cols) out.push_back({r, c});
  return out;
}

std::pair<std::int64_t, std::int64_t> chunk_shape(const MatrixInfo& m, std::size_t element_bytes, BlockIo mode) {
  if (mode == BlockIo::Never || m.layout == redist::Distribution::Extended || m.mb < 1 || m.nb < 1 || m.m < 1 || m.n < 1) return {0, 0};
  const std::int64_t r = std::min(m.mb, m.m), c = std::min(m.nb, m.n);
  const std::int64_t bytes = r * c * static_cast<std::int64_t>(element_bytes);
  if (mode == BlockIo::Auto && bytes < kMinBlockBytes && !(r == m.m && c == m.n)) return {0, 0};
  if (bytes > kMaxChunkBytes) return {0, 0};
  return {r, c};
}

bool per_block_io(const redist::Layout& l, std::size_t element_bytes, BlockIo mode) {
  if (mode != BlockIo::Auto) return mode == BlockIo::Always;
  const auto blocks = static_cast<double>(l.row_axis().nblocks()) * static_cast<double>(l.col_axis().nblocks());
  if (blocks <= 0) return false;
  const double elements = static_cast<double>(l.row_axis().extent()) * static_cast<double>(l.col_axis().extent());
  return elements * static_cast<double>(element_bytes) / blocks >= static_cast<double>(kMinBlockBytes);
}

bool blocks_are_chunks(const redist::Layout& l, std::int64_t cr, std::int64_t cc) {
  if (cr < 1 || cc < 1) return false;
  const auto fits = [](const redist::Axis& a, std::int64_t c) {
    for (std::size_t k = 0; k < a.nblocks(); ++k) {
      const std::int64_t s = a.block_start(k), n = a.block_size(k);
      if (n == 0) continue;
      if (s % c != 0 || n > c || (n < c && s + n != a.extent())) return false;
    }
    return true;
  };
  return fits(l.row_axis(), cr) && fits(l.col_axis(), cc);
}

std::uint64_t element_hash(std::int64_t i, std::int64_t j, std::uint64_t bits) {
  return keyed_hash(row_key(i), col_key(j), bits);
}

double parse_duration(const std::string& text) {
  std::size_t end = 0;
  double v = 0;
  try {
    v = std::stod(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  const std::string unit = end ? text.substr(end) : "?";
  double scale = -1;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  else if (unit == "d") scale = 86400;
  if (scale < 0 || !std::isfinite(v) || v <= 0)
    throw Error("duration: expected a positive number with an optional unit s, m, h or d (e.g. 6h), got '" + text + "'");
  return v * scale;
}

double young_daly_interval(double cost_seconds, double mtbf_seconds) {
  return std::sqrt(2.0 * std::max(0.0, cost_seconds) * mtbf_seconds);
}

Every parse_every(const std::string& text, double mtbf_seconds) {
  Every e;
  if (text.empty() || text == "never") return e;
  if (text == "auto") {
    if (!(mtbf_seconds > 0))
      throw Error("--checkpoint-every auto needs the mean time between failures (--mtbf, e.g. 6h)");
    e.kind = Every::Kind::Auto;
    e.mtbf = mtbf_seconds;
    return e;
  }
  const bool digits = std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    try {
      e.iterations = std::stoi(text);
    } catch (const std::exception&) {
      e.iterations = 0;
    }
    if (e.iterations < 1)
      throw Error("--checkpoint-every: expected N (iterations >= 1), <T>s|m|h or auto, got '" + text + "'");
    e.kind = Every::Kind::Iterations;
    return e;
  }
  try {
    e.seconds = parse_duration(text);
  } catch (const Error&) {
    throw Error("--checkpoint-every: expected N (iterations >= 1), <T>s|m|h or auto, got '" + text + "'");
  }
  e.kind = Every::Kind::Seconds;
  return e;
}

bool due(const Every& e, int iteration, double since_last, double last_cost, bool requested) {
  if (requested) return true;
  switch (e.kind) {
    case Every::Kind::Never: return false;
    case Every::Kind::Iterations: return iteration > 0 && iteration % e.iterations == 0;
    case Every::Kind::Seconds: return since_last >= e.seconds;
    case Every::Kind::Auto:
      if (last_cost < 0) return true;  // measure the cost once
      return since_last >= young_daly_interval(last_cost, e.mtbf);
  }
  return false;
}

std::string file_name(const std::string& dir, const std::string& program, int iteration) {
  char it[16];
  std::snprintf(it, sizeof it, "%06d", iteration);
  return (dir.empty() ? std::string() : dir + "/") + program + "-" + it + ".h5";
}

int iteration_of(const std::string& name) {
  const std::size_t slash = name.find_last_of('/');
  const std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  if (base.size() < 10 || base.compare(base.size() - 3, 3, ".h5") != 0) return -1;
  const std::size_t dash = base.find_last_of('-');
  if (dash == std::string::npos) return -1;
  const std::string num = base.substr(dash + 1, base.size() - 3 - dash - 1);
  if (num.size() < 6 || !std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return std::stoi(num);
}

std::vector<std::string> to_remove(std::vector<std::string> names, int keep) {
  if (keep <= 0) return {};
  std::erase_if(names, [](const std::string& n) { return iteration_of(n) < 0; });
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return iteration_of(a) > iteration_of(b); });
  if (names.size() <= static_cast<std::size_t>(keep)) return {};
  return {names.begin() + keep, names.end()};
}

std::uint64_t file_bytes_bound(const Header& h, const std::vector<std::size_t>& element_bytes,
                               const std::vector<std::pair<std::int64_t, std::int64_t>>& chunks, std::uint64_t state_bytes) {
  const auto up = [](std::int64_t n, std::int64_t c) { return (n + c - 1) / c * c; };
  // Superblock, root group, "matrices" group and their heaps, the state's dataset and the
  // root attributes: a few KiB in practice; 64 KiB of margin.
  std::uint64_t bytes = (std::uint64_t{64} << 10) + state_bytes + h.program.size() + h.executable.size() + h.resize_history.size();
  for (std::size_t k = 0; k < h.matrices.size(); ++k) {
    const MatrixInfo& m = h.matrices[k];
    const auto [cr, cc] = k < chunks.size() ? chunks[k] : std::pair<std::int64_t, std::int64_t>{0, 0};
    const std::size_t e = k < element_bytes.size() ? element_bytes[k] : 16;
    const bool chunked = cr > 0 && cc > 0;
    const std::uint64_t rows = static_cast<std::uint64_t>(chunked ? up(m.m, cr) : m.m);
    const std::uint64_t cols = static_cast<std::uint64_t>(chunked ? up(m.n, cc) : m.n);
    bytes += rows * cols * e;
    // Object header and attributes (8 KiB), the extended descriptor's block lists, and
    // the fixed-array chunk index (8 bytes a chunk; 16 for a margin).
    bytes += (std::uint64_t{8} << 10) + m.name.size() + 8 * (m.row_blocks.size() + m.col_blocks.size());
    if (chunked) bytes += 16 * (rows / static_cast<std::uint64_t>(cr)) * (cols / static_cast<std::uint64_t>(cc));
  }
  return bytes;
}

}  // namespace resize::checkpoint
