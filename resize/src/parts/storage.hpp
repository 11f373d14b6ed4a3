// SPDX-License-Identifier: BSD-3-Clause
// Internal: the local buffer of a registered matrix behind one interface, whoever owns it
// (the application's std::vector, a malloc()'ed C/Fortran pointer, a Matrix<T> handle).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "malleable/resize/matrix.hpp"
#include "move/pages.hpp"

namespace resize {
namespace detail {

// A registered matrix's local buffer, whatever its element type and owner: the
// application's std::vector (C++) or a malloc()'ed pointer the session owns (C, Fortran).
// A move writes into a staged buffer, swapped in by commit() once every rank has its data.
class Storage {
 public:
  virtual ~Storage() = default;
  virtual const void* data() const = 0;
  // The buffer becomes `n` zeroed elements, for `use` (an owner that maps its arrays asks
  // for huge pages by it: OwnedStorage).
  virtual void reset(std::size_t n, ArrayFor use) = 0;
  // A newcomer before its first move: no data.
  virtual void clear() = 0;
  // A zeroed buffer of `n` elements to move into (ArrayFor::Move); commit() makes it the
  // buffer and frees the one it replaces.
  virtual void* stage(std::size_t n) = 0;
  void commit() { (void)commit_keeping(); }
  // commit() that hands the replaced buffer over instead of freeing it: freed when the
  // last copy of the returned pointer goes (null: there was none), on whichever thread
  // drops it (move/pages.hpp, Prefault::release). Nothing else refers to it.
  virtual std::shared_ptr<void> commit_keeping() = 0;
  // A staged buffer that will not be committed (a cancelled background resize): freed.
  virtual void unstage() = 0;
  // The memory a staged buffer of `bytes` holds once written (what the move's peak
  // counts): its length, or more where the owner rounds it up (OwnedStorage: whole pages,
  // huge ones).
  virtual std::int64_t held_bytes(std::int64_t bytes) const { return bytes; }
};

template <class T>
class VectorStorage final : public Storage {
 public:
  explicit VectorStorage(std::vector<T>& v) : v_(v) {}
  const void* data() const override { return v_.data(); }
  void reset(std::size_t n, ArrayFor) override { v_.assign(n, T{}); }
  void clear() override { v_.clear(); }
  void* stage(std::size_t n) override {
    staged_.assign(n, T{});
    return staged_.data();
  }
  std::shared_ptr<void> commit_keeping() override {
    v_.swap(staged_);
    std::vector<T> old;
    old.swap(staged_);
    if (old.capacity() == 0) return nullptr;
    try {
      return std::make_shared<std::vector<T>>(std::move(old));
    } catch (const std::bad_alloc&) {
      return nullptr;  // `old` freed here
    }
  }
  void unstage() override { std::vector<T>().swap(staged_); }

 private:
  std::vector<T>& v_;
  std::vector<T> staged_;
};

// At least one element is allocated, so the pointer is valid for PDGEMR2D and Fortran.
// `shared` on (RESIZE_MAPPED_ARRAYS): every buffer from it (redist's mapped arrays) in
// place of calloc/free.
template <class T>
class MallocStorage final : public Storage {
 public:
  explicit MallocStorage(T** p, SharedAlloc shared = {}) : p_(p), shared_(shared) {}
  // The session owns the buffer (resize.h): what it allocated is freed here and the
  // caller's pointer set to NULL, so a caller's own free() afterwards is harmless. A
  // pointer the session never allocated (a registration that failed) is left alone.
  ~MallocStorage() override {
    drop(staged_);
    if (owned_) {
      drop(*p_);
      *p_ = nullptr;
    }
  }
  MallocStorage(const MallocStorage&) = delete;
  MallocStorage& operator=(const MallocStorage&) = delete;
  const void* data() const override { return *p_; }
  void reset(std::size_t n, ArrayFor) override {
    if (owned_) drop(*p_);
    *p_ = allocate(n);
    owned_ = true;
  }
  void clear() override {
    if (owned_) drop(*p_);
    *p_ = nullptr;
    owned_ = true;
  }
  void* stage(std::size_t n) override {
    drop(staged_);
    staged_ = allocate(n);
    return staged_;
  }
  std::shared_ptr<void> commit_keeping() override {
    T* old = owned_ ? *p_ : nullptr;
    *p_ = staged_;
    staged_ = nullptr;
    owned_ = true;
    if (!old) return nullptr;
    try {
      const SharedAlloc shared = shared_;
      return std::shared_ptr<void>(old, [shared](void* q) { shared.on() ? shared.release(q) : std::free(q); });
    } catch (const std::bad_alloc&) {  // the deleter has freed it
      return nullptr;
    }
  }
  void unstage() override {
    drop(staged_);
    staged_ = nullptr;
  }

 private:
  T* allocate(std::size_t n) const {
    const std::size_t count = std::max<std::size_t>(n, 1);
    if (count > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    // calloc's (and the mapped arrays') all-zero bytes are 0 and (0, 0) for IEEE floats and
    // their complex pairs.
    auto* p = static_cast<T*>(shared_.on() ? shared_.alloc(count * sizeof(T)) : std::calloc(count, sizeof(T)));
    if (!p) throw std::bad_alloc();  // named with the matrix by Registered::reset/stage
    return p;
  }
  void drop(T* q) const {
    if (!q) return;
    if (shared_.on())
      shared_.release(q);
    else
      std::free(q);
  }
  T** p_;
  SharedAlloc shared_;
  bool owned_ = false;  // *p_ is the session's (it allocated it)
  T* staged_ = nullptr;
};

// A matrix registered through a handle (Session::register_matrix<T>, matrix.hpp): the
// session owns the buffer and publishes it, with its length, in the state the handle
// shares; when the session goes, the handle sees no buffer and no session. `pages`: the
// session's RESIZE_HUGEPAGES, which with each array's use says whether it asks for huge
// pages (huge_pages_for, move/pages.hpp); `shared` on (RESIZE_MAPPED_ARRAYS): every array
// from it (redist's mapped arrays, no huge pages) instead.
template <class T>
class OwnedStorage final : public Storage {
 public:
  OwnedStorage(std::shared_ptr<MatrixState> st, config::HugePages pages, SharedAlloc shared = {})
      : st_(std::move(st)), pages_(pages), shared_(shared) {
    publish();
  }
  ~OwnedStorage() override {
    st_->data = nullptr;
    st_->elements = 0;
    st_->session = nullptr;
  }
  OwnedStorage(const OwnedStorage&) = delete;
  OwnedStorage& operator=(const OwnedStorage&) = delete;
  const void* data() const override { return v_.data(); }
  // At least one element, so data() is a valid pointer for PBLAS calls off the grid too.
  void reset(std::size_t n, ArrayFor use) override {
    v_ = make(n, use);
    n_ = std::max<std::size_t>(n, 1);
    publish();
  }
  void clear() override {
    v_ = PageArray();
    n_ = 0;
    publish();
  }
  // Zero without a write (fresh pages, move/pages.hpp): the move's own writes are the
  // first touch, not a zeroing pass before it.
  void* stage(std::size_t n) override {
    staged_ = make(n, ArrayFor::Move);
    staged_n_ = std::max<std::size_t>(n, 1);
    return staged_.data();
  }
  std::shared_ptr<void> commit_keeping() override {
    v_.swap(staged_);
    n_ = staged_n_;
    PageArray old = std::move(staged_);
    staged_ = PageArray();
    publish();
    if (!old.data()) return nullptr;
    try {
      return std::make_shared<PageArray>(std::move(old));
    } catch (const std::bad_alloc&) {
      return nullptr;  // `old` freed here
    }
  }
  void unstage() override { staged_ = PageArray(); }
  std::int64_t held_bytes(std::int64_t bytes) const override {
    const auto b = static_cast<std::size_t>(std::max<std::int64_t>(bytes, static_cast<std::int64_t>(sizeof(T))));
    if (shared_.on()) {  // a segment of whole pages: the array rounded to 64 bytes and a 64-byte header
      const std::size_t page = page_size(), seg = (b + 63) / 64 * 64 + 64;
      return static_cast<std::int64_t>((seg + page - 1) / page * page);
    }
    return static_cast<std::int64_t>(footprint(b, huge_pages_for(pages_, ArrayFor::Move), page_size()));
  }

 private:
  PageArray make(std::size_t n, ArrayFor use) const {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    return PageArray(std::max<std::size_t>(n, 1) * sizeof(T), huge_pages_for(pages_, use), &shared_);
  }
  void publish() {
    st_->data = v_.data();
    st_->elements = n_;
  }
  std::shared_ptr<MatrixState> st_;
  config::HugePages pages_;
  SharedAlloc shared_;
  PageArray v_, staged_;
  std::size_t n_ = 0, staged_n_ = 0;
};

}  // namespace detail
}  // namespace resize
