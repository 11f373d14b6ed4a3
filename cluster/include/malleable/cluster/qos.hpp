// SPDX-License-Identifier: BSD-3-Clause
// QOS node limits, pure: sacctmgr's QOS table (kQosCommand, Slurm 22.05's --parsable2:
// "Name|MaxTRESPerJob|MaxTRESPerUser|GrpTRES", each TRES field "cpu=8,node=4" or empty)
// and the most nodes a growth may add under a job's QOS. Only node= counts; a limit on
// other TRES only is ignored; an empty field is no limit. The arbiter daemon asks it
// (arbiter/state.hpp, set_qos) and caps a growth at it (arbitrate(), rule "qos-limit").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cluster::slurm {

inline const std::vector<std::string> kQosCommand = {"sacctmgr", "--parsable2", "--noheader", "show", "qos",
                                                    "format=Name,MaxTRESPerJob,MaxTRESPerUser,GrpTRES"};

struct QosLimits {
  std::optional<std::int64_t> per_job, per_user, group;  // node= of each field; none: unlimited
  bool operator==(const QosLimits&) const = default;
};

// Throws Error naming the line at fault (a wrong field count, an empty name, a TRES entry
// without '=', a node= that is not a whole number >= 0).
std::map<std::string, QosLimits> parse_qos(const std::string& sacctmgr_out);

struct QosCap {
  std::int64_t extra = 0;  // nodes the growth may add (<= the wanted)
  std::string why;         // the binding limit ("qos normal: MaxTRESPerJob node=4"), empty if none
};
// A job of `nodes` nodes under `qos` wants `want` more; its user holds `user_nodes` nodes
// in running jobs of that QOS (this job's included), the QOS `qos_nodes` over all jobs. A
// QOS not in the table: no limit known.
QosCap qos_cap(const std::map<std::string, QosLimits>& table, const std::string& qos, std::int64_t nodes,
               std::int64_t user_nodes, std::int64_t qos_nodes, std::int64_t want);

}  // namespace cluster::slurm
