// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's wire protocol, pure: frames, requests and replies, and their strict
// validation. One request per connection (version 2):
//   daemon -> client   frame( {"v":2,"challenge":HEX32} )  at accept: this connection's nonce
//   client -> daemon   frame( MUNGE credential whose payload is the request's JSON, holding
//                      that "challenge"; the credential restricted to the arbiter's uid )
//   daemon -> client   frame( the reply's JSON in a MUNGE credential, below )
// The request is bound to the connection and to the daemon's identity: only the arbiter's
// uid can decode it (MUNGE_OPT_UID_RESTRICTION; the daemon refuses a credential any uid
// could read), so whoever else holds the socket or the port while the daemon is down
// cannot read it; and it names the challenge of the connection it was made for, so a
// request recorded there and relayed to the daemon later, on another connection, is
// refused (the daemon's challenge is 128 random bits, fresh per connection). Version 1
// (no challenge) is refused with the reason.
// A frame is a 4-byte big-endian length and that many bytes (at most kMaxFrame). The
// request travels inside the credential, so the body the daemon acts on is the one the
// credential's uid signed: no separate hash to bind them. The request frame's payload is
// the credential exactly as libmunge makes it and nothing after it (credential_text).
//
// Replies are authenticated too: the daemon's reply frame holds a MUNGE credential of the
// daemon's uid whose payload is the reply's JSON (only the asking uid can decode it once
// the request was authenticated), and the reply echoes the request's "nonce": the job
// takes a reply only from the configured arbiter user (ClientOptions::arbiter_uid) and
// only for its own request, so whoever else answers on the socket or the port (a daemon
// down, its port taken) gets nothing done.
//
// Requests (JSON objects; unknown keys, a key twice in one object, bytes after the object,
// wrong types and out-of-range values are refused;
// every request may carry "nonce": up to 64 hex digits the reply echoes, and
// every request carries "challenge", the connection's):
//   {"v":2,"challenge":C,"kind":"arbitrate","job":ID,"rank_hosts":[..],"per_node":P,
//    "min_nodes":A,"max_nodes":B,"hold":false,"bid_ttl_s":T,"growth":[{"n":K,"pays":..,
//    "saving_s":..,"why":..,"pi":..,"pr":..,"mi":..,"left":..},..],"expanders":[ID,..]}
//       the job's state and its growth model evaluated for K extra nodes (K < 0: K fewer);
//       hold: the job may not acquire now (Slurm refused it lately): no claim;
//       expanders (optional): the Slurm job ids of the expander jobs the job submitted
//       (sbatch's answers), not waited for by anyone (ArbiterState: the owner's only)
//   {"v":2,"challenge":C,"kind":"settle","job":ID,"promises_too":false}  an acquisition ended
//   {"v":2,"challenge":C,"kind":"status"}                                  the daemon's state
// Replies: {"ok":true,...} or {"ok":false,"error":REASON}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "malleable/cluster/slurm.hpp"
#include "malleable/cluster/arbitration.hpp"

namespace cluster::arbiter {

inline constexpr std::size_t kMaxFrame = 64 * 1024;
// A status reply's state at most this long: the reply travels in a MUNGE credential
// (base64: 4 bytes for 3, and its header), which must fit a frame; the oldest recent
// decisions are left out to fit (ArbiterState::status_json).
inline constexpr std::size_t kMaxStatus = kMaxFrame / 4 * 3 - 4096;
inline constexpr int kProtocolVersion = 2;
// The daemon's challenge frame: at most this long; its challenge kChallengeHex hex digits.
inline constexpr std::size_t kMaxChallengeFrame = 256;
inline constexpr std::size_t kChallengeHex = 32;
// At most this many expander job ids in a request.
inline constexpr std::size_t kMaxExpanders = 256;

// The challenge frame's payload, and back (throws Error: not JSON, another version, a
// challenge that is not kChallengeHex lower-case hex digits, an unknown key).
std::string encode_challenge(const std::string& challenge);
std::string parse_challenge(std::string_view json);
// 128 random bits as 32 lower-case hex digits (getrandom; throws Error).
std::string random_hex128();


// 4-byte big-endian length + payload; throws Error when the payload exceeds `max`.
std::string frame(std::string_view payload, std::size_t max = kMaxFrame);

// The first frame in `buf` (bytes read so far). Incomplete: read more. Refused: the
// length exceeds `max` (the connection is to be closed; `why` says so).
struct FrameRead {
  enum class Status { Incomplete, Complete, Refused } status = Status::Incomplete;
  std::string payload;
  std::size_t consumed = 0;
  std::string why;
};
FrameRead read_frame(std::string_view buf, std::size_t max = kMaxFrame);

// The MUNGE credential a request frame's payload holds: the payload itself when it is
// exactly libmunge's armor, "MUNGE:", base64 ([A-Za-z0-9+/=]) and ":", nothing before or
// after it (munged would skip leading whitespace, whitespace within, and whatever follows
// the last ':'; the client sends none of them). Else throws Error with the reason
// ("trailing bytes after the credential (N bytes)", ...): the daemon refuses the frame
// before decoding it.
std::string credential_text(std::string_view payload);

struct Request {
  enum class Kind { Arbitrate, Settle, Status } kind = Kind::Status;
  slurm::JobState job;                 // Arbitrate: all of it; Settle: id
  std::map<int, slurm::Growth> growth; // Arbitrate: the model at K extra nodes
  bool hold = false;                   // Arbitrate: no acquisition now
  double bid_ttl_s = 0;                // Arbitrate: the bid's wanted lifetime (0: the daemon's)
  bool promises_too = false;           // Settle
  std::string nonce = {};              // any kind: echoed in the reply (up to 64 hex digits)
  std::string challenge = {};          // any kind: the connection's (kChallengeHex hex digits)
  std::vector<std::string> expanders = {};  // Arbitrate: its expander jobs' ids (at most kMaxExpanders)
};
std::string to_string(Request::Kind k);  // "arbitrate" "settle" "status"

// The request's JSON (the client) and back (the daemon; throws Error with the reason:
// "not JSON", "unknown key 'x'", "duplicated key 'job'", "trailing bytes after the JSON",
// "'per_node' must be an integer in [1, 4096]", ...). Every JSON read here (the request,
// the challenge, the reply) is one object, no key twice in any object of it (nlohmann
// would keep the last one), nothing after it but whitespace.
std::string encode_request(const Request& r);
Request parse_request(std::string_view json);

// The growth model as the daemon sees it: the table's entry, else "no prediction".
slurm::GrowthModel growth_model(const std::map<int, slurm::Growth>& table);

// Replies.
struct Reply {
  bool ok = false;
  std::string error;                  // !ok
  slurm::Arbitration arbitration;     // arbitrate: plan, rule, for_job, by_restart (not the ledger)
  std::vector<std::string> held;      // arbitrate: the job's nodes in the daemon's view
  std::vector<std::string> idle;      // arbitrate: the idle nodes in that view
  std::string status_json;            // status: the daemon's state (ArbiterState::status_json)
  std::string nonce = {};             // the request's, echoed (empty: the request carried none, or none was read)
};
std::string encode_reply(const Reply& r, Request::Kind kind);
Reply parse_reply(std::string_view json, Request::Kind kind);  // throws Error

// Who may ask about a job: its owner in Slurm's view, root, or SlurmUser. Empty: allowed;
// else the reason of the refusal, which names the asking uid only ("uid U does not own
// job J in Slurm's view": the same whether J is another user's or not listed). Status is
// open to every authenticated user, each seeing its own jobs (ArbiterState::status_json).
std::string refusal(const Request& r, std::uint32_t uid, const std::map<std::string, std::uint32_t>& owners,
                    std::uint32_t slurm_user);

// Where the daemon listens and the jobs connect. A Unix socket's path, or TCP:
//   daemon `listen = HOST:PORT`: "127.0.0.1:7070", "[::1]:7070", "node0:7070", "*:7070"
//   (every address; IPv6 and IPv4), "[::]:7070"; port 0 lets the kernel choose (tests);
//   client RESIZE_ARBITER="tcp://HOST:PORT" (port 1-65535), else a Unix socket's path.
// Throws Error naming what is wrong (no port, a port out of range, an unclosed '[', ...).
struct HostPort {
  std::string host;  // without brackets; "" for "*" (every address)
  std::uint16_t port = 0;
};
HostPort parse_host_port(std::string_view text, bool port_zero_allowed);
struct ArbiterAddress {
  bool tcp = false;
  std::string path;  // !tcp: the Unix socket
  HostPort where;    // tcp
};
ArbiterAddress parse_arbiter_address(std::string_view text);
std::string to_string(const HostPort& h);  // "host:port", "[v6]:port", "*:port"

// The owners of the view's jobs (squeue's uid= field, kSqueueFormat): job id -> numeric
// uid. A job listed without its uid is left out, so a request about it is refused (not in
// Slurm's view); throws Error for a uid beyond 32 bits.
std::map<std::string, std::uint32_t> owners_of(const std::vector<slurm::Job>& jobs);

}  // namespace cluster::arbiter
