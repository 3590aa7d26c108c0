// The message a case sends back: from its sandbox's PID 1 to the case runner, and from a case
// worker to the pool. It carries a case's observation and the job it answers, never an identity
// or a verdict: those are given in the parent (complete_case), from the job it holds.
//
// Internal, unlike results.json: both ends are this binary (forks of one process), so it is
// versioned with the binary, and a message from another build is refused, not misread. The public
// results format can change without it, and it without the public format.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "harness/model/result.h"

namespace reapcheck {

struct ObservationMessage {
  size_t job = 0;  // the index of the job it answers, in the parent's list
  CaseObservation observed;
};

// One line, without its newline.
std::string write_observation_message(const ObservationMessage& message);

// Throws std::runtime_error saying what is wrong: not JSON, not this message, another build's.
ObservationMessage read_observation_message(std::string_view text);

}  // namespace reapcheck
