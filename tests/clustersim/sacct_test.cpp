// SPDX-License-Identifier: BSD-3-Clause
// The sacct reader (sim/src/sacct.hpp) on a small hand-written accounting log
// (data/site.sacct: steps, array and het jobs, cancelled, pending and running jobs, every
// ended state, odd fields), its refusals of malformed lines (each naming the line and the
// reason), a fuzz of seeded random bytes and mutated lines (no crash: an Error or records,
// never more records than lines), and the cleaning's ten-year rule on an SWF record.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sacct.hpp"

using namespace clustersim;

namespace {

std::string site_log() {
  std::string here = __FILE__;
  here = here.substr(0, here.find_last_of('/'));
  std::ifstream f(here + "/data/site.sacct");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string kHeader = "JobIDRaw|User|Partition|Submit|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqNodes|ReqCPUS|State\n";
const std::string kGood = "7|u|p|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:11:00|00:10:00|01:00:00|2|8|2|8|COMPLETED";

// The line `good` with field k (0-based) replaced by v.
std::string with_field(int k, const std::string& v) {
  std::vector<std::string> f;
  std::stringstream in(kGood);
  for (std::string x; std::getline(in, x, '|');) f.push_back(x);
  f[static_cast<std::size_t>(k)] = v;
  std::string out;
  for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "|" : "") + f[i];
  return out;
}

void expect_refused(const std::string& text, const std::string& part) {
  try {
    parse_sacct(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what() << "\nwanted: " << part;
  }
}

const SwfRecord* by_id(const SwfTrace& t, const std::string& id) {
  for (const auto& r : t.records)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace

TEST(ClusterSimSacct, ReadsTheRecordedSiteLog) {
  const std::string text = site_log();
  ASSERT_FALSE(text.empty());
  ASSERT_TRUE(looks_like_sacct(text));
  const SacctLog log = parse_sacct(text);
  EXPECT_EQ(log.counts.lines, 21u);
  EXPECT_EQ(log.counts.steps, 3u);      // 1001.batch, 1001.extern, 1001.0
  EXPECT_EQ(log.counts.not_ended, 3u);  // 1012 PENDING, 1013 RUNNING, 1014_[4-9%2] PENDING
  EXPECT_EQ(log.counts.jobs, 15u);
  const SwfTrace& t = log.trace;
  ASSERT_EQ(t.records.size(), 15u);
  EXPECT_EQ(t.header.max_nodes, -1);  // sacct does not record the machine
  // 2024-03-04T08:00:00, the first submission, read as the wall clock.
  EXPECT_EQ(t.header.unix_start, 1709539200);
  const SwfRecord* a = by_id(t, "j1001");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->job, 1001);
  EXPECT_DOUBLE_EQ(a->submit_s, 0);
  EXPECT_DOUBLE_EQ(a->wait_s, 5);
  EXPECT_DOUBLE_EQ(a->run_s, 600);
  EXPECT_DOUBLE_EQ(a->req_time_s, 3600);
  EXPECT_EQ(a->alloc_nodes, 2);
  EXPECT_EQ(a->alloc_procs, 64);
  EXPECT_EQ(a->req_nodes, 2);
  EXPECT_EQ(a->req_procs, 64);
  EXPECT_EQ(a->status, 1);
  EXPECT_EQ(a->user, 1);       // alice, the first user seen
  EXPECT_EQ(a->partition, 1);  // batch
  const SwfRecord* timeout = by_id(t, "j1002");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->status, 0);
  EXPECT_EQ(timeout->user, 2);  // bob
  EXPECT_DOUBLE_EQ(timeout->wait_s, 545);
  const SwfRecord* never = by_id(t, "j1003");  // cancelled before it started: Start None
  ASSERT_NE(never, nullptr);
  EXPECT_EQ(never->status, 5);
  EXPECT_DOUBLE_EQ(never->wait_s, -1);
  EXPECT_DOUBLE_EQ(never->run_s, 0);
  EXPECT_EQ(never->partition, 2);  // debug
  const SwfRecord* mmss = by_id(t, "j1004");  // Elapsed 02:30 (MM:SS), Timelimit 1-00:00:00
  ASSERT_NE(mmss, nullptr);
  EXPECT_DOUBLE_EQ(mmss->run_s, 150);
  EXPECT_DOUBLE_EQ(mmss->req_time_s, 86400);
  EXPECT_EQ(mmss->status, 0);
  EXPECT_DOUBLE_EQ(by_id(t, "j1005")->req_time_s, -1);  // UNLIMITED
  EXPECT_EQ(by_id(t, "j1005")->status, 5);              // CANCELLED by 1001, after it ran
  EXPECT_DOUBLE_EQ(by_id(t, "j1006")->req_time_s, -1);  // Partition_Limit
  for (const char* id : {"j1006", "j1007", "j1015", "j1016", "j1017"}) EXPECT_EQ(by_id(t, id)->status, 0) << id;
  ASSERT_NE(by_id(t, "j1008_3"), nullptr);  // an array task
  EXPECT_EQ(by_id(t, "j1008_3")->job, 1008);
  ASSERT_NE(by_id(t, "j1009+0"), nullptr);  // a het job's two components
  ASSERT_NE(by_id(t, "j1009+1"), nullptr);
  EXPECT_EQ(by_id(t, "j1016")->user, -1);  // no user name
  EXPECT_GT(by_id(t, "j1011")->run_s, kMaxPlausibleS);

  // The cleaning: NNodes counted; the cancelled one, the 16-node one on 8 and the 5000-day
  // one dropped, each counted.
  SwfCleaning c;
  c.machine_nodes = 8;
  const TraceJobs tj = clean_swf(t, c);
  EXPECT_EQ(tj.counts.records, 15u);
  EXPECT_EQ(tj.counts.cancelled, 1u);
  EXPECT_EQ(tj.counts.too_large, 1u);
  EXPECT_EQ(tj.counts.implausible, 1u);
  EXPECT_EQ(tj.counts.kept, 12u);
  EXPECT_EQ(tj.jobs.front().id, "j1001");
  EXPECT_EQ(tj.jobs.front().nodes, 2);
  EXPECT_DOUBLE_EQ(tj.jobs.front().requested_s, 3600);
  // With processors per node asked for, NCPUS / C instead of NNodes: 64 / 16.
  c.cores_per_node = 16;
  c.nodes_from_procs = true;
  EXPECT_EQ(clean_swf(t, c).jobs.front().nodes, 4);
}

TEST(ClusterSimSacct, FieldsByNameInAnyOrderAndOtherForms) {
  // Another order, raw seconds and minutes, epoch dates, UID in place of User, a trailing
  // '|' (sacct --parsable), CRLF line ends, fields the reader does not use.
  const std::string text =
      "State|NCPUS|Submit|Start|ElapsedRaw|TimelimitRaw|UID|JobID|JobName|\r\n"
      "COMPLETED|4|1700000000|1700000060|120|5|1234|55|a b|\r\n"
      "\r\n"
      "TIMEOUT|2|1700000010|1700000070|300|UNLIMITED|99|56.batch|x|\r\n"
      "CANCELLED by 0|8|1700000020|1700000000|0|10|1234|57|y|\r\n";
  ASSERT_TRUE(looks_like_sacct(text));
  const SacctLog log = parse_sacct(text);
  ASSERT_EQ(log.trace.records.size(), 2u);
  EXPECT_EQ(log.counts.steps, 1u);
  const SwfRecord& r = log.trace.records[0];
  EXPECT_DOUBLE_EQ(r.wait_s, 60);
  EXPECT_DOUBLE_EQ(r.run_s, 120);
  EXPECT_DOUBLE_EQ(r.req_time_s, 300);
  EXPECT_EQ(r.alloc_procs, 4);
  EXPECT_EQ(r.alloc_nodes, -1);
  EXPECT_EQ(r.user, 1);
  EXPECT_EQ(log.trace.header.unix_start, 1700000000);
  // A Start before its Submit: the wait unknown, counted.
  EXPECT_DOUBLE_EQ(log.trace.records[1].wait_s, -1);
  EXPECT_EQ(log.counts.start_before_submit, 1u);
  EXPECT_EQ(log.trace.records[1].user, 1);
  // Not a sacct header.
  EXPECT_FALSE(looks_like_sacct("; MaxNodes: 8\n1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n"));
  EXPECT_FALSE(looks_like_sacct(""));
  EXPECT_FALSE(looks_like_sacct("a|b|c\n"));
}

TEST(ClusterSimSacct, MalformedLinesAreRefusedWithTheLineAndTheReason) {
  expect_refused("", "no header line");
  expect_refused("JobIDRaw|User\n1|u\n", "missing Submit Start State Elapsed NNodes");
  expect_refused("JobIDRaw|JobIDRaw|Submit\n", "twice");
  expect_refused(kHeader + kGood + "\n" + kGood + "|extra\n", "sacct line 3: 14 fields, the header has 13");
  expect_refused(kHeader + "7|u|p\n", "sacct line 2: 3 fields");
  expect_refused(kHeader + with_field(0, "x7") + "\n", "sacct line 2: JobIDRaw 'x7' is not a job id");
  expect_refused(kHeader + with_field(0, "") + "\n", "is not a job id");
  expect_refused(kHeader + with_field(0, "7.") + "\n", "is not a job id");
  expect_refused(kHeader + with_field(0, "7_x") + "\n", "is not a job id");
  expect_refused(kHeader + with_field(0, "12345678901") + "\n", "is not a job id");
  expect_refused(kHeader + with_field(12, "EXPLODED") + "\n", "State 'EXPLODED' is not a Slurm 22.05 job state");
  expect_refused(kHeader + with_field(12, "CANCELLED by me") + "\n", "is not a Slurm 22.05 job state");
  expect_refused(kHeader + with_field(12, "COMPLETED now") + "\n", "is not a Slurm 22.05 job state");
  expect_refused(kHeader + with_field(12, "") + "\n", "is not a Slurm 22.05 job state");
  expect_refused(kHeader + with_field(3, "Unknown") + "\n", "Submit 'Unknown' is unknown");
  expect_refused(kHeader + with_field(3, "2024-13-01T00:00:00") + "\n", "is not a calendar date");
  expect_refused(kHeader + with_field(3, "2023-02-29T00:00:00") + "\n", "is not a calendar date");
  expect_refused(kHeader + with_field(3, "2024-01-01 00:00:00") + "\n", "is not a date");
  expect_refused(kHeader + with_field(3, "1969-12-31T23:59:59") + "\n", "outside the years 1970-2200");
  expect_refused(kHeader + with_field(3, "99999999999") + "\n", "past the year 2200");
  expect_refused(kHeader + with_field(4, "yesterday") + "\n", "Start 'yesterday' is not a date");
  expect_refused(kHeader + with_field(6, "10") + "\n", "Elapsed '10' is not a duration");
  expect_refused(kHeader + with_field(6, "00:61:00") + "\n", "is not a duration");
  expect_refused(kHeader + with_field(6, "1-25:00:00") + "\n", "is not a duration");
  expect_refused(kHeader + with_field(6, "1-00:00") + "\n", "is not a duration");
  expect_refused(kHeader + with_field(6, "-00:01:00") + "\n", "is not a duration");
  expect_refused(kHeader + with_field(6, "00:01:") + "\n", "is not a duration");
  expect_refused(kHeader + with_field(6, "UNLIMITED") + "\n", "is not a duration");  // only a limit may be
  expect_refused(kHeader + with_field(7, "forever") + "\n", "Timelimit 'forever' is not a duration");
  expect_refused(kHeader + with_field(8, "-1") + "\n", "NNodes '-1' is not a count");
  expect_refused(kHeader + with_field(9, "4294967296") + "\n", "NCPUS '4294967296' is not a count");
  expect_refused(kHeader + with_field(11, "1.5") + "\n", "ReqCPUS '1.5' is not a count");
  // A malformed line is refused whatever its state, a pending job's too.
  expect_refused(kHeader + with_field(12, "PENDING").replace(0, 1, "?") + "\n", "is not a job id");
  expect_refused(kHeader + kGood + "\n" + kGood + "\n", "sacct line 3: job '7' again (first on line 2)");
  expect_refused(kHeader + std::string(kSacctMaxLine + 1, 'x') + "\n", "sacct line 2: 65537 bytes, longer than 65536");
  std::string wide = "JobIDRaw";
  for (int k = 0; k < 300; ++k) wide += "|F" + std::to_string(k);
  expect_refused(wide + "\n", "301 fields in the header, more than 256");
  // Control bytes in a refused value are shown as '?'.
  expect_refused(kHeader + with_field(12, std::string("X\x01Y")) + "\n", "State 'X?Y'");
}

TEST(ClusterSimSacct, FuzzedInputNeverCrashes) {
  std::mt19937_64 rng(91);
  const std::string good = site_log();
  const std::string alphabet = "0123456789|-:_+.T []%\nabcdefCOMPLETEDUnknownNone";
  std::size_t refused = 0, read = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const int kind = round % 3;
    if (kind == 0) {  // random bytes after a good header
      text = kHeader;
      const std::size_t n = rng() % 600;
      for (std::size_t k = 0; k < n; ++k) text += static_cast<char>(rng() % 256);
    } else if (kind == 1) {  // a good log with bytes flipped, cut or repeated
      text = good;
      for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
          case 1: text.erase(at, rng() % 20); break;
          default: {
            const std::string piece = text.substr(at, rng() % 40);
            text.insert(at, piece);
            break;
          }
        }
        if (text.empty()) text.push_back('x');
      }
    } else {  // fields drawn from the alphabet under a good header
      text = kHeader;
      for (int l = 0; l < 20; ++l) {
        for (int f = 0; f < 13; ++f) {
          if (f) text += '|';
          for (std::size_t k = rng() % 12; k > 0; --k) text += alphabet[rng() % alphabet.size()];
        }
        text += '\n';
      }
    }
    try {
      const SacctLog log = parse_sacct(text);
      ++read;
      const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      EXPECT_LE(log.trace.records.size(), lines);
      EXPECT_EQ(log.counts.jobs, log.trace.records.size());
      for (const auto& r : log.trace.records) {
        EXPECT_GE(r.submit_s, 0);
        EXPECT_TRUE(r.wait_s == -1 || r.wait_s >= 0);
        EXPECT_GE(r.run_s, -1);
        EXPECT_LT(r.run_s, 1e13);  // at most 9,999,999 days
      }
    } catch (const Error& e) {
      ++refused;
      EXPECT_EQ(std::string(e.what()).rfind("sacct", 0), 0u) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 1000u);  // a value is shown cut short
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(read, 0u);
}

TEST(ClusterSimSwf, RunTimePastTenYearsIsDroppedAndCounted) {
  const SwfTrace t = parse_swf(
      "; MaxNodes: 4\n"
      "1 0 0 1e15 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"  // a run time of 1e15 s
      "2 1 0 10 1 -1 -1 1 1e12 -1 1 1 1 -1 1 -1 -1 -1\n"   // a requested time of 1e12 s
      "3 2 0 10 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n");
  const TraceJobs tj = clean_swf(t, SwfCleaning{});
  EXPECT_EQ(tj.counts.implausible, 2u);
  ASSERT_EQ(tj.jobs.size(), 1u);
  EXPECT_EQ(tj.jobs[0].id, "j3");
}
