// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, the parallel HDF5 shell (issue 20 §1-§2): one file per
// checkpoint through the MPI-IO driver; each matrix a global M x N dataset written and
// read by every process with collective hyperslab I/O of its own blocks (no gather, no
// per-process files). The selections, checksum and validation are the pure core's
// (checkpoint.hpp); only HDF5 and MPI calls are here.
#include "checkpoint_io.hpp"
#include "file_release.hpp"
#include "sleep_wait.hpp"

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

namespace resize::detail {

namespace ck = resize::checkpoint;

char scalar_letter(Scalar t) {
  switch (t) {
    case Scalar::S: return 's';
    case Scalar::D: return 'd';
    case Scalar::C: return 'c';
    case Scalar::Z: return 'z';
  }
  return '?';
}

namespace {

// MPI_Allreduce that waits with short sleeps instead of Open MPI's busy polling: a
// process with no blocks of a matrix (off the grid, or a small matrix) reaches the end
// of a step long before the writers, and on an oversubscribed node its polling took the
// writers' cores (2x2 written from 9 processes on 2 cores: the 5 idle ones). The naps
// grow from 20 us to 1 ms, so a process that arrives last finds the others done at once.
void polite_allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  MPI_Iallreduce(in, out, count, type, op, comm, &req);
  sleep_wait(req, 20e-6, 1e-3);
}

// Every process learns whether all succeeded; if not, all throw the message of the
// lowest failing rank (one message, the same everywhere).
void agree(MPI_Comm comm, const std::string& err) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = err.empty() ? 1 << 30 : rank, first = 0;
  polite_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == 1 << 30) return;
  int len = static_cast<int>(err.size());
  MPI_Bcast(&len, 1, MPI_INT, first, comm);
  std::string msg = err;
  msg.resize(static_cast<std::size_t>(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, first, comm);
  throw Error(msg);
}

// Runs f, turning an exception into agree()'s message.
void guarded(MPI_Comm comm, const std::function<void()>& f) {
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

hid_t must(hid_t id, const std::string& what) {
  if (id < 0) throw Error(what);
  return id;
}
void must(herr_t rc, const std::string& what) {
  if (rc < 0) throw Error(what);
}

// The file's element type (complex: the compound {r, i} h5py reads as complex).
hid_t element_type(Scalar t) {
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

void put_string(hid_t obj, const char* name, const std::string& v) {
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

std::string get_string(hid_t obj, const char* name, const std::string& where) {
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
hid_t select_blocks(const CheckpointMatrix& m, std::int64_t& elements) {
  const hsize_t dims[2] = {static_cast<hsize_t>(m.info.m), static_cast<hsize_t>(m.info.n)};
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

hid_t memory_space(std::int64_t elements) {
  const hsize_t n = static_cast<hsize_t>(std::max<std::int64_t>(elements, 1));
  const hid_t ms = H5Screate_simple(1, &n, nullptr);
  if (elements == 0) H5Sselect_none(ms);
  return ms;
}

hid_t collective_transfer() {
  const hid_t x = H5Pcreate(H5P_DATASET_XFER);
  const char* io = std::getenv("MALLEABLE_CHECKPOINT_IO");
  H5Pset_dxpl_mpio(x, io && std::string(io) == "independent" ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
  return x;
}

hid_t mpio_access(MPI_Comm comm, bool create = false) {
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

ck::BlockIo block_io_mode() {
  const char* v = std::getenv("MALLEABLE_CHECKPOINT_BLOCKS");
  const std::string s = v ? v : "";
  return s == "always" ? ck::BlockIo::Always : s == "never" ? ck::BlockIo::Never : ck::BlockIo::Auto;
}

// MALLEABLE_CHECKPOINT_DIRECT=0 moves blocks that are whole chunks through dataspace
// selections like the others (the benchmark compares both; files are the same).
bool direct_chunks_enabled() {
  const char* v = std::getenv("MALLEABLE_CHECKPOINT_DIRECT");
  return !(v && std::string(v) == "0");
}

hid_t independent_transfer() {
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
int version_to_write(const std::string& where) {
  const char* v = std::getenv("MALLEABLE_CHECKPOINT_FORMAT");
  if (!v || !*v) return ck::kFormatVersion;
  const std::string s = v;
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
  const hsize_t dims[2] = {static_cast<hsize_t>(m.info.m), static_cast<hsize_t>(m.info.n)};
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
std::pair<std::int64_t, std::int64_t> raw_chunk_shape(hid_t ds, hid_t mem_type) {
  Id dc(H5Dget_create_plist(ds), H5Pclose);
  Id ft(H5Dget_type(ds), H5Tclose);
  hsize_t c[2] = {0, 0};
  if (dc < 0 || ft < 0 || H5Pget_layout(dc) != H5D_CHUNKED || H5Pget_chunk(dc, 2, c) != 2 || H5Pget_nfilters(dc) != 0 ||
      H5Tequal(ft, mem_type) <= 0)
    return {0, 0};
  return {static_cast<std::int64_t>(c[0]), static_cast<std::int64_t>(c[1])};
}

// This process's part of the per-block paths (write or read), whole chunks raw when the
// layout's blocks are the dataset's chunks; `raw` says which ran. The checksum is the
// one of format `version`.
std::uint64_t per_block_transfer(hid_t ds, hid_t type, const CheckpointMatrix& m, std::pair<std::int64_t, std::int64_t> chunk,
                                 Pass pass, const std::string& what, int version, bool& raw, bool lose = false) {
  raw = direct_chunks_enabled() && ck::blocks_are_chunks(m.layout, chunk.first, chunk.second);
  return by_type(m.type, [&](auto v) {
    using T = decltype(v);
    return ck::by_checksum(version, [&](auto h) {
      return raw ? chunks_io<T>(ds, m, chunk.first, chunk.second, pass, lose, what, h)
                 : blocks_io<T>(ds, type, m, pass, lose, what, h);
    });
  });
}

std::uint64_t sum_over(MPI_Comm comm, std::uint64_t mine) {
  std::uint64_t sum = 0;
  polite_allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  return sum;
}

std::pair<std::int64_t, std::int64_t> local_dims(const CheckpointMatrix& m) {
  if (m.pr < 0) return {0, 0};
  return {m.layout.local_rows(m.pr), m.layout.local_cols(m.pc)};
}

// MALLEABLE_CHECKPOINT_TRACE=1: rank 0 prints each phase's seconds (for the benchmark).
struct Trace {
  MPI_Comm comm;
  double t = MPI_Wtime();
  bool on = false;
  explicit Trace(MPI_Comm c) : comm(c) {
    const char* v = std::getenv("MALLEABLE_CHECKPOINT_TRACE");
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    on = v && *v && std::string(v) != "0" && rank == 0;
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

// Closes a checkpoint's HDF5 objects after an agreed failure. HDF5 1.10's close after a
// write that failed inside it can leave the processes in different collectives (their
// ends of file diverge: seen with OMPIO on a full disk when the room check is skipped),
// so a thread ends the job, status 5, naming the failure, if the close has not finished
// within kCloseAfterFailureSeconds: a stop, never a hang.
constexpr double kCloseAfterFailureSeconds = 30;
void close_after_failure(const std::string& failure, const std::function<void()>& close) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread guard([&] {
    std::unique_lock<std::mutex> lk(m);
    if (cv.wait_for(lk, std::chrono::duration<double>(kCloseAfterFailureSeconds), [&] { return done; })) return;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "checkpoint failed (world rank %d): %s; closing the file after the failure did not finish within %.0f s "
                 "(HDF5 left the processes in different collectives): ending the job with status 5\n",
                 rank, failure.c_str(), kCloseAfterFailureSeconds);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 5);
  });
  try {
    close();
  } catch (...) {
  }
  {
    std::lock_guard<std::mutex> lk(m);
    done = true;
  }
  cv.notify_all();
  guard.join();
}

// Under ROMIO (Open MPI's romio321, MPICH), HDF5 1.10.8's H5Fclose of a file whose write
// failed fails half-way: the id stays valid over freed state, and HDF5's own clean-up in
// MPI_Finalize closes it again and crashes (signal 11), losing the status the program
// chose. An attribute on MPI_COMM_SELF set now is deleted in MPI_Finalize before HDF5's
// (set when HDF5 started; deleted in reverse order): its callback ends the process there
// with kExitCheckpointFailed (5), after the failure has been said.
void end_in_finalize_after_failed_close() {
  static bool armed = false;
  if (armed) return;
  armed = true;
  int key = MPI_KEYVAL_INVALID;
  auto at_finalize = [](MPI_Comm, int, void*, void*) -> int {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(5);
  };
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, nullptr) == MPI_SUCCESS)
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

// Test-only fault injection, read here and nowhere else (docs/checkpoint.md,
// "Failures"); not for production runs. MALLEABLE_CHECKPOINT_FAULT=
//   lose-writes:R[@I]  process R of the checkpoint's communicator skips its matrix writes
//                  as if they had succeeded (what Open MPI's OMPIO does on a full disk),
//                  in every checkpoint or in the one after iteration I
//   no-room-check  the room check before the file is made is skipped, so a full file
//                  system reaches the MPI-IO layer and HDF5
struct Fault {
  bool lose_writes = false;
  bool no_room_check = false;
};
Fault injected_fault(MPI_Comm comm, int iteration, const std::string& where) {
  Fault f;
  const char* v = std::getenv("MALLEABLE_CHECKPOINT_FAULT");
  if (!v || !*v) return f;
  const std::string s = v;
  int rank = 0, r = -1;
  MPI_Comm_rank(comm, &rank);
  int at = -1;
  const int got = std::sscanf(v, "lose-writes:%d@%d", &r, &at);
  if (got >= 1)
    f.lose_writes = r == rank && (got == 1 || at == iteration);
  else if (s == "no-room-check")
    f.no_room_check = true;
  else
    throw Error(where + "MALLEABLE_CHECKPOINT_FAULT=" + s + " (test-only) is none of lose-writes:RANK[@ITERATION], no-room-check");
  return f;
}

}  // namespace

std::uint64_t global_checksum(MPI_Comm comm, const CheckpointMatrix& m, int version) {
  return sum_over(comm, by_type(m.type, [&](auto x) { return checksum_as<decltype(x)>(m, version); }));
}

namespace {

// The checkpoint at `tmp` read back (a new open, the header read collectively, each
// process's blocks read and summed) and compared with what was written: the header, the
// state, and each matrix's checksum. Throws the same Error on every process.
void verify_written(MPI_Comm comm, const std::string& tmp, const std::string& where, const ck::Header& h,
                    const std::vector<char>& state, const std::vector<CheckpointMatrix>& mats) {
  const std::string lost =
      ": the I/O layer reported success, but not everything written reached the file (file system full or failing?); "
      "it does not count, the previous checkpoints are kept";
  std::unique_ptr<CheckpointReader> r;
  try {
    r = std::make_unique<CheckpointReader>(comm, tmp);
  } catch (const Error& e) {
    throw Error(where + "read back, the file cannot be opened (" + e.what() + ")" + lost);
  }
  const ck::Header& f = r->header();  // the same on every process
  std::string bad;
  if (f.version != h.version || f.program != h.program || f.iteration != h.iteration || f.grid.nprow != h.grid.nprow ||
      f.grid.npcol != h.grid.npcol || f.matrices.size() != h.matrices.size())
    bad = "its header";
  else if (r->state() != state)
    bad = "the application state";
  for (std::size_t k = 0; bad.empty() && k < h.matrices.size(); ++k) {
    const auto &a = f.matrices[k], &b = h.matrices[k];
    if (a.name != b.name || a.type != b.type || a.m != b.m || a.n != b.n || a.checksum != b.checksum)
      bad = "matrix '" + b.name + "' (its description)";
  }
  if (!bad.empty()) throw Error(where + "read back, " + bad + " differs from what was written" + lost);
  for (std::size_t k = 0; k < mats.size(); ++k)
    r->verify(k, mats[k], where + "read back, matrix '" + h.matrices[k].name + "' differs from what was written" + lost);
}

}  // namespace

void write_checkpoint(MPI_Comm comm, const std::string& path, ck::Header h, const std::vector<char>& state,
                      const std::vector<CheckpointMatrix>& mats) {
  Silence quiet;
  Trace trace(comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string tmp = path + ".tmp";
  const std::string where = "checkpoint " + path + ": ";
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.find_last_of('/') + 1);
  Fault injected;
  guarded(comm, [&] {  // before anything is made
    h.version = version_to_write(where);
    injected = injected_fault(comm, h.iteration, where);
  });
  // Room first (world rank 0): a file system without room for the whole file refuses the
  // checkpoint before any I/O layer sees it. Open MPI's OMPIO loses a full disk's errors
  // (a collective write returns success, an independent one a short count that HDF5's
  // MPI-IO driver accepts; docs/checkpoint.md, "Failures"), and HDF5's close after a
  // failed write can leave the processes in different collectives. A .tmp left by a
  // checkpoint that crashed is removed first (in the call: its room is needed now).
  std::vector<std::size_t> element_bytes;
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  for (std::size_t k = 0; k < mats.size(); ++k) {
    element_bytes.push_back(scalar_bytes(mats[k].type));
    chunks.push_back(ck::chunk_shape(h.matrices[k], element_bytes.back(), block_io_mode()));
  }
  const std::uint64_t need = ck::file_bytes_bound(h, element_bytes, chunks, state.size());
  guarded(comm, [&] {
    if (rank != 0) return;
    ::unlink(tmp.c_str());
    if (injected.no_room_check) return;
    std::uint64_t free_bytes = 0;
    if (const int e = check_room(tmp, need, &free_bytes); e != 0) {
      if (e != ENOSPC && e != EDQUOT && e != EFBIG)
        throw Error(where + "cannot make a file in " + dir + ": " + std::strerror(e) +
                    "; nothing was written, the previous checkpoints are kept");
      char sizes[128];
      std::snprintf(sizes, sizeof sizes, " (the file needs up to %.2f MiB, %.2f MiB are free)", static_cast<double>(need) / 1048576.0,
                    static_cast<double>(free_bytes) / 1048576.0);
      throw Error(where + "no room for it in " + dir + ": " + std::strerror(e) + sizes +
                  "; nothing was written, the previous checkpoints are kept");
    }
  });
  trace("room");
  bool made = false;
  std::unique_ptr<Id> file;
  std::vector<std::unique_ptr<Id>> datasets;
  try {
    guarded(comm, [&] {
      Id fa(mpio_access(comm, true), H5Pclose);
      file = std::make_unique<Id>(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fa), H5Fclose);
      if (file->id < 0) throw Error(where + "cannot create " + tmp + " (does the directory exist and is it writable?)");
    });
    made = true;
    trace("create");
    guarded(comm, [&] {
      put_string(*file, "format", ck::kFormatName);
      put_array<int>(*file, "version", H5T_NATIVE_INT, {h.version});
      put_string(*file, "program", h.program);
      put_string(*file, "executable", h.executable);
      put_array<int>(*file, "iteration", H5T_NATIVE_INT, {h.iteration});
      put_array<int>(*file, "grid", H5T_NATIVE_INT, {h.grid.nprow, h.grid.npcol});
      put_string(*file, "resize_history", h.resize_history);
      // The application state: rank 0 writes the bytes with independent I/O (a collective
      // write of a few bytes would cost every process MPI-IO's exchange rounds).
      const hsize_t n = std::max<hsize_t>(1, state.size());
      Id sp(H5Screate_simple(1, &n, nullptr), H5Sclose);
      Id ds(must(H5Dcreate2(*file, "state", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + "state"), H5Dclose);
      put_array<std::uint64_t>(ds, "bytes", H5T_NATIVE_UINT64, {static_cast<std::uint64_t>(state.size())});
      if (rank == 0 && !state.empty()) {
        Id x(independent_transfer(), H5Pclose);
        must(H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, x, reinterpret_cast<const unsigned char*>(state.data())),
             where + "writing the application state");
      }
    });
    trace("header and state");
    // Each matrix's dataset stays open until its checksum attribute is written: the
    // per-block paths sum the checksum while they copy the blocks, so it is known only
    // after the data (and is agreed between the processes outside the guarded steps, whose
    // failures are agreed with a collective of their own).
    std::vector<std::uint64_t> mine(mats.size(), 0);
    std::vector<char> summed(mats.size(), 0);
    guarded(comm, [&] {
      Id g(must(H5Gcreate2(*file, "matrices", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + "group matrices"), H5Gclose);
      for (std::size_t k = 0; k < mats.size(); ++k) {
        const auto& m = mats[k];
        const auto& info = h.matrices[k];
        const hsize_t dims[2] = {static_cast<hsize_t>(info.m), static_cast<hsize_t>(info.n)};
        Id t(element_type(m.type), H5Tclose);
        Id sp(H5Screate_simple(2, dims, nullptr), H5Sclose);
        Id dc(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_fill_time(dc, H5D_FILL_TIME_NEVER);
        H5Pset_alloc_time(dc, H5D_ALLOC_TIME_EARLY);
        const auto chunk = ck::chunk_shape(info, scalar_bytes(m.type), block_io_mode());
        if (chunk.first > 0) {
          const hsize_t c[2] = {static_cast<hsize_t>(chunk.first), static_cast<hsize_t>(chunk.second)};
          must(H5Pset_chunk(dc, 2, c), where + "chunking " + info.name);
        }
        datasets.push_back(std::make_unique<Id>(
            must(H5Dcreate2(g, info.name.c_str(), t, sp, H5P_DEFAULT, dc, H5P_DEFAULT), where + "dataset " + info.name), H5Dclose));
        const hid_t ds = *datasets.back();
        put_array<int>(ds, "index", H5T_NATIVE_INT, {static_cast<int>(k)});
        put_string(ds, "type", std::string(1, info.type));
        put_string(ds, "layout", ck::to_string(info.layout));
        put_array<std::int64_t>(ds, "block", H5T_NATIVE_INT64, {info.mb, info.nb});
        put_array<std::int64_t>(ds, "row_blocks", H5T_NATIVE_INT64, info.row_blocks);
        put_array<std::int64_t>(ds, "col_blocks", H5T_NATIVE_INT64, info.col_blocks);
        std::int64_t elements = 0;
        Id fs(select_blocks(m, elements), H5Sclose);
        const auto [lr, lc] = local_dims(m);
        if (elements != lr * lc) throw Error(where + "internal: selection of " + info.name + " does not match the local block");
        trace("dataset and attributes");
        if (ck::per_block_io(m.layout, scalar_bytes(m.type), block_io_mode())) {
          bool raw = false;
          mine[k] = per_block_transfer(ds, t, m, chunk, Pass::Write, where + "writing matrix " + info.name + ": the I/O layer reported an error (file system full or failing?)", h.version, raw,
                                       injected.lose_writes);
          summed[k] = 1;
          trace(raw ? "blocks: copy+sum, H5Dwrite_chunk" : "blocks: copy+sum, H5Dwrite");
          continue;
        }
        std::vector<char> packed;
        by_type(m.type, [&](auto x) { pack_as<decltype(x)>(m, packed, lr, lc); return 0; });
        trace("pack");
        Id ms(memory_space(elements), H5Sclose);
        Id x(collective_transfer(), H5Pclose);
        char dummy[16] = {};
        // A rank that loses its writes (fault injection) still takes part in the collective.
        if (injected.lose_writes) H5Sselect_none(fs), H5Sselect_none(ms);
        must(H5Dwrite(ds, t, ms, fs, x, packed.empty() ? dummy : packed.data()),
             where + "writing matrix " + info.name + ": the I/O layer reported an error (file system full or failing?)");
        trace("H5Dwrite");
      }
    });
    for (std::size_t k = 0; k < mats.size(); ++k)
      h.matrices[k].checksum = summed[k] ? sum_over(comm, mine[k]) : global_checksum(comm, mats[k], h.version);
    trace("checksums");
    guarded(comm, [&] {
      for (std::size_t k = 0; k < mats.size(); ++k)
        put_array<std::uint64_t>(*datasets[k], "checksum", H5T_NATIVE_UINT64, {h.matrices[k].checksum});
      datasets.clear();
    });
    guarded(comm, [&] {
      const herr_t rc = H5Fclose(file->id);
      file->id = -1;
      if (rc < 0) throw Error(where + "closing " + tmp + " failed (file system full?)");
    });
    trace("close");  // every process has closed the file: guarded() agreed on it
    // Every process flushes what it wrote (on a parallel file system each client holds
    // its own dirty pages), then the file is read back and compared with what was
    // written before it may count: a write the I/O layer lost without an error (OMPIO
    // on a full disk) shows here, not at the restart that needs the file.
    guarded(comm, [&] {
      if (const int e = sync_path(tmp); e != 0) throw Error(where + "fsync of " + tmp + " failed: " + std::strerror(e));
    });
    trace("fsync");
    verify_written(comm, tmp, where, h, state, mats);
    trace("read back and compared");
    // A checkpoint written over an older one under the same name: the old file's blocks
    // are freed on a background thread (replace_file), not in the rename. The directory
    // is flushed so that the new name survives a crash of the node.
    guarded(comm, [&] {
      if (rank != 0) return;
      if (const int e = replace_file(tmp, path); e != 0)
        throw Error(where + "cannot rename " + tmp + " to " + path + ": " + std::strerror(e));
      if (const int e = sync_path(dir); e != 0)
        throw Error(where + "written and renamed, but the fsync of its directory " + dir + " failed: " + std::strerror(e));
    });
    trace("rename");
  } catch (const Error& e) {
    // Every process threw the same agreed error. HDF5's objects are closed, then the
    // incomplete file goes (its room freed in the call).
    close_after_failure(e.what(), [&] {
      datasets.clear();
      if (file && file->id >= 0) {
        if (H5Fclose(file->id) < 0) end_in_finalize_after_failed_close();
        file->id = -1;
      }
      file.reset();
    });
    if (rank == 0 && made) ::unlink(tmp.c_str());
    throw;
  }
}

CheckpointReader::CheckpointReader(MPI_Comm comm, const std::string& path) : comm_(comm), path_(path) {
  Silence quiet;
  const std::string where = "checkpoint " + path + ": ";
  guarded(comm, [&] {
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      if (FILE* f = std::fopen(path.c_str(), "rb")) {
        std::fclose(f);
        throw Error(where + "not an HDF5 file (or its beginning is damaged)");
      }
      throw Error(where + "cannot open: " + std::strerror(errno));
    }
    Id fa(mpio_access(comm), H5Pclose);
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fa);
    if (file_ < 0) throw Error(where + "cannot open it as HDF5 (truncated or damaged file)");
  });
  guarded(comm, [&] {
    if (get_string(file_, "format", where) != ck::kFormatName)
      throw Error(where + "not a malleable checkpoint (attribute format is not " + std::string(ck::kFormatName) + ")");
    header_.version = get_array<int>(file_, "version", H5T_NATIVE_INT, where).at(0);
    if (header_.version < ck::kOldestFormatVersion || header_.version > ck::kFormatVersion) return;  // mismatch() names it
    header_.program = get_string(file_, "program", where);
    header_.executable = get_string(file_, "executable", where);
    header_.iteration = get_array<int>(file_, "iteration", H5T_NATIVE_INT, where).at(0);
    const auto g = get_array<int>(file_, "grid", H5T_NATIVE_INT, where);
    header_.grid = Grid{g.at(0), g.at(1), {}};
    header_.resize_history = get_string(file_, "resize_history", where);
    Id ds(must(H5Dopen2(file_, "state", H5P_DEFAULT), where + "has no dataset 'state' (the application state every checkpoint holds): damaged or not a malleable checkpoint"), H5Dclose);
    const auto bytes = get_array<std::uint64_t>(ds, "bytes", H5T_NATIVE_UINT64, where + "state ").at(0);
    std::vector<unsigned char> buf(std::max<std::uint64_t>(1, bytes));
    Id x(collective_transfer(), H5Pclose);
    must(H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, x, buf.data()), where + "cannot read the application state (truncated file?)");
    state_.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(bytes));
    Id grp(must(H5Gopen2(file_, "matrices", H5P_DEFAULT), where + "has no group 'matrices' (every checkpoint holds one): damaged or not a malleable checkpoint"), H5Gclose);
    H5G_info_t gi{};
    must(H5Gget_info(grp, &gi), where + "group matrices");
    // In creation order is not tracked; names are listed by index and ordered by the
    // "index" attribute each dataset carries.
    std::vector<ck::MatrixInfo> mats(gi.nlinks);
    for (hsize_t k = 0; k < gi.nlinks; ++k) {
      char name[1024] = {};
      H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
      Id d(must(H5Dopen2(grp, name, H5P_DEFAULT), where + "matrix '" + name + "' is listed in group 'matrices' but cannot be opened as a dataset (damaged file)"), H5Dclose);
      const std::string w = where + "matrix '" + name + "': ";
      const int idx = get_array<int>(d, "index", H5T_NATIVE_INT, w).at(0);
      if (idx < 0 || idx >= static_cast<int>(gi.nlinks)) throw Error(w + "bad index attribute");
      ck::MatrixInfo& i = mats[static_cast<std::size_t>(idx)];
      i.name = name;
      i.type = get_string(d, "type", w).c_str()[0];
      i.layout = ck::parse_layout_kind(get_string(d, "layout", w));
      const auto b = get_array<std::int64_t>(d, "block", H5T_NATIVE_INT64, w);
      i.mb = b.at(0);
      i.nb = b.at(1);
      i.row_blocks = get_array<std::int64_t>(d, "row_blocks", H5T_NATIVE_INT64, w);
      i.col_blocks = get_array<std::int64_t>(d, "col_blocks", H5T_NATIVE_INT64, w);
      i.checksum = get_array<std::uint64_t>(d, "checksum", H5T_NATIVE_UINT64, w).at(0);
      Id sp(H5Dget_space(d), H5Sclose);
      hsize_t dims[2] = {0, 0};
      if (H5Sget_simple_extent_ndims(sp) != 2) throw Error(w + "not a 2-D dataset");
      H5Sget_simple_extent_dims(sp, dims, nullptr);
      i.m = static_cast<std::int64_t>(dims[0]);
      i.n = static_cast<std::int64_t>(dims[1]);
    }
    header_.matrices = std::move(mats);
  });
}

CheckpointReader::~CheckpointReader() {
  if (file_ >= 0) H5Fclose(file_);
}

void CheckpointReader::read(std::size_t k, const CheckpointMatrix& m) {
  Silence quiet;
  const std::string where = "checkpoint " + path_ + ": matrix '" + m.info.name + "': ";
  std::uint64_t mine = 0;
  const bool per_block = ck::per_block_io(m.layout, scalar_bytes(m.type), block_io_mode());
  guarded(comm_, [&] {
    Id g(must(H5Gopen2(file_, "matrices", H5P_DEFAULT), where + "has no group 'matrices' (every checkpoint holds one): damaged or not a malleable checkpoint"), H5Gclose);
    Id ds(must(H5Dopen2(g, m.info.name.c_str(), H5P_DEFAULT), where + "missing"), H5Dclose);
    Id t(element_type(m.type), H5Tclose);
    if (per_block) {
      bool raw = false;
      mine = per_block_transfer(ds, t, m, raw_chunk_shape(ds, t), Pass::Read, where + "cannot read its data (truncated file?)",
                                header_.version, raw);
      return;
    }
    std::int64_t elements = 0;
    Id fs(select_blocks(m, elements), H5Sclose);
    const auto [lr, lc] = local_dims(m);
    std::vector<char> packed(static_cast<std::size_t>(std::max<std::int64_t>(elements, 1)) * scalar_bytes(m.type));
    Id ms(memory_space(elements), H5Sclose);
    Id x(collective_transfer(), H5Pclose);
    must(H5Dread(ds, t, ms, fs, x, packed.data()), where + "cannot read its data (truncated file?)");
    by_type(m.type, [&](auto v) { unpack_as<decltype(v)>(m, packed, lr, lc); return 0; });
  });
  const std::uint64_t sum = per_block ? sum_over(comm_, mine) : global_checksum(comm_, m, header_.version);
  if (sum != header_.matrices[k].checksum) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "checksum mismatch (file %016llx, data read %016llx): the data is damaged",
                  static_cast<unsigned long long>(header_.matrices[k].checksum), static_cast<unsigned long long>(sum));
    throw Error(where + msg);
  }
}

void CheckpointReader::verify(std::size_t k, const CheckpointMatrix& m, const std::string& differs) {
  Silence quiet;
  std::uint64_t mine = 0;
  guarded(comm_, [&] {
    Id g(must(H5Gopen2(file_, "matrices", H5P_DEFAULT), differs + " (no group matrices)"), H5Gclose);
    Id ds(must(H5Dopen2(g, m.info.name.c_str(), H5P_DEFAULT), differs + " (missing)"), H5Dclose);
    Id t(element_type(m.type), H5Tclose);
    bool raw = false;
    mine = per_block_transfer(ds, t, m, raw_chunk_shape(ds, t), Pass::Verify, differs + " (its data cannot be read)",
                              header_.version, raw);
  });
  if (sum_over(comm_, mine) != header_.matrices[k].checksum) throw Error(differs);
}

}  // namespace resize::detail
