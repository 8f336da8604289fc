#include "lib/engine/live_index.hpp"

#include <catch2/catch.hpp>

using namespace ssim;
using ssim::engine::LiveIndex;
using state::Status;

namespace {
std::vector<size_t> waiting_of(const LiveIndex& live) { return {live.waiting().begin(), live.waiting().end()}; }
state::Manifest manifest_of(std::vector<Status> statuses) {
  state::Manifest m;
  for (size_t i = 0; i < statuses.size(); ++i) {
    state::EntityRecord r;
    r.name = "e_" + std::to_string(i);
    r.status = statuses[i];
    m.entities.push_back(r);
  }
  return m;
}
// Failed ones are retried (never ended for good); completed and cancelled ones are.
bool ended_unless_failed(const state::EntityRecord& r) {
  return r.status == Status::Completed || r.status == Status::Cancelled;
}
}  // namespace

TEST_CASE("live index: started entities are walked until they end for good, new ones wait in order") {
  auto m = manifest_of({Status::Completed, Status::Running, Status::Failed, Status::New, Status::New});
  LiveIndex live(ended_unless_failed);
  live.update(m);
  CHECK(live.started() == std::vector<size_t>{1, 2});
  CHECK(waiting_of(live) == std::vector<size_t>{3, 4});

  m.entities[3].status = Status::Pending;  // e_3 starts
  live.started_now(3);
  m.entities[1].status = Status::Completed;
  live.update(m);
  CHECK(live.started() == std::vector<size_t>{2, 3});
  CHECK(waiting_of(live) == std::vector<size_t>{4});  // left from the front

  m.entities[2].status = Status::New;  // retried
  live.new_again(2);
  live.update(m);
  CHECK(live.started() == std::vector<size_t>{3});
  CHECK(waiting_of(live) == std::vector<size_t>{2, 4});
}

TEST_CASE("live index: one held at the front does not keep the started ones in for ever") {
  std::vector<Status> s(10, Status::New);
  auto m = manifest_of(s);
  LiveIndex live(ended_unless_failed);
  live.update(m);
  for (size_t i = 1; i < 10; ++i) {  // all but e_0 (held) start
    m.entities[i].status = Status::Running;
    live.started_now(i);
  }
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{0});  // swept whole once half the list had started
}

TEST_CASE("live index: made anew when entities join or an ended one runs again") {
  auto m = manifest_of({Status::Completed, Status::New});
  LiveIndex live(ended_unless_failed);
  live.update(m);
  m.entities[0].status = Status::New;  // ssim start of an ended one
  live.make_anew();
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{0, 1});
  m.entities.push_back(m.entities[1]);  // added to the file
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("live index: a member passed over at the front and retried is listed once, in order") {
  auto m = manifest_of(std::vector<Status>(6, Status::New));
  LiveIndex live(ended_unless_failed);
  live.update(m);
  m.entities[0].status = Status::Pending;
  live.started_now(0);
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{1, 2, 3, 4, 5});
  m.entities[0].status = Status::New;  // failed, retried
  live.new_again(0);
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{0, 1, 2, 3, 4, 5});
  for (size_t i = 1; i < 5; ++i) {
    m.entities[i].status = Status::Running;
    live.started_now(i);
  }
  live.update(m);
  CHECK(waiting_of(live) == std::vector<size_t>{0, 5});
}
