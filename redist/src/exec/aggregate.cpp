// SPDX-License-Identifier: BSD-3-Clause
// The message layout of the engine's exchanges (aggregate.hpp).
#include "aggregate.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace redist::exec {

MessageCutter::MessageCutter(const std::vector<PeerPiece>* pieces, std::int64_t cap)
    : pieces_(pieces), cap_(std::max<std::int64_t>(1, cap)) {
  skip_empty();
}

void MessageCutter::skip_empty() {
  while (k_ < pieces_->size() && (*pieces_)[k_].bytes() == 0) ++k_;
}

std::int64_t MessageCutter::next(std::vector<Segment>& segs) {
  segs.clear();
  std::int64_t end = 0;
  while (!done()) {
    const PeerPiece& p = (*pieces_)[k_];
    const std::int64_t at = (end + kSegmentAlign - 1) / kSegmentAlign * kSegmentAlign;
    const std::int64_t cb = p.col_bytes();
    std::int64_t take = at < cap_ ? std::min(p.ncols - col_, (cap_ - at) / cb) : 0;
    if (take == 0) {
      if (!segs.empty()) break;  // the next column starts the next message
      take = 1;                  // a column larger than the cap travels alone
    }
    segs.push_back({k_, col_, take, at, take * cb});
    end = at + take * cb;
    col_ += take;
    if (col_ == p.ncols) {
      ++k_;
      col_ = 0;
      skip_empty();
    }
    if (end >= cap_) break;
  }
  return end;
}

PeerQueue::PeerQueue(std::vector<std::vector<PeerPiece>> per_peer, std::int64_t cap, const std::vector<bool>& whole)
    : pieces_(std::move(per_peer)) {
  cut_.reserve(pieces_.size());
  rounds_.assign(pieces_.size(), 0);
  for (std::size_t q = 0; q < pieces_.size(); ++q) {
    cut_.emplace_back(&pieces_[q], q < whole.size() && whole[q] ? INT64_MAX / 4 : cap);
    if (!cut_.back().done()) active_.push_back(q);
  }
}

const Message* PeerQueue::peek() {
  if (have_) return &next_;
  if (pos_ >= active_.size()) {  // the next round: the peers with messages left, in order
    active_.swap(later_);
    later_.clear();
    pos_ = 0;
  }
  if (active_.empty()) return nullptr;
  const std::size_t q = active_[pos_++];
  next_.peer = q;
  next_.round = rounds_[q]++;
  next_.bytes = cut_[q].next(next_.segs);
  if (!cut_[q].done()) later_.push_back(q);
  have_ = true;
  return &next_;
}

Message PeerQueue::take() {
  peek();
  have_ = false;
  return std::move(next_);
}

}  // namespace redist::exec
