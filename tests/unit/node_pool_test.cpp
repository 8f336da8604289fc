#include <catch2/catch.hpp>

#include "lib/launch/node_pool.hpp"

using namespace ssim;
using namespace ssim::launch;

namespace {
plan::Resources ask(int ntasks, int cpus = 1, int gpus = 0, int per_node = 0) {
  plan::Resources r;
  r.ntasks = ntasks, r.cpus_per_task = cpus, r.gpus_per_task = gpus, r.tasks_per_node = per_node;
  return r;
}
NodePool nodes(int n, int cpus) {
  std::vector<PoolNode> v;
  for (int i = 1; i <= n; ++i) v.push_back({"n" + std::to_string(i), cpus, std::nullopt});
  return NodePool(v);
}
}  // namespace

TEST_CASE("node pool: 200 one-task members fill 32-core nodes one after another") {
  auto pool = nodes(7, 32);
  std::map<std::string, int> per_node;
  for (int i = 0; i < 200; ++i) {
    const auto g = pool.take("m" + std::to_string(i), ask(1));
    REQUIRE(g);
    per_node[g->nodes.at(0)]++;
  }
  CHECK(per_node["n1"] == 32);
  CHECK(per_node["n6"] == 32);
  CHECK(per_node["n7"] == 8);
  CHECK(pool.take("m200", ask(25)) == std::nullopt);  // 24 CPUs left on n7
  CHECK(pool.take("m200", ask(24)));
}

TEST_CASE("node pool: a step waits until its CPUs are free, and takes them at once after") {
  auto pool = nodes(1, 2);
  REQUIRE(pool.take("a", ask(2)));
  CHECK_FALSE(pool.take("b", ask(1)));
  pool.release("a");
  const auto g = pool.take("b", ask(1, 2));
  REQUIRE(g);
  CHECK(g->nodes == std::vector<std::string>{"n1"});
  CHECK(g->tasks == std::vector<int>{1});
}

TEST_CASE("node pool: a step that does not fit one node spreads evenly over the fewest nodes") {
  auto pool = nodes(4, 4);
  REQUIRE(pool.take("small", ask(1)));  // n1 has 3 left
  const auto g = pool.take("wide", ask(6, 1));
  REQUIRE(g);
  CHECK(g->nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(g->tasks == std::vector<int>{3, 3});
  CHECK(g->tasks_per_node() == 3);
  const auto per = pool.take("per", ask(4, 1, 0, 2));  // tasks_per_node: 2 nodes of 2
  REQUIRE(per);
  CHECK(per->tasks == std::vector<int>{2, 2});
  CHECK(per->nodes == std::vector<std::string>{"n3", "n4"});  // n2 has 1 CPU left
}

TEST_CASE("node pool: GPUs are counted and each step gets device ids of its own") {
  NodePool pool({{"local", 8, std::vector<std::string>{"0", "1", "2"}}});
  const auto a = pool.take("a", ask(2, 1, 1));
  REQUIRE(a);
  CHECK(a->all_gpus() == std::vector<std::string>{"0", "1"});
  CHECK_FALSE(pool.take("b", ask(1, 1, 2)));
  const auto b = pool.take("b", ask(1, 1, 1));
  REQUIRE(b);
  CHECK(b->all_gpus() == std::vector<std::string>{"2"});
  pool.release("a");
  const auto c = pool.take("c", ask(1, 1, 2));
  REQUIRE(c);
  CHECK(c->all_gpus() == std::vector<std::string>{"0", "1"});
}

TEST_CASE("node pool: uncounted CPUs spread steps over the least used nodes") {
  NodePool pool({{"n1", 0, std::nullopt}, {"n2", 0, std::nullopt}});
  CHECK(pool.take("a", ask(1))->nodes.at(0) == "n1");
  CHECK(pool.take("b", ask(1))->nodes.at(0) == "n2");
  CHECK(pool.take("c", ask(1))->nodes.at(0) == "n1");
}

TEST_CASE("node pool: what can never fit is said before anything starts") {
  auto pool = nodes(2, 4);
  CHECK(pool.never_fits(ask(8)).empty());
  CHECK_THAT(pool.never_fits(ask(9)), Catch::Contains("9 task(s) of 1 CPU(s) do not fit 2 node(s) of 4 CPUs"));
  CHECK_THAT(pool.never_fits(ask(1, 5)), Catch::Contains("do not fit"));
  CHECK_THAT(NodePool().never_fits(ask(1)), Catch::Contains("no nodes"));
}

TEST_CASE("node pool: a colocated database's CPUs are taken on each node of its step") {
  auto pool = nodes(2, 4);
  plan::Resources r = ask(3);
  r.node_cpus = 1;
  REQUIRE(pool.take("a", r));        // 3 + 1 on n1
  const auto b = pool.take("b", r);  // n1 is full: n2
  REQUIRE(b);
  CHECK(b->nodes == std::vector<std::string>{"n2"});
  CHECK_FALSE(pool.take("c", ask(1)));
  pool.release("a");
  CHECK(pool.take("c", ask(4)));
  plan::Resources big = ask(4, 1, 0, 4);  // 4 tasks and the database on one 4-CPU node
  big.node_cpus = 1;
  CHECK_THAT(pool.never_fits(big), Catch::Contains("(+1 per node for its colocated database) do not fit"));
}

TEST_CASE("node pool: a lost node gets nothing more, and what needs it can never fit") {
  auto pool = nodes(2, 2);
  REQUIRE(pool.take("a", ask(1)));  // on n1
  CHECK(pool.retire("n1"));
  CHECK_FALSE(pool.retire("n1"));  // already
  const auto b = pool.take("b", ask(2));
  REQUIRE(b);
  CHECK(b->nodes == std::vector<std::string>{"n2"});
  pool.release("b");
  CHECK(pool.never_fits(ask(3)) != "");  // 3 CPUs: once 2 nodes of 2, now 1
  CHECK(pool.never_fits(ask(2)) == "");
  pool.release("a");  // what held room on it gives it back without reviving it
  CHECK(pool.take("c", ask(2))->nodes == std::vector<std::string>{"n2"});
  CHECK(pool.retire("n2"));
  CHECK(pool.never_fits(ask(1)) == "every node of the pool was lost");
}

TEST_CASE("node pool: a restored node takes work again") {
  auto pool = nodes(2, 2);
  CHECK_FALSE(pool.restore("n1"));  // never retired
  CHECK(pool.retire("n1"));
  CHECK(pool.take("a", ask(2))->nodes == std::vector<std::string>{"n2"});
  CHECK(pool.restore("n1"));
  CHECK(pool.take("b", ask(2))->nodes == std::vector<std::string>{"n1"});
  CHECK(pool.never_fits(ask(4)) == "");
}

TEST_CASE("node pool: a node that joins (a whole-node step ended) takes the next step that fits") {
  auto pool = nodes(1, 2);
  REQUIRE(pool.take("a", ask(1, 2)));
  CHECK(pool.take("b", ask(1)) == std::nullopt);  // n1 is full
  CHECK(pool.add({"n9", 4, std::nullopt}));
  CHECK_FALSE(pool.add({"n9", 4, std::nullopt}));  // once
  const auto g = pool.take("b", ask(1));
  REQUIRE(g);
  CHECK(g->nodes == std::vector<std::string>{"n9"});
  CHECK(pool.never_fits(ask(4)).empty());  // a step of 4 fits now, on n9
}

TEST_CASE("node pool: what a waiting step holds of the free room keeps smaller ones out") {
  auto pool = nodes(1, 4);
  REQUIRE(pool.take("a", ask(1)));
  REQUIRE(pool.take("b", ask(1)));
  REQUIRE(pool.take("c", ask(1)));
  CHECK(pool.free_cpus() == 1);
  CHECK_FALSE(pool.take("trainer", ask(2)));
  pool.hold_free("hold:trainer", ask(2));  // the one free CPU, kept for the trainer
  CHECK(pool.free_cpus() == 0);
  CHECK_FALSE(pool.take("m", ask(1)));
  pool.release("hold:trainer");
  pool.release("a");
  CHECK(pool.take("trainer", ask(2)));  // the next turn: the trainer first
  // Devices held the same way, and only what is free.
  std::vector<PoolNode> gpu = {{"g1", 4, std::vector<std::string>{"0", "1"}}};
  NodePool p(gpu);
  REQUIRE(p.take("one", ask(1, 1, 1)));
  p.hold_free("hold:two", ask(1, 1, 2));
  CHECK(p.free_gpus() == 0);
  CHECK(p.free_cpus() == 2);
  p.release("hold:two");
  CHECK(p.free_gpus() == 1);
  CHECK(p.free_cpus() == 3);
}
