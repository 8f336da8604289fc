#include "apps/ssim-supervise/node_name.hpp"

#include <unistd.h>

#include <cstdlib>

std::string node_name() {
  if (const char* var = std::getenv("SSIM_NODE_VARIABLE"); var && *var)
    if (const char* node = std::getenv(var); node && *node) return node;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}
