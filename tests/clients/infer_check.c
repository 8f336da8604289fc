/* The C client's model and script calls against a real inference service (driven by
 * tests/integration/test_inference.py):
 *   infer_check_c MODEL_FILE   stores the TorchScript model, runs it on x_c (4 x 8,
 *                              x[i][j] = 0.1 (i + j)), prints y_c (4 x 2), one value per line;
 *                              runs a script; checks the errors. Exits 1 on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssim_client.h"

#include "check.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: infer_check_c MODEL_FILE\n");
    return 2;
  }
  ssim_client* c;
  OK(ssim_client_new(&c));
  OK(ssim_set_model_from_file(c, "mlp_c", argv[1], "CPU", 0, 0, 0));
  int exists = 0;
  OK(ssim_model_exists(c, "mlp_c", &exists));
  CHECK(exists == 1);

  float x[4][8];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) x[i][j] = 0.1f * (float)(i + j);
  const uint64_t dx[2] = {4, 8};
  OK(ssim_put_tensor(c, "x_c", x, dx, 2, SSIM_F32, SSIM_LAYOUT_C));
  const char* in[] = {"x_c"};
  const char* out[] = {"y_c"};
  OK(ssim_run_model(c, "mlp_c", in, 1, out, 1));
  float y[4][2];
  const uint64_t dy[2] = {4, 2};
  OK(ssim_unpack_tensor(c, "y_c", y, dy, 2, SSIM_F32, SSIM_LAYOUT_C));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) printf("%.6f\n", y[i][j]);

  /* A script: z = x + 1 */
  OK(ssim_set_script(c, "plus_one_c", "CPU", "def add_one(a):\n    return a + 1\n"));
  const char* zout[] = {"z_c"};
  OK(ssim_run_script(c, "plus_one_c", "add_one", in, 1, zout, 1));
  float z[4][8];
  OK(ssim_unpack_tensor(c, "z_c", z, dx, 2, SSIM_F32, SSIM_LAYOUT_C));
  CHECK(z[3][7] == x[3][7] + 1.0f);

  /* The stored bytes come back, and store again from memory under another name. */
  void* bytes = NULL;
  size_t n = 0;
  OK(ssim_get_model(c, "mlp_c", &bytes, &n));
  CHECK(n > 100);
  OK(ssim_set_model(c, "mlp_c_bytes", bytes, n, NULL, 0, 0, 0));
  ssim_bytes_free(bytes);
  int found = 0;
  OK(ssim_poll_model(c, "mlp_c_bytes", 10, 3, &found));
  CHECK(found == 1);
  const char* out2[] = {"y2_c"};
  OK(ssim_run_model(c, "mlp_c_bytes", in, 1, out2, 1));
  float y2[4][2];
  OK(ssim_unpack_tensor(c, "y2_c", y2, dy, 2, SSIM_F32, SSIM_LAYOUT_C));
  CHECK(memcmp(y, y2, sizeof y) == 0);
  OK(ssim_delete_model(c, "mlp_c_bytes"));
  OK(ssim_poll_model(c, "mlp_c_bytes", 10, 2, &found));
  CHECK(found == 0);

  /* Errors: no such model; a wrong input shape (the model's own message). */
  CHECK(ssim_run_model(c, "no_such_model", in, 1, out, 1) == SSIM_ERR_INFERENCE);
  CHECK(strstr(ssim_last_error(), "not stored") != NULL);
  const uint64_t bad[2] = {4, 3};
  OK(ssim_put_tensor(c, "bad_c", x, bad, 2, SSIM_F32, SSIM_LAYOUT_C));
  const char* bad_in[] = {"bad_c"};
  CHECK(ssim_run_model(c, "mlp_c", bad_in, 1, out, 1) == SSIM_ERR_INFERENCE);
  CHECK(strstr(ssim_last_error(), "shapes cannot be multiplied") != NULL);

  OK(ssim_delete_model(c, "mlp_c"));
  OK(ssim_model_exists(c, "mlp_c", &exists));
  CHECK(exists == 0);
  OK(ssim_delete_script(c, "plus_one_c"));
  ssim_client_free(c);
  return failures ? 1 : 0;
}
