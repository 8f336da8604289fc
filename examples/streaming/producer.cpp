// Streaming producer, C++ variant: every MPI rank draws batches of samples from a
// Gaussian centred at its rank id (in every feature), labels them with the rank id and
// uploads them through the ssim client, in the same layout as ssim.ml.Uploader, so the
// Python trainer reads either producer.
//   streaming_producer [--batches N] [--batch-size B] [--features F] [--interval SECONDS]
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int batches = 10, batch_size = 64, features = 16;
  double interval = 0.2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--batches")
      batches = std::atoi(argv[i + 1]);
    else if (a == "--batch-size")
      batch_size = std::atoi(argv[i + 1]);
    else if (a == "--features")
      features = std::atoi(argv[i + 1]);
    else if (a == "--interval")
      interval = std::atof(argv[i + 1]);
  }
  const std::string list = "training_data";
  try {
    Client client;  // SSDB, SSDB_PASSWORD and SSKEYOUT from ssim
    if (rank == 0) {
      Dataset info(list + "_info");
      info.add_meta_string("sample_name", "samples");
      info.add_meta_string("target_name", "targets");
      info.add_meta_scalar("world_size", int64_t(size));
      info.add_meta_scalar("num_classes", int64_t(size));
      client.put_dataset(info);
    }
    std::mt19937_64 rng(1234 + rank);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<float> samples(static_cast<size_t>(batch_size) * features);
    std::vector<int64_t> targets(batch_size, rank);
    for (int b = 0; b < batches; ++b) {
      for (auto& x : samples) x = static_cast<float>(rank) + noise(rng);
      Dataset ds(list + "_" + std::to_string(rank) + "_" + std::to_string(b));
      ds.add_tensor("samples", samples.data(), {uint64_t(batch_size), uint64_t(features)}, DType::F32);
      ds.add_tensor("targets", targets.data(), {uint64_t(batch_size)}, DType::I64);
      client.append_to_list(list, ds);
      std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    }
    std::printf("rank %d of %d uploaded %d batches of %d samples\n", rank, size, batches, batch_size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
