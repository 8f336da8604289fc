#pragma once
// Containers that cannot start, found before anything starts (docs/containers.md
// "Checked before anything starts"): a runtime that is not installed, an image that does
// not exist, a program that is not in a directory image, a Charliecloud image with no
// place to bind the run directory and cannot be given one.
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::launch {

// Whether `path` (as seen inside) is in the directory image `image`; a link counts.
bool exists_in(const std::string& image, const std::string& path);
// Whether the container's image is a directory on this host (not a .sif, .sqfs or name).
bool is_directory_image(const plan::Container& c);

// Throws SpecError naming the container's field (or the entity's exe) for the first
// problem; a mount point it lacks must be one ssim run may make. A runtime is looked for on the PATH only where no
// setup line (a `module load apptainer`) may bring it.
void check_containers(const spec::ExperimentSpec& spec, const plan::Plan& plan);

// A folder a Charliecloud directory image lacks for a bind of one of `plan`'s steps
// (ch-run cannot make it in an image it mounts read-only).
struct MountPoint {
  const plan::Container* container;
  std::string target;  // inside the container
  std::string path;    // the same folder in the image, on the host
};
std::vector<MountPoint> mount_points(const plan::Plan& plan);

// Makes them (`ssim run`, after the checks): the image is the user's folder, and empty
// folders change nothing else in it. Throws SpecError where one cannot be made.
void make_mount_points(const spec::ExperimentSpec& spec, const plan::Plan& plan);

}  // namespace ssim::launch
