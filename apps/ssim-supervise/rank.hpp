#pragma once
// --rank [OPTIONS] -- PROGRAM...: what each rank of an entity starts through (rank.cpp).
namespace supervise {
int rank_main(int argc, char** argv);
}
