// SPDX-License-Identifier: BSD-3-Clause
// RESIZE_POLICY (policy_setting.hpp).
#include "policy/policy_setting.hpp"

#include <algorithm>

#include "malleable/resize/policy.hpp"

namespace resize {

namespace {
// A value as an error message shows it: at most 60 characters, non-printable bytes as '?'.
std::string shown(const std::string& v) {
  std::string s = v.substr(0, 60);
  std::replace_if(s.begin(), s.end(), [](char c) { return c < 0x20 || c == 0x7f; }, '?');
  return v.size() > 60 ? s + "..." : s;
}
}  // namespace

std::optional<std::string> policy_setting(const config::Text& value) {
  if (!value || value->empty()) return std::nullopt;
  if (*value == "slurm" || *value == "fixed") return *value;
  throw Error(std::string("RESIZE_POLICY must be ") + kPolicySettingValues +
              " (unset or empty: the program's own policy), got '" + shown(*value) + "'");
}

std::string apply_policy_setting(const config::Text& value, SessionOptions& opt) {
  const std::optional<std::string> name = policy_setting(value);
  if (!name) return "";
  const std::string named = opt.policy_text.substr(0, opt.policy_text.find(' '));
  const std::string program = opt.policy ? opt.policy->name() : named.empty() ? "fixed" : named;
  if (program == *name && (opt.policy || program == "fixed")) return "";
  std::unique_ptr<Policy> p;
  try {
    p = make_policy(*name, "", "", std::max(0, opt.total_iterations));
  } catch (Error& e) {
    e.prepend("RESIZE_POLICY=" + *name + ": ");
    throw;
  }
  const std::string was = opt.policy_text.empty() ? program : opt.policy_text;
  opt.policy = std::move(p);
  opt.policy_text = *name + " (RESIZE_POLICY, in place of the program's " + was + ")";
  return "policy " + *name + " from RESIZE_POLICY, in place of the program's " + was;
}

}  // namespace resize
