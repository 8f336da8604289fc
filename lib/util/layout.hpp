#pragma once
// Where ssim's own parts are, relative to the running ssim binary: in the build tree
// (build/apps/ssim/ssim, the supervisor beside it, the Python module in build/python) or
// under an install prefix (bin/ssim, libexec/ssim/ssim-supervise,
// lib/python3.X/dist-packages/ssim). /proc/self/exe is the real file, so a symlink to ssim
// (~/bin/ssim -> /opt/ssim/bin/ssim) finds the parts of the tree it points into.
#include <string>
#include <vector>

namespace ssim {

// `program` itself when it holds a '/', else the first executable of that name on
// $PATH; "" when there is none.
std::string find_on_path(const std::string& program);
// The same on `dirs` (a PATH's value) instead of $PATH.
std::string find_on_path(const std::string& program, const std::string& dirs);

// The places the supervisor is looked for, in order ($SSIM_SUPERVISE first when set).
std::vector<std::string> supervisor_candidates();
// The first candidate that is an executable file, or "".
std::string find_supervisor();
// The SmartRedis door beside `supervisor` (where it is installed and built): its path,
// whether or not it is there; "ssim-door" for a supervisor named without a folder.
std::string door_beside(const std::string& supervisor);
// The inference service (beside ssim, or libexec/ssim/ssim-infer), or "" when ssim was
// built without libtorch.
std::string find_inference_service();
// How to get the inference service where find_inference_service() found none: libtorch,
// then the build again (pip's wheel and a source build both build it where libtorch is).
std::string inference_service_fix();
// The folder holding the `ssim` Python package built or installed with this ssim, or "".
std::string python_package_dir();

// The interpreter `exe: python3` entities get when the file has no experiment.python
// (docs/python.md): $SSIM_PYTHON, else the Python the module beside this ssim was built
// for (when it is there), else "" (PATH decides).
std::string entity_python();

}  // namespace ssim
