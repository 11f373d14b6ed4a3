// SPDX-License-Identifier: BSD-3-Clause
#include "workload.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace clustersim {

double Job::iteration_s(int n) const {
  if (n < 1) throw Error("job " + id + ": iteration on " + std::to_string(n) + " nodes");
  const double comm = comm_fraction > 0 ? comm_fraction * std::log2(static_cast<double>(n)) : 0.0;
  return work_node_s / iterations * (serial_fraction + (1.0 - serial_fraction) / n + comm);
}

double Job::runtime_s(int n) const { return iteration_s(n) * iterations; }

namespace {

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw Error(where + ": missing field '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(where + ": field '" + key + "' has the wrong type");
  }
}

Job parse_job(const nlohmann::json& j, std::size_t index, int machine) {
  Job job;
  job.id = j.contains("id") ? field<std::string>(j, "id", "job " + std::to_string(index)) : std::to_string(index);
  const std::string where = "job " + job.id;
  job.submit_s = field<double>(j, "submit_s", where);
  job.nodes = field<int>(j, "nodes", where);
  job.min_nodes = field<int>(j, "min_nodes", where);
  job.max_nodes = field<int>(j, "max_nodes", where);
  job.malleable = field<bool>(j, "malleable", where);
  job.program = j.contains("program") ? field<std::string>(j, "program", where) : "sleep";
  job.work_node_s = field<double>(j, "work_node_s", where);
  job.serial_fraction = field<double>(j, "serial_fraction", where);
  job.comm_fraction = j.contains("comm_fraction") ? field<double>(j, "comm_fraction", where) : 0.0;
  job.iterations = field<int>(j, "iterations", where);
  job.limit_s = j.contains("limit_s") ? field<double>(j, "limit_s", where) : 0.0;
  job.run_limit_s = j.contains("run_limit_s") ? field<double>(j, "run_limit_s", where) : 0.0;
  job.user = j.contains("user") ? field<long>(j, "user", where) : -1;
  if (j.contains("user") && job.user < 0) throw Error(where + ": user must be >= 0");
  if (!(1 <= job.min_nodes && job.min_nodes <= job.nodes && job.nodes <= job.max_nodes && job.max_nodes <= machine))
    throw Error(where + ": sizes must satisfy 1 <= min_nodes <= nodes <= max_nodes <= " + std::to_string(machine) +
                " (got " + std::to_string(job.min_nodes) + ", " + std::to_string(job.nodes) + ", " +
                std::to_string(job.max_nodes) + ")");
  if (!job.malleable && job.min_nodes != job.max_nodes)
    throw Error(where + ": a rigid job has min_nodes = max_nodes");
  if (!(job.work_node_s > 0)) throw Error(where + ": work_node_s must be positive");
  if (!(job.serial_fraction >= 0 && job.serial_fraction < 1)) throw Error(where + ": serial_fraction must be in [0, 1)");
  if (!(job.comm_fraction >= 0 && job.comm_fraction < 1)) throw Error(where + ": comm_fraction must be in [0, 1)");
  if (job.iterations < 1) throw Error(where + ": iterations must be at least 1");
  if (!(job.submit_s >= 0)) throw Error(where + ": submit_s must be >= 0");
  if (!(job.limit_s >= 0) || !(job.run_limit_s >= 0)) throw Error(where + ": limit_s and run_limit_s must be >= 0");
  return job;
}

}  // namespace

Workload parse_workload(const std::string& json_text, int machine) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("workload: not JSON: ") + e.what());
  }
  if (!doc.is_object()) throw Error("workload: not a JSON object");
  Workload w;
  w.model = doc.value("model", std::string());
  w.seed = doc.value("seed", 0L);
  w.nodes = field<int>(doc, "nodes", "workload");
  w.malleable_share = doc.value("malleable_share", 0.0);
  w.time_scale = doc.value("time_scale", 1.0);
  if (machine > 0) w.nodes = machine;
  if (w.nodes < 1) throw Error("workload: nodes must be at least 1");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    throw Error("workload: 'jobs' must be a non-empty array");
  double last = 0;
  for (std::size_t i = 0; i < doc["jobs"].size(); ++i) {
    w.jobs.push_back(parse_job(doc["jobs"][i], i, w.nodes));
    if (w.jobs.back().submit_s < last) throw Error("job " + w.jobs.back().id + ": submitted before its predecessor");
    last = w.jobs.back().submit_s;
  }
  return w;
}

std::string workload_json(const Workload& w) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& j : w.jobs) {
    nlohmann::json o = {{"id", j.id},
                        {"submit_s", j.submit_s},
                        {"nodes", j.nodes},
                        {"min_nodes", j.min_nodes},
                        {"max_nodes", j.max_nodes},
                        {"malleable", j.malleable},
                        {"program", j.program},
                        {"work_node_s", j.work_node_s},
                        {"serial_fraction", j.serial_fraction},
                        {"iterations", j.iterations}};
    if (j.limit_s > 0) o["limit_s"] = j.limit_s;
    if (j.run_limit_s > 0) o["run_limit_s"] = j.run_limit_s;
    if (j.comm_fraction > 0) o["comm_fraction"] = j.comm_fraction;
    if (j.user >= 0) o["user"] = j.user;
    jobs.push_back(std::move(o));
  }
  const nlohmann::json doc = {{"model", w.model},          {"seed", w.seed},
                              {"nodes", w.nodes},          {"malleable_share", w.malleable_share},
                              {"time_scale", w.time_scale}, {"jobs", std::move(jobs)}};
  return doc.dump(1) + "\n";
}

}  // namespace clustersim
