#include "lib/session/launch_record.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include "lib/state/launch_log.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;
using namespace ssim::session;

TEST_CASE("secrets are told by their names, in any case") {
  for (const char* name : {"SSDB_PASSWORD", "db_passwd", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "API_KEY",
                           "WANDB_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_PRIVATE"})
    CHECK(is_secret_variable(name));
  for (const char* name : {"PATH", "SSDB", "SSKEYOUT", "SSKEYIN", "OMP_NUM_THREADS", "KEYBOARD"})
    CHECK_FALSE(is_secret_variable(name));
}

TEST_CASE("a URL keeps everything but its password") {
  bool masked = false;
  CHECK(shown_value("DATABASE_URL", "redis://:s3cret@cn1:6379/0", masked) == "redis://:********@cn1:6379/0");
  CHECK(masked);
  CHECK(shown_value("DB", "postgres://me:pw@host/db?x=a@b", masked) == "postgres://me:********@host/db?x=a@b");
  CHECK(shown_value("SSDB", "10.0.0.1:6379", masked) == "10.0.0.1:6379");
  CHECK_FALSE(masked);
  CHECK(shown_value("HOME_URL", "https://user@host/", masked) == "https://user@host/");  // no password
  CHECK(shown_value("SSDB_PASSWORD", "", masked).empty());                               // nothing to hide
}

TEST_CASE("an entity's launch record: its command line quoted, its environment sorted and masked") {
  test::TempDir dir;
  const std::string exp = dir.path.string();
  std::filesystem::create_directories(dir.path / ".ssim");
  const std::string log = state::launch_log_path(exp);
  // The launching ssim's environment, and what the job added to it (one replaced).
  state::append_launches(log, {"A=1", "SSDB=old"},
                         {{exp + "/train",
                           {"/usr/bin/python3", "train.py", "--name", "two words"},
                           {{"SSDB", "127.0.0.1:6380"}, {"SSDB_PASSWORD", "hunter2"}},
                           0}});
  const auto r = launch_record(exp, exp + "/train");
  REQUIRE(r);
  CHECK(r->command == "/usr/bin/python3 train.py --name 'two words'");
  REQUIRE(r->env.size() == 3);
  CHECK(r->env[0] == std::pair<std::string, std::string>{"A", "1"});
  CHECK(r->env[1] == std::pair<std::string, std::string>{"SSDB", "127.0.0.1:6380"});
  CHECK(r->env[2] == std::pair<std::string, std::string>{"SSDB_PASSWORD", "********"});
  CHECK(r->masked == 1);
  CHECK_FALSE(launch_record(exp, exp + "/nowhere"));
  // A later attempt's launch is the one shown.
  state::append_launches(log, {"A=1", "SSDB=old"}, {{exp + "/train", {"/bin/true"}, {}, 5}});
  CHECK(launch_record(exp, exp + "/train")->command == "/bin/true");
  CHECK(state::find_launch(log, exp + "/train")->time_limit == 5);
}
