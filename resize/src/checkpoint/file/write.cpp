// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, the parallel HDF5 shell: writing one checkpoint. One file per
// checkpoint through the MPI-IO driver; each matrix a global M x N dataset written by
// every process with collective hyperslab I/O of its own blocks (no gather, no
// per-process files). A checkpoint counts only once it is read back and agreed
// (docs/guide/checkpoint.md, "When a checkpoint fails"). The selections, checksum and
// validation are the pure core's (checkpoint.hpp).
#include "checkpoint/file/h5.hpp"
#include "common/config.hpp"
#include "malleable_internal/thread_name.hpp"

namespace resize::detail {

using namespace h5;

namespace {

// Closes a checkpoint's HDF5 objects after an agreed failure. HDF5 1.10's close after a
// write that failed inside it can leave the processes in different collectives (their
// ends of file diverge: seen with OMPIO on a full disk when the room check is skipped,
// and under ROMIO), so a thread ends the job, status 5, naming the failure, if the close
// and a barrier after it (on `comm`; HDF5 works on its own duplicate) have not finished
// within kCloseAfterFailureSeconds: a stop, never a hang. Every process that is not
// through the barrier says so, and waits kSayGraceSeconds before MPI_Abort so that the
// others' guards (started within the same agreement) say it too before the abort ends
// them: the first process's MPI_Abort alone would silence the rest (seen under MPICH).
constexpr double kCloseAfterFailureSeconds = 30;
constexpr double kSayGraceSeconds = 5;
void close_after_failure(MPI_Comm comm, const std::string& failure, const std::function<void()>& close) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread guard([&] {
    malleable::name_this_thread("mall-ckpt-guard");
    std::unique_lock<std::mutex> lk(m);
    if (cv.wait_for(lk, std::chrono::duration<double>(kCloseAfterFailureSeconds), [&] { return done; })) return;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "checkpoint failed (world rank %d): %s; closing the file after the failure did not finish within %.0f s "
                 "(HDF5 left the processes in different collectives): ending the job with status 5\n",
                 rank, failure.c_str(), kCloseAfterFailureSeconds);
    std::fflush(stderr);
    if (cv.wait_for(lk, std::chrono::duration<double>(kSayGraceSeconds), [&] { return done; })) return;
    MPI_Abort(MPI_COMM_WORLD, 5);
  });
  try {
    close();
  } catch (...) {
  }
  MPI_Barrier(comm);
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

// Test-only fault injection, acted on here and nowhere else (docs/guide/checkpoint.md,
// "Failures"); not for production runs. MALLEABLE_CHECKPOINT_FAULT (`env`, as the session
// read it at its start) =
//   lose-writes:R[@I]  process R of the checkpoint's communicator skips its matrix writes
//                  as if they had succeeded (what Open MPI's OMPIO does on a full disk),
//                  in every checkpoint or in the one after iteration I
//   no-room-check  the room check before the file is made is skipped, so a full file
//                  system reaches the MPI-IO layer and HDF5
struct Fault {
  bool lose_writes = false;
  bool no_room_check = false;
};
Fault injected_fault(MPI_Comm comm, int iteration, const std::string& where, const config::Text& env) {
  Fault f;
  if (!env || env->empty()) return f;
  const std::string s = *env;
  const char* v = s.c_str();
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
  return sum_over(comm, by_type(m.spec.type, [&](auto x) { return checksum_as<decltype(x)>(m, version); }));
}

namespace {

// The checkpoint at `tmp` read back (a new open, the header read collectively, each
// process's blocks read and summed) and compared with what was written: the header, the
// state, and each matrix's checksum. Throws the same Error on every process.
void verify_written(MPI_Comm comm, const std::string& tmp, const std::string& where, const ck::Header& h,
                    const std::vector<char>& state, const std::vector<CheckpointMatrix>& mats,
                    const config::Checkpoint& cfg) {
  const std::string lost =
      ": the I/O layer reported success, but not everything written reached the file (file system full or failing?); "
      "it does not count, the previous checkpoints are kept";
  std::unique_ptr<CheckpointReader> r;
  try {
    r = std::make_unique<CheckpointReader>(comm, tmp, cfg);
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

namespace {

// What a checkpoint being written holds open; closed in reverse order by clear().
struct OpenFile {
  std::unique_ptr<Id> file;
  std::unique_ptr<Id> group;
  std::vector<std::unique_ptr<Id>> datasets;
  bool made = false;  // the .tmp file exists (it goes if the checkpoint fails)
};

// Room first (rank 0 of `comm`): a file system without room for the whole file refuses
// the checkpoint before any I/O layer sees it. Open MPI's OMPIO loses a full disk's
// errors (a collective write returns success, an independent one a short count that
// HDF5's MPI-IO driver accepts; docs/guide/checkpoint.md, "Failures"), and HDF5's close after
// a failed write can leave the processes in different collectives. A .tmp left by a
// checkpoint that crashed is removed first (in the call: its room is needed now).
void refuse_without_room(MPI_Comm comm, int rank, const std::string& tmp, const std::string& dir,
                         const std::string& where, std::uint64_t need, bool skip_check) {
  guarded(comm, [&] {
    if (rank != 0) return;
    ::unlink(tmp.c_str());
    if (skip_check) return;
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
}

// The header attributes and the application state: rank 0 writes the state's bytes
// with independent I/O (a collective write of a few bytes would cost every process
// MPI-IO's exchange rounds).
void write_header_and_state(hid_t file, int rank, const std::string& where, const ck::Header& h, const std::vector<char>& state) {
  put_string(file, "format", ck::kFormatName);
  put_array<int>(file, "version", H5T_NATIVE_INT, {h.version});
  put_string(file, "program", h.program);
  put_string(file, "executable", h.executable);
  put_array<int>(file, "iteration", H5T_NATIVE_INT, {h.iteration});
  put_array<int>(file, "grid", H5T_NATIVE_INT, {h.grid.nprow, h.grid.npcol});
  put_string(file, "resize_history", h.resize_history);
  const hsize_t n = std::max<hsize_t>(1, state.size());
  Id sp(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Id ds(must(H5Dcreate2(file, "state", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + "state"), H5Dclose);
  put_array<std::uint64_t>(ds, "bytes", H5T_NATIVE_UINT64, {static_cast<std::uint64_t>(state.size())});
  if (rank == 0 && !state.empty()) {
    Id x(independent_transfer(), H5Pclose);
    must(H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, x, reinterpret_cast<const unsigned char*>(state.data())),
         where + "writing the application state");
  }
}

// Matrix k's dataset (collective in HDF5) with its description attributes; returns the
// file selection of this process's blocks.
std::unique_ptr<Id> create_matrix_dataset(OpenFile& f, hid_t type, std::size_t k, const CheckpointMatrix& m,
                                          const ck::MatrixInfo& info, std::pair<std::int64_t, std::int64_t> chunk,
                                          const std::string& where) {
  const hsize_t dims[2] = {static_cast<hsize_t>(info.m), static_cast<hsize_t>(info.n)};
  Id sp(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Id dc(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_fill_time(dc, H5D_FILL_TIME_NEVER);
  H5Pset_alloc_time(dc, H5D_ALLOC_TIME_EARLY);
  if (chunk.first > 0) {
    const hsize_t c[2] = {static_cast<hsize_t>(chunk.first), static_cast<hsize_t>(chunk.second)};
    must(H5Pset_chunk(dc, 2, c), where + "chunking " + info.name);
  }
  f.datasets.push_back(std::make_unique<Id>(
      must(H5Dcreate2(*f.group, info.name.c_str(), type, sp, H5P_DEFAULT, dc, H5P_DEFAULT), where + "dataset " + info.name), H5Dclose));
  const hid_t ds = *f.datasets.back();
  put_array<int>(ds, "index", H5T_NATIVE_INT, {static_cast<int>(k)});
  put_string(ds, "type", std::string(1, scalar_letter(info.type)));
  put_string(ds, "layout", ck::to_string(info.layout));
  put_array<std::int64_t>(ds, "block", H5T_NATIVE_INT64, {info.mb, info.nb});
  put_array<std::int64_t>(ds, "row_blocks", H5T_NATIVE_INT64, info.row_blocks);
  put_array<std::int64_t>(ds, "col_blocks", H5T_NATIVE_INT64, info.col_blocks);
  std::int64_t elements = 0;
  auto fs = std::make_unique<Id>(select_blocks(m, elements), H5Sclose);
  const auto [lr, lc] = local_dims(m);
  if (elements != lr * lc) throw Error(where + "internal: selection of " + info.name + " does not match the local block");
  return fs;
}

// Matrix k's data into its dataset. The per-block paths sum the checksum while they
// copy the blocks: returns true with `sum` set then; false when the checksum is still to
// be computed (the packed collective write).
bool write_matrix_data(hid_t ds, hid_t type, hid_t fs, const CheckpointMatrix& m, std::pair<std::int64_t, std::int64_t> chunk,
                       int version, bool lose_writes, const std::string& what, Trace& trace, std::uint64_t& sum,
                       const config::Checkpoint& cfg) {
  if (ck::per_block_io(m.layout, scalar_bytes(m.spec.type), block_io_mode(cfg))) {
    bool raw = false;
    sum = per_block_transfer(ds, type, m, chunk, Pass::Write, what, version, cfg, raw, lose_writes);
    trace(raw ? "blocks: copy+sum, H5Dwrite_chunk" : "blocks: copy+sum, H5Dwrite");
    return true;
  }
  const auto [lr, lc] = local_dims(m);
  std::vector<char> packed;
  by_type(m.spec.type, [&](auto x) { pack_as<decltype(x)>(m, packed, lr, lc); return 0; });
  trace("pack");
  Id ms(memory_space(lr * lc), H5Sclose);
  Id x(collective_transfer(cfg), H5Pclose);
  char dummy[16] = {};
  // A rank that loses its writes (fault injection) still takes part in the collective.
  if (lose_writes) H5Sselect_none(fs), H5Sselect_none(ms);
  must(H5Dwrite(ds, type, ms, fs, x, packed.empty() ? dummy : packed.data()), what);
  trace("H5Dwrite");
  return false;
}

// Every matrix: two agreed steps each, its dataset (collective in HDF5), then its data.
// A write that fails on some processes only (the disk fills under whichever writes
// last; ROMIO reports a collective write's error on its aggregators) is agreed before
// anyone enters the next matrix's collective dataset creation, which the failed
// processes would never join. Each dataset stays open until its checksum attribute is
// written (known only after the data; agreed outside the guarded steps, whose failures
// are agreed with a collective of their own).
void write_matrices(MPI_Comm comm, OpenFile& f, ck::Header& h, const std::vector<CheckpointMatrix>& mats, bool lose_writes,
                    const std::string& where, Trace& trace, const config::Checkpoint& cfg) {
  std::vector<std::uint64_t> mine(mats.size(), 0);
  std::vector<char> summed(mats.size(), 0);
  guarded(comm, [&] {
    f.group = std::make_unique<Id>(must(H5Gcreate2(*f.file, "matrices", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where + "group matrices"),
                                   H5Gclose);
  });
  for (std::size_t k = 0; k < mats.size(); ++k) {
    const auto& info = h.matrices[k];
    Id t(element_type(mats[k].spec.type), H5Tclose);
    const auto chunk = ck::chunk_shape(info, scalar_bytes(mats[k].spec.type), block_io_mode(cfg));
    std::unique_ptr<Id> fs;
    guarded(comm, [&] { fs = create_matrix_dataset(f, t, k, mats[k], info, chunk, where); });
    trace("dataset and attributes");
    const std::string what = where + "writing matrix " + info.name + ": the I/O layer reported an error (file system full or failing?)";
    guarded(comm, [&] {
      summed[k] = write_matrix_data(*f.datasets.back(), t, *fs, mats[k], chunk, h.version, lose_writes, what, trace, mine[k], cfg);
    });
  }
  f.group.reset();
  for (std::size_t k = 0; k < mats.size(); ++k)
    h.matrices[k].checksum = summed[k] ? sum_over(comm, mine[k]) : global_checksum(comm, mats[k], h.version);
  trace("checksums");
  guarded(comm, [&] {
    for (std::size_t k = 0; k < mats.size(); ++k)
      put_array<std::uint64_t>(*f.datasets[k], "checksum", H5T_NATIVE_UINT64, {h.matrices[k].checksum});
    f.datasets.clear();
  });
}

// The written .tmp made the checkpoint: every process flushes what it wrote (on a
// parallel file system each client holds its own dirty pages), the file is read back
// and compared with what was written (a write the I/O layer lost without an error, as
// OMPIO on a full disk, shows here, not at the restart that needs the file), then it
// replaces the older checkpoint under the same name: the old file's blocks are freed on
// a background thread (replace_file), not in the rename, and the directory is flushed
// so that the new name survives a crash of the node.
void publish(MPI_Comm comm, int rank, const std::string& tmp, const std::string& path, const std::string& dir,
             const std::string& where, const ck::Header& h, const std::vector<char>& state,
             const std::vector<CheckpointMatrix>& mats, Trace& trace, const config::Checkpoint& cfg) {
  guarded(comm, [&] {
    if (const int e = sync_path(tmp); e != 0) throw Error(where + "fsync of " + tmp + " failed: " + std::strerror(e));
  });
  trace("fsync");
  verify_written(comm, tmp, where, h, state, mats, cfg);
  trace("read back and compared");
  guarded(comm, [&] {
    if (rank != 0) return;
    if (const int e = replace_file(tmp, path); e != 0)
      throw Error(where + "cannot rename " + tmp + " to " + path + ": " + std::strerror(e));
    if (const int e = sync_path(dir); e != 0)
      throw Error(where + "written and renamed, but the fsync of its directory " + dir + " failed: " + std::strerror(e));
  });
  trace("rename");
}

}  // namespace

void write_checkpoint(MPI_Comm comm, const std::string& path, ck::Header h, const std::vector<char>& state,
                      const std::vector<CheckpointMatrix>& mats, const config::Checkpoint& cfg) {
  Silence quiet;
  Trace trace(comm, cfg);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string tmp = path + ".tmp";
  const std::string where = "checkpoint " + path + ": ";
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.find_last_of('/') + 1);
  Fault injected;
  guarded(comm, [&] {  // before anything is made
    h.version = version_to_write(where, cfg);
    injected = injected_fault(comm, h.iteration, where, cfg.fault);
  });
  std::vector<std::size_t> element_bytes;
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  for (std::size_t k = 0; k < mats.size(); ++k) {
    element_bytes.push_back(scalar_bytes(mats[k].spec.type));
    chunks.push_back(ck::chunk_shape(h.matrices[k], element_bytes.back(), block_io_mode(cfg)));
  }
  refuse_without_room(comm, rank, tmp, dir, where, ck::file_bytes_bound(h, element_bytes, chunks, state.size()),
                      injected.no_room_check);
  trace("room");
  OpenFile f;
  try {
    guarded(comm, [&] {
      Id fa(mpio_access(comm, true), H5Pclose);
      f.file = std::make_unique<Id>(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fa), H5Fclose);
      if (f.file->id < 0) throw Error(where + "cannot create " + tmp + " (does the directory exist and is it writable?)");
    });
    f.made = true;
    trace("create");
    guarded(comm, [&] { write_header_and_state(*f.file, rank, where, h, state); });
    trace("header and state");
    write_matrices(comm, f, h, mats, injected.lose_writes, where, trace, cfg);
    guarded(comm, [&] {
      const herr_t rc = H5Fclose(f.file->id);
      f.file->id = -1;
      if (rc < 0) throw Error(where + "closing " + tmp + " failed (file system full?)");
    });
    trace("close");  // every process has closed the file: guarded() agreed on it
    publish(comm, rank, tmp, path, dir, where, h, state, mats, trace, cfg);
  } catch (const Error& e) {
    // Every process threw the same agreed error. HDF5's objects are closed, then the
    // incomplete file goes (its room freed in the call).
    close_after_failure(comm, e.what(), [&] {
      f.datasets.clear();
      f.group.reset();
      if (f.file && f.file->id >= 0) {
        if (H5Fclose(f.file->id) < 0) end_in_finalize_after_failed_close();
        f.file->id = -1;
      }
      f.file.reset();
    });
    if (rank == 0 && f.made) ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace resize::detail
