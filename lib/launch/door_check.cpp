#include "lib/launch/door_check.hpp"

#include <unistd.h>

#include "lib/spec/error.hpp"
#include "lib/util/layout.hpp"

namespace ssim::launch {

void check_smartredis_door(const spec::ExperimentSpec& spec) {
  const spec::Entity* asking = nullptr;
  for (const auto& e : spec.entities)
    if (e.smartredis.value_or(spec.smartredis)) {
      asking = &e;
      break;
    }
  if (!asking) return;
  const std::string supervisor = find_supervisor();
  if (supervisor.empty()) return;
  const std::string door = door_beside(supervisor);
  if (::access(door.c_str(), X_OK) == 0) return;
  const bool own = asking->smartredis.has_value();
  throw spec::SpecError(spec.file, own ? asking->smartredis_loc : spec.smartredis_loc,
                        own ? asking->field + ".smartredis" : "experiment.smartredis",
                        "this ssim has no SmartRedis door (" + door + " is missing): reinstall ssim");
}

}  // namespace ssim::launch
