// SPDX-License-Identifier: BSD-3-Clause
// The background expansion's end notice (background_notice.hpp): its codec.
#include "background/background_notice.hpp"

#include <string>

#include "malleable/resize/types.hpp"
#include "malleable_internal/wire.hpp"

namespace resize::detail {

namespace {
constexpr malleable::wire::Kind kNotice{0x4e42584du, kNoticeVersion, "background notice"};  // "MXBN"

// The notice's fields, in the order they travel: written and read by the same function.
constexpr auto notice_fields = [](auto& v, auto& n) {
  using K = BackgroundNotice::Kind;
  using C = BackgroundNotice::Cause;
  v.enumeration(n.kind, K::Completed, K::Cancelled, "kind");
  v(n.iteration);
  v(n.changed_matrix);
  v(n.state_bytes);
  v(n.in_remap_point);
  v(n.old_size);
  v(n.any_posted);
  v.enumeration(n.cause, C::Destroyed, C::Superseded, "cause");
};

void check(const BackgroundNotice& n, const malleable::wire::Reader& r) {
  if (n.changed_matrix < 0) r.fail("negative changed matrix " + std::to_string(n.changed_matrix));
  if (n.state_bytes < 0) r.fail("negative state bytes " + std::to_string(n.state_bytes));
  if (n.old_size < 0) r.fail("negative old world size " + std::to_string(n.old_size));
}
}  // namespace

std::vector<char> encode(const BackgroundNotice& n) { return malleable::wire::encode(kNotice, n, notice_fields); }

std::size_t notice_bytes() { return encode(BackgroundNotice{}).size(); }

BackgroundNotice decode(std::span<const char> bytes) {
  try {
    return malleable::wire::decode<BackgroundNotice>(bytes, kNotice, notice_fields, check);
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

}  // namespace resize::detail
