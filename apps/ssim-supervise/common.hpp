#pragma once
// What the supervisor's modes share: the time, a process's start ticks, files written
// safely, who is writing (for the status file), and the signal to pass on.
#include <signal.h>

#include <string>

#include "lib/state/status_file.hpp"
#include "lib/util/local_file_system.hpp"

namespace supervise {

double now();
// Field 22 of /proc/PID/stat: lets readers tell a process from a later one that reuses its pid.
std::string start_ticks(const std::string& pid = "self");
// Written, checked, then renamed: false when the new text could not be recorded (the
// old file stays).
bool write_atomically(const std::string& path, const std::string& text);
// The same for a file that does not exist yet, written in place (a cut text until done).
bool write_new(const std::string& path, const std::string& text);
// A file written over in place, in the inode it has (write_atomically where it has none):
// only where every reader shares this host's page cache (common.cpp says why).
bool rewrite_in_place(const std::string& path, const std::string& text);
using ssim::on_local_file_system;
// The status file's writer fields: this process, its start, the node and host.
ssim::state::StatusFile identity();
// The last signal received, to pass on to the program (on_signal records it).
extern volatile sig_atomic_t g_forward;
void on_signal(int sig);

}  // namespace supervise
