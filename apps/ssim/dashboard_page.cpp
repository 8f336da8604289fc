// The dashboard's one page (dashboard.html, made a header at configure time): plain HTML,
// CSS and JavaScript, nothing fetched but its own API. It polls /api/status every 2 s
// (the live table and counts), /api/experiments every 10 s (the side list), follows a
// chosen entity's log like `ssim logs -f`, and shows the full report below, reloaded when
// the experiment changes (at most every 10 s). Text from experiments goes in with
// textContent only.
#include "apps/ssim/dashboard_routes.hpp"
#include "dashboard_html.hpp"

namespace ssim::app {

const std::string& dashboard_page() {
  static const std::string page = kDashboardHtml;
  return page;
}

}  // namespace ssim::app
