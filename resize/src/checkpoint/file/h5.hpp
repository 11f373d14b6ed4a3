// SPDX-License-Identifier: BSD-3-Clause
// The parallel HDF5 helpers the checkpoint writer (file/write.cpp) and reader
// (file/read.cpp) share: agreement across processes, HDF5 handles and attributes,
// hyperslab selections of a process's blocks, per-block I/O, checksums. Internal to resize.
#pragma once

#include "checkpoint/file/io.hpp"
#include "common/config.hpp"
#include "checkpoint/file_release.hpp"
#include "common/broadcast.hpp"
#include "common/sleep_wait.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace resize::detail::h5 {

namespace ck = resize::checkpoint;


// MPI_Allreduce that waits with short sleeps instead of Open MPI's busy polling: a
// process with no blocks of a matrix (off the grid, or a small matrix) reaches the end
// of a step long before the writers, and on an oversubscribed node its polling took the
// writers' cores (2x2 written from 9 processes on 2 cores: the 5 idle ones). The naps
// grow from 20 us to 1 ms, so a process that arrives last finds the others done at once.
inline void polite_allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  MPI_Iallreduce(in, out, count, type, op, comm, &req);
  sleep_wait(req, 20e-6, 1e-3);
}

// Every process learns whether all succeeded; if not, all throw the message of the
// lowest failing rank (one message, the same everywhere).
inline void agree(MPI_Comm comm, const std::string& err) {
  const auto failure =
      resize::detail::lowest_failure(comm, err, [](MPI_Request& req) { resize::detail::sleep_wait(req, 20e-6, 1e-3); });
  if (failure) throw Error(failure->text);
}

// Runs f, turning an exception into agree()'s message.
inline void guarded(MPI_Comm comm, const std::function<void()>& f) {
  std::string err;
  try {
    f();
  } catch (const std::exception& e) {
    err = e.what();
    if (err.empty()) err = "checkpoint: unknown error";
  }
  agree(comm, err);
}

// An hid_t closed by its function at scope end.
struct Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~Id() {
    if (id >= 0 && close) close(id);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id; }
};

inline hid_t must(hid_t id, const std::string& what) {
  if (id < 0) throw Error(what);
  return id;
}
inline void must(herr_t rc, const std::string& what) {
  if (rc < 0) throw Error(what);
}

// The file's element type (complex: the compound {r, i} h5py reads as complex).
inline hid_t element_type(Scalar t) {
  switch (t) {
    case Scalar::S: return H5Tcopy(H5T_NATIVE_FLOAT);
    case Scalar::D: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case Scalar::C:
    case Scalar::Z: {
      const bool single = t == Scalar::C;
      const std::size_t part = single ? sizeof(float) : sizeof(double);
      const hid_t c = H5Tcreate(H5T_COMPOUND, 2 * part);
      H5Tinsert(c, "r", 0, single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      H5Tinsert(c, "i", part, single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      return c;
    }
  }
  return -1;
}

inline void put_string(hid_t obj, const char* name, const std::string& v) {
  Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  must(H5Tset_size(t, std::max<std::size_t>(1, v.size())), "checkpoint: string type");
  Id sp(H5Screate(H5S_SCALAR), H5Sclose);
  Id a(must(H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), std::string("checkpoint: attribute ") + name), H5Aclose);
  std::string buf = v.empty() ? std::string(1, '\0') : v;
  must(H5Awrite(a, t, buf.data()), std::string("checkpoint: writing attribute ") + name);
}
template <class T>
void put_array(hid_t obj, const char* name, hid_t type, const std::vector<T>& v) {
  const hsize_t n = std::max<hsize_t>(1, v.size());
  Id sp(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Id a(must(H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT), std::string("checkpoint: attribute ") + name), H5Aclose);
  std::vector<T> buf = v.empty() ? std::vector<T>(1, T{}) : v;
  must(H5Awrite(a, type, buf.data()), std::string("checkpoint: writing attribute ") + name);
}

inline std::string get_string(hid_t obj, const char* name, const std::string& where) {
  if (H5Aexists(obj, name) <= 0) throw Error(where + "has no attribute '" + name + "', which every checkpoint of this library carries (not a malleable checkpoint, or written by something else)");
  Id a(must(H5Aopen(obj, name, H5P_DEFAULT), where + "cannot open attribute " + name), H5Aclose);
  Id ft(H5Aget_type(a), H5Tclose);
  if (H5Tget_class(ft) != H5T_STRING) throw Error(where + "attribute '" + std::string(name) + "' is not text");
  const std::size_t n = H5Tget_size(ft);
  Id mt(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mt, n);
  std::string s(n, '\0');
  must(H5Aread(a, mt, s.data()), where + "cannot read attribute " + name);
  s.resize(std::strlen(s.c_str()));
  return s;
}
template <class T>
std::vector<T> get_array(hid_t obj, const char* name, hid_t type, const std::string& where) {
  if (H5Aexists(obj, name) <= 0)
    throw Error(where + "has no attribute '" + name + "', which a malleable checkpoint writes there (damaged or not written by this library)");
  Id a(must(H5Aopen(obj, name, H5P_DEFAULT), where + "cannot open attribute " + name), H5Aclose);
  Id sp(H5Aget_space(a), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  std::vector<T> v(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
  if (!v.empty()) must(H5Aread(a, type, v.data()), where + "cannot read attribute " + name);
  return v;
}

// The file dataspace with this process's blocks selected (nothing off the grid).
inline hid_t select_blocks(const CheckpointMatrix& m, std::int64_t& elements) {
  const hsize_t dims[2] = {static_cast<hsize_t>(m.spec.m), static_cast<hsize_t>(m.spec.n)};
  const hid_t fs = H5Screate_simple(2, dims, nullptr);
  elements = 0;
  const auto pieces = m.pr >= 0 ? ck::slabs(m.layout, m.pr, m.pc) : std::vector<ck::Slab>{};
  if (pieces.empty()) {
    H5Sselect_none(fs);
    return fs;
  }
  bool first = true;
  for (const auto& s : pieces) {
    const hsize_t start[2] = {static_cast<hsize_t>(s.row.start), static_cast<hsize_t>(s.col.start)};
    const hsize_t stride[2] = {static_cast<hsize_t>(s.row.stride), static_cast<hsize_t>(s.col.stride)};
    const hsize_t count[2] = {static_cast<hsize_t>(s.row.count), static_cast<hsize_t>(s.col.count)};
    const hsize_t block[2] = {static_cast<hsize_t>(s.row.block), static_cast<hsize_t>(s.col.block)};
    H5Sselect_hyperslab(fs, first ? H5S_SELECT_SET : H5S_SELECT_OR, start, stride, count, block);
    first = false;
    elements += s.row.elements() * s.col.elements();
  }
  return fs;
}

inline hid_t memory_space(std::int64_t elements) {
  const hsize_t n = static_cast<hsize_t>(std::max<std::int64_t>(elements, 1));
  const hid_t ms = H5Screate_simple(1, &n, nullptr);
  if (elements == 0) H5Sselect_none(ms);
  return ms;
}

// The transfer of the collective paths: collective, or independent when the configuration
// says so (MALLEABLE_CHECKPOINT_IO=independent).
inline hid_t collective_transfer(const config::Checkpoint& cfg) {
  const hid_t x = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(x, cfg.independent_io ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
  return x;
}

inline hid_t mpio_access(MPI_Comm comm, bool create = false) {
  const hid_t fa = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fa, comm, MPI_INFO_NULL);
  // New files in the HDF5 1.10 format: a dataset of fixed size with chunks allocated at
  // creation gets the fixed-array chunk index (one lookup per chunk, no B-tree to build and
  // walk). Readers need HDF5 1.10 or later (h5py and h5dump of Debian 10 on have it).
  if (create) H5Pset_libver_bounds(fa, H5F_LIBVER_V110, H5F_LIBVER_V110);
  // Metadata reads independent: the per-block reads and writes are independent calls
  // in different numbers on each process, and a chunk-index lookup inside one of them
  // must not wait for the others. Metadata writes stay collective (at close).
  H5Pset_all_coll_metadata_ops(fa, false);
  H5Pset_coll_metadata_write(fa, true);
  return fa;
}

inline ck::BlockIo block_io_mode(const config::Checkpoint& cfg) {
  const std::string s = cfg.blocks.value_or("");
  return s == "always" ? ck::BlockIo::Always : s == "never" ? ck::BlockIo::Never : ck::BlockIo::Auto;
}

inline hid_t independent_transfer() {
  const hid_t x = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(x, H5FD_MPIO_INDEPENDENT);
  return x;
}

template <class T>
std::uint64_t checksum_as(const CheckpointMatrix& m, int version) {
  if (m.pr < 0) return 0;
  return ck::by_checksum(version, [&](auto h) {
    return ck::local_checksum(static_cast<const T*>(m.local), m.lld, m.layout.row_axis(), m.pr, m.layout.col_axis(), m.pc, h);
  });
}

// The format version a checkpoint is written in: the current one, or version 1 when the
// environment asks for it (MALLEABLE_CHECKPOINT_FORMAT=1, for readers of library 0.3).
inline int version_to_write(const std::string& where, const config::Checkpoint& cfg) {
  const config::Text& v = cfg.format;
  if (!v || v->empty()) return ck::kFormatVersion;
  const std::string s = *v;
  for (int k = ck::kOldestFormatVersion; k <= ck::kFormatVersion; ++k)
    if (s == std::to_string(k)) return k;
  throw Error(where + "MALLEABLE_CHECKPOINT_FORMAT=" + s + ": this library writes format versions " +
              std::to_string(ck::kOldestFormatVersion) + " to " + std::to_string(ck::kFormatVersion));
}

template <class T>
void pack_as(const CheckpointMatrix& m, std::vector<char>& out, std::int64_t lr, std::int64_t lc) {
  out.resize(static_cast<std::size_t>(lr * lc) * sizeof(T));
  ck::pack(static_cast<const T*>(m.local), m.lld, lr, lc, reinterpret_cast<T*>(out.data()));
}
template <class T>
void unpack_as(const CheckpointMatrix& m, const std::vector<char>& in, std::int64_t lr, std::int64_t lc) {
  ck::unpack(reinterpret_cast<const T*>(in.data()), lr, lc, static_cast<T*>(m.local), m.lld);
}

template <class F>
auto by_type(Scalar t, F&& f) {
  switch (t) {
    case Scalar::S: return f(float{});
    case Scalar::D: return f(double{});
    case Scalar::C: return f(std::complex<float>{});
    case Scalar::Z: break;
  }
  return f(std::complex<double>{});
}

// Calls f(global row, global col, rows, cols, local row, local col) for each block this
// process holds, column of blocks by column of blocks.
template <class F>
void for_each_block(const CheckpointMatrix& m, F&& f) {
  if (m.pr < 0) return;
  const auto& ra = m.layout.row_axis();
  const auto& ca = m.layout.col_axis();
  for (std::size_t bj = 0; bj < ca.nblocks(); ++bj) {
    if (ca.block_owner(bj) != m.pc || ca.block_size(bj) == 0) continue;
    for (std::size_t bi = 0; bi < ra.nblocks(); ++bi) {
      if (ra.block_owner(bi) != m.pr || ra.block_size(bi) == 0) continue;
      f(ra.block_start(bi), ca.block_start(bj), ra.block_size(bi), ca.block_size(bj), ra.block_local_start(bi),
        ca.block_local_start(bj));
    }
  }
}

// The per-block path (checkpoint.hpp, per_block_io): each block copied to a small
// row-major buffer, its checksum summed in the same pass, and written with its own
// independent H5Dwrite of a 2-D selection (read: the reverse). Returns this process's
// checksum contribution.
// What a per-block pass does: write the blocks, read them into the local buffer, or
// verify them (read each into a block-sized scratch buffer and sum its checksum only: a
// checkpoint read back before it counts, the local data untouched). `lose` (test-only
// fault injection, fault()) skips the writes as if they had succeeded.
enum class Pass { Write, Read, Verify };

template <class T, class H>
std::uint64_t blocks_io(hid_t ds, hid_t ftype, const CheckpointMatrix& m, Pass pass, bool lose, const std::string& what, H h) {
  const hsize_t dims[2] = {static_cast<hsize_t>(m.spec.m), static_cast<hsize_t>(m.spec.n)};
  Id fs(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Id x(independent_transfer(), H5Pclose);
  std::vector<T> tmp, scratch;
  std::uint64_t sum = 0;
  for_each_block(m, [&](std::int64_t gi, std::int64_t gj, std::int64_t br, std::int64_t bc, std::int64_t li, std::int64_t lj) {
    tmp.resize(static_cast<std::size_t>(br * bc));
    T* local = static_cast<T*>(m.local) + li + lj * m.lld;
    const hsize_t start[2] = {static_cast<hsize_t>(gi), static_cast<hsize_t>(gj)};
    const hsize_t count[2] = {static_cast<hsize_t>(br), static_cast<hsize_t>(bc)};
    must(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr), what);
    Id ms(H5Screate_simple(2, count, nullptr), H5Sclose);
    if (pass == Pass::Write) {
      sum += ck::pack_hashed(local, m.lld, br, bc, tmp.data(), bc, gi, gj, h);
      if (!lose) must(H5Dwrite(ds, ftype, ms, fs, x, tmp.data()), what);
    } else {
      must(H5Dread(ds, ftype, ms, fs, x, tmp.data()), what);
      if (pass == Pass::Verify) {
        scratch.resize(tmp.size());
        sum += ck::unpack_hashed(tmp.data(), bc, br, bc, scratch.data(), br, gi, gj, h);
      } else {
        sum += ck::unpack_hashed(tmp.data(), bc, br, bc, local, m.lld, gi, gj, h);
      }
    }
  });
  return sum;
}

// The per-block path when every block is one chunk (checkpoint::blocks_are_chunks): each
// block packed with its checksum into a chunk-sized row-major buffer (the part of an edge
// chunk outside the matrix zero) and written raw with H5Dwrite_chunk; read with
// H5Dread_chunk and unpacked. No selection, no type conversion, no partial chunk: one
// contiguous write or read of the file per block. Returns the checksum contribution.
template <class T, class H>
std::uint64_t chunks_io(hid_t ds, const CheckpointMatrix& m, std::int64_t cr, std::int64_t cc, Pass pass, bool lose,
                        const std::string& what, H h) {
  Id x(independent_transfer(), H5Pclose);
  std::vector<T> chunk(static_cast<std::size_t>(cr * cc)), scratch;
  const std::size_t bytes = chunk.size() * sizeof(T);
  std::uint64_t sum = 0;
  for_each_block(m, [&](std::int64_t gi, std::int64_t gj, std::int64_t br, std::int64_t bc, std::int64_t li, std::int64_t lj) {
    T* local = static_cast<T*>(m.local) + li + lj * m.lld;
    const hsize_t offset[2] = {static_cast<hsize_t>(gi), static_cast<hsize_t>(gj)};
    if (pass == Pass::Write) {
      if (br < cr || bc < cc) std::fill(chunk.begin(), chunk.end(), T{});
      sum += ck::pack_hashed(local, m.lld, br, bc, chunk.data(), cc, gi, gj, h);
      if (!lose) must(H5Dwrite_chunk(ds, x, 0, offset, bytes, chunk.data()), what);
    } else {
      std::uint32_t filters = 0;
      must(H5Dread_chunk(ds, x, offset, &filters, chunk.data()), what);
      if (pass == Pass::Verify) {
        scratch.resize(static_cast<std::size_t>(br * bc));
        sum += ck::unpack_hashed(chunk.data(), cc, br, bc, scratch.data(), br, gi, gj, h);
      } else {
        sum += ck::unpack_hashed(chunk.data(), cc, br, bc, local, m.lld, gi, gj, h);
      }
    }
  });
  return sum;
}

// The chunk shape of dataset `ds` when its chunks can be read raw into `mem_type`
// elements: chunked, no filter, the element type this library writes; else {0, 0}.
inline std::pair<std::int64_t, std::int64_t> raw_chunk_shape(hid_t ds, hid_t mem_type) {
  Id dc(H5Dget_create_plist(ds), H5Pclose);
  Id ft(H5Dget_type(ds), H5Tclose);
  hsize_t c[2] = {0, 0};
  if (dc < 0 || ft < 0 || H5Pget_layout(dc) != H5D_CHUNKED || H5Pget_chunk(dc, 2, c) != 2 || H5Pget_nfilters(dc) != 0 ||
      H5Tequal(ft, mem_type) <= 0)
    return {0, 0};
  return {static_cast<std::int64_t>(c[0]), static_cast<std::int64_t>(c[1])};
}

// This process's part of the per-block paths (write or read), whole chunks raw when the
// layout's blocks are the dataset's chunks (unless MALLEABLE_CHECKPOINT_DIRECT=0, in
// `cfg`: those go through dataspace selections like the others; the benchmark compares
// both, the files are the same); `raw` says which ran. The checksum is the one of format
// `version`.
inline std::uint64_t per_block_transfer(hid_t ds, hid_t type, const CheckpointMatrix& m, std::pair<std::int64_t, std::int64_t> chunk,
                                 Pass pass, const std::string& what, int version, const config::Checkpoint& cfg, bool& raw,
                                 bool lose = false) {
  raw = cfg.direct_chunks && ck::blocks_are_chunks(m.layout, chunk.first, chunk.second);
  return by_type(m.spec.type, [&](auto v) {
    using T = decltype(v);
    return ck::by_checksum(version, [&](auto h) {
      return raw ? chunks_io<T>(ds, m, chunk.first, chunk.second, pass, lose, what, h)
                 : blocks_io<T>(ds, type, m, pass, lose, what, h);
    });
  });
}

inline std::uint64_t sum_over(MPI_Comm comm, std::uint64_t mine) {
  std::uint64_t sum = 0;
  polite_allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  return sum;
}

inline std::pair<std::int64_t, std::int64_t> local_dims(const CheckpointMatrix& m) {
  if (m.pr < 0) return {0, 0};
  return {m.layout.local_rows(m.pr), m.layout.local_cols(m.pc)};
}

// MALLEABLE_CHECKPOINT_TRACE=1: rank 0 prints each phase's seconds (for the benchmark).
struct Trace {
  MPI_Comm comm;
  double t = MPI_Wtime();
  bool on = false;
  Trace(MPI_Comm c, const config::Checkpoint& cfg) : comm(c) {
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    on = cfg.trace && rank == 0;
  }
  void operator()(const char* what) {
    if (!on) return;
    const double now = MPI_Wtime();
    std::fprintf(stderr, "checkpoint trace: %-34s %8.1f ms\n", what, (now - t) * 1e3);
    t = now;
  }
};

struct Silence {  // HDF5's own error stack printing off: our messages name the fault
  H5E_auto2_t f = nullptr;
  void* d = nullptr;
  Silence() {
    H5Eget_auto2(H5E_DEFAULT, &f, &d);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~Silence() { H5Eset_auto2(H5E_DEFAULT, f, d); }
};

}  // namespace resize::detail::h5
