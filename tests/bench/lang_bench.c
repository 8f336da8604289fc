/* Benchmark (issue 13), C side of bench_languages.sh: seconds for `reps` ssim_put_tensor
 * and `reps` ssim_unpack_tensor of one f64 tensor of `bytes`, best of three.
 *   lang_bench_c ADDRESS BYTES REPS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ssim_client.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  ssim_client* c;
  if (ssim_client_connect(argv[1], "", &c) != SSIM_OK) {
    fprintf(stderr, "%s\n", ssim_last_error());
    return 1;
  }
  const uint64_t n = strtoull(argv[2], NULL, 10) / 8;
  const int reps = atoi(argv[3]);
  double* data = malloc(n * sizeof(double));
  for (uint64_t i = 0; i < n; ++i) data[i] = 1.5;
  double put = 1e30, get = 1e30;
  for (int round = 0; round < 3; ++round) {
    double t0 = now();
    for (int i = 0; i < reps; ++i)
      if (ssim_put_tensor(c, "bench", data, &n, 1, SSIM_F64, SSIM_LAYOUT_C) != SSIM_OK) return 1;
    double t1 = now();
    for (int i = 0; i < reps; ++i)
      if (ssim_unpack_tensor(c, "bench", data, &n, 1, SSIM_F64, SSIM_LAYOUT_C) != SSIM_OK) return 1;
    double t2 = now();
    if (t1 - t0 < put) put = t1 - t0;
    if (t2 - t1 < get) get = t2 - t1;
  }
  printf("%.6f %.6f\n", put, get);
  free(data);
  ssim_client_free(c);
  return 0;
}
