// SPDX-License-Identifier: BSD-3-Clause
// MUNGE for the arbiter daemon (munge_shell.hpp): libmunge's encode and decode.
#include "arbiter/munge.hpp"

#include <cstdlib>

#include "malleable/cluster/error.hpp"

#if MALL_HAVE_MUNGE
#include <munge.h>

namespace cluster::arbiter {

namespace {
struct Ctx {
  munge_ctx_t c = munge_ctx_create();
  ~Ctx() {
    if (c) munge_ctx_destroy(c);
  }
};
}  // namespace

Credential munge_decode_credential(const std::string& cred, const std::string& socket) {
  Credential out;
  Ctx ctx;
  if (!ctx.c) {
    out.why = "munge_ctx_create failed";
    return out;
  }
  if (!socket.empty() && munge_ctx_set(ctx.c, MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS) {
    out.why = "munge_ctx_set(MUNGE_OPT_SOCKET) failed";
    return out;
  }
  void* buf = nullptr;
  int len = 0;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
  const munge_err_t e = munge_decode(cred.c_str(), ctx.c, &buf, &len, &uid, &gid);
  if (uid != static_cast<uid_t>(-1)) out.uid = static_cast<std::uint32_t>(uid);
  if (e == EMUNGE_SUCCESS) {
    out.ok = true;
    if (buf && len > 0) out.payload.assign(static_cast<const char*>(buf), static_cast<std::size_t>(len));
    uid_t only = MUNGE_UID_ANY;
    if (munge_ctx_get(ctx.c, MUNGE_OPT_UID_RESTRICTION, &only) == EMUNGE_SUCCESS && only != static_cast<uid_t>(MUNGE_UID_ANY))
      out.only_uid = static_cast<std::uint32_t>(only);
  } else {
    const char* m = munge_ctx_strerror(ctx.c);
    out.why = m ? m : munge_strerror(e);
  }
  std::free(buf);
  return out;
}

std::string munge_encode_credential(const std::string& payload, const std::string& socket, int ttl_s,
                                    std::optional<std::uint32_t> only_uid) {
  Ctx ctx;
  if (!ctx.c) throw Error("munge_ctx_create failed");
  if (!socket.empty() && munge_ctx_set(ctx.c, MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS)
    throw Error("munge_ctx_set(MUNGE_OPT_SOCKET) failed");
  if (ttl_s > 0 && munge_ctx_set(ctx.c, MUNGE_OPT_TTL, ttl_s) != EMUNGE_SUCCESS)
    throw Error("munge_ctx_set(MUNGE_OPT_TTL) failed");
  if (only_uid && munge_ctx_set(ctx.c, MUNGE_OPT_UID_RESTRICTION, static_cast<uid_t>(*only_uid)) != EMUNGE_SUCCESS)
    throw Error("munge_ctx_set(MUNGE_OPT_UID_RESTRICTION) failed");
  char* cred = nullptr;
  const munge_err_t e = munge_encode(&cred, ctx.c, payload.data(), static_cast<int>(payload.size()));
  if (e != EMUNGE_SUCCESS) {
    const char* m = munge_ctx_strerror(ctx.c);
    std::string why = m ? m : munge_strerror(e);
    std::free(cred);
    throw Error("munge_encode failed: " + why);
  }
  std::string out(cred);
  std::free(cred);
  return out;
}

}  // namespace cluster::arbiter
#else
// Built without libmunge (libmunge-dev absent at configure time): no arbiter.
namespace cluster::arbiter {
Credential munge_decode_credential(const std::string&, const std::string&) {
  Credential c;
  c.why = "this build has no MUNGE (libmunge-dev was missing)";
  return c;
}
std::string munge_encode_credential(const std::string&, const std::string&, int, std::optional<std::uint32_t>) {
  throw Error("this build of malleable has no MUNGE (libmunge-dev was missing): no arbiter");
}
}  // namespace cluster::arbiter
#endif
