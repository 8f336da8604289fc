/* ssim data client, C API: tensors, datasets and lists in the experiment's database.
 *
 *   ssim_client* c;
 *   if (ssim_client_new(&c) != SSIM_OK) { fprintf(stderr, "%s\n", ssim_last_error()); ... }
 *   uint64_t dims[2] = {64, 64};
 *   ssim_put_tensor(c, "field", data, dims, 2, SSIM_F64, SSIM_LAYOUT_C);
 *   ssim_client_free(c);
 *
 * Every call returns an ssim_status; on anything but SSIM_OK, ssim_last_error() gives
 * the message (per thread, valid until the next failing call in that thread). Objects
 * returned through an out-pointer belong to the caller, who frees them with the matching
 * ssim_*_free. A handle may be used by one thread at a time.
 *
 * Keys are prefixed from SSKEYOUT / SSKEYIN as in the C++ client (docs/client.md).
 * Link with -lssim_c (pkg-config ssim-client-c).
 */
#ifndef SSIM_CLIENT_H
#define SSIM_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SSIM_API __attribute__((visibility("default")))
#else
#define SSIM_API
#endif

typedef enum {
  SSIM_OK = 0,
  SSIM_ERR_CONNECTION = 1,    /* the database cannot be reached */
  SSIM_ERR_AUTH = 2,          /* password missing or wrong */
  SSIM_ERR_KEY_NOT_FOUND = 3, /* no such tensor, dataset, list or field */
  SSIM_ERR_TYPE_MISMATCH = 4, /* stored dtype/shape differs from the caller's */
  SSIM_ERR_INVALID = 5,       /* a bad argument (null pointer, unknown dtype, ...) */
  SSIM_ERR_SERVER = 6,        /* the server answered with an error */
  SSIM_ERR_INTERNAL = 7,
  SSIM_ERR_INFERENCE = 8 /* a model or script failed (throws, out of memory, not stored, no GPU) */
} ssim_status;

/* Element types; the values are the wire-format codes (lib/client/WIRE_FORMAT.md). */
typedef enum {
  SSIM_F64 = 1,
  SSIM_F32 = 2,
  SSIM_F16 = 3,
  SSIM_BF16 = 4,
  SSIM_I8 = 5,
  SSIM_I16 = 6,
  SSIM_I32 = 7,
  SSIM_I64 = 8,
  SSIM_U8 = 9,
  SSIM_U16 = 10,
  SSIM_U32 = 11,
  SSIM_U64 = 12,
  SSIM_BOOL = 13
} ssim_dtype;

/* How the caller's array is laid out. dims are always given in the array's own index
 * order (for Fortran: shape(a)). A column-major (Fortran) array is stored row-major
 * with the same dims, so a(i,j) is array[i-1][j-1] in C and numpy. */
typedef enum { SSIM_LAYOUT_C = 0, SSIM_LAYOUT_FORTRAN = 1 } ssim_layout;

typedef struct ssim_client ssim_client;
typedef struct ssim_dataset ssim_dataset;
typedef struct ssim_tensor ssim_tensor;

SSIM_API const char* ssim_last_error(void);
SSIM_API const char* ssim_dtype_name(ssim_dtype dtype); /* "f64", ...; NULL if unknown */
SSIM_API size_t ssim_dtype_size(ssim_dtype dtype);      /* 0 if unknown */

/* ---- connecting ---- */
SSIM_API ssim_status ssim_client_new(ssim_client** out); /* from SSDB and SSDB_PASSWORD */
/* address "host:port[,host:port...]" or "unix:/path"; password NULL or "" for none */
SSIM_API ssim_status ssim_client_connect(const char* address, const char* password, ssim_client** out);
SSIM_API void ssim_client_free(ssim_client* client);
SSIM_API ssim_status ssim_is_cluster(ssim_client* client, int* is_cluster);

/* ---- tensors ---- */
SSIM_API ssim_status ssim_put_tensor(ssim_client* client, const char* name, const void* data, const uint64_t* dims,
                                     size_t ndims, ssim_dtype dtype, ssim_layout layout);
/* A new tensor holding the stored one (row-major); free it with ssim_tensor_free. */
SSIM_API ssim_status ssim_get_tensor(ssim_client* client, const char* name, ssim_tensor** out);
/* Into the caller's array, whose dtype and dims must match the stored ones. */
SSIM_API ssim_status ssim_unpack_tensor(ssim_client* client, const char* name, void* data, const uint64_t* dims,
                                        size_t ndims, ssim_dtype dtype, ssim_layout layout);
SSIM_API ssim_status ssim_tensor_exists(ssim_client* client, const char* name, int* exists);
SSIM_API ssim_status ssim_poll_tensor(ssim_client* client, const char* name, int interval_ms, int tries, int* found);
SSIM_API ssim_status ssim_delete_tensor(ssim_client* client, const char* name);

/* Training metrics (docs/metrics.md), kept in the run directory; no client needed.
 * step and epoch < 0: none; phase NULL or "": none. Written every second and at exit. */
SSIM_API ssim_status ssim_metric_log(const char* name, double value, long long step, long long epoch,
                                     const char* phase);
SSIM_API ssim_status ssim_metric_flush(void);
SSIM_API ssim_status ssim_copy_tensor(ssim_client* client, const char* source, const char* destination);
SSIM_API ssim_status ssim_rename_tensor(ssim_client* client, const char* source, const char* destination);

/* A tensor the caller owns: its dtype, dims (row-major, outermost first) and bytes. */
SSIM_API ssim_dtype ssim_tensor_dtype(const ssim_tensor* tensor);
SSIM_API size_t ssim_tensor_ndims(const ssim_tensor* tensor);
SSIM_API const uint64_t* ssim_tensor_dims(const ssim_tensor* tensor);
SSIM_API const void* ssim_tensor_data(const ssim_tensor* tensor);
SSIM_API uint64_t ssim_tensor_bytes(const ssim_tensor* tensor);
/* Copies the tensor into the caller's array of `layout`; dtype and dims must match. */
SSIM_API ssim_status ssim_tensor_unpack(const ssim_tensor* tensor, void* data, const uint64_t* dims, size_t ndims,
                                        ssim_dtype dtype, ssim_layout layout);
SSIM_API void ssim_tensor_free(ssim_tensor* tensor);

/* ---- datasets ---- */
SSIM_API ssim_status ssim_dataset_new(const char* name, ssim_dataset** out);
SSIM_API void ssim_dataset_free(ssim_dataset* dataset);
SSIM_API const char* ssim_dataset_name(const ssim_dataset* dataset);
SSIM_API ssim_status ssim_dataset_add_tensor(ssim_dataset* dataset, const char* name, const void* data,
                                             const uint64_t* dims, size_t ndims, ssim_dtype dtype, ssim_layout layout);
SSIM_API ssim_status ssim_dataset_add_meta_string(ssim_dataset* dataset, const char* field, const char* value);
SSIM_API ssim_status ssim_dataset_add_meta_scalar_f64(ssim_dataset* dataset, const char* field, double value);
SSIM_API ssim_status ssim_dataset_add_meta_scalar_i64(ssim_dataset* dataset, const char* field, int64_t value);
/* The dataset's tensor, borrowed: valid while the dataset lives. */
SSIM_API ssim_status ssim_dataset_get_tensor(const ssim_dataset* dataset, const char* name, const ssim_tensor** out);
SSIM_API ssim_status ssim_dataset_unpack_tensor(const ssim_dataset* dataset, const char* name, void* data,
                                                const uint64_t* dims, size_t ndims, ssim_dtype dtype,
                                                ssim_layout layout);
/* Metadata: how many values a field has, and the i-th (strings borrowed from the dataset). */
SSIM_API ssim_status ssim_dataset_meta_string_count(const ssim_dataset* dataset, const char* field, size_t* count);
SSIM_API ssim_status ssim_dataset_get_meta_string(const ssim_dataset* dataset, const char* field, size_t index,
                                                  const char** value);
SSIM_API ssim_status ssim_dataset_meta_scalar_count(const ssim_dataset* dataset, const char* field, size_t* count);
SSIM_API ssim_status ssim_dataset_get_meta_scalar(const ssim_dataset* dataset, const char* field, size_t index,
                                                  double* value);

SSIM_API ssim_status ssim_put_dataset(ssim_client* client, const ssim_dataset* dataset);
SSIM_API ssim_status ssim_get_dataset(ssim_client* client, const char* name, ssim_dataset** out);
SSIM_API ssim_status ssim_dataset_exists(ssim_client* client, const char* name, int* exists);
SSIM_API ssim_status ssim_poll_dataset(ssim_client* client, const char* name, int interval_ms, int tries, int* found);
SSIM_API ssim_status ssim_delete_dataset(ssim_client* client, const char* name);
SSIM_API ssim_status ssim_copy_dataset(ssim_client* client, const char* source, const char* destination);
SSIM_API ssim_status ssim_rename_dataset(ssim_client* client, const char* source, const char* destination);

/* ---- aggregation lists ---- */
SSIM_API ssim_status ssim_append_to_list(ssim_client* client, const char* list, const ssim_dataset* dataset);
SSIM_API ssim_status ssim_get_list_length(ssim_client* client, const char* list, uint64_t* length);
SSIM_API ssim_status ssim_poll_list_length(ssim_client* client, const char* list, uint64_t min_length, int interval_ms,
                                           int tries, int* reached); /* at least min_length */
SSIM_API ssim_status ssim_poll_list_length_gte(ssim_client* client, const char* list, uint64_t length, int interval_ms,
                                               int tries, int* reached);
SSIM_API ssim_status ssim_poll_list_length_lte(ssim_client* client, const char* list, uint64_t length, int interval_ms,
                                               int tries, int* reached);
/* Items start..end inclusive (negative counts from the end): *count new datasets in a
 * new array; free with ssim_dataset_array_free(array, count). */
SSIM_API ssim_status ssim_get_datasets_from_list(ssim_client* client, const char* list, int64_t start, int64_t end,
                                                 ssim_dataset*** out, size_t* count);
SSIM_API void ssim_dataset_array_free(ssim_dataset** array, size_t count);
SSIM_API ssim_status ssim_delete_list(ssim_client* client, const char* list);
SSIM_API ssim_status ssim_copy_list(ssim_client* client, const char* source, const char* destination);
SSIM_API ssim_status ssim_rename_list(ssim_client* client, const char* source, const char* destination);

/* ---- keys and prefixes ---- */
SSIM_API ssim_status ssim_key_exists(ssim_client* client, const char* key, int* exists); /* raw key */
SSIM_API ssim_status ssim_poll_key(ssim_client* client, const char* key, int interval_ms, int tries, int* found);
SSIM_API ssim_status ssim_set_data_source(ssim_client* client, const char* source);
SSIM_API ssim_status ssim_use_tensor_ensemble_prefix(ssim_client* client, int on);
SSIM_API ssim_status ssim_use_dataset_ensemble_prefix(ssim_client* client, int on);
SSIM_API ssim_status ssim_use_list_ensemble_prefix(ssim_client* client, int on);

/* ---- models and scripts (docs/inference.md) ----
 * Stored in the database; run by the inference service beside the shard that holds the
 * first input (orchestrator: {inference: true}). device: "CPU", "GPU" or "GPU:n" (NULL:
 * CPU). batch_size > 0 batches calls from many callers, waiting up to min_batch_timeout
 * ms for min_batch_size rows. Inputs and outputs are tensor names, prefixed as tensors. */
SSIM_API ssim_status ssim_set_model(ssim_client* client, const char* name, const void* model, size_t model_bytes,
                                    const char* device, int batch_size, int min_batch_size, int min_batch_timeout);
SSIM_API ssim_status ssim_set_model_from_file(ssim_client* client, const char* name, const char* path,
                                              const char* device, int batch_size, int min_batch_size,
                                              int min_batch_timeout);
SSIM_API ssim_status ssim_set_script(ssim_client* client, const char* name, const char* device, const char* script);
SSIM_API ssim_status ssim_set_script_from_file(ssim_client* client, const char* name, const char* device,
                                               const char* path);
SSIM_API ssim_status ssim_run_model(ssim_client* client, const char* name, const char* const* inputs, size_t n_inputs,
                                    const char* const* outputs, size_t n_outputs);
SSIM_API ssim_status ssim_run_script(ssim_client* client, const char* name, const char* function,
                                     const char* const* inputs, size_t n_inputs, const char* const* outputs,
                                     size_t n_outputs);
/* The same with names as Fortran passes them: `n` names of `width` bytes each, blank-padded. */
SSIM_API ssim_status ssim_run_model_padded(ssim_client* client, const char* name, const char* inputs, size_t n_inputs,
                                           size_t input_width, const char* outputs, size_t n_outputs,
                                           size_t output_width);
SSIM_API ssim_status ssim_run_script_padded(ssim_client* client, const char* name, const char* function,
                                            const char* inputs, size_t n_inputs, size_t input_width,
                                            const char* outputs, size_t n_outputs, size_t output_width);
/* The stored model's bytes (malloc'd: free them with ssim_bytes_free). */
SSIM_API ssim_status ssim_get_model(ssim_client* client, const char* name, void** model, size_t* model_bytes);
SSIM_API void ssim_bytes_free(void* bytes);
SSIM_API ssim_status ssim_model_exists(ssim_client* client, const char* name, int* exists);
SSIM_API ssim_status ssim_poll_model(ssim_client* client, const char* name, int interval_ms, int tries, int* found);
SSIM_API ssim_status ssim_delete_model(ssim_client* client, const char* name);
SSIM_API ssim_status ssim_delete_script(ssim_client* client, const char* name);

/* ---- servers (address: "host:port" or "unix:/path"; NULL: every server) ---- */
/* The i-th server address, i < count (count from ssim_db_address_count); borrowed. */
SSIM_API ssim_status ssim_db_address_count(ssim_client* client, size_t* count);
SSIM_API ssim_status ssim_db_address(ssim_client* client, size_t index, const char** address);
/* One INFO field ("used_memory") of one server, into buf (NUL-terminated). */
SSIM_API ssim_status ssim_get_db_node_info_field(ssim_client* client, const char* address, const char* field, char* buf,
                                                 size_t buf_len);
SSIM_API ssim_status ssim_config_get(ssim_client* client, const char* parameter, const char* address, char* buf,
                                     size_t buf_len);
SSIM_API ssim_status ssim_config_set(ssim_client* client, const char* parameter, const char* value,
                                     const char* address);
SSIM_API ssim_status ssim_save(ssim_client* client, const char* address);
SSIM_API ssim_status ssim_flush_db(ssim_client* client, const char* address);

#ifdef __cplusplus
}
#endif

#endif /* SSIM_CLIENT_H */
