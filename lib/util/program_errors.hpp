#pragma once
// What a failed program itself said last, not what its launcher said about it: MPI and
// scheduler launchers end a failed step's stderr with banners of their own (Open MPI's
// dashed "mpirun detected that one or more processes exited with non-zero status"
// blocks, MPICH's "BAD TERMINATION" frame, "srun: error: n1: task 1: Exited with exit
// code 1", jsrun's and aprun's summaries), which hide the rank's own error line.
#include <string>

namespace ssim {

// The last `lines` lines of `text` that are not launcher banners (joined with '\n'),
// control characters and invalid UTF-8 made U+FFFD.
std::string program_lines(const std::string& text, int lines);

// The same, from the end of a file (at most its last 64 KiB); "" when missing or empty.
std::string last_program_lines(const std::string& path, int lines);

}  // namespace ssim
