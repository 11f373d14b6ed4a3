// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's control messages (messages.hpp): their codecs. Pure: no MPI.
#include "protocol/messages.hpp"

namespace blacs_dyn::detail {

using malleable::wire::Kind;
using malleable::wire::Reader;

namespace {
constexpr Kind kHello{0x4c484442u, 1, "blacs-dyn check-in"};           // "BDHL"
constexpr Kind kGo{0x4f474442u, 1, "blacs-dyn go"};                    // "BDGO"
constexpr Kind kRelease{0x4c524442u, 1, "blacs-dyn release"};          // "BDRL"
constexpr Kind kRequest{0x51524442u, 1, "blacs-dyn expansion request"}; // "BDRQ"
constexpr Kind kSchema{0x43534442u, 1, "blacs-dyn schema outcome"};    // "BDSC"

// Each message's fields, in the order they travel: written and read by the same function.
constexpr auto hello_fields = [](auto& v, auto& m) {
  v(m.pid);
  v(m.level);
};
constexpr auto go_fields = [](auto& v, auto& m) {
  v(m.go);
  v(m.level);
  v(m.groups);
  v(m.mine);
  v(m.spawner);
  v(m.stack);
};
constexpr auto release_fields = [](auto& v, auto& m) { v.enumeration(m, Release::Finalize, Release::Exit, "release"); };
constexpr auto request_fields = [](auto& v, auto& m) {
  v(m.command);
  v(m.wdir);
  v(m.hosts);
  v(m.args);
  v.list(m.groups, sizeof(std::uint64_t) + sizeof(int), [&](auto& g) {
    v(g.first);
    v(g.second);
  });
  v.list(m.info, 2 * sizeof(std::uint64_t), [&](auto& kv) {
    v(kv.first);
    v(kv.second);
  });
};
constexpr auto schema_fields = [](auto& v, auto& m) {
  v(m.missing);
  v(m.nnew);
};
}  // namespace

std::vector<char> encode(const Hello& m) { return malleable::wire::encode(kHello, m, hello_fields); }
Hello decode_hello(std::span<const char> bytes) { return malleable::wire::decode<Hello>(bytes, kHello, hello_fields); }
std::size_t hello_bytes() { return encode(Hello{}).size(); }

std::vector<char> encode(const Go& m) { return malleable::wire::encode(kGo, m, go_fields); }
Go decode_go(std::span<const char> bytes) {
  return malleable::wire::decode<Go>(bytes, kGo, go_fields, [](const Go& m, const Reader& r) {
    if (m.go &&
        (m.groups < 1 || m.mine < 0 || m.mine >= m.groups || m.spawner.size() != static_cast<std::size_t>(m.groups)))
      r.fail("group " + std::to_string(m.mine) + " of " + std::to_string(m.groups) + " with " +
             std::to_string(m.spawner.size()) + " spawners");
  });
}

std::vector<char> encode(Release m) { return malleable::wire::encode(kRelease, m, release_fields); }
Release decode_release(std::span<const char> bytes) {
  return malleable::wire::decode<Release>(bytes, kRelease, release_fields);
}
std::size_t release_bytes() { return encode(Release::Exit).size(); }

std::vector<char> encode(const SharedRequest& m) { return malleable::wire::encode(kRequest, m, request_fields); }
SharedRequest decode_request(std::span<const char> bytes) {
  return malleable::wire::decode<SharedRequest>(bytes, kRequest, request_fields);
}

std::vector<char> encode(const SchemaOutcome& m) { return malleable::wire::encode(kSchema, m, schema_fields); }
SchemaOutcome decode_schema_outcome(std::span<const char> bytes) {
  return malleable::wire::decode<SchemaOutcome>(bytes, kSchema, schema_fields);
}
std::size_t schema_outcome_bytes() { return encode(SchemaOutcome{}).size(); }

}  // namespace blacs_dyn::detail
