// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, the pure core inside the library: the file's format description,
// the hyperslab pieces one process writes or reads for a layout, the order-independent
// per-matrix checksum and the validation of a file against what the program registered.
// No MPI, no HDF5: the shell is file/write.cpp and file/read.cpp. What a
// program calls (the "when" rule, file names, the format version) is the public
// malleable/resize/checkpoint.hpp.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/matrix.hpp"
#include "malleable/resize/checkpoint.hpp"
#include "malleable/resize/types.hpp"

namespace resize::checkpoint {

// How the files spell a matrix's distribution kind (redist's one enum): "block-cyclic",
// "block", "extended"; and back (throws Error naming the text).
const char* to_string(redist::Distribution k);
redist::Distribution parse_layout_kind(const std::string& s);
// The element type of a file's letter (ScaLAPACK's s, d, c, z); throws Error "<where>unknown
// element type 'q'" for any other.
redist::Scalar parse_type_letter(char letter, const std::string& where);

// A matrix as a checkpoint file records it (the HDF5 dataset's attributes; a level file's
// record holds one too): made from the session's record and layout at the boundary
// (file_record), written and read with the element type as its letter and the layout kind
// as its name. How it was laid out is informational: a restart reads it onto whatever
// layout the program asks for.
struct MatrixInfo {
  std::string name;
  redist::Scalar type = redist::Scalar::D;
  std::int64_t m = 0, n = 0;
  redist::Distribution layout = redist::Distribution::BlockCyclic;
  std::int64_t mb = 1, nb = 1;          // block-cyclic / block: the block on the grid written
  std::vector<std::int64_t> row_blocks, col_blocks;  // extended: the sizes written
  std::uint64_t checksum = 0;           // matrix_checksum of its elements
};

struct Header {
  int version = kFormatVersion;
  std::string program;                  // SessionOptions::app
  std::string executable;               // informational
  int iteration = 0;                    // completed iterations
  Grid grid;                            // the grid written from (nprow, npcol)
  std::vector<MatrixInfo> matrices;     // in registration order
  std::string resize_history;           // JSON text (ResizeHistory::to_json), may be empty
};

// What the program registered: name, type and size of each matrix in order.
struct Expected {
  std::string program;
  std::vector<MatrixInfo> matrices;     // name, type, m, n used
};

// Empty if `file` can be restarted by a program that registered `want`; otherwise ONE
// message naming the first thing that differs (version, program, number of matrices,
// a matrix's name, type or size), prefixed with `path`.
std::string mismatch(const std::string& path, const Header& file, const Expected& want);

// ---- hyperslabs -------------------------------------------------------------------

// A run of consecutive global indices [start, start + length) one process holds.
struct Run {
  std::int64_t start = 0, length = 0;
};
// The runs of one axis held by process coordinate p, ascending and merged where they
// touch (a block layout gives one run per process).
std::vector<Run> runs(const redist::Axis& axis, int p);

// HDF5's regular hyperslab in one dimension: `count` blocks of `block` indices, the
// first at `start`, `stride` apart.
struct Strided {
  std::int64_t start = 0, stride = 1, count = 0, block = 0;
  std::int64_t elements() const { return count * block; }
};
// Covers ascending runs with as few regular pieces as possible (greedy: a maximal
// sequence of runs of one length at one spacing is one piece). Block-cyclic gives at
// most two pieces per axis (the full blocks, then a shorter last one).
std::vector<Strided> cover(const std::vector<Run>& r);

// The selection of process (pr, pc) in layout `l`: the cartesian product of its row
// pieces and column pieces, i.e. 2-D regular hyperslabs {row, col} whose union is
// exactly its local elements. Empty for a process that holds nothing.
struct Slab {
  Strided row, col;
};
std::vector<Slab> slabs(const redist::Layout& l, int pr, int pc);

// How a matrix's elements travel to and from the file. Measured (docs/guide/checkpoint.md,
// "Measured bandwidth"): one collective H5Dwrite of the union of a process's blocks
// from a row-major packed copy cost 5-10x a raw write of the same bytes, the two-phase
// exchange of thousands of 512-byte pieces and the copy dominating. With the dataset
// chunked one chunk per block, each block is one contiguous piece of the file, and
// each process writes (reads) its blocks one by one, independently, from a small
// row-major copy of that block: no exchange, no whole-matrix copy.
// Blocks below kMinBlockBytes would make too many tiny chunks and calls: such matrices
// keep the contiguous dataset and the collective union selection.
inline constexpr std::int64_t kMinBlockBytes = 8 * 1024;
inline constexpr std::int64_t kMaxChunkBytes = std::int64_t{512} << 20;  // HDF5 caps a chunk at 4 GiB
// The chunk shape of a matrix's dataset: its block (mb x nb, cut to the matrix) when
// the layout has uniform blocks of kMinBlockBytes..kMaxChunkBytes, else {0, 0}
// (contiguous dataset). The file stays the M x N matrix either way (h5py, h5dump).
// BlockIo::Always / Never (environment MALLEABLE_CHECKPOINT_BLOCKS=always|never, for
// tests and the benchmark) force the per-block path with chunks / the union path.
enum class BlockIo { Auto, Always, Never };
std::pair<std::int64_t, std::int64_t> chunk_shape(const MatrixInfo& m, std::size_t element_bytes, BlockIo mode = BlockIo::Auto);
// Whether a process moves its blocks of layout `l` one block at a time: when its blocks
// average kMinBlockBytes or more.
bool per_block_io(const redist::Layout& l, std::size_t element_bytes, BlockIo mode = BlockIo::Auto);

// Whether every block of `l` (of any process) is exactly one chunk of a dataset chunked
// cr x cc: blocks start at multiples of the chunk shape and fill it, but at the matrix's
// last block row / column. Then a process moves whole chunks, raw (H5Dwrite_chunk /
// H5Dread_chunk: no dataspace selection, no partial chunk, no type conversion), which
// brought a 4000 x 4000 write on 2x2 from 0.23x to about raw MPI-IO's speed
// (docs/guide/checkpoint.md, "Measured bandwidth"). A reader whose blocks cut the chunks (another
// block size, a block layout on another grid) reads hyperslabs instead.
bool blocks_are_chunks(const redist::Layout& l, std::int64_t cr, std::int64_t cc);

// HDF5 iterates a selection in row-major order of the file's dataspace; the local
// buffer is column-major (leading dimension lld). pack() writes local rows x local
// columns row-major into `out` (lr * lc elements), unpack() the reverse.
// Both go tile by tile (64 x 64) so that neither side strides through memory per element.
inline constexpr std::int64_t kPackTile = 64;
template <class T>
void pack(const T* local, std::int64_t lld, std::int64_t lr, std::int64_t lc, T* out) {
  for (std::int64_t i0 = 0; i0 < lr; i0 += kPackTile)
    for (std::int64_t j0 = 0; j0 < lc; j0 += kPackTile) {
      const std::int64_t i1 = std::min(lr, i0 + kPackTile), j1 = std::min(lc, j0 + kPackTile);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) out[i * lc + j] = local[i + j * lld];
    }
}
template <class T>
void unpack(const T* in, std::int64_t lr, std::int64_t lc, T* local, std::int64_t lld) {
  for (std::int64_t j0 = 0; j0 < lc; j0 += kPackTile)
    for (std::int64_t i0 = 0; i0 < lr; i0 += kPackTile) {
      const std::int64_t i1 = std::min(lr, i0 + kPackTile), j1 = std::min(lc, j0 + kPackTile);
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t i = i0; i < i1; ++i) local[i + j * lld] = in[i * lc + j];
    }
}

// ---- checksum ----------------------------------------------------------------------

// One element's contribution: a 64-bit mix of its global position and its bits. The
// matrix checksum is the sum of all contributions mod 2^64, so it does not depend on
// which process holds which element: any grid computes it with one MPI_Allreduce(SUM).
// element_hash(i, j, bits) = mix(mix(row_key(i) ^ col_key(j)) ^ bits); the keys are
// split out so that local_checksum computes each column's key once (inline, two mixes
// per element instead of a call and three).
inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}
inline std::uint64_t row_key(std::int64_t i) { return static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull; }
inline std::uint64_t col_key(std::int64_t j) { return mix64(static_cast<std::uint64_t>(j) + 0x632BE59BD9B4E019ull); }
inline std::uint64_t keyed_hash(std::uint64_t rk, std::uint64_t ck, std::uint64_t bits) { return mix64(mix64(rk ^ ck) ^ bits); }
std::uint64_t element_hash(std::int64_t i, std::int64_t j, std::uint64_t bits);

// The element term of each format version, as (row key, column key, term) so that the
// loops below compute each key once per row / column of a block.
// Version 1: element_hash above (two splitmix64 finalisers per element).
// Version 2: (bits ^ row_key(i)) * (col_key(j) | 1): one multiply per element. An odd
// multiplier is a bijection mod 2^64, so a change in any one element always changes the
// sum, and position enters through both keys (a value moved to another row or column
// changes it too). It costs the fused copy about what the copy costs: 4M doubles packed
// and summed in 13 ms with version 1, 5 ms with version 2, 4.7 ms copied alone (one
// core of this machine), which was a third of a checkpoint's write time on 2x2.
struct ChecksumV1 {
  static std::uint64_t row(std::int64_t i) { return row_key(i); }
  static std::uint64_t col(std::int64_t j) { return col_key(j); }
  static std::uint64_t term(std::uint64_t rk, std::uint64_t ck, std::uint64_t bits) { return keyed_hash(rk, ck, bits); }
};
struct ChecksumV2 {
  static std::uint64_t row(std::int64_t i) { return row_key(i); }
  static std::uint64_t col(std::int64_t j) { return col_key(j) | 1u; }
  static std::uint64_t term(std::uint64_t rk, std::uint64_t ck, std::uint64_t bits) { return (bits ^ rk) * ck; }
};
// Calls f(ChecksumV1{}) or f(ChecksumV2{}) for a file of format `version` (1 or 2).
template <class F>
auto by_checksum(int version, F&& f) {
  return version == 1 ? f(ChecksumV1{}) : f(ChecksumV2{});
}
inline std::uint64_t value_bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline std::uint64_t value_bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
template <class T>
std::uint64_t value_bits(const std::complex<T>& v) {
  const std::uint64_t re = value_bits(v.real()), im = value_bits(v.imag());
  return re ^ ((im << 29) | (im >> 35)) ^ 0x9E3779B97F4A7C15ull;
}

// Sum of the element terms of checksum H (the current format's by default) over a local
// column-major buffer whose local rows/columns map to global indices through the axes
// of a layout (process (pr, pc)).
template <class T, class H = ChecksumV2>
std::uint64_t local_checksum(const T* local, std::int64_t lld, const redist::Axis& rows, int pr,
                             const redist::Axis& cols, int pc, H = {}) {
  const std::int64_t lr = rows.local_count(pr), lc = cols.local_count(pc);
  std::vector<std::uint64_t> rk(static_cast<std::size_t>(lr));
  for (std::int64_t i = 0; i < lr; ++i) rk[static_cast<std::size_t>(i)] = H::row(rows.to_global(pr, i));
  std::uint64_t sum = 0;
  for (std::int64_t j = 0; j < lc; ++j) {
    const std::uint64_t cj = H::col(cols.to_global(pc, j));
    const T* col = local + j * lld;
    for (std::int64_t i = 0; i < lr; ++i) sum += H::term(rk[static_cast<std::size_t>(i)], cj, value_bits(col[i]));
  }
  return sum;
}

// One block copied between the column-major local buffer (leading dimension lld) and a
// row-major chunk buffer (row stride `ld`: a chunk's width) in the same pass that sums its
// checksum contributions (element_hash of global row gi + i, column gj + j): the block is
// read once, while it is in cache, instead of once for the checksum and once for the copy.
// copy_hashed moves element (i, j) from src[i * src_rs + j * src_cs] to dst[i * dst_rs +
// j * dst_cs] tile by tile; pack_hashed (local -> chunk) and unpack_hashed (chunk ->
// local, the checksum of the values read) are its two directions.
template <class T, class H = ChecksumV2>
std::uint64_t copy_hashed(const T* src, std::int64_t src_rs, std::int64_t src_cs, T* dst, std::int64_t dst_rs,
                          std::int64_t dst_cs, std::int64_t rows, std::int64_t cols, std::int64_t gi, std::int64_t gj,
                          H = {}) {
  std::uint64_t sum = 0;
  std::uint64_t rk[kPackTile], ck[kPackTile];
  for (std::int64_t i0 = 0; i0 < rows; i0 += kPackTile) {
    const std::int64_t i1 = std::min(rows, i0 + kPackTile);
    for (std::int64_t i = i0; i < i1; ++i) rk[i - i0] = H::row(gi + i);
    for (std::int64_t j0 = 0; j0 < cols; j0 += kPackTile) {
      const std::int64_t j1 = std::min(cols, j0 + kPackTile);
      for (std::int64_t j = j0; j < j1; ++j) ck[j - j0] = H::col(gj + j);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) {
          const T v = src[i * src_rs + j * src_cs];
          dst[i * dst_rs + j * dst_cs] = v;
          sum += H::term(rk[i - i0], ck[j - j0], value_bits(v));
        }
    }
  }
  return sum;
}
template <class T, class H = ChecksumV2>
std::uint64_t pack_hashed(const T* local, std::int64_t lld, std::int64_t rows, std::int64_t cols, T* out,
                          std::int64_t out_ld, std::int64_t gi, std::int64_t gj, H h = {}) {
  return copy_hashed(local, 1, lld, out, out_ld, 1, rows, cols, gi, gj, h);
}
template <class T, class H = ChecksumV2>
std::uint64_t unpack_hashed(const T* in, std::int64_t in_ld, std::int64_t rows, std::int64_t cols, T* local,
                            std::int64_t lld, std::int64_t gi, std::int64_t gj, H h = {}) {
  return copy_hashed(in, in_ld, 1, local, 1, lld, rows, cols, gi, gj, h);
}



// At most the bytes a checkpoint file of header `h` takes: each matrix's data (a chunked
// dataset's edge chunks whole; chunks[k] = chunk_shape(), {0, 0} contiguous), the
// application state, the header's text and HDF5's metadata (object headers, attributes,
// one chunk-index entry per chunk) with a margin. World rank 0 makes sure this much room
// is free before the file is made (docs/guide/checkpoint.md, "Crash safety"): a full file
// system is refused before any I/O layer sees it.
std::uint64_t file_bytes_bound(const Header& h, const std::vector<std::size_t>& element_bytes,
                               const std::vector<std::pair<std::int64_t, std::int64_t>>& chunks, std::uint64_t state_bytes);


}  // namespace resize::checkpoint
