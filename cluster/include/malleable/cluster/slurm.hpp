// SPDX-License-Identifier: BSD-3-Clause
// A real resource manager drives the resizes: Slurm 22.05, in the role of the
// scheduler that offers and takes back processes. At each remap point the Slurm policy
// looks at the job's allocation, the idle nodes and the pending jobs, and
//   - gives whole nodes back when a pending job waits for nodes this job holds: the job
//     shrinks so that every process on those nodes ends (blacs_dyn_release_hosts), then
//     `scontrol update JobId=J NodeList=<the rest>` returns them to Slurm;
//   - grows when nodes are idle, nobody waits for them and growing pays (the payoff
//     point against the iterations left): Slurm 22.05's documented expansion, a step-less
//     allocation `salloc --no-shell --dependency=expand:J`, merged into the job with
//     `scontrol update JobId=N NumNodes=0` and `JobId=J NumNodes=ALL`, then a spawn onto
//     the new nodes; nodes the job holds but runs nothing on are used first.
// Every command is checked; a refused or failed request leaves the job where it is, with
// its data, and the reason in the progress line and the record. The job never spawns onto a
// node Slurm did not give it.
//
// Pure here: Slurm's output parsed, the decision taken from a snapshot. The commands run
// through a Runner, as argument vectors (process_runner: no shell; on world rank 0 only). The job's side at
// a remap point (asking Slurm or the arbiter, acquiring, giving back) is JobAgent
// (job_agent.hpp); the session's Policy over it is resize's SlurmPolicy.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "malleable/cluster/error.hpp"

namespace cluster::slurm {

// The most hosts one hostlist may name unless a caller states its own bound (a view bounds
// a job's lists by the cluster's node count, sinfo's).
inline constexpr std::size_t kMaxHostlist = 65536;
// "node[1-3,5],gpu07" -> node1 node2 node3 node5 gpu07 (Slurm's hostlist syntax, with
// zero-padded ranges kept: "n[01-03]" -> n01 n02 n03). Throws Error on malformed input, on
// a number of more than 9 digits and on a list of more than `max_hosts` hosts (checked
// before they are made: "n[1-99999999]" costs nothing).
std::vector<std::string> expand_hostlist(const std::string& list, std::size_t max_hosts = kMaxHostlist);
// The inverse, for scontrol: consecutive numbers of one prefix become a range (a trailing
// number of more than 17 digits is no number: the name stays whole).
std::string compress_hostlist(const std::vector<std::string>& hosts);
// `s` with control bytes as \xHH and '\' as "\\": text from others (Slurm, a request, a
// reply) in one log line, never a line break or a terminal escape.
std::string escaped(std::string_view s);

// A job as squeue describes it (kSqueueFormat).
struct Job {
  std::string id;
  std::string state;                // RUNNING, PENDING, ...
  int nodes = 0;                    // nodes it holds or asks for
  std::vector<std::string> node_list;
  std::string name = {};            // the job's name (squeue %j: its first SqueueWidth::name bytes)
  std::string reason = {};          // why it pends (squeue %r), when listed
  // Slurm's order (shared with the trace simulator's view, sim/src/policy.cpp): the policy
  // serves waiting jobs by priority, high first, then submit time, then the view's order
  // (sort_slurm_order), and never grows a job onto a node the backfill plan starts a
  // waiting job on (growable_idle).
  double priority = 0;              // squeue %Q (the scheduler's priority; 0: not listed)
  double submit = 0;                // submit time, epoch seconds (squeue %V; 0: not listed)
  std::string partition = {};       // squeue %P, when listed
  double planned_start = 0;         // pending: the backfill plan's start (squeue --start %S; 0: none)
  std::vector<std::string> planned_nodes = {};  // pending: the nodes it is planned to start on
  // QOS limits (slurm_qos.hpp; the arbiter daemon caps a growth at them): the job's QOS and
  // its owner, to sum the nodes a user and a QOS hold.
  std::string qos = {};             // squeue %q, when listed ("(null)": none)
  std::string uid = {};             // squeue %U, the owner's numeric uid, when listed
  // squeue %L: seconds the job may still run (a pending one: its time limit); < 0 when
  // unlimited or not listed: the most a growth can save it (arbitrate() bounds a bid by it).
  double time_left = -1;
  // A running job's start, epoch seconds (squeue %S; 0: not listed): with time_left its time
  // limit in Slurm's record (the arbiter's --extend-limits, time_limit.hpp). Not in the
  // shared directory's view file.
  double start = 0;
};

// squeue's records, as every view and the job's own reading ask for them: ten fields Slurm
// itself writes (the job id, state, node count, priority, submit and start times, time
// left, the owner's uid, the node list and the backfill plan), each ended by '|' and never
// holding '|' or a line end, then five fields users or administrators name (partition,
// QOS, reason, job name, comment), each printed at a fixed width in bytes: squeue cuts a
// value at its width and pads it with blanks (Slurm 22.05's _print_str, checked on the
// emulated cluster). Whatever bytes a name or comment holds ('|', line ends, a whole forged
// record) are read as that field and move nothing: a record's length is fixed past its
// trusted fields. A name or comment longer than its width is read cut (the comment's
// "min_nodes=K" counts within its first 128 bytes); a partition list or QOS that fills its
// width may have been cut: an error for that job. %S and %Y are what `squeue --start`
// shows for a pending job (its expected start and the nodes the backfill plan starts it
// on; --start only changes the default format, the sort and the states listed).
struct SqueueWidth {
  static constexpr int partition = 128, qos = 64, reason = 64, name = 64, comment = 128;
};
inline const std::string kSqueueFormat = "%i|%T|%D|%Q|%V|%S|%L|%U|%N|%Y|%" + std::to_string(SqueueWidth::partition) +
                                         "P%" + std::to_string(SqueueWidth::qos) + "q%" +
                                         std::to_string(SqueueWidth::reason) + "r%" + std::to_string(SqueueWidth::name) +
                                         "j%" + std::to_string(SqueueWidth::comment) + "k";
// Records in kSqueueFormat read: the jobs, and the jobs that cannot be read, by id, with
// the reason (a field that is not what Slurm writes there, a hostlist over `max_hosts`, a
// job listed twice: an error for that job, never "the last one wins"). Throws Error only
// when the text is not records of that format at all (a line end inside the trusted
// fields, a record cut short: squeue's format is not the one asked for). A pending job
// whose comment holds "min_nodes=K" waits for K nodes: Slurm prints its own estimate for a
// job with a node range (%D, up to the maximum once the scheduler has tried it), never the
// range's minimum, the fewest nodes it starts on. Times as squeue prints them with
// SLURM_TIME_FORMAT=standard (YYYY-MM-DDTHH:MM:SS) or epoch seconds; N/A, Unknown or
// empty: none; the plan a hostlist, empty or "(null)".
struct JobList {
  std::vector<Job> jobs;
  std::map<std::string, std::string> unreadable;  // job id -> why
};
JobList read_squeue(const std::string& text, std::size_t max_hosts = kMaxHostlist);
// The same, strict: throws Error naming the first job that cannot be read.
std::vector<Job> parse_squeue(const std::string& text, std::size_t max_hosts = kMaxHostlist);
// squeue's time (YYYY-MM-DDTHH:MM:SS read as UTC: the order matters, not the zone, or
// epoch seconds); 0 for N/A, Unknown, None or empty; throws Error otherwise.
double parse_slurm_time(const std::string& s);
// squeue's %L: "[D-]HH:MM:SS", "MM:SS" or "SS" in seconds; -1 for UNLIMITED, NOT_SET,
// INVALID, N/A or empty; throws Error otherwise.
double parse_time_left(const std::string& s);
// Slurm's order of waiting jobs: priority high first, then submit time (earliest first),
// then the order given (a stable sort: jobs without priority or submit time keep it).
void sort_slurm_order(std::vector<Job>& jobs);

// A partition as `sinfo -h -o '%P %t %s %N'` lists it (every state, so every node).
struct Partition {
  std::string name;                // without the '*' of the default partition
  int max_nodes = 0;               // the most nodes a job may have (%s; 0: no limit)
  std::vector<std::string> nodes;  // all its nodes
};
// The partitions of sinfo's lines "PARTITION STATE SIZE NODELIST" (SIZE as "1-4", "4",
// "1-infinite" or "infinite"); empty for the older formats without partition. Throws
// Error naming a bad line.
std::vector<Partition> parse_partitions(const std::string& sinfo_out);

// What Slurm said at one remap point.
struct Snapshot {
  Job mine;                          // this job (its allocation)
  std::vector<std::string> idle;     // idle nodes (of every partition: see partitions)
  std::vector<Job> pending;          // other jobs waiting, in Slurm's order (sort_slurm_order),
                                     // only those that can use a node of this job's partition
  std::vector<Partition> partitions = {};  // empty: unknown (one partition, no limit)
};
// Is `node` in the partition field `partition` of a job ("p1" or "p1,p2")? True when the
// snapshot knows no partitions, the field is empty or names none that sinfo lists.
bool in_partition(const std::vector<Partition>& parts, const std::string& partition, const std::string& node);
// The most nodes the partition field allows a job (the largest MaxNodes among the
// partitions it names; 0: no limit or unknown).
int partition_max_nodes(const std::vector<Partition>& parts, const std::string& partition);
// The idle nodes `mine` may grow onto: of its partition, and planned by the backfill plan
// for none of the waiting jobs (a growth request is a new job, behind every pending one).
// `why` says what was left out (empty: nothing).
std::vector<std::string> growable_idle(const Snapshot& s, const std::vector<std::string>& idle, std::string* why = nullptr);
// Does a job in partition field `partition` compete with `mine` for nodes (one node in
// both partitions)? True when partitions are unknown.
bool competes(const std::vector<Partition>& parts, const Job& mine, const std::string& partition);

// The user the packaged unit runs malleable-arbiterd as (packaging/arbiter): the one a
// job takes the arbiter's replies from unless RESIZE_ARBITER_USER names another.
inline constexpr const char* kDefaultArbiterUser = "malleable-arbiter";

struct Options {
  int procs_per_node = 0;   // processes to put on a node the job grows onto (0: as on rank 0's node)
  int min_nodes = 1;        // never give back below this many nodes
  int max_nodes = 0;        // never grow beyond (0: the most nodes the job ever held)
  // The two levers (the simulator's --no-growth and --no-give-back): off, the job never
  // adds nodes beyond those it holds (a give-back-only job), or never gives any back
  // (a growth-only job).
  struct Levers {
    bool grow = true;
    bool give_back = true;
  } levers;
  int total_iterations = 0; // the job's length, for the payoff test (0: unknown: grow when idle)
  bool use_dedicated = true;  // judge payoff on the dedicated-core clock (2 shared cores here)
  double interval_s = 2.0;    // ask Slurm at most this often (remap points in between: nothing)
  bool verbose = false;       // print each decision and Slurm's answers ("[slurm] ...")
  // After Slurm refuses to grow the job (the request waited its --immediate seconds and
  // got nothing), do not ask again for this long, doubled at each refusal in a row up to
  // refused.backoff_max_s, reset by a grant: every request holds a remap point while it
  // waits, and the idle nodes Slurm lists are not always ones it will hand out (seen with
  // Slurm 22.05: nodes listed idle for ~200 s after a shrink and a job on them).
  struct Refused {
    double backoff_s = 10.0;
    double backoff_max_s = 60.0;
  } refused;
  // Seconds on a monotonic clock; empty: std::chrono::steady_clock. Tests pass their own.
  std::function<double()> clock;
  // Many jobs (slurm_arbiter.hpp): the shared directory of the arbitration (the
  // cached cluster view, the ledger, DIR/log/<job>.jsonl); empty: this job alone, asking
  // Slurm itself (three commands each interval, as the single-job policy did).
  std::string shared_dir;
  bool shared_group = false;  // shared_dir is a common directory of a Unix group (files 0660),
                              // not this user's own (0700, files 0600): SharedDir's access
  // One arbiter per cluster (malleable-arbiterd, arbiter/server.hpp): its Unix socket path
  // or tcp://HOST:PORT; set, the job asks it instead of the shared directory (empty: no arbiter).
  struct Arbiter {
    std::string socket;
    std::string munge_socket;  // munged's socket (empty: libmunge's default)
    double timeout_s = 5;      // the whole exchange with the arbiter
    // Who the arbiter runs as (a name or a uid; RESIZE_ARBITER_USER): a reply is taken
    // only in a MUNGE credential of this uid, echoing the request's nonce.
    std::string user = kDefaultArbiterUser;
  } arbiter;
  double jitter = 0.2;      // each interval varies by +-jitter (jobs started together spread)
  double bid_window_s = 0;  // a bid stands this long before it may win (0: 2 intervals)
  bool expansion = true;    // Slurm permits job expansion; else growth is by restart into a
                            // new, larger allocation (make_slurm_policy asks scontrol show config)
  bool one_update = false;  // Slurm keeps no accounting (AccountingStorageType=none): after one
                            // change of the job's size (a NodeList update, an expansion merge)
                            // it refuses every further update of the job (docs/measurements/workload.md)
  // Wall-clock seconds (the ledger's times, shared between jobs); empty: system_clock.
  std::function<double()> wall_clock;
  // Called once, at the first decision (on world rank 0 only, where the policy asks
  // Slurm): make_slurm_policy reads Slurm's configuration there.
  std::function<void(Options&)> configure;
  // The job's launcher.
  struct Launch {
    // The hosts it placed this job's processes on (malleable-run sets
    // MALLEABLE_RUN_HOSTS): checked at the first decision against where the ranks run;
    // set, the launcher relaunches the job for a resize by restart.
    std::vector<std::string> on;
    // Whether it can start a daemon on a node granted after launch while it runs daemons
    // on other nodes than its own. Open MPI 4.1.4 cannot (the spawn kills the job:
    // routed_radix "Not found", docs/guide/README.md "Processes only where Slurm says"):
    // such a growth is then a resize by restart on the enlarged allocation
    // (Decision::by_restart), or none when nothing relaunches the job.
    bool late_daemons = false;
    // Growth by expander jobs (docs/guide/joining.md, "Under Slurm"): set (the job runs
    // under malleable-run --job-dir DIR), the job grows by submitting one batch job of
    // its own per node it is granted, each running one launch that joins it (`launcher --join
    // DIR --host NODE --id ID -n K --while-job J`), and gives such a node back by letting that launch
    // leave: the expander ends and Slurm sees its node idle. The job keeps its ID and its
    // allocation; no job expansion is needed (expander.hpp). Empty dir: growth by job
    // expansion, or by restart into a new allocation (`expansion`).
    struct Join {
      std::string dir;                // the job's directory (absolute)
      std::string launcher;           // malleable-run's absolute path
      double start_deadline_s = 90;   // an expander whose launch does not wait to join by then is cancelled
      long margin_min = 2;            // no expander with this little of the job's time left
      long cap_min = 7 * 1440;        // an expander's time limit when the job has none
    } join;
  } launch;
};

// The decision, with the Slurm request that goes with it.
struct Plan {
  enum class Kind { None, GiveBack, UseHeld, Acquire } kind = Kind::None;
  std::vector<std::string> nodes;  // nodes to give back, to use, or how many to acquire (size)
  int acquire = 0;                 // Acquire: nodes to ask Slurm for
  std::string why;
  // Acquire after a prediction: the iteration time on the bigger
  // grid as measured there before and the predicted resize time (< 0: none made).
  double predicted_iteration = -1, predicted_resize = -1, measured_iteration = -1;
};

// ---- running Slurm's commands --------------------------------------------------------
//
// A command is its argument vector: argv[0] the program (looked up in PATH), every other
// element one argument exactly as it stands. No shell ever reads it, so no name, list or
// format can become two arguments or a second command. Every name the commands below put
// in an argument is checked first (a name as the arbiter accepts one). To run a new Slurm command:
//
//   const Command c = client.run({"sbatch", "--parsable", "-N", std::to_string(n), "-J", name, script},
//                                "submitting the expander job");      // throws Error unless status 0
//   or, without the check: const Command c = client.runner()({"scancel", id});
//
// (Client::run retries Slurm's "try again" answers, then throws Error naming the command
// line, its status and what it printed.) Tests substitute a Runner of their own and match
// command_line(argv).
using Argv = std::vector<std::string>;
struct Command {
  int status = -1;        // the exit status; 128 + N when signal N ended it; -1: it did not run, or was ended (below)
  std::string out;        // its standard output
  std::string err = {};   // its standard error (kept apart: a warning there never mixes into what is parsed)
  bool timed_out = false; // ended (its process group killed) at RunOptions::timeout_s
  // What it said, for a message: both streams, trimmed.
  std::string said() const;
};
using Runner = std::function<Command(const Argv& argv)>;
struct RunOptions {
  double timeout_s = 120;                  // then SIGKILL to its process group; status -1, timed_out
  std::size_t max_output = 64u << 20;      // bytes of stdout and stderr together; more: ended, status -1
  // NAME=VALUE set over the environment the command inherits: squeue's times (%V, %S) in
  // the one format parse_slurm_time reads, whatever the user's SLURM_TIME_FORMAT.
  std::vector<std::string> env = {"SLURM_TIME_FORMAT=standard"};
};
// posix_spawnp of argv: stdin /dev/null, stdout and stderr each into its own pipe, the
// child in a process group of its own with SIGPIPE and the other signals at their defaults;
// at the timeout, or past max_output, the group is killed. A command that ends while a
// child of its keeps the output open is taken as ended (its status, after a second's
// grace for the output); the leftover group is killed.
Runner process_runner(RunOptions o = {});
// argv for a message: words joined by blanks, a word quoted ('...') when it holds a blank,
// a quote or a character a shell would read (never run: only shown).
std::string command_line(const Argv& argv);

// `sinfo -h -o '%P %t %s %N'` (or the older `sinfo -h -t idle -o '%t %N'`): the nodes
// whose state is exactly idle, each once (a node of two partitions is listed twice).
// Slurm lists a drained node (drain), one not responding (idle*), one in a reservation
// (resv) and one the backfill plan holds for a pending job (plnd) apart from idle ones;
// Slurm would not hand them out. A line with a node list alone (-o %N) counts as idle.
// Throws Error on a line of three or more than four words, or a bad SIZE.
std::vector<std::string> idle_nodes(const std::string& sinfo_out);
inline const Argv kIdleCommand = {"sinfo", "-h", "-o", "%P %t %s %N"};

// The nodes in `placed` (where a launch or an expansion put processes of the job) that
// the job holds but whose ranks run elsewhere (rank_hosts names none of them): processes
// did not get there, and growing onto them again would go the same way.
std::vector<std::string> unplaced_nodes(const std::vector<std::string>& held, const std::vector<std::string>& rank_hosts,
                                        const std::vector<std::string>& placed);
// A growth plan (UseHeld, Acquire of named nodes) without the barred nodes; none left:
// no growth, the reason said. True when a node was left out.
bool without_nodes(Plan& p, const std::vector<std::string>& barred);
// The nodes of `targets` that a spawn cannot reach when the launcher cannot add daemons
// late (Options::launch.late_daemons false): those without a daemon of the job's launcher,
// once it runs a daemon on another node than its own (`launcher_node`); while it runs
// only its own, none if there is one such node (a spawn's add-host starts its daemon),
// all of them if there are more (the library spawns one group per node: the second
// spawn adds a daemon while the first one's runs).
std::vector<std::string> beyond_launcher(const std::vector<std::string>& daemons, const std::string& launcher_node,
                                         const std::vector<std::string>& targets);

// What growing by `extra_nodes` would bring this job (the payoff point: predicted gain x
// iterations left against the predicted resize time; extra_nodes < 0: a give-back's loss).
// The session's metrics supply it (resize's growth_from_metrics); a simulator supplies its
// own model.
struct Growth {
  bool pays = false;
  double saving_s = 0;  // predicted seconds saved over the rest of the run (0: unknown)
  std::string why;
  double predicted_iteration = -1, predicted_resize = -1, measured_iteration = -1;
  int iterations_left = -1;  // -1: the job's length is unknown
};
using GrowthModel = std::function<Growth(int extra_nodes)>;

// Whether giving back `n` of the job's `from` nodes keeps it within its time limit (Slurm
// kills a job at its limit, its work lost): the rest of its run at the smaller size (`g`,
// the model's prediction for -n nodes: its iteration time there, else perfect scaling from
// the measured one, the dearest case) plus the shrink ends within `time_left_s`. No limit
// (< 0), no measurement or an unknown length: true (nothing to judge by). `why` gets the
// figures when false.
bool keeps_time_limit(const Growth& g, int from, int n, double time_left_s, std::string* why = nullptr);

// Pure decision. rank_hosts: node of every rank of the job now (rank 0's node is never
// given back). Order: give back if a pending job needs nodes this job holds; else use held
// nodes that run nothing; else acquire idle nodes if growing pays (`growth` at the nodes
// it could take).
Plan decide(const Snapshot& s, const std::vector<std::string>& rank_hosts, const Options& o, const GrowthModel& growth);

// `scontrol show config`: does SchedulerParameters contain permit_job_expansion?
bool expansion_permitted(const std::string& show_config);
// `scontrol show config`: AccountingStorageType accounting_storage/none (or unset)? Slurm
// 22.05 then sets a resized job's database index to "being set" for good
// (job_post_resize_acctg) and refuses every later update of the job.
bool updates_once(const std::string& show_config);
// `scontrol show config`: the value of its ClusterName line (blanks trimmed; the last
// such line), nullopt when it has none.
std::optional<std::string> cluster_name(const std::string& show_config);

// Talks to Slurm for one job, `job_id` (make_slurm_policy gives $SLURM_JOB_ID as it read
// it; empty: not inside a Slurm job, an Error).
class Client {
 public:
  Client(Runner run, std::string job_id);
  const std::string& job_id() const { return job_; }
  Snapshot snapshot();                                   // throws Error when a command fails
  void release(const std::vector<std::string>& keep);    // scontrol update NodeList=keep
  std::vector<std::string> acquire(int nodes);           // salloc expand + merge; the new nodes
  // The same for exactly these (idle, claimed) nodes: salloc -w.
  std::vector<std::string> acquire(const std::vector<std::string>& nodes);
  const Runner& runner() const { return run_; }
  // Runs argv through the runner; Slurm's "try again" is asked again (10 times, 0.5 s
  // apart); throws Error naming `what`, the command line, its status and what it said
  // unless it exits 0.
  Command run(const Argv& argv, const std::string& what);
  std::vector<std::string> held();                       // the job's nodes now
  Job record();                                          // the job's own record (squeue -j)

 private:
  std::vector<std::string> acquire_with(int nodes, const std::vector<std::string>& which);
  Runner run_;
  std::string job_;
};

}  // namespace cluster::slurm
