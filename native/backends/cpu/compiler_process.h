// Runs the compiler as a child process that cannot outlive its caller: it gets
// a process group of its own, which is killed as a whole when the run ends, is
// stopped or times out, and also when the calling thread dies.
#ifndef FUSELAB_CPU_COMPILER_PROCESS_H
#define FUSELAB_CPU_COMPILER_PROCESS_H

#include <functional>
#include <string>
#include <vector>

namespace fl::cpu {

struct process_limits {
  int timeout_ms = 0;                  // 0: none
  std::function<bool()> should_stop;   // polled while the process runs; may be empty
};

enum class process_outcome { exited, killed_by_signal, timed_out, stopped, not_started };

struct process_result {
  process_outcome outcome = process_outcome::not_started;
  int code = 0;   // exit status, or the signal's number
  int error = 0;  // errno when it could not be started
};

// Runs `program` (an absolute path) with `arguments` (argv[0] first) and exactly
// `environment`, in `folder`, with stdout and stderr into `output_path`.
process_result run_process(const std::string& program, const std::vector<std::string>& arguments,
                           const std::vector<std::string>& environment, const std::string& folder,
                           const std::string& output_path, const process_limits& limits);

}  // namespace fl::cpu

#endif
