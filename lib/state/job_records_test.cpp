#include "lib/state/job_records.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "lib/state/keeper_journal.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/util/experiment_dir.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim::state;
namespace fs = std::filesystem;

namespace {
StatusFile running(int pid) {
  StatusFile st;
  st.start = 1000, st.pid = pid, st.supervisor_pid = 7, st.supervisor_start_ticks = "9", st.host = "h";
  return st;
}

StatusFile ended(int pid, int code) {
  StatusFile st = running(pid);
  st.exited = true, st.end = 1001, st.exit_code = code, st.signal = std::nullopt;
  return st;
}

// An experiment folder with its .ssim and keepers folders, as ssim makes them.
struct Experiment {
  ssim::test::TempDir dir;
  std::string path = dir.path.string();
  std::string keepers = ssim::ssim_dir(path) + "/keepers";
  Experiment() { fs::create_directories(keepers); }
  std::string run_dir(const std::string& name) const {
    fs::create_directories(path + "/" + name);
    return path + "/" + name;
  }
};
}  // namespace

TEST_CASE("keeper journal: a record is a slot of fixed length that its end is written over") {
  const std::string first = encode_journal_record(4096, "/e/m \"1\"", running(5));
  CHECK(first.back() == '\n');
  CHECK(first.size() > kJournalEndRoom);
  long launch = 0;
  std::string_view run_dir;
  REQUIRE(read_journal_head(first, launch, run_dir));
  CHECK(launch == 4096);
  CHECK(run_dir == status_json_string("/e/m \"1\""));
  StatusFile end = ended(5, 1);
  end.error = std::string(4000, 'x');  // far longer than the room: cut to fit
  const std::string last = encode_journal_record(4096, "/e/m \"1\"", end, first.size());
  REQUIRE(last.size() == first.size());
  const auto back = decode_status_file(last);
  REQUIRE(back);
  CHECK(back->exited);
  CHECK(back->exit_code == 1);
  CHECK(back->error.substr(back->error.size() - 3) == "...");
  CHECK_FALSE(read_journal_head("{\"format\":1}\n", launch, run_dir));  // a status file's text
}

TEST_CASE("job records: the latest launch's record is the job's, whichever journal holds it") {
  Experiment e;
  const std::string m = e.run_dir("m");
  // One of them written on another host (read through a descriptor opened at each refresh).
  KeeperJournal a(e.keepers, "h.1.1.ndjson"), b(e.keepers, "node-elsewhere.2.2.ndjson");
  CHECK(a.append(encode_journal_record(500, m, ended(11, 3))) == 0);
  CHECK(b.append(encode_journal_record(100, m, ended(10, 0))) == 0);  // an earlier attempt's, found later
  const auto st = read_job_record(m, true);
  REQUIRE(st);
  CHECK(st->pid == 11);
  CHECK(st->exit_code == 3);
  // What the run directory holds: nothing of ssim's.
  CHECK(fs::is_empty(m));
  // A later launch recorded on the other host, running, then ended in place.
  const std::string start = encode_journal_record(900, m, running(12));
  const long slot = b.append(start);
  CHECK(read_job_record(m, true)->pid == 12);
  REQUIRE(b.rewrite(slot, encode_journal_record(900, m, ended(12, 9), start.size())));
  CHECK(read_job_record(m, true)->exit_code == 9);
}

TEST_CASE("job records: a launch not recorded yet leaves the job pending, not ended as its last attempt") {
  Experiment e;
  const std::string m = e.run_dir("m");
  KeeperJournal k(e.keepers, "h.1.1.ndjson");
  k.append(encode_journal_record(0, m, ended(10, 1)));
  REQUIRE(read_job_record(m, true));
  // The rerun's launch, written by another process (ssim resumed): its line in the log.
  const auto launches = append_launches(launch_log_path(e.path), {"A=B"}, {{m, {"/bin/true"}, {}, 0}});
  REQUIRE(launches.size() == 1);
  CHECK_FALSE(read_job_record(m, true));
  // Its keeper starts it, then writes its end over the same slot.
  const std::string start = encode_journal_record(launches[0], m, running(20));
  const long slot = k.append(start);
  REQUIRE(slot > 0);
  auto st = read_job_record(m, true);
  REQUIRE(st);
  CHECK_FALSE(st->exited);
  CHECK(st->pid == 20);
  REQUIRE(k.rewrite(slot, encode_journal_record(launches[0], m, ended(20, 0), start.size())));
  st = read_job_record(m);  // known: its slot is read again, no refresh needed
  REQUIRE(st);
  CHECK(st->exited);
  CHECK(st->exit_code == 0);
}

TEST_CASE("job records: a status file (an outcome ssim recovered) stands over a record of the job running") {
  Experiment e;
  const std::string m = e.run_dir("m");
  KeeperJournal k(e.keepers, "h.1.1.ndjson");
  k.append(encode_journal_record(0, m, running(10)));
  StatusFile recovered = ended(10, 0);
  recovered.recovered_by = "ssim run";
  std::ofstream(status_file_path(m)) << encode_status_file(recovered);
  const auto st = read_job_record(m, true);
  REQUIRE(st);
  CHECK(st->recovered_by == "ssim run");
  fs::remove(status_file_path(m));
  CHECK_FALSE(read_job_record(m, true)->exited);
  // Once its keeper recorded its end, that end is the job's, whatever file lies beside it.
  const long slot = k.append(encode_journal_record(0, m, ended(10, 4)));
  REQUIRE(slot > 0);
  std::ofstream(status_file_path(m)) << encode_status_file(recovered);
  CHECK(read_job_record(m, true)->exit_code == 4);
}

TEST_CASE("job records: a record cut short by a full disk is passed over, the next one read whole") {
  Experiment e;
  const std::string m = e.run_dir("m"), n = e.run_dir("n");
  const std::string cut = encode_journal_record(0, m, running(10)).substr(0, 40) + "\n";
  std::ofstream(e.keepers + "/h.3.3.ndjson") << cut << encode_journal_record(0, n, ended(12, 0));
  CHECK_FALSE(read_job_record(m, true));
  const auto st = read_job_record(n, true);
  REQUIRE(st);
  CHECK(st->pid == 12);
}

TEST_CASE(
    "job records: a later attempt run as a batch job reads its wrapper's file, not the keeper's record before it") {
  Experiment e;
  const std::string m = e.run_dir("m");
  KeeperJournal k(e.keepers, "h.1.1.ndjson");
  k.append(encode_journal_record(0, m, ended(10, 2)));                        // attempt 1, through a keeper: failed
  append_launches(launch_log_path(e.path), {}, {{m, {"/bin/true"}, {}, 0}});  // attempt 2, a batch job
  CHECK_FALSE(read_job_record(m, true));                                  // submitted: nothing says how it stands yet
  std::ofstream(status_file_path(m)) << encode_status_file(running(30));  // its wrapper's
  const auto st = read_job_record(m, true);
  REQUIRE(st);
  CHECK_FALSE(st->exited);
  CHECK(st->pid == 30);
}

TEST_CASE("job records: an experiment made anew under the same path is read anew") {
  Experiment e;
  const std::string m = e.run_dir("m");
  {
    KeeperJournal k(e.keepers, "h.1.1.ndjson");
    k.append(std::string(4000, ' ') + "\n");  // the old journal is long: its record's launch is late
    k.append(encode_journal_record(9000, m, ended(10, 5)));
  }
  REQUIRE(read_job_record(m, true)->exit_code == 5);
  fs::remove_all(ssim::ssim_dir(e.path));  // ssim run --overwrite
  fs::create_directories(e.keepers);
  const auto launches = append_launches(launch_log_path(e.path), {}, {{m, {"/bin/true"}, {}, 0}});
  CHECK_FALSE(read_job_record(m, true));  // the new launch has no record yet: not the old one's end
  KeeperJournal k(e.keepers, "h.2.2.ndjson");
  k.append(encode_journal_record(launches[0], m, ended(11, 0)));
  CHECK(read_job_record(m, true)->exit_code == 0);
}

TEST_CASE("job records: a job's stop marker is looked for only once its experiment says a stop was asked") {
  Experiment e;
  const std::string m = e.run_dir("m");
  const std::string flag = ssim::ssim_dir(e.path) + "/cancels";
  CHECK_FALSE(cancels_asked_in(m));
  CHECK(cancels_asked_in("/nowhere/at/all/m"));  // no experiment to ask: look for the marker
  // Another process asks for a stop: seen at a refresh (at its pace, or a fresh read).
  std::ofstream(flag).close();
  CHECK_FALSE(cancels_asked_in(m));  // what this process last read
  (void)read_job_record(m, true);
  CHECK(cancels_asked_in(m));
  // Another experiment, whose first stop this process asks: it makes the flag, and knows at once.
  Experiment f;
  const std::string n = f.run_dir("n");
  CHECK_FALSE(cancels_asked_in(n));
  note_cancel_in(n);
  CHECK(fs::exists(ssim::ssim_dir(f.path) + "/cancels"));
  CHECK(cancels_asked_in(n));
}

TEST_CASE("start journal: a launch ssim never learned the id of is the job its launch was to be") {
  // ssim killed after handing a member to a node agent, before writing down its id ("?"):
  // the launch named the agent's job, and its keeper recorded the end.
  Experiment e;
  const std::string m = e.run_dir("m_1"), other = e.run_dir("m_2");
  const auto launches =
      append_launches(launch_log_path(e.path), {"A=B"},
                      {{m, {"/bin/true"}, {}, 0, "agent:1795987897-22545:n1"}, {other, {"/bin/true"}, {}, 0}});
  KeeperJournal k(e.keepers, "n1.1.1.ndjson");
  k.append(encode_journal_record(launches[0], m, ended(10, 0)));
  k.append(encode_journal_record(launches[1], other, ended(11, 0)));
  CHECK(launched_job_id(launch_log_path(e.path), launches[0]) == "agent:1795987897-22545:n1");
  CHECK(launched_job_id(launch_log_path(e.path), launches[1]).empty());  // a launcher that names none
  CHECK(launched_job_id(launch_log_path(e.path), -1).empty());

  Manifest man;
  man.path = e.path;
  for (const auto& [name, dir] : {std::pair{"m_1", m}, std::pair{"m_2", other}}) {
    EntityRecord r;
    r.name = name;
    r.run_dir = dir;
    man.entities.push_back(r);
  }
  append_starts(man.path, {{"m_1", "?", 1, 20.0, ""}, {"m_2", "?", 1, 20.0, ""}});
  apply_starts(man);
  CHECK(man.entities[0].job_id == "agent:1795987897-22545:n1");
  CHECK(man.entities[0].attempt == 1);
  CHECK(man.entities[1].job_id == "?");        // its files decide, as before
  man.entities[0].status = Status::Completed;  // refreshed since
  apply_starts(man);                           // read again: the attempt is not begun anew
  CHECK(man.entities[0].status == Status::Completed);
  CHECK(man.entities[0].job_id == "agent:1795987897-22545:n1");
}
