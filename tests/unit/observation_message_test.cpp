// The message a case sends back to its parent: what it carries, and what it refuses.
#include "harness/engine/run/observation_message.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/support/version.h"

namespace reapcheck {
namespace {

TEST(ObservationMessage, CarriesTheObservationAndItsJob) {
  ObservationMessage sent;
  sent.job = 41;
  sent.observed.survivors.push_back(ProcessRecord{5, 1, 5, 5, "S", "escaped", {"perl", "-e"}});
  sent.observed.reaper_outcome = {ReaperOutcome::Status::timed_out, "no reply"};
  sent.observed.phases_ms = {{"tree", 12.5}, {"kill", 3}};
  sent.observed.case_ms = 99;
  const std::string line = write_observation_message(sent);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
  const ObservationMessage got = read_observation_message(line);
  EXPECT_EQ(got.job, 41U);
  ASSERT_EQ(got.observed.survivors.size(), 1U);
  EXPECT_EQ(got.observed.survivors[0].role, "escaped");
  EXPECT_EQ(got.observed.reaper_outcome.status, ReaperOutcome::Status::timed_out);
  EXPECT_EQ(got.observed.phases_ms, sent.observed.phases_ms);
  EXPECT_EQ(got.observed.case_ms, 99);
}

TEST(ObservationMessage, HoldsNoVerdictAndNoIdentity) {
  const auto j = nlohmann::json::parse(write_observation_message({}));
  for (const char* key : {"verdict", "expected", "scenario", "reaper", "reason"}) {
    EXPECT_FALSE(j.at("observation").contains(key)) << key;
  }
  EXPECT_EQ(j.at("job"), 0) << "the job is a number";
}

TEST(ObservationMessage, AnotherBuildsMessageIsRefused) {
  auto j = nlohmann::json::parse(write_observation_message({}));
  j["binary"] = "0.0.1-other";
  try {
    read_observation_message(j.dump());
    FAIL() << "accepted a message from another build";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("0.0.1-other"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::string(reapcheck_version())), std::string::npos);
  }
}

TEST(ObservationMessage, WhatIsNotAnObservationIsRefused) {
  EXPECT_THROW(read_observation_message("not json"), std::runtime_error);
  EXPECT_THROW(read_observation_message(R"({"schema":"reapcheck-results/1"})"), std::runtime_error);
  auto j = nlohmann::json::parse(write_observation_message({}));
  j["observation"].erase("survivors");
  EXPECT_THROW(read_observation_message(j.dump()), std::runtime_error);
}

}  // namespace
}  // namespace reapcheck
