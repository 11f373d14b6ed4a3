// SPDX-License-Identifier: BSD-3-Clause
// RESIZE_POLICY (resize/src/policy/policy_setting.hpp): its values, and which policy a
// session runs when it is set: the setting's in place of the program's, the program's own
// (with its iterations) when they agree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/config.hpp"
#include "malleable/resize/policy.hpp"
#include "policy/policy_setting.hpp"
#include "policy/slurm_policy.hpp"

using namespace resize;

namespace {
std::string message_of(const config::Text& v) {
  try {
    policy_setting(v);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

SessionOptions scripted_program() {
  SessionOptions o;
  o.policy = make_policy("scripted", "3:expand:3x3,6:shrink:2x2", "");
  o.policy_text = "scripted 3:expand:3x3,6:shrink:2x2";
  return o;
}

// A Slurm job to make the Slurm policy in (no command runs before its first decision).
struct InSlurmJob {
  InSlurmJob() {
    setenv("SLURM_JOB_ID", "7", 1);
    setenv("RESIZE_SLURM_SHARED", "off", 1);
    setenv("RESIZE_SLURM_EXPANSION", "off", 1);
  }
  ~InSlurmJob() {
    for (const char* v : {"SLURM_JOB_ID", "RESIZE_SLURM_SHARED", "RESIZE_SLURM_EXPANSION", "RESIZE_SLURM_ITERATIONS"})
      unsetenv(v);
  }
};

int slurm_iterations(const SessionOptions& o) {
  const auto* p = dynamic_cast<const SlurmPolicy*>(o.policy.get());
  return p ? p->options().total_iterations : -1;
}
}  // namespace

TEST(PolicySetting, UnsetOrEmptyLeavesTheProgramsPolicy) {
  EXPECT_FALSE(policy_setting(std::nullopt));
  EXPECT_FALSE(policy_setting(std::string()));
  EXPECT_EQ(policy_setting(std::string("slurm")), "slurm");
  EXPECT_EQ(policy_setting(std::string("fixed")), "fixed");
}

TEST(PolicySetting, ABadValueNamesTheVariableAndItsValues) {
  for (const char* bad : {"Slurm", "slurm ", "scripted", "sweetspot", "none", "-p slurm", "slurm iterations=5"}) {
    const std::string m = message_of(std::string(bad));
    EXPECT_NE(m.find("RESIZE_POLICY must be slurm or fixed"), std::string::npos) << bad << ": " << m;
    EXPECT_NE(m.find(std::string("got '") + bad + "'"), std::string::npos) << m;
  }
  // bounded: a long value is cut, a control character shown as '?'
  const std::string m = message_of(std::string(5000, 'x') + "\n");
  EXPECT_LT(m.size(), 200u) << m;
  EXPECT_NE(m.find("xxx...'"), std::string::npos) << m;
  EXPECT_NE(message_of(std::string("a\nb")).find("got 'a?b'"), std::string::npos);
}

TEST(PolicySetting, UnsetKeepsTheProgramsPolicyObject) {
  SessionOptions o = scripted_program();
  const Policy* before = o.policy.get();
  EXPECT_EQ(apply_policy_setting(std::nullopt, o), "");
  EXPECT_EQ(apply_policy_setting(std::string(), o), "");
  EXPECT_EQ(o.policy.get(), before);
  EXPECT_EQ(o.policy_text, "scripted 3:expand:3x3,6:shrink:2x2");
}

TEST(PolicySetting, ReplacesWhatTheProgramChose) {
  SessionOptions o = scripted_program();
  const std::string said = apply_policy_setting(std::string("fixed"), o);
  ASSERT_TRUE(o.policy);
  EXPECT_EQ(o.policy->name(), "fixed");
  EXPECT_EQ(o.policy_text, "fixed (RESIZE_POLICY, in place of the program's scripted 3:expand:3x3,6:shrink:2x2)");
  EXPECT_EQ(said, "policy fixed from RESIZE_POLICY, in place of the program's scripted 3:expand:3x3,6:shrink:2x2");
  // A bad value throws and leaves the program's policy alone.
  SessionOptions p = scripted_program();
  EXPECT_THROW(apply_policy_setting(std::string("greedy"), p), Error);
  EXPECT_EQ(p.policy->name(), "scripted");
}

TEST(PolicySetting, TheProgramsOwnChoiceIsKept) {
  SessionOptions o;
  o.policy = make_policy("fixed", "", "");
  const Policy* before = o.policy.get();
  EXPECT_EQ(apply_policy_setting(std::string("fixed"), o), "");
  EXPECT_EQ(o.policy.get(), before);
  SessionOptions none;  // C++ without a policy: fixed, the session's default
  EXPECT_EQ(apply_policy_setting(std::string("fixed"), none), "");
  EXPECT_FALSE(none.policy);
}

TEST(PolicySetting, TheCApisUnmadePolicyIsReplacedByItsText) {
  SessionOptions o;  // resize_create does not make a policy the setting replaces
  o.policy_text = "slurm iterations=8";
  apply_policy_setting(std::string("fixed"), o);
  ASSERT_TRUE(o.policy);
  EXPECT_EQ(o.policy->name(), "fixed");
  EXPECT_EQ(o.policy_text, "fixed (RESIZE_POLICY, in place of the program's slurm iterations=8)");
}

TEST(PolicySetting, SlurmOutsideAJobSaysTheSettingAskedForIt) {
  unsetenv("SLURM_JOB_ID");
  SessionOptions o = scripted_program();
  try {
    apply_policy_setting(std::string("slurm"), o);
    ADD_FAILURE() << "the Slurm policy was made outside a Slurm job";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("RESIZE_POLICY=slurm: slurm policy: not inside a Slurm job"), std::string::npos)
        << e.what();
  }
}

TEST(PolicySetting, SlurmTakesTheProgramsIterationsUnlessTheSettingGivesThem) {
  InSlurmJob job;
  SessionOptions o = scripted_program();
  o.total_iterations = 8;
  EXPECT_NE(apply_policy_setting(std::string("slurm"), o), "");
  EXPECT_EQ(o.policy->name(), "slurm");
  EXPECT_EQ(slurm_iterations(o), 8);
  SessionOptions unknown = scripted_program();  // total_iterations < 0: unknown (0)
  apply_policy_setting(std::string("slurm"), unknown);
  EXPECT_EQ(slurm_iterations(unknown), 0);
  setenv("RESIZE_SLURM_ITERATIONS", "500", 1);
  SessionOptions env = scripted_program();
  env.total_iterations = 8;
  apply_policy_setting(std::string("slurm"), env);
  EXPECT_EQ(slurm_iterations(env), 500);
}

TEST(PolicySetting, AProgramsOwnSlurmPolicyKeepsItsIterations) {
  InSlurmJob job;
  SessionOptions o;
  o.policy = make_policy("slurm", "iterations=40", "");
  o.policy_text = "slurm iterations=40";
  const Policy* before = o.policy.get();
  EXPECT_EQ(apply_policy_setting(std::string("slurm"), o), "");
  EXPECT_EQ(o.policy.get(), before);
  EXPECT_EQ(slurm_iterations(o), 40);
  EXPECT_EQ(o.policy_text, "slurm iterations=40");
  // ... and RESIZE_POLICY=fixed turns it off.
  EXPECT_NE(apply_policy_setting(std::string("fixed"), o), "");
  EXPECT_EQ(o.policy->name(), "fixed");
}

TEST(PolicySetting, ReadFromRESIZE_POLICY) {
  setenv("RESIZE_POLICY", "slurm", 1);
  EXPECT_EQ(config::read().policy.choice, std::string("slurm"));
  unsetenv("RESIZE_POLICY");
  EXPECT_FALSE(config::read().policy.choice);
}
