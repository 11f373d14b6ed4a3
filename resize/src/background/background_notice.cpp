// SPDX-License-Identifier: BSD-3-Clause
// The background expansion's end notice (background_notice.hpp): its codec.
#include "background/background_notice.hpp"

#include <string>

#include "malleable/resize/types.hpp"
#include "malleable_internal/wire.hpp"

namespace resize::detail {

namespace {
constexpr malleable::wire::Kind kNotice{0x4e42584du, kNoticeVersion, "background notice"};  // "MXBN"

BackgroundNotice read(std::span<const char> bytes) {
  malleable::wire::Reader r(bytes, kNotice);
  BackgroundNotice n;
  using K = BackgroundNotice::Kind;
  using C = BackgroundNotice::Cause;
  n.kind = r.get_enum(K::Completed, K::Cancelled, "kind");
  n.iteration = r.get<int>();
  n.changed_matrix = r.get<int>();
  n.state_bytes = r.get<std::int64_t>();
  n.in_remap_point = r.get_bool();
  n.old_size = r.get<int>();
  n.any_posted = r.get_bool();
  n.cause = r.get_enum(C::Destroyed, C::Superseded, "cause");
  r.done();
  if (n.changed_matrix < 0) r.fail("negative changed matrix " + std::to_string(n.changed_matrix));
  if (n.state_bytes < 0) r.fail("negative state bytes " + std::to_string(n.state_bytes));
  if (n.old_size < 0) r.fail("negative old world size " + std::to_string(n.old_size));
  return n;
}
}  // namespace

std::vector<char> encode(const BackgroundNotice& n) {
  malleable::wire::Writer w(kNotice);
  w.put_enum(n.kind);
  w.put(n.iteration);
  w.put(n.changed_matrix);
  w.put(n.state_bytes);
  w.put_bool(n.in_remap_point);
  w.put(n.old_size);
  w.put_bool(n.any_posted);
  w.put_enum(n.cause);
  return w.finish();
}

std::size_t notice_bytes() { return encode(BackgroundNotice{}).size(); }

BackgroundNotice decode(std::span<const char> bytes) {
  try {
    return read(bytes);
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

}  // namespace resize::detail
