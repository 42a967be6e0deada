#pragma once
// The subcommands of inferlens-cli. Each returns the process exit code and reports failures by
// throwing (inferlens::Error: exit 1; UsageError: exit 2), which main() turns into one stderr line.

#include <string>
#include <vector>

namespace inferlens::cli {

using Words = std::vector<std::string>;

int runInfo(const Words& words);
int runLogits(const Words& words);
int runSynth(const Words& words);
int runConvert(const Words& words);
int runBench(const Words& words);
int runTokenize(const Words& words);
int runGenerate(const Words& words);
int runChat(const Words& words);
int runTrace(const Words& words);
int runScore(const Words& words);
int runKvExperiment(const Words& words);

}  // namespace inferlens::cli
