#include "launchers/member_command.hpp"

#include "lib/launch/launcher.hpp"

namespace ssim::launchers {

std::vector<std::string> through_step_recorder(const std::string& supervisor, const StepRecorder& recorder,
                                               const std::vector<std::string>& program) {
  std::vector<std::string> argv = {supervisor,           "--record-step", recorder.run_dir + "/.ssim-step", "--id",
                                   recorder.id_template, "--rank-var",    recorder.rank_variable,           "--"};
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

StepLaunch member_command(const plan::Step& step, const std::string& supervisor, const MemberWrapping& w) {
  std::vector<std::string> argv = launch::task_program(step, supervisor);  // program, container, colocated database
  if (w.rank_wrapper) argv = through_rank_wrapper(supervisor, step, *w.rank_wrapper, std::move(argv));
  return through_rank_launcher(step.name, supervisor, w, std::move(argv));
}

StepLaunch through_rank_launcher(const std::string& name, const std::string& supervisor, const MemberWrapping& w,
                                 std::vector<std::string> tasks) {
  if (w.recorder) tasks = through_step_recorder(supervisor, *w.recorder, tasks);
  return rank_command(w.launcher, name, w.res, w.placement, w.context, tasks);
}

}  // namespace ssim::launchers
