// SPDX-License-Identifier: BSD-3-Clause
// Checkpoint and restart, the parallel HDF5 shell: reading a checkpoint (restart, and the
// read-back that decides whether a written checkpoint counts). The header is read
// collectively and agreed; each process reads the hyperslabs of its own blocks in the
// layout the program asks for on the new grid.
#include "checkpoint/file/h5.hpp"

namespace resize::detail {

using namespace h5;

namespace {

// The file opened for reading with the MPI-IO driver, or why it cannot be (missing, not
// HDF5, damaged).
hid_t open_checkpoint(MPI_Comm comm, const std::string& path, const std::string& where) {
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      std::fclose(f);
      throw Error(where + "not an HDF5 file (or its beginning is damaged)");
    }
    throw Error(where + "cannot open: " + std::strerror(errno));
  }
  Id fa(mpio_access(comm), H5Pclose);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fa);
  if (file < 0) throw Error(where + "cannot open it as HDF5 (truncated or damaged file)");
  return file;
}

// The file's own attributes: program, executable, iteration, grid, resize history.
void read_identity(hid_t file, const std::string& where, ck::Header& h) {
  h.program = get_string(file, "program", where);
  h.executable = get_string(file, "executable", where);
  h.iteration = get_array<int>(file, "iteration", H5T_NATIVE_INT, where).at(0);
  const auto g = get_array<int>(file, "grid", H5T_NATIVE_INT, where);
  h.grid = Grid{g.at(0), g.at(1), {}};
  h.resize_history = get_string(file, "resize_history", where);
}

// The application state every checkpoint holds (dataset "state").
std::vector<char> read_state(hid_t file, const std::string& where, const config::Checkpoint& cfg) {
  Id ds(must(H5Dopen2(file, "state", H5P_DEFAULT), where + "has no dataset 'state' (the application state every checkpoint holds): damaged or not a malleable checkpoint"), H5Dclose);
  const auto bytes = get_array<std::uint64_t>(ds, "bytes", H5T_NATIVE_UINT64, where + "state ").at(0);
  std::vector<unsigned char> buf(std::max<std::uint64_t>(1, bytes));
  Id x(collective_transfer(cfg), H5Pclose);
  must(H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, x, buf.data()), where + "cannot read the application state (truncated file?)");
  return std::vector<char>(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(bytes));
}

// Matrix dataset d's record (`w`: "checkpoint PATH: matrix 'NAME': ").
void read_matrix_info(hid_t d, const char* name, const std::string& w, ck::MatrixInfo& i) {
  i.name = name;
  i.type = ck::parse_type_letter(get_string(d, "type", w).c_str()[0], w);
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

// Every matrix's record of group "matrices", in registration order.
std::vector<ck::MatrixInfo> read_matrices(hid_t file, const std::string& where) {
  Id grp(must(H5Gopen2(file, "matrices", H5P_DEFAULT), where + "has no group 'matrices' (every checkpoint holds one): damaged or not a malleable checkpoint"), H5Gclose);
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
    read_matrix_info(d, name, w, mats[static_cast<std::size_t>(idx)]);
  }
  return mats;
}

}  // namespace

CheckpointReader::CheckpointReader(MPI_Comm comm, const std::string& path, const config::Checkpoint& cfg)
    : comm_(comm), path_(path), cfg_(cfg) {
  Silence quiet;
  const std::string where = "checkpoint " + path + ": ";
  guarded(comm, [&] { file_ = open_checkpoint(comm, path, where); });
  guarded(comm, [&] {
    if (get_string(file_, "format", where) != ck::kFormatName)
      throw Error(where + "not a malleable checkpoint (attribute format is not " + std::string(ck::kFormatName) + ")");
    header_.version = get_array<int>(file_, "version", H5T_NATIVE_INT, where).at(0);
    if (header_.version < ck::kOldestFormatVersion || header_.version > ck::kFormatVersion) return;  // mismatch() names it
    read_identity(file_, where, header_);
    state_ = read_state(file_, where, cfg_);
    header_.matrices = read_matrices(file_, where);
  });
}

CheckpointReader::~CheckpointReader() {
  if (file_ >= 0) H5Fclose(file_);
}

void CheckpointReader::read(std::size_t k, const CheckpointMatrix& m) {
  Silence quiet;
  const std::string where = "checkpoint " + path_ + ": matrix '" + m.spec.name + "': ";
  std::uint64_t mine = 0;
  const bool per_block = ck::per_block_io(m.layout, scalar_bytes(m.spec.type), block_io_mode(cfg_));
  guarded(comm_, [&] {
    Id g(must(H5Gopen2(file_, "matrices", H5P_DEFAULT), where + "has no group 'matrices' (every checkpoint holds one): damaged or not a malleable checkpoint"), H5Gclose);
    Id ds(must(H5Dopen2(g, m.spec.name.c_str(), H5P_DEFAULT), where + "missing"), H5Dclose);
    Id t(element_type(m.spec.type), H5Tclose);
    if (per_block) {
      bool raw = false;
      mine = per_block_transfer(ds, t, m, raw_chunk_shape(ds, t), Pass::Read, where + "cannot read its data (truncated file?)",
                                header_.version, cfg_, raw);
      return;
    }
    std::int64_t elements = 0;
    Id fs(select_blocks(m, elements), H5Sclose);
    const auto [lr, lc] = local_dims(m);
    std::vector<char> packed(static_cast<std::size_t>(std::max<std::int64_t>(elements, 1)) * scalar_bytes(m.spec.type));
    Id ms(memory_space(elements), H5Sclose);
    Id x(collective_transfer(cfg_), H5Pclose);
    must(H5Dread(ds, t, ms, fs, x, packed.data()), where + "cannot read its data (truncated file?)");
    by_type(m.spec.type, [&](auto v) { unpack_as<decltype(v)>(m, packed, lr, lc); return 0; });
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
    Id ds(must(H5Dopen2(g, m.spec.name.c_str(), H5P_DEFAULT), differs + " (missing)"), H5Dclose);
    Id t(element_type(m.spec.type), H5Tclose);
    bool raw = false;
    mine = per_block_transfer(ds, t, m, raw_chunk_shape(ds, t), Pass::Verify, differs + " (its data cannot be read)",
                              header_.version, cfg_, raw);
  });
  if (sum_over(comm_, mine) != header_.matrices[k].checksum) throw Error(differs);
}

}  // namespace resize::detail
