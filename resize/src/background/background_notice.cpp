// SPDX-License-Identifier: BSD-3-Clause
// The background expansion's end notice (background_notice.hpp): slot 0 the version,
// then kind, iteration, changed matrix, state bytes, in remap point, old size, any
// posted, cause.
#include "background/background_notice.hpp"

#include <string>

#include "malleable/resize/types.hpp"

namespace resize::detail {

NoticeWords encode(const BackgroundNotice& n) {
  return {kNoticeVersion,
          static_cast<long long>(n.kind),
          n.iteration,
          n.changed_matrix,
          static_cast<long long>(n.state_bytes),
          n.in_remap_point ? 1 : 0,
          n.old_size,
          n.any_posted ? 1 : 0,
          static_cast<long long>(n.cause)};
}

BackgroundNotice decode(const NoticeWords& w) {
  const auto bad = [](const std::string& what, long long v) {
    return Error("background notice: " + what + " " + std::to_string(v));
  };
  if (w[0] != kNoticeVersion)
    throw bad("version " + std::to_string(kNoticeVersion) + " expected, got", w[0]);
  BackgroundNotice n;
  if (w[1] != static_cast<long long>(BackgroundNotice::Kind::Completed) &&
      w[1] != static_cast<long long>(BackgroundNotice::Kind::Cancelled))
    throw bad("unknown kind", w[1]);
  n.kind = static_cast<BackgroundNotice::Kind>(w[1]);
  n.iteration = static_cast<int>(w[2]);
  if (w[3] < 0) throw bad("negative changed matrix", w[3]);
  n.changed_matrix = static_cast<int>(w[3]);
  if (w[4] < 0) throw bad("negative state bytes", w[4]);
  n.state_bytes = w[4];
  n.in_remap_point = w[5] != 0;
  if (w[6] < 0) throw bad("negative old world size", w[6]);
  n.old_size = static_cast<int>(w[6]);
  n.any_posted = w[7] != 0;
  if (w[8] < 0 || w[8] > static_cast<long long>(BackgroundNotice::Cause::Superseded)) throw bad("unknown cause", w[8]);
  n.cause = static_cast<BackgroundNotice::Cause>(w[8]);
  return n;
}

}  // namespace resize::detail
