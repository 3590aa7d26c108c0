// What a reaper is called where only a plain word fits. A reaper's id is what the user gave
// `--reaper`: a catalogue id ("pgroup"), a command ("exec:./my-reaper kill {pid}"), or a command
// with a label the user chose ("my-reaper=exec:./my-reaper kill {pid}"). Readers of JUnit split
// a classname at its dots (Jenkins into package and class, mikepenz/action-junit-report into a
// file name), so a command, with its dots, slashes and quotes, cannot be one.
#pragma once

#include <string>
#include <string_view>

namespace reapcheck {

struct LabelledReaper {
  std::string_view label;   // empty when the id has none
  std::string_view reaper;  // the id without its label: "exec:CMD", "supervise:CMD", "pgroup"
};

// A label is letters, digits, '-' and '_' (no dot), before '=' and an `exec:` or `supervise:`
// command: "my-reaper=exec:CMD" is {"my-reaper", "exec:CMD"}. Any other id is unlabelled, whole.
LabelledReaper split_reaper_label(std::string_view id);

// The reaper as people read it (the terminal, the matrix, the HTML): its label when it has one,
// else the id as given. The command behind a label stays in the evidence.
std::string_view shown_reaper(std::string_view id);

// Whether `word` may be a label (and so a report's name as it is): letters, digits, '-', '_'.
bool is_plain_name(std::string_view word);

// The reaper's name for reports that need a plain word (a JUnit classname and suite name): its
// label; a plain id as it is; for an unlabelled command, its kind, its program's file name and
// a checksum of the whole id: "exec-my-reaper-1a2b3c4d". The same id gives the same name on
// every run and machine, so a CI's test history follows it.
std::string reaper_name(std::string_view id);

}  // namespace reapcheck
