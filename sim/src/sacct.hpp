// SPDX-License-Identifier: BSD-3-Clause
// A site's own Slurm accounting for the cluster simulator: the text of
//   sacct --allusers --allocations --parsable2 --starttime S --endtime E
//         --format=JobIDRaw,User,Partition,Submit,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqNodes,ReqCPUS,State
// (kSacctFormat; Slurm 22.05's field names, man sacct) read into the records the Standard
// Workload Format reader produces (swf.hpp), so that the same cleaning, model and replay
// apply. Pure: text in, data out.
//
// The first line is sacct's header ("JobIDRaw|User|..."): the fields are found by their
// names (any order, case-insensitive; others are ignored), so a site may add fields. Needed:
// JobIDRaw (or JobID), Submit, Start, State, Elapsed (or ElapsedRaw, or End), and NNodes
// (or AllocNodes) or NCPUS (or AllocCPUS). Optional: User (or UID), Partition, Timelimit
// (or TimelimitRaw, minutes), ReqNodes, ReqCPUS, End.
//
// Each line becomes one SWF record:
//   job number   the id's leading number (123 of 123, 123_4, 123+0); the job's id "j<id>"
//   submit       Submit; wait: Start - Submit (Start Unknown or None: unknown)
//   run time     Elapsed ([D-][HH:]MM:SS[.frac], or seconds with ElapsedRaw), else End - Start
//   allocated    NCPUS processors and NNodes nodes (swf.hpp: the nodes a job counts are
//                NNodes unless --cores-per-node asks for NCPUS / C)
//   requested    ReqCPUS processors, ReqNodes nodes, Timelimit (UNLIMITED, Partition_Limit,
//                INVALID or empty: none)
//   status       COMPLETED 1; CANCELLED (also "CANCELLED by UID") 5; FAILED, TIMEOUT,
//                NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED 0
//   user         User names (or UIDs) numbered 1, 2, ... in order of first appearance, as
//                the Parallel Workloads Archive does; Partition the same way
// Dates are sacct's YYYY-MM-DDTHH:MM:SS (its default, the site's local time, read as the
// wall clock: a daylight-saving change shifts the waits that span it by an hour) or epoch
// seconds (SLURM_TIME_FORMAT=%s). The header's UnixStartTime is the first submission, its
// time zone 0: --prime-time hours are the log's own wall clock.
//
// What a real site's log holds is kept or dropped and counted (SacctCounts), never refused:
//   steps (123.batch, 123.extern, 123.0: a log taken without --allocations): skipped
//   jobs that had not ended when the log was taken (PENDING, RUNNING, SUSPENDED, REQUEUED,
//   RESIZING, REVOKED): dropped
// A job cancelled before it started is a record without a run time (status 5), dropped by
// the cleaning as "cancelled"; run times past ten years are dropped there too (swf.hpp).
// What sacct never writes is refused, throwing Error with the line and the reason: a first
// line that is not a header with the needed fields, a line longer than kSacctMaxLine, a
// header of more than kSacctMaxFields fields, a line whose field count is not the header's,
// an empty or malformed id, a date or duration that does not parse (or a date outside
// 1970-2200), a count that is not a whole number in [0, 2^32), an unknown state, an unknown
// submit time, and a job id seen twice (a log taken with --duplicates).
#pragma once

#include <cstddef>
#include <string>

#include "swf.hpp"

namespace clustersim {

// The fields the simulator reads, in the order the documented command asks for them.
inline constexpr const char* kSacctFormat =
    "JobIDRaw,User,Partition,Submit,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqNodes,ReqCPUS,State";
inline constexpr std::size_t kSacctMaxLine = 65536;
inline constexpr std::size_t kSacctMaxFields = 256;

struct SacctCounts {
  std::size_t lines = 0;      // data lines read (the header and empty lines not counted)
  std::size_t steps = 0;      // job steps skipped
  std::size_t not_ended = 0;  // jobs pending, running, suspended, ... when the log was taken
  std::size_t start_before_submit = 0;  // a Start before the Submit: the wait unknown
  std::size_t jobs = 0;       // records made (handed to the cleaning)
};

struct SacctLog {
  SwfTrace trace;  // header: UnixStartTime the first submission, no machine size
  SacctCounts counts;
};

// True when the text's first non-empty line is a sacct --parsable2 header (a '|'-separated
// line one of whose fields is JobIDRaw or JobID).
bool looks_like_sacct(const std::string& text);

SacctLog parse_sacct(const std::string& text);

}  // namespace clustersim
