// SPDX-License-Identifier: BSD-3-Clause
// The Standard Workload Format reader (sim/src/swf.hpp): header, good records, each
// kind of malformed record (an error naming line and field), the cleaning's rules and
// counts, processors to nodes, the recorded metrics, and the jobs made from a trace.
#include <gtest/gtest.h>

#include <string>

#include "swf.hpp"

using namespace clustersim;

namespace {

const char* kTrace =
    "; Version: 2.2\n"
    "; Computer: Test SP2\n"
    "; Acknowledge: Someone\n"
    "; UnixStartTime: 1000\n"
    "; MaxNodes: 8\n"
    "; MaxProcs: 16\n"
    "; Note: a test\n"
    ";\n"
    "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 5 0 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n"
    "\n"
    "3 7 -1 -1 -1 -1 -1 4 100 -1 5 3 1 -1 1 -1 -1 -1\n"    // cancelled, never ran
    "4 8 3 0 2 -1 -1 2 100 -1 0 3 1 -1 1 -1 -1 -1\n"       // failed, no run time
    "5 9 1 10 -1 -1 -1 -1 100 -1 1 3 1 -1 1 -1 -1 -1\n"     // no processors
    "6 11 1 10 18 -1 -1 18 100 -1 1 3 1 -1 1 -1 -1 -1\n"    // 9 nodes of 2 cores > 8
    "7 3 2 30 -1 -1 -1 3 -1 -1 1 4 1 -1 1 -1 -1 -1\n";      // requested processors only, out of order

std::string with_record(const std::string& record) { return std::string("; MaxNodes: 4\n") + record + "\n"; }

void expect_error(const std::string& text, const std::string& part) {
  try {
    parse_swf(text);
    FAIL() << "no error for: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(ClusterSimSwf, ReadsHeaderAndRecords) {
  const SwfTrace t = parse_swf(kTrace);
  EXPECT_EQ(t.header.version, "2.2");
  EXPECT_EQ(t.header.computer, "Test SP2");
  EXPECT_EQ(t.header.acknowledge, "Someone");
  EXPECT_EQ(t.header.unix_start, 1000);
  EXPECT_EQ(t.header.max_nodes, 8);
  EXPECT_EQ(t.header.max_procs, 16);
  ASSERT_EQ(t.header.notes.size(), 1u);
  ASSERT_EQ(t.records.size(), 7u);
  const SwfRecord& r = t.records[0];
  EXPECT_EQ(r.line, 9);
  EXPECT_EQ(r.job, 1);
  EXPECT_DOUBLE_EQ(r.wait_s, 10);
  EXPECT_DOUBLE_EQ(r.run_s, 100);
  EXPECT_EQ(r.alloc_procs, 4);
  EXPECT_DOUBLE_EQ(r.req_time_s, 200);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.user, 1);
  EXPECT_EQ(t.records[2].line, 12);  // the blank line counts
}

TEST(ClusterSimSwf, MalformedRecordsNameLineAndField) {
  expect_error(with_record("1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1"), "line 2: 17 fields");
  expect_error(with_record("1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1 7"), "line 2: 19 fields");
  expect_error(with_record("1 0 10 1x0 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"), "line 2, field 4 (run time): '1x0'");
  expect_error(with_record("1 0 10 100 -3 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"),
               "line 2, field 5 (allocated processors): -3 is below -1");
  expect_error(with_record("1 -1 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"), "field 2 (submit time)");
  expect_error(with_record("1 0 10 100 4 -1 -1 4 200 -1 7 1 1 -1 1 -1 -1 -1"), "field 11 (status): 7");
  expect_error(with_record("1 0 10 100 4 -1 -1 4 nan -1 1 1 1 -1 1 -1 -1 -1"), "field 9 (requested time)");
}

TEST(ClusterSimSwf, CleaningCountsEveryRuleAndMapsProcessorsToNodes) {
  SwfCleaning c;
  c.cores_per_node = 2;
  const TraceJobs t = clean_swf(parse_swf(kTrace), c);
  EXPECT_EQ(t.machine_nodes, 8);
  EXPECT_EQ(t.counts.records, 7u);
  EXPECT_EQ(t.counts.cancelled, 1u);
  EXPECT_EQ(t.counts.no_run_time, 1u);
  EXPECT_EQ(t.counts.zero_procs, 1u);
  EXPECT_EQ(t.counts.too_large, 1u);
  EXPECT_EQ(t.counts.kept, 3u);
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].id, "j1");
  EXPECT_EQ(t.jobs[0].nodes, 2);  // 4 processors, 2 per node
  EXPECT_EQ(t.jobs[1].id, "j7");  // sorted by submission
  EXPECT_EQ(t.jobs[1].nodes, 2);  // 3 requested processors: 2 nodes
  EXPECT_DOUBLE_EQ(t.jobs[1].submit_s, 3);
  EXPECT_DOUBLE_EQ(t.jobs[1].requested_s, -1);
  EXPECT_EQ(t.jobs[2].id, "j2");
  EXPECT_EQ(t.jobs[2].nodes, 1);

  c.cores_per_node = 1;
  c.machine_nodes = 3;  // given: overrides the header; 4 processors no longer fit
  c.first = 1;
  c.count = 1;
  const TraceJobs w = clean_swf(parse_swf(kTrace), c);
  EXPECT_EQ(w.machine_nodes, 3);
  EXPECT_EQ(w.counts.too_large, 2u);
  EXPECT_EQ(w.counts.outside_window, 1u);
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, "j2");
  EXPECT_DOUBLE_EQ(w.jobs[0].submit_s, 0);  // times from the window's first submission

  EXPECT_THROW(clean_swf(parse_swf("1 0 1 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n"), SwfCleaning{}), Error);
  SwfCleaning zero;
  zero.cores_per_node = 0;
  EXPECT_THROW(clean_swf(parse_swf(kTrace), zero), Error);
}

TEST(ClusterSimSwf, RecordedMetrics) {
  SwfCleaning c;
  c.cores_per_node = 2;
  const RecordedMetrics m = recorded_metrics(clean_swf(parse_swf(kTrace), c));
  // j1: 0 + 10 + 100 = 110 on 2 nodes; j7: 3 + 2 + 30 = 35 on 2; j2: 5 + 0 + 50 = 55 on 1
  EXPECT_TRUE(m.waits_known);
  EXPECT_DOUBLE_EQ(m.makespan_s, 110);
  EXPECT_DOUBLE_EQ(m.mean_wait_s, 4);
  EXPECT_DOUBLE_EQ(m.mean_turnaround_s, (110 + 32 + 50) / 3.0);
  EXPECT_DOUBLE_EQ(m.utilisation, (200 + 60 + 50) / (8 * 110.0));
}

TEST(ClusterSimSwf, JobsFromATrace) {
  SwfCleaning c;
  c.cores_per_node = 2;
  const TraceJobs t = clean_swf(parse_swf(kTrace), c);
  TraceModel m;
  m.iteration_s = 20;
  const Workload rigid = trace_workload(t, m);
  ASSERT_EQ(rigid.jobs.size(), 3u);
  EXPECT_EQ(rigid.nodes, 8);
  for (std::size_t k = 0; k < t.jobs.size(); ++k) {
    const Job& j = rigid.jobs[k];
    EXPECT_FALSE(j.malleable);
    EXPECT_EQ(j.min_nodes, j.nodes);
    EXPECT_NEAR(j.runtime_s(j.nodes), t.jobs[k].run_s, 1e-9);  // its recorded time on its nodes
    EXPECT_GE(j.serial_fraction, 0.01);
    EXPECT_LE(j.serial_fraction, 0.10);
  }
  EXPECT_EQ(rigid.jobs[0].iterations, 5);          // 100 s / 20 s
  EXPECT_DOUBLE_EQ(rigid.jobs[0].limit_s, 200);    // the user's requested time
  EXPECT_DOUBLE_EQ(rigid.jobs[1].limit_s, 0);      // none in the trace: exact
  m.malleable_share = 1;
  const Workload all = trace_workload(t, m);
  EXPECT_TRUE(all.jobs[0].malleable);
  EXPECT_EQ(all.jobs[0].min_nodes, 1);
  EXPECT_EQ(all.jobs[0].max_nodes, 4);
  EXPECT_EQ(all.jobs[2].min_nodes, 1);
  EXPECT_EQ(all.jobs[2].max_nodes, 2);
  for (std::size_t k = 0; k < t.jobs.size(); ++k)  // the same speedups in every arm
    EXPECT_DOUBLE_EQ(all.jobs[k].serial_fraction, rigid.jobs[k].serial_fraction);
  m.arrival_scale = 0.5;
  const Workload fast = trace_workload(t, m);
  EXPECT_DOUBLE_EQ(fast.jobs[1].submit_s, 1.5);  // j7 at 3 s, arriving twice as fast
  EXPECT_DOUBLE_EQ(fast.jobs[2].submit_s, 2.5);
  m.arrival_scale = 0;
  EXPECT_THROW(trace_workload(t, m), Error);
  m.arrival_scale = 1;
  m.serial_lo = 0.5;
  m.serial_hi = 0.2;
  EXPECT_THROW(trace_workload(t, m), Error);
}

// A trace's jobs written as workload JSON (--write-workload, read by the emulated runner)
// read back as the same jobs: every field the simulator uses survives the round trip.
TEST(ClusterSimSwf, WorkloadJsonRoundTrip) {
  SwfCleaning c;
  c.cores_per_node = 2;
  TraceModel m;
  m.malleable_share = 0.5;
  m.iteration_s = 20;
  const Workload w = trace_workload(clean_swf(parse_swf(kTrace), c), m);
  const Workload r = parse_workload(workload_json(w));
  EXPECT_EQ(r.nodes, w.nodes);
  EXPECT_EQ(r.seed, w.seed);
  EXPECT_EQ(r.model, w.model);
  EXPECT_DOUBLE_EQ(r.malleable_share, w.malleable_share);
  ASSERT_EQ(r.jobs.size(), w.jobs.size());
  for (std::size_t k = 0; k < w.jobs.size(); ++k) {
    const Job &a = w.jobs[k], &b = r.jobs[k];
    EXPECT_EQ(b.id, a.id);
    EXPECT_DOUBLE_EQ(b.submit_s, a.submit_s);
    EXPECT_EQ(b.nodes, a.nodes);
    EXPECT_EQ(b.min_nodes, a.min_nodes);
    EXPECT_EQ(b.max_nodes, a.max_nodes);
    EXPECT_EQ(b.malleable, a.malleable);
    EXPECT_EQ(b.program, a.program);
    EXPECT_DOUBLE_EQ(b.work_node_s, a.work_node_s);
    EXPECT_DOUBLE_EQ(b.serial_fraction, a.serial_fraction);
    EXPECT_EQ(b.iterations, a.iterations);
    EXPECT_DOUBLE_EQ(b.limit_s, a.limit_s);
    EXPECT_DOUBLE_EQ(b.run_limit_s, a.run_limit_s);
    EXPECT_EQ(b.user, a.user);  // per-user limits and fair-share count it
  }
  // The trace's user field (the 12th) reaches the job: jobs 1, 7 (submitted at 3) and 2.
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].id + ":" + std::to_string(w.jobs[0].user), "j1:1");
  EXPECT_EQ(w.jobs[1].id + ":" + std::to_string(w.jobs[1].user), "j7:4");
  EXPECT_EQ(w.jobs[2].id + ":" + std::to_string(w.jobs[2].user), "j2:2");
}

// Processors per node that contradict the header's own node count are refused, not
// silently overridden by MaxNodes (the offered load would change without a word).
TEST(ClusterSimSwf, CoresPerNodeConflictingWithTheHeaderIsRefused) {
  const std::string text = "; MaxNodes: 100\n; MaxProcs: 100\n1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n";
  SwfCleaning c;
  EXPECT_EQ(clean_swf(parse_swf(text), c).machine_nodes, 100);
  c.cores_per_node = 2;
  try {
    clean_swf(parse_swf(text), c);
    FAIL() << "a conflicting --cores-per-node was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MaxNodes is 100"), std::string::npos) << e.what();
  }
  c.machine_nodes = 50;  // the machine's size given: no conflict left
  EXPECT_EQ(clean_swf(parse_swf(text), c).jobs.at(0).nodes, 2);
  SwfCleaning header_agrees;  // MaxProcs 16 / 2 = MaxNodes 8 (kTrace)
  header_agrees.cores_per_node = 2;
  EXPECT_EQ(clean_swf(parse_swf(kTrace), header_agrees).machine_nodes, 8);
}

// Records without a run time but with a CPU time are counted with their load, dropped by
// default and kept on request (their CPU time as their run time).
TEST(ClusterSimSwf, RecordsWithCpuTimeButNoRunTimeAreCounted) {
  const std::string text =
      "; MaxNodes: 8\n"
      "1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 5 0 -1 4 30 -1 4 200 -1 0 1 1 -1 1 -1 -1 -1\n"   // no run time, 30 s CPU on 4 processors
      "3 6 0 -1 2 -1 -1 2 200 -1 5 1 1 -1 1 -1 -1 -1\n";  // cancelled, nothing recorded
  SwfCleaning c;
  const TraceJobs dropped = clean_swf(parse_swf(text), c);
  EXPECT_EQ(dropped.counts.kept, 1u);
  EXPECT_EQ(dropped.counts.cpu_only, 1u);
  EXPECT_DOUBLE_EQ(dropped.counts.cpu_only_proc_s, 120);
  EXPECT_EQ(dropped.counts.no_run_time, 1u);
  EXPECT_EQ(dropped.counts.cancelled, 1u);
  c.cpu_as_run = true;
  const TraceJobs kept = clean_swf(parse_swf(text), c);
  EXPECT_EQ(kept.counts.kept, 2u);
  EXPECT_EQ(kept.counts.cpu_only, 1u);
  EXPECT_EQ(kept.counts.no_run_time, 0u);
  EXPECT_DOUBLE_EQ(kept.jobs.at(1).run_s, 30);
  EXPECT_EQ(kept.jobs.at(1).nodes, 4);
}

// Measured speedup curves: each job's application drawn from them, its work such that it
// runs its recorded time on its recorded nodes; the malleable choice and the Amdahl draws
// are those of the Amdahl model (the same jobs malleable in both).
TEST(ClusterSimSwf, MeasuredSpeedupCurves) {
  const auto curves = parse_speedup_curves(
      R"({"curves":[{"app":"pdgemm","size":"N=4000","serial":0.02,"comm":0.01},{"app":"life","serial":0.1,"comm":0}]})");
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].app, "pdgemm N=4000");
  EXPECT_EQ(curves[1].app, "life");
  EXPECT_THROW(parse_speedup_curves(R"({"curves":[]})"), Error);
  EXPECT_THROW(parse_speedup_curves(R"({"curves":[{"app":"x","serial":1.2,"comm":0}]})"), Error);
  EXPECT_THROW(parse_speedup_curves("not json"), Error);
  SwfCleaning c;
  c.cores_per_node = 2;
  const TraceJobs t = clean_swf(parse_swf(kTrace), c);
  TraceModel m;
  m.malleable_share = 0.5;
  const Workload amdahl = trace_workload(t, m);
  m.apps = curves;
  const Workload measured = trace_workload(t, m);
  ASSERT_EQ(measured.jobs.size(), t.jobs.size());
  for (std::size_t k = 0; k < t.jobs.size(); ++k) {
    const Job& j = measured.jobs[k];
    EXPECT_EQ(j.malleable, amdahl.jobs[k].malleable);
    EXPECT_TRUE(j.program == "pdgemm N=4000" || j.program == "life") << j.program;
    EXPECT_DOUBLE_EQ(j.serial_fraction, j.program == "life" ? 0.1 : 0.02);
    EXPECT_NEAR(j.runtime_s(j.nodes), t.jobs[k].run_s, 1e-9);
  }
}
