// SPDX-License-Identifier: BSD-3-Clause
// The MPI flavour and the meaning of a failed spawn, from the MPI's own reports (pure).
#include "malleable/blacs_dyn/mpi_flavour.hpp"

#include <cctype>

namespace blacs_dyn {
namespace {

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// The first run of digits and dots after `from`.
std::string version_after(std::string_view s, std::size_t from) {
  std::size_t b = from;
  while (b < s.size() && !std::isdigit(static_cast<unsigned char>(s[b]))) ++b;
  std::size_t e = b;
  while (e < s.size() && (std::isdigit(static_cast<unsigned char>(s[e])) || s[e] == '.')) ++e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

MpiFlavour flavour_from_library_version(std::string_view version) {
  if (contains(version, "Open MPI")) return MpiFlavour::OpenMpi;
  if (contains(version, "MPICH") || contains(version, "Intel(R) MPI") || contains(version, "MVAPICH"))
    return MpiFlavour::Mpich;
  return MpiFlavour::Other;
}

std::string short_library_name(std::string_view version) {
  if (auto p = version.find("Open MPI"); p != std::string_view::npos)
    return "Open MPI " + version_after(version, p + 8);
  if (auto p = version.find("MPICH Version:"); p != std::string_view::npos)
    return "MPICH " + version_after(version, p + 14);
  if (auto p = version.find("MPICH"); p != std::string_view::npos) return "MPICH " + version_after(version, p + 5);
  const auto eol = version.find('\n');
  return std::string(version.substr(0, eol == std::string_view::npos ? version.size() : eol));
}

SpawnFailure classify_spawn_failure(MpiFlavour flavour, bool class_is_err_spawn, std::string_view error_text) {
  if (flavour == MpiFlavour::Mpich && !class_is_err_spawn && contains(error_text, "Error in spawn call"))
    return SpawnFailure::Unsupported;
  return SpawnFailure::Refused;
}

std::string pml_from_component_file(std::string_view file) {
  constexpr std::string_view prefix = "mca_pml_";
  const auto at = file.rfind(prefix);
  if (at == std::string_view::npos) return {};
  const std::string_view name = file.substr(at + prefix.size());
  return std::string(name.substr(0, name.find('.')));
}

bool spawn_disabled_by_setting(const char* value) {
  if (!value) return false;
  const std::string_view v(value);
  return v == "0" || v == "off" || v == "OFF" || v == "no" || v == "false" || v == "FALSE";
}

}  // namespace blacs_dyn
