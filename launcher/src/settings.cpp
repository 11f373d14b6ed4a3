// SPDX-License-Identifier: BSD-3-Clause
// The environment settings (settings.hpp): docs/guide/configuration.md's table, row for row.
#include "settings.hpp"

namespace launcher {

namespace {

// clang-format off
const Setting kSettings[] = {
    {R"~(BLACS_SETUP_FILE)~", R"~(blacs-dyn)~", R"~(path)~", R"~(`./blacs_setup.dat`)~", R"~(at use)~", R"~(the schema file of `blacs_setup` / `blacs_dyn_expand_schema` when the call names none)~"},
    {R"~(BLACS_DYN_JOIN)~", R"~(blacs-dyn)~", R"~(text)~", R"~(unset)~", R"~(at use)~", R"~(set by blacs-dyn in the processes it spawns (the level they join); a process with it set joins the spawning world in `MPI_Init`)~"},
    {R"~(BLACS_DYN_JOIN_TIMEOUT)~", R"~(blacs-dyn)~", R"~(seconds > 0)~", R"~(180)~", R"~(at use)~", R"~(how long a join (spawn and hand-shake) may take before the watchdog ends the job (other values: the default))~"},
    {R"~(BLACS_DYN_JOIN_PROOF_TIMEOUT)~", R"~(blacs-dyn)~", R"~(seconds 0.1-3600)~", R"~(5)~", R"~(at use)~", R"~(how long a joining launch has, from the connection, for its challenge, the job's proof and its hello ([joining.md](joining.md#refusals)): a silent peer costs a remap point this long. Bad value: `BLACS_DYN_JOIN_PROOF_TIMEOUT must be seconds from 0.1 to 3600, got '...'`)~"},
    {R"~(BLACS_DYN_MAX_PROCS)~", R"~(blacs-dyn)~", R"~(integer >= 1)~", R"~(no limit)~", R"~(at use)~", R"~(the most processes the world may grow to; an expansion beyond is refused. Bad value: `BLACS_DYN_MAX_PROCS must be a positive integer, got '...'`)~"},
    {R"~(BLACS_DYN_SLOT_CHECK)~", R"~(blacs-dyn)~", R"~(switch (`0` off))~", R"~(on)~", R"~(at use)~", R"~(check `MPI_UNIVERSE_SIZE` before spawning when oversubscription is off)~"},
    {R"~(BLACS_DYN_SPAWN)~", R"~(blacs-dyn)~", R"~(switch (`0`, `off`, `no`, `false` off))~", R"~(on)~", R"~(at use)~", R"~(off: every expansion is refused as "spawn not supported: disabled by BLACS_DYN_SPAWN=...")~"},
    {R"~(BLACS_DYN_ALLOW_ANY_SCALAPACK)~", R"~(blacs-dyn)~", R"~(set or unset)~", R"~(unset)~", R"~(at use)~", R"~(set: no warning for a ScaLAPACK other than the tested one)~"},
    {R"~(BLACS_DYN_VERBOSE)~", R"~(blacs-dyn)~", R"~(switch (`1`, `true`, `yes`, `on`))~", R"~(off)~", R"~(at use)~", R"~(rank 0 says at start that blacs-dyn is active)~"},
    {R"~(BLACS_DYN_TRACE)~", R"~(blacs-dyn)~", R"~(set or unset)~", R"~(unset)~", R"~(at use)~", R"~(rank 0 prints the time of each expansion phase)~"},
    {R"~(BLACS_DYN_PMIX_GDS)~", R"~(blacs-dyn)~", R"~(`keep`)~", R"~(unset)~", R"~(at use)~", R"~(`keep`: do not select PMIx's `gds=hash` store before `MPI_Init`)~"},
    {R"~(BLACS_DYN_PML)~", R"~(blacs-dyn)~", R"~(`ucx`)~", R"~(unset)~", R"~(at use)~", R"~(`ucx`: Open MPI's UCX PML (`OMPI_MCA_pml=ucx`, `pml_ucx_tls` and `pml_ucx_devices` `any`, each unless set) and PMIx's own store, so that an original and a newcomer on one node talk through shared memory (not TCP); newcomers inherit it (more below))~"},
    {R"~(BLACS_DYN_LEAVE_WAIT)~", R"~(blacs-dyn)~", R"~(seconds >= 0, or `off`)~", R"~(10)~", R"~(at use)~", R"~(how long a leaving process waits after `MPI_Finalize`, before it exits, for its launcher's PMIx server to close their connection (the trigger of Open MPI 4.1 + PMIx 4.2's spawn hang, docs/reference/blacs-dyn.md); `0` or `off`: exit at once, as before; other values: the default)~"},
    {R"~(BLACS_DYN_SHAREDFP)~", R"~(blacs-dyn)~", R"~(`keep`)~", R"~(unset)~", R"~(at use)~", R"~(`keep`: do not exclude Open MPI's `sharedfp/sm` (`OMPI_MCA_sharedfp=^sm`) before `MPI_Init`; a user's own `OMPI_MCA_sharedfp` is kept too)~"},
    {R"~(BLACS_DYN_FAULT)~", R"~(blacs-dyn)~", R"~(text)~", R"~(unset)~", R"~(at use)~", R"~(fault injection for tests: `kill-newcomer-in-init`, `stall-newcomer-in-init` (docs/guide/errors.md); growing by joining: `wrong-secret`, `kill-joiner-after-connect`, `kill-joiner-before-ack` (in a joining launch))~"},
    {R"~(BLACS_DYN_JOB_DIR)~", R"~(blacs-dyn)~", R"~(path)~", R"~(unset)~", R"~(at use)~", R"~(growing by joining (docs/guide/joining.md): the job's private directory (0700, this user's); set in the job and in the launches that join it (`malleable-run --job-dir` / `--join` set it). The job's rank 0 makes it ready at `MPI_Init`, or says "the job cannot be joined: ...")~"},
    {R"~(BLACS_DYN_JOIN_LAUNCH)~", R"~(blacs-dyn)~", R"~(launch id (`[A-Za-z0-9._-]`, at most 64))~", R"~(unset)~", R"~(at use)~", R"~(set in a launch that joins a running job (its id): its processes join at `MPI_Init`)~"},
    {R"~(BLACS_DYN_JOIN_START)~", R"~(blacs-dyn)~", R"~(launch ids, comma-separated)~", R"~(unset)~", R"~(at use)~", R"~(the job's first launch: the launches of its start (one per further node) it joins inside `MPI_Init`)~"},
    {R"~(BLACS_DYN_JOIN_AT_START)~", R"~(blacs-dyn)~", R"~(switch)~", R"~(off)~", R"~(at use)~", R"~(a launch of the job's start (its processes are no newcomers))~"},
    {R"~(BLACS_DYN_JOB_INCARNATION)~", R"~(blacs-dyn)~", R"~(text)~", R"~(random)~", R"~(at use)~", R"~(the job's run id (`malleable-run --job-dir` sets a new one per launch); a launch started for another run is refused as stale)~"},
    {R"~(BLACS_DYN_JOIN_INCARNATION)~", R"~(blacs-dyn)~", R"~(text)~", R"~(the job directory's)~", R"~(at use)~", R"~(the run a launch joins (the start's launches get it from the launcher))~"},
    {R"~(BLACS_DYN_JOIN_AGENT)~", R"~(blacs-dyn)~", R"~(switch)~", R"~(off)~", R"~(at use)~", R"~(the job's launcher starts the launches the job orders (`malleable-run --job-dir` sets it): the session grows by joining)~"},
    {R"~(BLACS_DYN_JOB_LOST)~", R"~(blacs-dyn)~", R"~(seconds > 0)~", R"~(60)~", R"~(at use)~", R"~(a joined launch ends itself when the job's heartbeat stops for this long)~"},
    {R"~(OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, OMPI_COMM_WORLD_SIZE)~", R"~(blacs-dyn)~", R"~(set by the launcher)~", R"~()~", R"~(at use)~", R"~(a process's rank before `MPI_Init`, for messages and the fault above)~"},
    {R"~(OMPI_MCA_rmaps_base_oversubscribe)~", R"~(blacs-dyn)~", R"~(switch (`1`, `true`, `yes`, `on`))~", R"~(off)~", R"~(at use)~", R"~(on: no slot check before spawning)~"},
    {R"~(PATH)~", R"~(blacs-dyn)~", R"~(path list)~", R"~()~", R"~(at use)~", R"~(where a program to spawn is looked up, to refuse a missing one before `MPI_Comm_spawn`)~"},
    {R"~(REDIST_COST_MODEL)~", R"~(redist)~", R"~(path)~", R"~(`$XDG_CACHE_HOME/malleable/cost_model.json`, else `~/.cache/malleable/cost_model.json`, else `./cost_model.json`)~", R"~(at use)~", R"~(the calibrated cost model's file)~"},
    {R"~(XDG_CACHE_HOME, HOME)~", R"~(redist, resize)~", R"~(path)~", R"~()~", R"~(redist: at use; resize: session start)~", R"~(the folders of the default cost model and resize history)~"},
    {R"~(MALLEABLE_REDIST_FAULT)~", R"~(redist)~", R"~(text)~", R"~(unset)~", R"~(at use)~", R"~(fault injection for tests: `single-copy-refused` and the node window's faults (docs/guide/errors.md))~"},
    {R"~(REDIST_GEMR2D)~", R"~(redist drop-in)~", R"~(`redist`, `scalapack` or a schedule name)~", R"~(`redist`)~", R"~(first call (once per process))~", R"~(which implementation serves PDGEMR2D calls; an unknown value is reported once and the default used)~"},
    {R"~(REDIST_GEMR2D_VERBOSE)~", R"~(redist drop-in)~", R"~(switch (not empty, not `0`))~", R"~(off)~", R"~(first call (once per process))~", R"~(the drop-in says which implementation serves each call)~"},
    {R"~(RESIZE_OFFER)~", R"~(resize)~", R"~(text)~", R"~(empty)~", R"~(policy made)~", R"~(the `offer` policy's offer when it has no file (a file is re-read at every remap point; docs/reference/apps.md))~"},
    {R"~(RESIZE_HISTORY)~", R"~(resize)~", R"~(path, `off` or empty)~", R"~(in memory only, unless the program asks to keep it (`SessionOptions::persist_history`: the drivers do), then `$XDG_CACHE_HOME/malleable/history/<app>-<hash>.json`)~", R"~(session start (and each call of `resize_history_location`))~", R"~(where the resize history is kept across runs; a path keeps it there (more below))~"},
    {R"~(RESIZE_METER_KERNELS)~", R"~(resize)~", R"~(switch (`1`, `on`, `yes`))~", R"~(off)~", R"~(library loaded)~", R"~(meter the time spent in BLAS kernels from the start (`resize::kernel_meter_enable`))~"},
    {R"~(RESIZE_MOVER)~", R"~(resize)~", R"~(`redist` or `pdgemr2d`)~", R"~(`redist`)~", R"~(session start (`resize_create`))~", R"~(the C and Fortran APIs' data mover. Bad value: `redistribution: expected redist or pdgemr2d, got '...'`)~"},
    {R"~(RESIZE_MOVE_BUDGET)~", R"~(resize)~", R"~(bytes, `0` or `unlimited`)~", R"~(unlimited)~", R"~(session start (`resize_create`))~", R"~(the C and Fortran APIs' memory budget of a move. Bad value: `move budget: expected bytes with an optional K, M or G (e.g. 512M), 0 or unlimited, got '...'`)~"},
    {R"~(RESIZE_PREFAULT)~", R"~(resize)~", R"~(`on` or `off` (`0`))~", R"~(on)~", R"~(session start)~", R"~((below))~"},
    {R"~(RESIZE_FREE_ON_THREAD)~", R"~(resize)~", R"~(`on` or `off` (`0`))~", R"~(on)~", R"~(session start)~", R"~(the local arrays a move replaced are freed on the prefault thread after the move (their pages going back to the system run beside what follows it) rather than inside the move; only when the move is one batch (without `RESIZE_MOVE_BUDGET`: with one, each batch frees before the next stages). Each process's own)~"},
    {R"~(RESIZE_HEAP_TRIM)~", R"~(resize)~", R"~(`on` or `off` (`0`))~", R"~(on)~", R"~(session start)~", R"~(once a resize has concluded (blocking or completed after a background phase: expansion, shrink, regrid) every process of the job calls glibc's `malloc_trim(0)`, and a newcomer once it has joined (more below))~"},
    {R"~(RESIZE_HUGEPAGES)~", R"~(resize)~", R"~(`auto`, `on` (`1`, `yes`) or `off` (`0`, `no`))~", R"~(auto)~", R"~(session start (each `Session` keeps its own))~", R"~((below))~"},
    {R"~(RESIZE_MAPPED_ARRAYS)~", R"~(resize)~", R"~(`on` (`1`, `yes`) or `off`)~", R"~(off)~", R"~(session start)~", R"~((below))~"},
    {R"~(RESIZE_CHECK_CONSTANT)~", R"~(resize)~", R"~(switch (not empty, not `0`))~", R"~(off)~", R"~(session start)~", R"~(a background resize checks that constant matrices did not change while it ran)~"},
    {R"~(RESIZE_BACKGROUND_TIMEOUT)~", R"~(resize)~", R"~(seconds)~", R"~(no limit)~", R"~(session start)~", R"~(the longest a newcomer of a background resize waits for the completing point)~"},
    {R"~(RESIZE_REMAP_TIMEOUT)~", R"~(resize)~", R"~(`CAP[:FACTOR[:FLOOR]]` seconds >= 0)~", R"~(`600:3:30` (`SessionOptions::remap_timeout`, `remap_factor`, `remap_floor`))~", R"~(session start)~", R"~((below))~"},
    {R"~(RESIZE_FAULT)~", R"~(resize)~", R"~(text)~", R"~(unset)~", R"~(session start)~", R"~(fault injection for tests (docs/guide/errors.md))~"},
    {R"~(RESIZE_DRY_RUN)~", R"~(resize)~", R"~(switch (not empty, not `0`))~", R"~(off)~", R"~(session start)~", R"~(remap points print their plan and resize nothing ([porting.md](porting.md), "Dry run"))~"},
    {R"~(MALLEABLE_RUN_FAULT)~", R"~(malleable-run)~", R"~(`silent-expander`)~", R"~(unset)~", R"~(launch)~", R"~(fault injection for tests: an expander job's launch that never asks to join (tests/cluster/slurm_join.sh))~"},
    {R"~(MALLEABLE_MPIEXEC)~", R"~(malleable-run)~", R"~(words (split at blanks))~", R"~(`mpiexec --oversubscribe --bind-to none`)~", R"~(launch)~", R"~(the mpiexec command every launch runs, as words (never through a shell))~"},
    {R"~(MALLEABLE_PROBE_TIMEOUT)~", R"~(malleable-run)~", R"~(integer seconds >= 1)~", R"~(30)~", R"~(launch)~", R"~(with `--on-failure restart`: how long a probed host has to answer `mpiexec -n 1 --host H true`)~"},
    {R"~(MALLEABLE_RSH)~", R"~(malleable-run)~", R"~(words (split at blanks))~", R"~(`$OMPI_MCA_plm_rsh_agent`, else `ssh`)~", R"~(launch)~", R"~(the remote shell that starts a launch on another host (`--join --host H`; the start of a `--job-dir` job on several hosts))~"},
    {R"~(MALLEABLE_RUN_RESUME)~", R"~(malleable-run)~", R"~(`P Q FILE`)~", R"~(unset)~", R"~(launch)~", R"~(set by `malleable-run` in the job it submits again under a Slurm without job expansion: the grid and checkpoint it continues from)~"},
    {R"~(RESIZE_SPAWN_FALLBACK)~", R"~(resize)~", R"~(`on` (`1`, empty) or `off` (`0`))~", R"~(on)~", R"~(session start)~", R"~(with a checkpoint directory (`remap_or_restart`, the drivers' `--checkpoint`), an expansion by spawn first checkpoints the state before it and writes `DIR/<app>.next` with the line `spawn-fallback` (more below))~"},
    {R"~(RESIZE_SPAWN_DEADLINE)~", R"~(resize)~", R"~(`FLOOR[:FACTOR[:CAP]]` seconds)~", R"~(`60:4:150`)~", R"~(session start)~", R"~(the spawn's deadline with the fallback on: FACTOR times the slowest spawn of the session's resize history (scaled up to the processes spawned), at least FLOOR (also the deadline with no spawn in the history) and at most CAP; past it every process exits with status 4 (more below))~"},
    {R"~(RESIZE_EXPAND)~", R"~(resize)~", R"~(`auto`, `spawn` or `join`)~", R"~(`auto`)~", R"~(session start)~", R"~(how expansions bring processes (docs/guide/joining.md): `auto` joins launches the job orders when its launcher takes orders (`malleable-run --job-dir`), else spawns; `spawn` always spawns; `join` joins or refuses the expansion ("the job's launcher starts no launches it orders") (more below))~"},
    {R"~(RESIZE_RECONFIGURE)~", R"~(resize)~", R"~(`auto`, `merge` or `respawn`)~", R"~(`auto`)~", R"~(session start)~", R"~(how an expansion or a shrink by spawn reconfigures the job (docs/reference/apps.md, "Merge or respawn"): `merge` keeps the processes that stay (an expansion spawns only the difference) (more below))~"},
    {R"~(RESIZE_UCX_CHECK)~", R"~(resize)~", R"~(`auto`, `on` or `off`)~", R"~(`auto`)~", R"~(session start)~", R"~((below))~"},
    {R"~(RESIZE_REFRESH_AFTER)~", R"~(resize)~", R"~(integer >= 1, or `off` (`0`, empty))~", R"~(off)~", R"~(session start)~", R"~(with a checkpoint directory (`remap_or_restart`, the drivers' `--checkpoint`) under `malleable-run`: the processes of one launch spawn at most this many processes in place (more below))~"},
    {R"~(RESIZE_POLICY)~", R"~(resize)~", R"~(`slurm`, `fixed` or empty)~", R"~(unset: the program's)~", R"~(session start (`resize_create`))~", R"~(replaces the policy the program passed (C, C++, Fortran; [slurm.md](slurm.md#your-own-program)). Bad value: `RESIZE_POLICY must be slurm or fixed (unset or empty: the program's own policy), got '...'`)~"},
    {R"~(SLURM_JOB_ID)~", R"~(resize)~", R"~(integer)~", R"~(set by Slurm)~", R"~(policy made; session start (the checkpoint folder))~", R"~(the job the Slurm policy grows and shrinks; also names the node-local checkpoint folder)~"},
    {R"~(RESIZE_SLURM_PROCS_PER_NODE)~", R"~(resize)~", R"~(integer >= 0)~", R"~(0 (Slurm's count))~", R"~(policy made)~", R"~(processes per node of the Slurm policy. Bad value: `RESIZE_SLURM_PROCS_PER_NODE must be a non-negative integer, got '...'` (the same for the next three))~"},
    {R"~(RESIZE_SLURM_MIN_NODES)~", R"~(resize)~", R"~(integer)~", R"~(1; the job's `-N` minimum under `malleable-run --job-dir` ([slurm.md](slurm.md)))~", R"~(policy made)~", R"~(the fewest nodes the Slurm policy shrinks to)~"},
    {R"~(RESIZE_SLURM_MAX_NODES)~", R"~(resize)~", R"~(integer)~", R"~(the most nodes the job held; the job's `-N` maximum under `malleable-run --job-dir` ([slurm.md](slurm.md)))~", R"~(policy made)~", R"~(the most nodes the Slurm policy grows to)~"},
    {R"~(RESIZE_SLURM_ITERATIONS)~", R"~(resize)~", R"~(integer)~", R"~(the run's iterations)~", R"~(policy made)~", R"~(the iterations the Slurm policy plans for)~"},
    {R"~(RESIZE_SLURM_INTERVAL)~", R"~(resize)~", R"~(seconds >= 0)~", R"~(the policy's)~", R"~(policy made)~", R"~(how often the Slurm policy asks Slurm. Bad value: `RESIZE_SLURM_INTERVAL must be seconds >= 0, got '...'`)~"},
    {R"~(RESIZE_SLURM_BACKOFF)~", R"~(resize)~", R"~(seconds >= 0)~", R"~(the policy's)~", R"~(policy made)~", R"~(the first wait after Slurm refused nodes. Bad value: `RESIZE_SLURM_BACKOFF must be seconds >= 0, got '...'`)~"},
    {R"~(RESIZE_SLURM_JITTER)~", R"~(resize)~", R"~(fraction, 0 to 0.9)~", R"~(0.2)~", R"~(policy made)~", R"~(each interval of the Slurm policy varies by this fraction, so that jobs started together do not ask slurmctld at the same moment. Bad value: `RESIZE_SLURM_JITTER must be a number >= 0, got '...'`)~"},
    {R"~(RESIZE_SLURM_GROW)~", R"~(resize)~", R"~(`on` or `off`)~", R"~(`on`)~", R"~(policy made)~", R"~(`off`: the Slurm policy never adds nodes beyond those the job holds (it still gives back; the simulator's `--no-growth`, the give-back-only arm). Bad value: `RESIZE_SLURM_GROW must be on or off, got '...'`)~"},
    {R"~(RESIZE_SLURM_GIVE_BACK)~", R"~(resize)~", R"~(`on` or `off`)~", R"~(`on`)~", R"~(policy made)~", R"~(`off`: the Slurm policy never gives a node back, not even for a waiting job (it still grows; the simulator's `--no-give-back`, the growth-only arm). Bad value: `RESIZE_SLURM_GIVE_BACK must be on or off, got '...'`)~"},
    {R"~(RESIZE_SLURM_SHARED)~", R"~(resize)~", R"~(path or `off`)~", R"~(`$HOME/.malleable/slurm/<ClusterName>`)~", R"~(policy made)~", R"~(the directory the malleable jobs of one cluster share (the cached cluster view, the ledger, the decision logs); `off`: the job decides alone. The default runs per-user (0700, files 0600) (more below))~"},
    {R"~(RESIZE_ARBITER)~", R"~(resize)~", R"~(path or `tcp://HOST:PORT`)~", R"~(unset)~", R"~(policy made)~", R"~((below))~"},
    {R"~(RESIZE_ARBITER_MUNGE)~", R"~(resize)~", R"~(path)~", R"~(libmunge's default (`/run/munge/munge.socket.2`))~", R"~(policy made)~", R"~(munged's socket for the arbiter's credentials (a test's own munged))~"},
    {R"~(RESIZE_ARBITER_USER)~", R"~(resize)~", R"~(user name or uid)~", R"~(`malleable-arbiter` (the packaged unit's `User=`))~", R"~(policy made)~", R"~(who the arbiter runs as: the job takes a reply only in a MUNGE credential of this user that echoes its request's nonce (more below))~"},
    {R"~(RESIZE_SLURM_EXPANSION)~", R"~(resize)~", R"~(`auto`, `on`, `off`)~", R"~(`auto`)~", R"~(policy made)~", R"~(whether the job grows by Slurm's job expansion (`on`) or by restart into a new allocation (`off`); `auto` reads `SchedulerParameters` (`permit_job_expansion`) from `scontrol show config`. Bad value: `RESIZE_SLURM_EXPANSION must be auto, on or off, got '...'`)~"},
    {R"~(RESIZE_SLURM_LATE_DAEMONS)~", R"~(resize)~", R"~(`on`, `off`)~", R"~(`off`)~", R"~(policy made)~", R"~(whether the job's launcher can start a daemon on a node granted after launch while it runs daemons on other nodes (Open MPI 4.1.4 cannot: `off`) (more below))~"},
    {R"~(RESIZE_SLURM_JOIN)~", R"~(resize)~", R"~(`auto`, `off`)~", R"~(`auto`)~", R"~(policy made)~", R"~(`auto`: a job running under `malleable-run --job-dir` grows under Slurm by expander jobs whose launches join it (docs/guide/joining.md, "Under Slurm"); `off`: by job expansion or by restart. Bad value: `RESIZE_SLURM_JOIN must be auto or off, got '...'`)~"},
    {R"~(RESIZE_SLURM_JOIN_DEADLINE)~", R"~(resize)~", R"~(seconds >= 0)~", R"~(`90`)~", R"~(policy made)~", R"~(an expander job not started by Slurm, or whose launch has not asked to join, that long after its submission (its start) is cancelled)~"},
    {R"~(MALLEABLE_RUN)~", R"~(resize)~", R"~(absolute path)~", R"~(set by `malleable-run --job-dir`)~", R"~(policy made)~", R"~(the launcher an expander job runs; with `BLACS_DYN_JOB_DIR` but no absolute `MALLEABLE_RUN`: `growing by joining under Slurm needs the job's directory and launcher as absolute paths ...`)~"},
    {R"~(MALLEABLE_RUN_HOSTS)~", R"~(resize)~", R"~(host list)~", R"~(unset)~", R"~(policy made)~", R"~(set by `malleable-run --hosts` for each launch: the hosts it placed the job's processes on. The Slurm policy checks at its first decision that its ranks run on each of them the job holds (more below))~"},
    {R"~(MALLEABLE_CHECKPOINT_FORMAT)~", R"~(resize)~", R"~(integer)~", R"~(the newest)~", R"~(session start)~", R"~(the checkpoint format version to write; another than the library writes is refused on every rank)~"},
    {R"~(MALLEABLE_CHECKPOINT_IO)~", R"~(resize)~", R"~(`independent`)~", R"~(collective)~", R"~(session start)~", R"~(MPI-IO transfer mode of checkpoint reads and writes)~"},
    {R"~(MALLEABLE_CHECKPOINT_BLOCKS)~", R"~(resize)~", R"~(`always`, `never`)~", R"~(auto)~", R"~(session start)~", R"~(whether checkpoints move data block by block)~"},
    {R"~(MALLEABLE_CHECKPOINT_DIRECT)~", R"~(resize)~", R"~(switch (`0` off))~", R"~(on)~", R"~(session start)~", R"~(blocks that are whole chunks are written as chunks directly)~"},
    {R"~(MALLEABLE_CHECKPOINT_TRACE)~", R"~(resize)~", R"~(switch (not empty, not `0`))~", R"~(off)~", R"~(session start)~", R"~(rank 0 prints each checkpoint phase's seconds)~"},
    {R"~(MALLEABLE_BOUND)~", R"~(resize)~", R"~(`off`)~", R"~(on)~", R"~(when the run's JSON is written)~", R"~(`off`: no `bound` object in the resizes of the run's JSON and no copy probe (docs/reference/apps.md, "Each resize against its bound"))~"},
    {R"~(MALLEABLE_BOUND_COPY_BPS, MALLEABLE_BOUND_SHM_BPS)~", R"~(resize)~", R"~(bytes/s > 0)~", R"~(a copy probe at the report (64 MiB, best of 3) for both)~", R"~(when the run's JSON is written)~", R"~((below))~"},
    {R"~(MALLEABLE_BARE_SPAWN_S, MALLEABLE_BARE_JOIN_S)~", R"~(resize)~", R"~(seconds > 0)~", R"~(unknown (`null`))~", R"~(when the run's JSON is written)~", R"~(a bare spawn / join of the same processes (`scripts/bench/redist.sh bound` measures them): each resize's start beside it (`start_over_bare`))~"},
    {R"~(MALLEABLE_CHECKPOINT_FAULT)~", R"~(resize)~", R"~(text)~", R"~(unset)~", R"~(session start)~", R"~(fault injection for tests: `lose-writes:R[@I]`, `no-room-check` (docs/guide/errors.md))~"},
    {R"~(MALLEABLE_LEVELS_TRACE)~", R"~(resize)~", R"~(set or unset)~", R"~(unset)~", R"~(session start)~", R"~(each process prints where its level checkpoint's time went)~"},
    {R"~(MALLEABLE_NODE_MAP)~", R"~(resize)~", R"~(`every=K` or a list)~", R"~(the machine's nodes)~", R"~(session start)~", R"~(emulated nodes for the level checkpoints' partner ring (docs/guide/checkpoint.md))~"},
    {R"~(MALLEABLE_SWITCH_MAP)~", R"~(resize)~", R"~(list)~", R"~(none)~", R"~(session start)~", R"~(the switch of each node index (docs/guide/checkpoint.md))~"},
    {R"~(MALLEABLE_JOB_ID)~", R"~(resize)~", R"~(text)~", R"~(`$SLURM_JOB_ID`)~", R"~(session start)~", R"~(names the node-local checkpoint folder `/dev/shm/malleable-<job>`)~"},
};
// clang-format on

}  // namespace

const Setting* settings_table(std::size_t* count) {
  *count = sizeof kSettings / sizeof kSettings[0];
  return kSettings;
}

std::string settings_markdown() {
  std::string out = "| variable | part | type | default | read | what it does |\n|---|---|---|---|---|---|\n";
  for (const Setting& s : kSettings) {
    std::string names, all = s.names;
    for (std::size_t at = 0; at <= all.size();) {
      const std::size_t comma = all.find(", ", at);
      const std::size_t end = comma == std::string::npos ? all.size() : comma;
      names += (names.empty() ? "`" : ", `") + all.substr(at, end - at) + "`";
      at = end + 2;
    }
    out += "| " + names + " | " + s.part + " | " + s.type + " | " + s.default_value + " | " + s.read + " | " + s.meaning + " |\n";
  }
  return out;
}

}  // namespace launcher
