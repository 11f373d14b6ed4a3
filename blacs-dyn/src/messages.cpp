// SPDX-License-Identifier: BSD-3-Clause
// blacs-dyn's control messages (messages.hpp): their codecs. Pure: no MPI.
#include "messages.hpp"

namespace blacs_dyn::detail {

using malleable::wire::Kind;
using malleable::wire::Reader;
using malleable::wire::Writer;

namespace {
constexpr Kind kHello{0x4c484442u, 1, "blacs-dyn check-in"};           // "BDHL"
constexpr Kind kGo{0x4f474442u, 1, "blacs-dyn go"};                    // "BDGO"
constexpr Kind kRelease{0x4c524442u, 1, "blacs-dyn release"};          // "BDRL"
constexpr Kind kRequest{0x51524442u, 1, "blacs-dyn expansion request"}; // "BDRQ"
constexpr Kind kSchema{0x43534442u, 1, "blacs-dyn schema outcome"};    // "BDSC"

void put_strings(Writer& w, const std::vector<std::string>& v) {
  w.put_count(v.size());
  for (const auto& s : v) w.put_string(s);
}
std::vector<std::string> get_strings(Reader& r) {
  std::vector<std::string> v(r.get_count(sizeof(std::uint64_t)));
  for (auto& s : v) s = r.get_string();
  return v;
}
}  // namespace

std::vector<char> encode(const Hello& m) {
  Writer w(kHello);
  w.put(m.pid);
  w.put(m.level);
  return w.finish();
}
Hello decode_hello(std::span<const char> bytes) {
  Reader r(bytes, kHello);
  Hello m;
  m.pid = r.get<int>();
  m.level = r.get<int>();
  r.done();
  return m;
}
std::size_t hello_bytes() { return encode(Hello{}).size(); }

std::vector<char> encode(const Go& m) {
  Writer w(kGo);
  w.put_bool(m.go);
  w.put(m.level);
  w.put(m.groups);
  w.put(m.mine);
  w.put_vector(m.spawner);
  w.put_vector(m.stack);
  return w.finish();
}
Go decode_go(std::span<const char> bytes) {
  Reader r(bytes, kGo);
  Go m;
  m.go = r.get_bool();
  m.level = r.get<int>();
  m.groups = r.get<int>();
  m.mine = r.get<int>();
  m.spawner = r.get_vector<int>();
  m.stack = r.get_vector<int>();
  r.done();
  if (m.go && (m.groups < 1 || m.mine < 0 || m.mine >= m.groups || m.spawner.size() != static_cast<std::size_t>(m.groups)))
    r.fail("group " + std::to_string(m.mine) + " of " + std::to_string(m.groups) + " with " +
           std::to_string(m.spawner.size()) + " spawners");
  return m;
}

std::vector<char> encode(Release m) {
  Writer w(kRelease);
  w.put_enum(m);
  return w.finish();
}
Release decode_release(std::span<const char> bytes) {
  Reader r(bytes, kRelease);
  const Release m = r.get_enum(Release::Finalize, Release::Exit, "release");
  r.done();
  return m;
}
std::size_t release_bytes() { return encode(Release::Exit).size(); }

std::vector<char> encode(const SharedRequest& m) {
  Writer w(kRequest);
  w.put_string(m.command);
  w.put_string(m.wdir);
  w.put_string(m.hosts);
  put_strings(w, m.args);
  w.put_count(m.groups.size());
  for (const auto& [host, count] : m.groups) {
    w.put_string(host);
    w.put(count);
  }
  w.put_count(m.info.size());
  for (const auto& [key, value] : m.info) {
    w.put_string(key);
    w.put_string(value);
  }
  return w.finish();
}
SharedRequest decode_request(std::span<const char> bytes) {
  Reader r(bytes, kRequest);
  SharedRequest m;
  m.command = r.get_string();
  m.wdir = r.get_string();
  m.hosts = r.get_string();
  m.args = get_strings(r);
  m.groups.resize(r.get_count(sizeof(std::uint64_t) + sizeof(int)));
  for (auto& [host, count] : m.groups) {
    host = r.get_string();
    count = r.get<int>();
  }
  m.info.resize(r.get_count(2 * sizeof(std::uint64_t)));
  for (auto& [key, value] : m.info) {
    key = r.get_string();
    value = r.get_string();
  }
  r.done();
  return m;
}

std::vector<char> encode(const SchemaOutcome& m) {
  Writer w(kSchema);
  w.put_bool(m.missing);
  w.put(m.nnew);
  return w.finish();
}
SchemaOutcome decode_schema_outcome(std::span<const char> bytes) {
  Reader r(bytes, kSchema);
  SchemaOutcome m;
  m.missing = r.get_bool();
  m.nnew = r.get<int>();
  r.done();
  return m;
}
std::size_t schema_outcome_bytes() { return encode(SchemaOutcome{}).size(); }

}  // namespace blacs_dyn::detail
