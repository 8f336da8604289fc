#pragma once
// <path>/.ssim: the folder of an experiment that holds ssim's own files (the manifest,
// the lock, the log, the journal, requests, database files). The one place its name is
// spelled; each file in it is named by the module that owns its format.
#include <string>

namespace ssim {

inline std::string ssim_dir(const std::string& experiment_path) { return experiment_path + "/.ssim"; }

}  // namespace ssim
