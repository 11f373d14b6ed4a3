// SPDX-License-Identifier: BSD-3-Clause
// MUNGE, Slurm's credential service, for the arbiter daemon (libmunge): a credential
// decoded into the uid that made it and the payload it carries. munged itself refuses a
// credential decoded before (replayed) or past its time-to-live (expired).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cluster::arbiter {

struct Credential {
  bool ok = false;
  std::optional<std::uint32_t> uid;  // known even for some refusals (expired, replayed)
  std::string payload;
  std::string why;  // !ok: munge's reason ("Replayed credential", "Expired credential", ...)
  // ok: the only uid its maker let decode it (MUNGE_OPT_UID_RESTRICTION); none: any uid.
  std::optional<std::uint32_t> only_uid = std::nullopt;
};
// `socket`: munged's socket (empty: libmunge's default).
Credential munge_decode_credential(const std::string& cred, const std::string& socket);
// A credential for `payload` (ttl 0: munged's default) that, with `only_uid` set, only
// that uid (and root) can decode (MUNGE_OPT_UID_RESTRICTION: the arbiter's replies, which
// carry a user's jobs); throws Error with munge's reason.
std::string munge_encode_credential(const std::string& payload, const std::string& socket, int ttl_s = 0,
                                    std::optional<std::uint32_t> only_uid = std::nullopt);

}  // namespace cluster::arbiter
