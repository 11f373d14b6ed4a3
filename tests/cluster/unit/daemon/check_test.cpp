// SPDX-License-Identifier: BSD-3-Clause
// malleable-arbiterd --check's judgement (cluster/src/daemon/check.hpp), pure: a host with
// everything in place, then each piece missing in turn named with its fix, `scontrol show
// config`'s lines read with bounds, and --check on the command line.
#include <gtest/gtest.h>

#include "daemon/check.hpp"
#include "daemon/options.hpp"

namespace cluster::arbiter {
namespace {

const char* kConfig =
    "Configuration data as of 2026-11-29T06:20:29\n"
    "AccountingStorageType   = accounting_storage/slurmdbd\n"
    "SchedulerParameters     = bf_interval=5\n"
    "SlurmUser               = slurm(64030)\n";

CheckFacts good() {
  CheckFacts f;
  f.user = "malleable-arbiter";
  f.user_uid = 980;
  f.socket = "/run/malleable-arbiter/socket";
  f.listen = "*:7070";
  f.socket_dir_exists = true;
  f.expansion = false;
  f.slurm_user = "slurm";
  f.config_status = 0;
  f.config = kConfig;
  return f;
}

std::string report_of(const CheckFacts& f) { return check_report(check_findings(f)); }

TEST(ArbiterCheck, EverythingInPlace) {
  const auto found = check_findings(good());
  EXPECT_EQ(missing_count(found), 0) << check_report(found);
  const std::string r = check_report(found);
  EXPECT_NE(r.find("ok       MUNGE: a credential made and read back"), std::string::npos) << r;
  EXPECT_NE(r.find("ok       the daemon's user malleable-arbiter has uid 980"), std::string::npos) << r;
  EXPECT_NE(r.find("ok       expansion = off, Slurm does not permit job expansion"), std::string::npos) << r;
  EXPECT_NE(r.find("ok       slurm-user slurm is Slurm's SlurmUser"), std::string::npos) << r;
  EXPECT_NE(r.find("by hand  the daemon's user has uid 980 on every node"), std::string::npos) << r;
  EXPECT_NE(r.find("nothing missing here"), std::string::npos) << r;
}

// Each piece missing alone: the report names it and its fix, and counts one.
TEST(ArbiterCheck, EachMissingPieceNamedWithItsFix) {
  struct Case {
    void (*spoil)(CheckFacts&);
    const char* what;
    const char* fix;
  };
  const Case cases[] = {
      {[](CheckFacts& f) { f.munge_error = "Failed to access socket"; }, "MISSING  MUNGE: Failed to access socket", "enable --now munge"},
      {[](CheckFacts& f) { f.user_uid.reset(); }, "MISSING  the daemon's user 'malleable-arbiter' does not exist", "systemd-sysusers"},
      {[](CheckFacts& f) { f.socket.clear(), f.listen.clear(); }, "MISSING  no listener", "listen = *:7070"},
      {[](CheckFacts& f) { f.listen.clear(); }, "MISSING  no TCP listener", "RESIZE_ARBITER=tcp://"},
      {[](CheckFacts& f) { f.config_status = 1, f.config = "scontrol: error: x"; }, "MISSING  Slurm's client", "install slurm-client"},
      {[](CheckFacts& f) { f.expansion = true; }, "MISSING  expansion = on, but this Slurm does not permit", "expansion = off"},
      {[](CheckFacts& f) { f.config = "AccountingStorageType = accounting_storage/none\nSlurmUser = slurm(64030)\n"; },
       "MISSING  accounting: AccountingStorageType is 'accounting_storage/none'", "accounting_storage/slurmdbd"},
      {[](CheckFacts& f) { f.slurm_user = "root"; }, "MISSING  slurm-user is 'root', Slurm's SlurmUser slurm(64030)", "slurm-user = slurm"},
      {[](CheckFacts& f) { f.extend_limits = true, f.admin_status = 0, f.admin_level = "None"; },
       "MISSING  extend-limits = on, but malleable-arbiter is no Slurm operator", "AdminLevel=Operator"},
  };
  for (const Case& c : cases) {
    CheckFacts f = good();
    c.spoil(f);
    const auto found = check_findings(f);
    const std::string r = check_report(found);
    EXPECT_EQ(missing_count(found), 1) << r;
    EXPECT_NE(r.find(c.what), std::string::npos) << r;
    EXPECT_NE(r.find(std::string("fix: ") ), std::string::npos) << r;
    EXPECT_NE(r.find(c.fix), std::string::npos) << r;
    EXPECT_NE(r.find("1 missing piece\n"), std::string::npos) << r;
  }
}

TEST(ArbiterCheck, AcceptedVariants) {
  CheckFacts f = good();
  f.slurm_user = "64030";  // by uid
  f.expansion = true;
  f.config = std::string(kConfig) + "SchedulerParameters = permit_job_expansion,bf_interval=5\n";
  EXPECT_EQ(missing_count(check_findings(f)), 1) << report_of(f);  // the first SchedulerParameters line counts
  f.config = "SchedulerParameters = permit_job_expansion\nAccountingStorageType = accounting_storage/slurmdbd\nSlurmUser = slurm(64030)\n";
  EXPECT_EQ(missing_count(check_findings(f)), 0) << report_of(f);
  f.extend_limits = true, f.admin_status = 0, f.admin_level = "Operator";
  EXPECT_EQ(missing_count(check_findings(f)), 0) << report_of(f);
}

TEST(ArbiterCheck, ConfigLinesReadWithBounds) {
  EXPECT_EQ(slurm_config_value(kConfig, "SlurmUser").value_or("-"), "slurm(64030)");
  EXPECT_EQ(slurm_config_value(kConfig, "SchedulerParameters").value_or("-"), "bf_interval=5");
  EXPECT_FALSE(slurm_config_value(kConfig, "Slurm"));
  EXPECT_FALSE(slurm_config_value("", "SlurmUser"));
  EXPECT_FALSE(slurm_config_value(std::string(2u << 20, 'x') + "\nSlurmUser = a\n", "SlurmUser"));  // past 1 MiB
  CheckFacts f = good();
  f.munge_error = std::string("bad\n\x01") + std::string(1000, 'y');
  const std::string r = report_of(f);
  EXPECT_EQ(r.find('\x01'), std::string::npos);
  EXPECT_LT(r.find("MUNGE: bad"), r.size());
}

TEST(ArbiterCheck, CommandLine) {
  EXPECT_TRUE(parse_daemon_options({"--check"}, "").check);
  EXPECT_FALSE(parse_daemon_options({}, "").check);
  EXPECT_NE(daemon_usage().find("malleable-arbiterd --check"), std::string::npos);
}

}  // namespace
}  // namespace cluster::arbiter
