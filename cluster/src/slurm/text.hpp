// SPDX-License-Identifier: BSD-3-Clause
// Text from others (Slurm's answers, a request, a reply, a file) as cluster's own code
// reads it: trimmed, and names checked before they go into a command's argument. Private
// to cluster (parse.cpp defines them); the public slurm.hpp keeps what callers outside
// need (escaped, command_line, the parsers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cluster::slurm {

// `s` without leading and trailing blanks (spaces, tabs, line ends): Slurm's answers.
std::string trim(const std::string& s);
// A node, job or partition name as the arbiter accepts one anywhere (a request, a reply,
// a command's argument): 1 to 255 bytes of letters, digits, '.', '_' and '-'. check_names
// throws Error naming `what` and the first name that is not one.
bool valid_name(std::string_view s);
void check_names(const std::vector<std::string>& names, const std::string& what);

}  // namespace cluster::slurm
