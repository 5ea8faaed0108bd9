// The nvJPEG probe's parts in child processes (bench/micro/nvjpeg_probe/isolation.h): a part's
// JSON comes back, and one that hangs, crashes, fails or writes nothing is named so. The parts
// here are shell scripts: run_part appends "--part-json FILE", which the script sees as $1 $2.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bench/micro/nvjpeg_probe/isolation.h"

namespace feedrate::probe {
namespace {

PartOutcome run_script(const std::string& script, double limit_s = 60) {
  return run_part("/bin/sh", {"-c", script, "part"}, limit_s);
}

TEST(NvJpegIsolation, ReturnsThePartsJson) {
  const PartOutcome outcome = run_script(R"(echo '{"run": {"images": 64}}' > "$2")");
  EXPECT_EQ(outcome.failure, "");
  EXPECT_FALSE(outcome.hung);
  EXPECT_EQ(outcome.figures["run"]["images"], 64);
}

TEST(NvJpegIsolation, KillsAPartThatHangsAndKeepsWhatItWrote) {
  const PartOutcome outcome = run_script(R"(echo '{"handle": "ok"}' > "$2"; exec sleep 600)", 1);
  EXPECT_TRUE(outcome.hung);
  EXPECT_EQ(outcome.failure, "hung: killed after 1 s");
  EXPECT_EQ(outcome.figures["handle"], "ok");
}

TEST(NvJpegIsolation, NamesTheSignalOfAPartThatCrashes) {
  const PartOutcome outcome = run_script("kill -SEGV $$");
  EXPECT_FALSE(outcome.hung);
  EXPECT_EQ(outcome.failure, "crashed: Segmentation fault");
  EXPECT_TRUE(outcome.figures.is_null());
}

TEST(NvJpegIsolation, NamesTheExitStatusOfAPartThatFails) {
  EXPECT_EQ(run_script(R"(echo '{}' > "$2"; exit 3)").failure, "exit status 3");
}

TEST(NvJpegIsolation, APartThatWritesNoJsonFails) {
  EXPECT_EQ(run_script("exit 0").failure, "wrote no JSON");
  EXPECT_EQ(run_script(R"(echo 'not json' > "$2")").failure, "wrote no JSON");
}

TEST(NvJpegIsolation, AProgramThatCannotStartThrows) {
  EXPECT_THROW(run_part("/nonexistent/probe", {}, 5), std::runtime_error);
}

}  // namespace
}  // namespace feedrate::probe
