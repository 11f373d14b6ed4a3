// SPDX-License-Identifier: BSD-3-Clause
// The codec of every message one process of a job hands another (a session's expansion
// state, a policy's decision, a background resize's end notice, blacs-dyn's check-in, go,
// abort and release messages, its spawn request): plain values written by a Writer, read
// back by a Reader, framed by a header {magic, version, payload bytes}. Another kind of
// message, another version (processes of two builds of malleable in one job), a truncated
// or an overlong buffer, an enum or a flag out of range: each is a wire::Error naming the
// message and what differs, never a wrongly read field. Pure: no MPI.
//
// A message's fields are listed once, by one function over a visitor (`fields(v, m)`):
// encode() runs it with an Encoder (each field written), decode() with a Decoder (each
// field read back in the same order), so the two sides cannot drift apart.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace malleable::wire {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One kind of message: its magic (the first four bytes), its version and its name in
// errors. Each message's codec defines its Kind once.
struct Kind {
  std::uint32_t magic;
  std::uint32_t version;
  const char* name;
};

inline constexpr std::size_t kHeaderBytes = 2 * sizeof(std::uint32_t) + sizeof(std::uint64_t);

// Plain values in this machine's representation (every process of a job runs the same
// build on the same kind of machine), vectors and strings as a count and their items.
class Writer {
 public:
  explicit Writer(Kind kind) : kind_(kind) { b_.reserve(256); }
  template <class T> void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_enum_v<T> && !std::is_same_v<T, bool>,
                  "enums with put_enum, flags with put_bool");
    const std::size_t at = b_.size();
    b_.resize(at + sizeof v);
    std::memcpy(b_.data() + at, &v, sizeof v);
  }
  void put_bool(bool v) { put(static_cast<std::uint8_t>(v ? 1 : 0)); }
  // An enum as its value (32 bits); get_enum checks the range.
  template <class E> void put_enum(E v) {
    static_assert(std::is_enum_v<E>);
    put(static_cast<std::int32_t>(v));
  }
  void put_count(std::size_t n) { put(static_cast<std::uint64_t>(n)); }
  template <class T> void put_vector(const std::vector<T>& v) {
    put_count(v.size());
    for (const T& x : v) put(x);
  }
  void put_bytes(std::span<const char> v) {
    put_count(v.size());
    b_.insert(b_.end(), v.begin(), v.end());
  }
  void put_string(const std::string& s) { put_bytes(std::span<const char>(s.data(), s.size())); }

  // The framed message: header, then the payload.
  std::vector<char> finish() const {
    const std::uint64_t n = b_.size();
    std::vector<char> out(kHeaderBytes + b_.size());
    std::memcpy(out.data(), &kind_.magic, 4);
    std::memcpy(out.data() + 4, &kind_.version, 4);
    std::memcpy(out.data() + 8, &n, 8);
    if (n > 0) std::memcpy(out.data() + kHeaderBytes, b_.data(), b_.size());
    return out;
  }

 private:
  Kind kind_;
  std::vector<char> b_;
};

// Reads one framed message of `kind`: the constructor checks the header (kind, version,
// payload size), every read checks the bytes left, done() that none are left over.
class Reader {
 public:
  Reader(std::span<const char> bytes, Kind kind) : b_(bytes), name_(kind.name) {
    if (b_.size() < kHeaderBytes)
      fail(std::to_string(b_.size()) + " bytes, fewer than its " + std::to_string(kHeaderBytes) + "-byte header");
    const auto m = get<std::uint32_t>();
    const auto v = get<std::uint32_t>();
    const auto n = get<std::uint64_t>();
    if (m != kind.magic) fail("not one (another kind of message: its first bytes differ)");
    if (v != kind.version)
      fail("version " + std::to_string(v) + ", this process reads version " + std::to_string(kind.version) +
           " (the job's processes run different builds of malleable)");
    if (n != b_.size() - kHeaderBytes)
      fail("the header says " + std::to_string(n) + " bytes follow, " + std::to_string(b_.size() - kHeaderBytes) +
           " do (truncated or overlong)");
  }

  template <class T> T get() {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_enum_v<T> && !std::is_same_v<T, bool>);
    need(sizeof(T));
    T v;
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  bool get_bool() {
    const auto v = get<std::uint8_t>();
    if (v > 1) fail("a flag of value " + std::to_string(v));
    return v != 0;
  }
  // An enum whose values run from `first` to `last`; another value is an error naming `what`.
  template <class E> E get_enum(E first, E last, const char* what) {
    static_assert(std::is_enum_v<E>);
    const auto v = get<std::int32_t>();
    if (v < static_cast<std::int32_t>(first) || v > static_cast<std::int32_t>(last))
      fail(std::string(what) + " " + std::to_string(v) + " (valid: " + std::to_string(static_cast<int>(first)) +
           ".." + std::to_string(static_cast<int>(last)) + ")");
    return static_cast<E>(v);
  }
  // A count of items of `item_bytes` each: one the bytes left cannot hold is refused
  // before anything is allocated.
  std::size_t get_count(std::size_t item_bytes) {
    const auto n = get<std::uint64_t>();
    if (item_bytes > 0 && n > (b_.size() - at_) / item_bytes)
      fail("truncated: " + std::to_string(n) + " items of " + std::to_string(item_bytes) + " bytes at byte " +
           std::to_string(at_) + " of " + std::to_string(b_.size()));
    return static_cast<std::size_t>(n);
  }
  template <class T> std::vector<T> get_vector() {
    std::vector<T> v(get_count(sizeof(T)));
    for (T& x : v) x = get<T>();
    return v;
  }
  std::vector<char> get_bytes() {
    const std::size_t n = get_count(1);
    std::vector<char> v(b_.begin() + static_cast<std::ptrdiff_t>(at_), b_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return v;
  }
  std::string get_string() {
    const std::size_t n = get_count(1);
    std::string s(b_.data() + at_, n);
    at_ += n;
    return s;
  }
  // The last field was read: bytes left over are an error.
  void done() const {
    if (at_ != b_.size()) fail(std::to_string(b_.size() - at_) + " bytes left over after its last field");
  }
  [[noreturn]] void fail(const std::string& why) const { throw Error(std::string(name_) + ": " + why); }

 private:
  void need(std::size_t bytes) const {
    if (bytes > b_.size() - at_)
      fail("truncated: " + std::to_string(bytes) + " more bytes needed at byte " + std::to_string(at_) + " of " +
           std::to_string(b_.size()));
  }
  std::span<const char> b_;
  const char* name_;
  std::size_t at_ = 0;
};

// The bytes as lower-case hex, two digits a byte (golden bytes in tests, dumps).
inline std::string hex(std::span<const char> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    s += kDigits[u >> 4];
    s += kDigits[u & 15];
  }
  return s;
}

namespace impl {
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
}  // namespace impl

// Writes each field a message's `fields` names: v(x) for a plain value, a flag, a string,
// a vector (of plain values, or of strings); v.enumeration(e, first, last, what) for an
// enum; v.as<W>(x) for a value sent as a W; v.list(items, item_bytes, item_fields) for a
// vector of compound items, `item_fields(item)` naming each item's fields.
class Encoder {
 public:
  static constexpr bool reading = false;
  explicit Encoder(Writer& w) : w_(w) {}
  template <class T> void operator()(const T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      w_.put_bool(x);
    } else if constexpr (std::is_same_v<T, std::string>) {
      w_.put_string(x);
    } else if constexpr (std::is_same_v<T, std::vector<char>>) {
      w_.put_bytes(x);
    } else if constexpr (impl::is_vector<T>::value) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>)
        w_.put_vector(x);
      else
        list(x, sizeof(std::uint64_t), [this](const auto& item) { (*this)(item); });
    } else {
      w_.put(x);
    }
  }
  template <class E> void enumeration(const E& e, E, E, const char*) { w_.put_enum(e); }
  template <class W, class T> void as(const T& x) { w_.put(static_cast<W>(x)); }
  template <class Items, class F> void list(const Items& items, std::size_t, F&& item_fields) {
    w_.put_count(items.size());
    for (const auto& item : items) item_fields(item);
  }
  // A check of what was read: nothing to check when writing.
  template <class Why> void require(bool, Why&&) const {}

 private:
  Writer& w_;
};

// Reads back each field a message's `fields` names, in the same order, with the Reader's
// checks (enum ranges, flags, counts the bytes left can hold).
class Decoder {
 public:
  static constexpr bool reading = true;
  explicit Decoder(Reader& r) : r_(r) {}
  template <class T> void operator()(T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      x = r_.get_bool();
    } else if constexpr (std::is_same_v<T, std::string>) {
      x = r_.get_string();
    } else if constexpr (std::is_same_v<T, std::vector<char>>) {
      x = r_.get_bytes();
    } else if constexpr (impl::is_vector<T>::value) {
      if constexpr (std::is_trivially_copyable_v<typename T::value_type>)
        x = r_.get_vector<typename T::value_type>();
      else
        list(x, sizeof(std::uint64_t), [this](auto& item) { (*this)(item); });
    } else {
      x = r_.get<T>();
    }
  }
  template <class E> void enumeration(E& e, E first, E last, const char* what) { e = r_.get_enum(first, last, what); }
  template <class W, class T> void as(T& x) { x = static_cast<T>(r_.get<W>()); }
  // `item_bytes`: the fewest bytes one item takes (a count the bytes left cannot hold is
  // refused before anything is allocated).
  template <class Items, class F> void list(Items& items, std::size_t item_bytes, F&& item_fields) {
    items.resize(r_.get_count(item_bytes));
    for (auto& item : items) item_fields(item);
  }
  // A check of what was read so far: `why()` the error's text when `ok` is false.
  template <class Why> void require(bool ok, Why&& why) const {
    if (!ok) r_.fail(why());
  }

 private:
  Reader& r_;
};

// The framed message of `kind` holding the fields `fields(v, m)` names.
template <class M, class Fields> std::vector<char> encode(const Kind& kind, const M& m, Fields&& fields) {
  Writer w(kind);
  Encoder e(w);
  fields(e, m);
  return w.finish();
}

// No check beyond the fields' own.
struct NoCheck {
  template <class M> void operator()(const M&, const Reader&) const {}
};

// The message of `kind` in `bytes`, read by the same `fields`; every byte must be read,
// then `check(m, reader)` may refuse what was read (reader.fail).
template <class M, class Fields, class Check = NoCheck>
M decode(std::span<const char> bytes, const Kind& kind, Fields&& fields, Check&& check = {}) {
  Reader r(bytes, kind);
  Decoder d(r);
  M m{};
  fields(d, m);
  r.done();
  check(static_cast<const M&>(m), static_cast<const Reader&>(r));
  return m;
}

}  // namespace malleable::wire
