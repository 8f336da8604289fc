/* The C client against a real database (driven by tests/integration/test_client.py):
 *   c_check put   writes c_* tensors, a dataset and a list for Python to read
 *   c_check get   reads the py_* tensors Python wrote, checks values and shapes exactly
 *   c_check errors  checks the error codes and messages
 * Prints what failed and exits 1. SSDB / SSDB_PASSWORD come from the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssim_client.h"

#include "check.h"

static void put(ssim_client* c) {
  /* a[i][j] = 10 (i+1) + (j+1), shape (2, 3) */
  double a[2][3];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) a[i][j] = 10 * (i + 1) + (j + 1);
  const uint64_t d2[2] = {2, 3};
  OK(ssim_put_tensor(c, "c_f64_2d", a, d2, 2, SSIM_F64, SSIM_LAYOUT_C));

  /* The same values from a column-major array: a Fortran-style buffer. */
  double f[6];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) f[i + 2 * j] = 10 * (i + 1) + (j + 1);
  OK(ssim_put_tensor(c, "c_f64_2d_from_fortran_layout", f, d2, 2, SSIM_F64, SSIM_LAYOUT_FORTRAN));

  int32_t v[5] = {-2, -1, 0, 1, 2147483647};
  const uint64_t d1[1] = {5};
  OK(ssim_put_tensor(c, "c_i32_1d", v, d1, 1, SSIM_I32, SSIM_LAYOUT_C));

  ssim_dataset* ds;
  OK(ssim_dataset_new("c_ds", &ds));
  OK(ssim_dataset_add_tensor(ds, "a", a, d2, 2, SSIM_F64, SSIM_LAYOUT_C));
  OK(ssim_dataset_add_meta_string(ds, "units", "m/s"));
  OK(ssim_dataset_add_meta_scalar_i64(ds, "step", 42));
  OK(ssim_dataset_add_meta_scalar_f64(ds, "dt", 0.5));
  OK(ssim_put_dataset(c, ds));
  OK(ssim_append_to_list(c, "c_list", ds));
  ssim_dataset_free(ds);
}

static void get(ssim_client* c) {
  /* py_f64_2d: numpy a[i, j] = 10 (i+1) + (j+1), shape (2, 3) */
  ssim_tensor* t;
  OK(ssim_get_tensor(c, "py_f64_2d", &t));
  CHECK(ssim_tensor_dtype(t) == SSIM_F64);
  CHECK(ssim_tensor_ndims(t) == 2);
  CHECK(ssim_tensor_dims(t)[0] == 2 && ssim_tensor_dims(t)[1] == 3);
  CHECK(ssim_tensor_bytes(t) == 6 * sizeof(double));
  const double* p = (const double*)ssim_tensor_data(t);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(p[i * 3 + j] == 10 * (i + 1) + (j + 1));
  ssim_tensor_free(t);

  double a[2][3];
  const uint64_t d2[2] = {2, 3};
  OK(ssim_unpack_tensor(c, "py_f64_2d", a, d2, 2, SSIM_F64, SSIM_LAYOUT_C));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(a[i][j] == 10 * (i + 1) + (j + 1));
  double f[6];
  OK(ssim_unpack_tensor(c, "py_f64_2d", f, d2, 2, SSIM_F64, SSIM_LAYOUT_FORTRAN));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(f[i + 2 * j] == 10 * (i + 1) + (j + 1));

  /* py_i64_3d: numpy arange(24).reshape(2, 3, 4) */
  int64_t b[2][3][4];
  const uint64_t d3[3] = {2, 3, 4};
  OK(ssim_unpack_tensor(c, "py_i64_3d", b, d3, 3, SSIM_I64, SSIM_LAYOUT_C));
  for (int i = 0; i < 24; ++i) CHECK((&b[0][0][0])[i] == i);

  ssim_dataset* ds;
  OK(ssim_get_dataset(c, "py_ds", &ds));
  const ssim_tensor* x;
  OK(ssim_dataset_get_tensor(ds, "x", &x));
  CHECK(ssim_tensor_dtype(x) == SSIM_F32 && ssim_tensor_ndims(x) == 1 && ssim_tensor_dims(x)[0] == 4);
  CHECK(((const float*)ssim_tensor_data(x))[3] == 3.0f);
  size_t n = 0;
  const char* s = NULL;
  OK(ssim_dataset_meta_string_count(ds, "names", &n));
  CHECK(n == 2);
  OK(ssim_dataset_get_meta_string(ds, "names", 1, &s));
  CHECK(strcmp(s, "beta") == 0);
  double step = 0;
  OK(ssim_dataset_get_meta_scalar(ds, "step", 0, &step));
  CHECK(step == 7);
  ssim_dataset_free(ds);

  uint64_t length = 0;
  OK(ssim_get_list_length(c, "py_list", &length));
  CHECK(length == 3);
  ssim_dataset** items;
  size_t count = 0;
  OK(ssim_get_datasets_from_list(c, "py_list", 1, -1, &items, &count));
  CHECK(count == 2);
  if (count == 2) CHECK(strcmp(ssim_dataset_name(items[0]), "py_item_1") == 0);
  ssim_dataset_array_free(items, count);
}

static void errors(ssim_client* c) {
  ssim_tensor* t = (ssim_tensor*)1;
  CHECK(ssim_get_tensor(c, "no_such_tensor", &t) == SSIM_ERR_KEY_NOT_FOUND);
  CHECK(strstr(ssim_last_error(), "no_such_tensor") != NULL);
  CHECK(t == NULL);

  double a[3][2];
  const uint64_t wrong[2] = {3, 2};
  CHECK(ssim_unpack_tensor(c, "py_f64_2d", a, wrong, 2, SSIM_F64, SSIM_LAYOUT_C) == SSIM_ERR_TYPE_MISMATCH);
  CHECK(strstr(ssim_last_error(), "f64(2, 3)") != NULL);
  float g[2][3];
  const uint64_t d2[2] = {2, 3};
  CHECK(ssim_unpack_tensor(c, "py_f64_2d", g, d2, 2, SSIM_F32, SSIM_LAYOUT_FORTRAN) == SSIM_ERR_TYPE_MISMATCH);

  CHECK(ssim_put_tensor(c, NULL, a, d2, 2, SSIM_F64, SSIM_LAYOUT_C) == SSIM_ERR_INVALID);
  CHECK(strstr(ssim_last_error(), "name") != NULL);
  CHECK(ssim_put_tensor(c, "x", a, d2, 2, (ssim_dtype)99, SSIM_LAYOUT_C) == SSIM_ERR_INVALID);
  CHECK(ssim_put_tensor(c, "x", a, d2, 2, SSIM_F64, (ssim_layout)7) == SSIM_ERR_INVALID);
  CHECK(ssim_set_data_source(c, "nobody") == SSIM_ERR_INVALID);

  char buf[4];
  size_t servers = 0;
  const char* address = NULL;
  OK(ssim_db_address_count(c, &servers));
  CHECK(servers >= 1);
  OK(ssim_db_address(c, 0, &address));
  CHECK(ssim_config_get(c, "maxmemory-policy", address, buf, sizeof buf) == SSIM_ERR_INVALID); /* too small */
  char policy[64];
  OK(ssim_config_get(c, "maxmemory-policy", address, policy, sizeof policy));
  CHECK(strlen(policy) > 0);
  CHECK(ssim_config_set(c, "no-such-parameter", "1", address) == SSIM_ERR_SERVER);

  ssim_client* other = (ssim_client*)1;
  CHECK(ssim_client_connect("127.0.0.1:1", "", &other) == SSIM_ERR_CONNECTION);
  CHECK(strstr(ssim_last_error(), "127.0.0.1:1") != NULL);
  CHECK(other == NULL);
  CHECK(ssim_client_connect(getenv("SSDB"), "wrong-password", &other) == SSIM_ERR_AUTH);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_check put|get|errors|metrics\n");
    return 2;
  }
  ssim_client* c;
  OK(ssim_client_new(&c));
  if (strcmp(argv[1], "put") == 0)
    put(c);
  else if (strcmp(argv[1], "get") == 0)
    get(c);
  else if (strcmp(argv[1], "errors") == 0)
    errors(c);
  else if (strcmp(argv[1], "metrics") == 0) {
    OK(ssim_metric_log("loss", 0.5, 1, -1, NULL));
    OK(ssim_metric_log("val_acc", 0.75, 2, 1, "val"));
    CHECK(ssim_metric_log("9bad", 1.0, -1, -1, NULL) != SSIM_OK);
    OK(ssim_metric_flush());
  } else
    return 2;
  ssim_client_free(c);
  if (failures) return 1;
  printf("ok\n");
  return 0;
}
