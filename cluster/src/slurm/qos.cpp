// SPDX-License-Identifier: BSD-3-Clause
// QOS node limits, pure (slurm_qos.hpp).
#include "malleable/cluster/qos.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "malleable/cluster/slurm.hpp"
#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}
std::optional<std::int64_t> node_of(const std::string& field, const std::string& where) {
  if (field.empty()) return std::nullopt;
  std::optional<std::int64_t> node;
  for (const std::string& e : split(field, ',')) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(where + ": TRES entry '" + e + "' is not NAME=VALUE");
    if (e.substr(0, eq) != "node") continue;
    const std::string v = e.substr(eq + 1);
    const auto n = whole_number(v, 999999999999999999ULL);
    if (!n) throw Error(where + ": node='" + escaped(v.substr(0, 40)) + "' is not a whole number");
    node = static_cast<std::int64_t>(*n);
  }
  return node;
}
}  // namespace

std::map<std::string, QosLimits> parse_qos(const std::string& text) {
  std::map<std::string, QosLimits> out;
  std::istringstream in(text);
  int no = 0;
  for (std::string line; std::getline(in, line);) {
    ++no;
    if (trim(line).empty()) continue;
    const std::string where = "sacctmgr's QOS line " + std::to_string(no);
    const std::vector<std::string> f = split(line, '|');
    if (f.size() != 4) throw Error(where + ": " + std::to_string(f.size()) + " fields, not 4 (Name|MaxTRESPerJob|MaxTRESPerUser|GrpTRES)");
    if (trim(f[0]).empty()) throw Error(where + ": no name");
    out[trim(f[0])] = QosLimits{node_of(trim(f[1]), where), node_of(trim(f[2]), where), node_of(trim(f[3]), where)};
  }
  return out;
}

QosCap qos_cap(const std::map<std::string, QosLimits>& table, const std::string& qos, std::int64_t nodes,
               std::int64_t user_nodes, std::int64_t qos_nodes, std::int64_t want) {
  QosCap c{std::max<std::int64_t>(want, 0), ""};
  const auto it = table.find(qos);
  if (it == table.end()) return c;
  const auto bind = [&](const std::optional<std::int64_t>& limit, std::int64_t held, const char* name) {
    if (!limit) return;
    const std::int64_t room = std::max<std::int64_t>(*limit - held, 0);
    if (room < c.extra) {
      c.extra = room;
      c.why = "qos " + qos + ": " + name + " node=" + std::to_string(*limit);
    }
  };
  bind(it->second.per_job, nodes, "MaxTRESPerJob");
  bind(it->second.per_user, user_nodes, "MaxTRESPerUser");
  bind(it->second.group, qos_nodes, "GrpTRES");
  return c;
}

}  // namespace cluster::slurm
