#include "lib/state/manifest.hpp"
#include "lib/state/setup_failure.hpp"
#include "lib/util/experiment_dir.hpp"

#include <sys/stat.h>

#include "lib/util/errors.hpp"
#include "lib/util/mapped_file.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <thread>
#include <cstdio>
#include <random>

#include "lib/state/entity_reader.hpp"
#include "lib/state/start_journal.hpp"
#include "lib/util/atomic_file.hpp"

namespace ssim::state {

const EntityExtra& EntityRecord::extra() const {
  static const EntityExtra none;
  return extra_ ? *extra_ : none;
}

EntityExtra& EntityRecord::extra_mut() {
  if (!extra_ || extra_.use_count() != 1) extra_ = std::make_shared<EntityExtra>(extra_ ? *extra_ : EntityExtra{});
  return const_cast<EntityExtra&>(*extra_);  // this record's alone: made just now, non-const, or copied above
}

std::string to_string(EntityKind kind) {
  switch (kind) {
    case EntityKind::Model:
      return "model";
    case EntityKind::Member:
      return "member";
    case EntityKind::Database:
      return "database";
    case EntityKind::Batch:
      return "batch";
  }
  return "model";
}

EntityKind entity_kind(const std::string& name) {
  if (name == "member") return EntityKind::Member;
  if (name == "database") return EntityKind::Database;
  if (name == "batch") return EntityKind::Batch;
  return EntityKind::Model;
}

using nlohmann::json;

EntityRecord* Manifest::find(const std::string& name) {
  using Found = NameTable<uint32_t>::Found;
  const auto name_of = [this](uint32_t i) {
    return i < entities.size() ? std::string_view(entities[i].name) : std::string_view("\n");  // no name has one
  };
  uint32_t at = 0;
  const Found found = name_index.find(name, name_of, at);
  if (found == Found::Yes) return &entities[at];
  // Not there: a name that is in no entity (the index is whole), or a stale index.
  if (found == Found::No && name_index.size() == entities.size()) return nullptr;
  name_index.clear();
  for (size_t i = entities.size(); i-- > 0;)  // backwards: of two records of one name, the first is found
    name_index.insert(entities[i].name, static_cast<uint32_t>(i), name_of);
  return name_index.find(name, name_of, at) == Found::Yes ? &entities[at] : nullptr;
}

const EntityRecord* Manifest::find(const std::string& name) const { return const_cast<Manifest*>(this)->find(name); }

namespace {
json optional_int(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace

double seconds_run(const EntityRecord& e, double now) {
  if (e.start <= 0 || e.status == Status::New) return -1;
  const double end = e.end > 0 ? e.end : is_terminal(e.status) ? e.start : now;
  return std::max(0.0, end - e.start);
}

std::map<Status, int> entity_counts(const Manifest& m) {
  std::map<Status, int> counts;
  for (const auto& e : m.entities)
    if (e.type != state::EntityKind::Database) counts[e.status]++;
  return counts;
}

json attempt_record(const EntityRecord& r) {
  const std::string n = std::to_string(r.attempt);
  // A setup line's failure is read from the run directory when shown; the next attempt
  // clears that record, so the attempt keeps the note itself.
  std::string reason = r.reason;
  if (r.status == Status::Failed)
    if (const auto setup = read_setup_failure(r.run_dir)) reason = describe(*setup);
  return {{"attempt", r.attempt},
          {"status", to_string(r.status)},
          {"exit_code", optional_int(r.exit_code)},
          {"signal", optional_int(r.signal)},
          {"reason", reason},
          {"start", r.start},
          {"end", r.end},
          {"job_id", r.job_id},
          {"stdout", r.name + ".out." + n},
          {"stderr", r.name + ".err." + n}};
}

namespace {
// Field by field, not from initializer lists: 6x faster, and a 5,000-entity manifest is
// saved up to ten times a second while a run lasts.
json entity_json(const EntityRecord& e, const std::string& launcher) {
  json j = json::object();
  j["name"] = e.name;
  j["type"] = to_string(e.type);
  j["submitted"] = e.submitted;
  j["nodes"] = e.nodes;
  j["params"] = e.extra().params;
  j["ensemble"] = e.ensemble;
  j["run_dir"] = e.run_dir;
  j["after"] = e.extra().after;
  if (!e.extra().after_any.empty()) j["after_any"] = e.extra().after_any;
  j["status"] = to_string(e.status);
  j["launcher"] = launcher;
  j["job_id"] = e.job_id;
  j["pid"] = e.pid;
  j["native_id"] = e.extra().native_id;
  j["exit_code"] = optional_int(e.exit_code);
  j["signal"] = optional_int(e.signal);
  j["reason"] = e.reason;
  j["start"] = e.start;
  j["end"] = e.end;
  j["attempt"] = e.attempt;
  j["retry_at"] = e.retry_at;
  if (e.held) j["held"] = true;
  if (e.setup) j["setup"] = true;
  if (e.no_metrics) j["no_metrics"] = true;
  j["earlier_attempts"] = e.extra().earlier_attempts;
  if (e.goal) {
    j["goal"] = {{"metric", e.goal->metric},
                 {e.goal->at_least ? "at_least" : "at_most", e.goal->target},
                 {"stop_on_goal", e.goal->stop}};
    if (e.extra().reached) {
      j["goal"]["reached"] = {{"value", e.extra().reached->value}, {"seconds", e.extra().reached->seconds}};
      if (e.extra().reached->step) j["goal"]["reached"]["step"] = *e.extra().reached->step;
    }
  }
  return j;
}

json header_json(const Manifest& m) {
  json j = {{"version", m.version},
            {"experiment", m.experiment},
            {"id", m.id},
            {"file", m.file},
            {"path", m.path},
            {"launcher", m.launcher},
            {"created", m.created},
            {"finished", m.finished},
            {"allocation_job", m.allocation_job},
            {"allocation_owned", m.allocation_owned},
            {"database_snapshot", m.database_snapshot}};
  if (!m.command.empty()) j["command"] = m.command;
  return j;
}
}  // namespace

json to_json(const Manifest& m) {
  json j = header_json(m);
  json entities = json::array();
  for (const auto& e : m.entities) entities.push_back(entity_json(e, m.launcher));
  j["entities"] = std::move(entities);
  return j;
}

// The manifest's text, one entity at a time: never the whole document in memory as
// JSON values (a 100,000-member manifest would take hundreds of MB that way). Each
// entity is a line of its own.
template <typename Out>
void write_manifest(const Manifest& m, Out&& out) {
  std::string head = header_json(m).dump(1);
  head.pop_back();  // the closing brace: the entities go before it
  out(head + ",\n \"entities\": [");
  for (size_t i = 0; i < m.entities.size(); ++i)
    out((i ? ",\n  " : "\n  ") + entity_json(m.entities[i], m.launcher).dump());
  out(m.entities.empty() ? "]\n}\n" : "\n ]\n}\n");
}

std::string manifest_text(const Manifest& m) {
  std::string text;
  write_manifest(m, [&](const std::string& piece) { text += piece; });
  return text;
}

namespace {
Manifest header_from_json(const json& j) {
  Manifest m;
  m.version = j.value("version", 1);
  m.experiment = j.value("experiment", "");
  m.id = j.value("id", "");
  m.file = j.value("file", "");
  m.path = j.value("path", "");
  m.launcher = j.value("launcher", "");
  m.created = j.value("created", 0.0);
  m.finished = j.value("finished", 0.0);
  m.allocation_job = j.value("allocation_job", "");
  m.allocation_owned = j.value("allocation_owned", false);
  m.database_snapshot = j.value("database_snapshot", true);
  m.command = j.value("command", "");
  return m;
}

}  // namespace

std::vector<MetricPoint> read_metrics(const EntityRecord& e) {
  if (e.no_metrics) return {};
  return read_metrics(e.run_dir, e.name);
}

std::optional<GoalReached> goal_outcome(const EntityRecord& e, const std::vector<MetricPoint>& points) {
  if (!e.goal) return std::nullopt;
  if (e.extra().reached) return *e.extra().reached;
  return goal_reached(*e.goal, points, e.start);
}

namespace {

// Each line's record, read on a few threads when there are many: a million members'
// lines were most of what ssim status did. A line that is not a record throws its
// json::exception here, on the caller's thread.
// `read(from, to)`: that text is no longer needed (called by each thread as it goes).
std::vector<EntityRecord> entities_from_lines(const std::vector<std::string_view>& lines,
                                              const std::function<void(const char*, const char*)>& read = {}) {
  std::vector<EntityRecord> out(lines.size());
  constexpr size_t kLinesPerThread = 50000;
  const size_t threads =
      std::clamp<size_t>(lines.size() / kLinesPerThread, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::exception_ptr> failed(threads);
  const auto read_part = [&](size_t part) {
    try {
      const size_t from = lines.size() * part / threads, to = lines.size() * (part + 1) / threads;
      constexpr size_t kLinesPerRelease = 16384;  // about 5 MB of text
      for (size_t i = from; i < to; ++i) {
        out[i] = entity_from_text(lines[i]);
        if (read && ((i + 1 - from) % kLinesPerRelease == 0 || i + 1 == to))
          read(lines[from + ((i - from) / kLinesPerRelease) * kLinesPerRelease].data(),
               lines[i].data() + lines[i].size());
      }
    } catch (...) {
      failed[part] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (size_t part = 1; part < threads; ++part) helpers.emplace_back(read_part, part);
  read_part(0);
  for (auto& t : helpers) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  return out;
}

// The file as save_manifest writes it: a header, then an entity per line. Parsed a
// line at a time (a 100,000-member manifest never becomes one JSON document in
// memory); nullopt when the text has another layout (an older ssim's), which is then
// read whole.
std::optional<Manifest> manifest_from_lines(std::string_view text,
                                            const std::function<void(const char*, const char*)>& read = {}) try {
  constexpr std::string_view marker = ",\n \"entities\": [";
  const size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  Manifest m = header_from_json(json::parse(std::string(text.substr(0, at)) + "\n}"));
  size_t pos = at + marker.size();
  std::vector<std::string_view> lines;       // an entity a line
  lines.reserve((text.size() - pos) / 256);  // about a line's length: counting them was a tenth of a large read
  while (true) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) return std::nullopt;
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) continue;
    if (line.front() == ']') break;
    if (line.back() == ',') line.remove_suffix(1);
    if (line.front() != '{') return std::nullopt;
    lines.push_back(line);
  }
  if (read) read(text.data() + at, text.data() + text.size());  // the split read it all: let it go until parsed
  m.entities = entities_from_lines(lines, read);
  return m;
} catch (const json::exception&) {
  return std::nullopt;  // read whole, which says what is wrong
}
}  // namespace

Manifest manifest_from_json(const json& j) {
  Manifest m = header_from_json(j);
  static const json none = json::array();
  const auto found = j.find("entities");  // by reference: value() would copy every entity
  for (const auto& e : found != j.end() ? *found : none) m.entities.push_back(entity_from_json(e));
  return m;
}

std::string new_experiment_id() {
  std::random_device rd;
  std::uniform_int_distribution<uint64_t> d;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(d(rd)));
  return buf;
}

std::string manifest_path(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/manifest.json"; }

Manifest load_manifest(const std::string& experiment_path) {
  // The journal first: the engine saves the manifest and then empties the journal, so
  // whichever moment this falls in, every start is in one or the other.
  const auto journal = read_file(start_journal_path(experiment_path));
  const auto file = MappedFile::open(manifest_path(experiment_path));
  if (!file) throw UsageError("no experiment at " + experiment_path + " (no .ssim/manifest.json)");
  const std::string_view text = file->text();
  try {
    // The text already read is let go as the threads go: mapped whole, a million members'
    // manifest (350 MB) sat beside their records (as much again) at a resume's peak.
    auto lines = manifest_from_lines(text, [&file](const char* from, const char* to) { file->release(from, to); });
    Manifest m = lines ? std::move(*lines) : manifest_from_json(json::parse(text.begin(), text.end()));
    if (journal) apply_starts(m, *journal);  // what started since the engine last saved it
    return m;
  } catch (const json::exception& e) {
    // Damaged (a disk that filled, an editor): say which file, and what can be done.
    throw EnvironmentError("the manifest " + manifest_path(experiment_path) + " is damaged (" +
                           (text.empty() ? std::string("empty") : "not the JSON ssim writes") +
                           "), so ssim cannot tell what ran; the run directories are intact: start again with "
                           "ssim run FILE --overwrite, or restore the file from a backup");
  }
}

std::string manifest_version(const std::string& experiment_path) {
  struct stat st {};
  if (::stat(manifest_path(experiment_path).c_str(), &st) != 0) return "";
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

void save_manifest(const Manifest& m) {
  AtomicFileWriter file(manifest_path(m.path));
  write_manifest(m, [&](const std::string& piece) { file.write(piece); });
  file.commit();
}

}  // namespace ssim::state
