// SPDX-License-Identifier: BSD-3-Clause
// The cluster component: everything of malleable that talks to the batch system. The one
// header its users include (the session's Slurm policy, the trace simulator):
//   slurm.hpp        Slurm's output read (jobs, partitions, idle nodes, hostlists), the
//                    single-job decision (decide), the commands for one job (Client)
//   qos.hpp          QOS node limits (sacctmgr)
//   arbitration.hpp  many jobs under one Slurm: the cluster view, the ledger, arbitrate(),
//                    the shared directory
//   job_agent.hpp    one job's side at its remap points (JobAgent: Moment in, Step out)
//   expander.hpp     growth under a stock Slurm by expander jobs, whose launches join the job
// The arbiter daemon (malleable-arbiterd) and its wire protocol are this component's too;
// they are no part of the libraries a program links (cluster/src/daemon, cluster/src/arbiter).
#pragma once

#include "malleable/cluster/arbitration.hpp"
#include "malleable/cluster/error.hpp"
#include "malleable/cluster/expander.hpp"
#include "malleable/cluster/job_agent.hpp"
#include "malleable/cluster/qos.hpp"
#include "malleable/cluster/slurm.hpp"
