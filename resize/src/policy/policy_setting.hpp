// SPDX-License-Identifier: BSD-3-Clause
// RESIZE_POLICY: the policy a run takes whatever its program chose, set where the run is
// started (the batch script of docs/guide/slurm.md), so that a user's own program takes
// the Slurm policy without a flag of its own. The same for C++, C and Fortran: every
// session applies it when it is made (Session's constructor, on every process).
#pragma once

#include <optional>
#include <string>

#include "common/config.hpp"
#include "malleable/resize/session_options.hpp"

namespace resize {

// The policies the setting names.
inline constexpr const char* kPolicySettingValues = "slurm or fixed";

// The setting's policy: nullopt when unset or empty (the program's policy stays), else
// "slurm" or "fixed". Anything else throws Error naming RESIZE_POLICY and its values.
std::optional<std::string> policy_setting(const config::Text& value);

// The program's policy with the setting applied. Unchanged when the setting is unset or
// names the program's own policy (its schedule and iterations kept: a program that passes
// "slurm" with "iterations=N" keeps N). Otherwise the setting's policy replaces it, made
// with the program's total_iterations (unknown: 0, the job grows whenever nodes are idle;
// RESIZE_SLURM_ITERATIONS overrides either), and policy_text says so. A program without a
// policy (opt.policy null) has the one policy_text names first, else fixed. Returns the
// line to print on world rank 0 (empty when nothing was replaced). Throws Error (the
// setting named) when the setting's policy cannot be made, e.g. slurm outside a Slurm job.
std::string apply_policy_setting(const config::Text& value, SessionOptions& opt);

}  // namespace resize
