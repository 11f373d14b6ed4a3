// SPDX-License-Identifier: BSD-3-Clause
// A resize carried out by checkpoint, exit and restart: what the next launch
// runs on. Pure; the session (Session::remap_or_restart) writes it to DIR/<app>.next for
// malleable-run.
#pragma once

#include <string>
#include <vector>

#include "malleable/resize/types.hpp"

namespace resize {

// The nodes the next launch runs on, in order: the nodes of the ranks now (in order of
// first appearance) without those a shrink gives back (Decision::hosts), then those an
// expansion adds (Decision::hosts with a count > 0, e.g. nodes the Slurm policy obtained).
// Empty when the decision names no nodes: the launcher keeps its hosts.
std::vector<std::string> hosts_after_restart(const std::vector<std::string>& rank_hosts, const Decision& d);

// The text of DIR/<app>.next: "NPROW NPCOL FILE\n" and, when `hosts` is not empty, a second
// line "hosts H1,H2,...\n". Throws Error on a grid below 1x1, an empty file name or a name
// with white space (the launcher reads the line with `read`).
std::string next_launch_text(int nprow, int npcol, const std::string& file, const std::vector<std::string>& hosts);

}  // namespace resize
