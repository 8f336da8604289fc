// pybind11 bindings of the data client for numpy arrays. Arrays go in without a copy
// (their buffer is written to the socket); get_tensor reads the payload straight into a
// new array. The GIL is released during I/O.
#include <cstdlib>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "lib/client/client.hpp"

namespace py = pybind11;
using namespace ssim::client;

namespace {

DType dtype_of_array(const py::array& a, const std::string& override_name) {
  if (!override_name.empty()) {
    const DType t = dtype_from_name(override_name);
    if (dtype_size(t) != static_cast<size_t>(a.itemsize()))
      throw py::value_error("dtype " + override_name + " does not match the array's item size");
    return t;
  }
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'f' && size == 8) return DType::F64;
  if (kind == 'f' && size == 4) return DType::F32;
  if (kind == 'f' && size == 2) return DType::F16;
  if (kind == 'i' && size == 1) return DType::I8;
  if (kind == 'i' && size == 2) return DType::I16;
  if (kind == 'i' && size == 4) return DType::I32;
  if (kind == 'i' && size == 8) return DType::I64;
  if (kind == 'u' && size == 1) return DType::U8;
  if (kind == 'u' && size == 2) return DType::U16;
  if (kind == 'u' && size == 4) return DType::U32;
  if (kind == 'u' && size == 8) return DType::U64;
  if (kind == 'b' && size == 1) return DType::Bool;
  throw py::type_error("unsupported array dtype " + std::string(py::str(a.dtype())));
}

py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::F64:
      return py::dtype("float64");
    case DType::F32:
      return py::dtype("float32");
    case DType::F16:
      return py::dtype("float16");
    case DType::BF16:
      return py::dtype("uint16");  // numpy has no bfloat16: raw bits
    case DType::I8:
      return py::dtype("int8");
    case DType::I16:
      return py::dtype("int16");
    case DType::I32:
      return py::dtype("int32");
    case DType::I64:
      return py::dtype("int64");
    case DType::U8:
      return py::dtype("uint8");
    case DType::U16:
      return py::dtype("uint16");
    case DType::U32:
      return py::dtype("uint32");
    case DType::U64:
      return py::dtype("uint64");
    case DType::Bool:
      return py::dtype("bool");
  }
  throw py::type_error("unknown dtype");
}

std::vector<uint64_t> dims_of(const py::array& a) { return std::vector<uint64_t>(a.shape(), a.shape() + a.ndim()); }

// What put_tensor and friends accept: a numpy array; a torch tensor (a CPU tensor's
// memory is used in place, through .numpy(); bfloat16 travels as its raw bits and is
// stored as bf16; a GPU tensor is copied to the CPU first); or anything np.asarray takes.
// `dtype` is set to "bf16" for a bfloat16 tensor when the caller gave no dtype.
py::array as_array(const py::object& obj, std::string* dtype, bool writable = false) {
  if (py::isinstance<py::array>(obj)) return obj.cast<py::array>();
  const py::object type = py::type::of(obj);
  if (py::str(type.attr("__module__")).cast<std::string>() == "torch" && py::hasattr(obj, "detach")) {
    py::object t = obj.attr("detach")();  // same memory, without autograd
    if (py::str(t.attr("device").attr("type")).cast<std::string>() != "cpu") {
      if (writable)
        throw py::value_error("unpack_tensor needs a CPU tensor (this one is on " +
                              py::str(t.attr("device")).cast<std::string>() + ")");
      t = t.attr("cpu")();
    }
    if (py::str(t.attr("dtype")).cast<std::string>() == "torch.bfloat16") {
      t = t.attr("view")(py::module_::import("torch").attr("int16"));
      if (dtype && dtype->empty()) *dtype = "bf16";
    }
    return t.attr("numpy")().cast<py::array>();
  }
  py::array a = py::array::ensure(obj);
  if (!a) {
    PyErr_Clear();
    throw py::type_error("expected a numpy array or a torch tensor, got " + py::str(type).cast<std::string>());
  }
  return a;
}

py::array contiguous(const py::array& a) {
  if (a.flags() & py::array::c_style) return a;
  return py::array::ensure(a, py::array::c_style);
}

// A numpy view of a Tensor's memory that keeps the Tensor alive: no copy.
py::array view_of(const Tensor& t) {
  auto* keep = new Tensor(t);
  py::capsule owner(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  std::vector<py::ssize_t> shape(t.dims().begin(), t.dims().end());
  return py::array(numpy_dtype(t.dtype()), shape, {}, keep->data(), owner);
}

}  // namespace

PYBIND11_MODULE(_ssim, m) {
  m.doc() = "ssim data client: tensors, datasets and lists in the experiment's database";
  auto base = py::register_exception<ClientError>(m, "ClientError", PyExc_RuntimeError);
  py::register_exception<ConnectionError>(m, "ConnectionError", base.ptr());
  py::register_exception<AuthError>(m, "AuthError", base.ptr());
  py::register_exception<KeyNotFound>(m, "KeyNotFound", base.ptr());
  py::register_exception<TypeMismatch>(m, "TypeMismatch", base.ptr());
  py::register_exception<InferenceError>(m, "InferenceError", base.ptr());

  py::class_<Dataset>(m, "Dataset")
      .def(py::init<std::string>(), py::arg("name"))
      .def_property_readonly("name", &Dataset::name)
      .def(
          "add_tensor",
          [](Dataset& d, const std::string& name, const py::object& obj, std::string dtype) {
            const py::array a = contiguous(as_array(obj, &dtype));
            d.add_tensor(name, a.data(), dims_of(a), dtype_of_array(a, dtype));
          },
          py::arg("name"), py::arg("array"), py::arg("dtype") = "")
      .def(
          "get_tensor", [](const Dataset& d, const std::string& name) { return view_of(d.get_tensor(name)); },
          py::arg("name"), "The dataset's tensor `name`, as a numpy array.")
      .def("tensor_names", &Dataset::tensor_names)
      .def("add_meta_string", &Dataset::add_meta_string)
      .def("add_meta_scalar",
           [](Dataset& d, const std::string& field, py::object v) {
             if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
               d.add_meta_scalar(field, v.cast<int64_t>());
             else
               d.add_meta_scalar(field, v.cast<double>());
           })
      .def("get_meta_strings", &Dataset::get_meta_strings)
      .def("get_meta_scalars", &Dataset::get_meta_scalars)
      .def("meta_string_fields", &Dataset::meta_string_fields)
      .def("meta_scalar_fields", &Dataset::meta_scalar_fields);

  py::class_<Client>(m, "Client")
      .def(py::init([](const std::string& address, const std::string& password) {
             py::gil_scoped_release nogil;
             return address.empty() ? std::make_unique<Client>() : std::make_unique<Client>(address, password);
           }),
           py::arg("address") = "", py::arg("password") = "",
           "Connects to `address` (host:port[,...]); by default to SSDB with SSDB_PASSWORD.")
      // SmartRedis's constructor, so that a port is one line (`from ssim import Client`):
      // Client(cluster=False, address=None, logger_name="default"). ssim tells a cluster
      // from a single shard itself, and the password comes from SSDB_PASSWORD as always.
      .def(
          py::init([](bool /*cluster*/, const std::optional<std::string>& address, const std::string& /*logger_name*/) {
            py::gil_scoped_release nogil;
            if (!address || address->empty()) return std::make_unique<Client>();
            const char* password = std::getenv("SSDB_PASSWORD");
            return std::make_unique<Client>(*address, password ? password : "");
          }),
          py::arg("cluster") = false, py::arg("address") = py::none(), py::arg("logger_name") = "default",
          "SmartRedis's form: Client(cluster=False, address=None, logger_name='default').")
      .def_property_readonly("is_cluster", &Client::is_cluster)
      .def(
          "put_tensor",
          [](Client& c, const std::string& name, const py::object& obj, std::string dtype) {
            const py::array a = contiguous(as_array(obj, &dtype));
            const auto dims = dims_of(a);
            const DType t = dtype_of_array(a, dtype);
            const void* data = a.data();
            py::gil_scoped_release nogil;  // `a` keeps the buffer alive meanwhile
            c.put_tensor(name, data, dims, t);
          },
          py::arg("name"), py::arg("array"), py::arg("dtype") = "",
          "Stores `array` under `name`: a numpy array or a torch tensor (a CPU tensor without a copy); "
          "`dtype` overrides the stored type.")
      .def(
          "get_tensor",
          [](Client& c, const std::string& name) {
            py::array out;
            {
              py::gil_scoped_release nogil;
              c.get_tensor_into(name, [&](DType t, const std::vector<uint64_t>& dims) -> void* {
                py::gil_scoped_acquire gil;
                std::vector<py::ssize_t> shape(dims.begin(), dims.end());
                out = py::array(numpy_dtype(t), shape);
                return out.mutable_data();
              });
            }
            return out;
          },
          py::arg("name"), "The tensor stored under `name`, as a new numpy array. Raises KeyNotFound.")
      .def(
          "unpack_tensor",
          [](Client& c, const std::string& name, const py::object& obj) {
            py::array out = as_array(obj, nullptr, true);
            if (!(out.flags() & py::array::c_style) || !out.writeable())
              throw py::value_error("unpack_tensor needs a writable C-contiguous array");
            const auto dims = dims_of(out);
            const DType t = dtype_of_array(out, "");
            void* data = out.mutable_data();
            py::gil_scoped_release nogil;
            c.unpack_tensor(name, data, dims, t);
          },
          py::arg("name"), py::arg("out"),
          "Reads the tensor under `name` into `out` (a writable C-contiguous numpy array or CPU torch "
          "tensor of its shape and type), without a copy.")
      .def(
          "put_tensors",
          [](Client& c, const std::vector<std::pair<std::string, py::object>>& items) {
            std::vector<py::array> keep;
            std::vector<TensorRef> refs;
            keep.reserve(items.size());
            for (const auto& [name, obj] : items) {
              std::string dtype;
              keep.push_back(contiguous(as_array(obj, &dtype)));
              const auto& a = keep.back();
              refs.push_back({name, a.data(), dims_of(a), dtype_of_array(a, dtype)});
            }
            py::gil_scoped_release nogil;
            c.put_tensors(refs);
          },
          py::arg("items"), "Stores many (name, array) pairs in one round trip.")
      .def(
          "get_tensors",
          [](Client& c, const std::vector<std::string>& names) {
            std::vector<Tensor> ts;
            {
              py::gil_scoped_release nogil;
              ts = c.get_tensors(names);
            }
            py::list out;
            for (const auto& t : ts) out.append(view_of(t));
            return out;
          },
          py::arg("names"), "The tensors under `names`, in one round trip.")
      .def("tensor_exists", &Client::tensor_exists, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "True when a tensor is stored under `name`.")
      .def("poll_tensor", &Client::poll_tensor, py::arg("name"), py::arg("interval_ms"), py::arg("tries"),
           py::call_guard<py::gil_scoped_release>(),
           "Waits until a tensor is stored under `name`: `tries` looks, `interval_ms` apart; returns whether it came.")
      .def("delete_tensor", &Client::delete_tensor, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "Removes the tensor under `name`.")
      .def("copy_tensor", &Client::copy_tensor, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "Copies a tensor on the server.")
      .def("rename_tensor", &Client::rename_tensor, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "Renames a tensor on the server.")
      .def("put_dataset", &Client::put_dataset, py::arg("dataset"), py::call_guard<py::gil_scoped_release>(),
           "Stores a Dataset (tensors and metadata) under its name.")
      .def("get_dataset", &Client::get_dataset, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "The Dataset stored under `name`.")
      .def("dataset_exists", &Client::dataset_exists, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "True when a dataset is stored under `name`.")
      .def("poll_dataset", &Client::poll_dataset, py::arg("name"), py::arg("interval_ms"), py::arg("tries"),
           py::call_guard<py::gil_scoped_release>(),
           "Waits until a dataset is stored under `name`; returns whether it came.")
      .def("delete_dataset", &Client::delete_dataset, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "Removes the dataset under `name`.")
      .def("append_to_list", &Client::append_to_list, py::arg("list"), py::arg("dataset"),
           py::call_guard<py::gil_scoped_release>(), "Stores `dataset` and appends it to the named list.")
      .def("get_list_length", &Client::get_list_length, py::arg("list"), py::call_guard<py::gil_scoped_release>(),
           "How many datasets the named list holds.")
      .def("get_datasets_from_list", &Client::get_datasets_from_list, py::arg("list"), py::arg("start") = 0,
           py::arg("end") = -1, py::call_guard<py::gil_scoped_release>(),
           "The datasets of the named list from `start` to `end` (inclusive; -1 is the last).")
      .def("poll_list_length", &Client::poll_list_length, py::arg("list"), py::arg("min_length"),
           py::arg("interval_ms"), py::arg("tries"), py::call_guard<py::gil_scoped_release>(),
           "Waits until the named list holds at least `min_length` datasets; returns whether it did.")
      .def("delete_list", &Client::delete_list, py::arg("list"), py::call_guard<py::gil_scoped_release>(),
           "Removes the named list (not its datasets).")
      .def("copy_list", &Client::copy_list, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "A new list naming the same datasets as `source`.")
      .def("rename_list", &Client::rename_list, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "Renames a list.")
      .def("get_dataset_list_range", &Client::get_dataset_list_range, py::arg("list"), py::arg("start"), py::arg("end"),
           py::call_guard<py::gil_scoped_release>(), "SmartRedis's name for get_datasets_from_list(list, start, end).")
      .def("poll_list_length_gte", &Client::poll_list_length_gte, py::arg("list"), py::arg("length"),
           py::arg("interval_ms"), py::arg("tries"), py::call_guard<py::gil_scoped_release>(),
           "Waits until the named list holds at least `length` datasets; returns whether it did.")
      .def("poll_list_length_lte", &Client::poll_list_length_lte, py::arg("list"), py::arg("length"),
           py::arg("interval_ms"), py::arg("tries"), py::call_guard<py::gil_scoped_release>(),
           "Waits until the named list holds at most `length` datasets; returns whether it did.")
      .def("copy_dataset", &Client::copy_dataset, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "Copies a dataset (tensors and metadata).")
      .def("rename_dataset", &Client::rename_dataset, py::arg("source"), py::arg("destination"),
           py::call_guard<py::gil_scoped_release>(), "Renames a dataset.")
      .def("key_exists", &Client::key_exists, py::arg("key"), py::call_guard<py::gil_scoped_release>(),
           "True when the raw key `key` (no prefix added) exists.")
      .def("poll_key", &Client::poll_key, py::arg("key"), py::arg("interval_ms"), py::arg("tries"),
           py::call_guard<py::gil_scoped_release>(), "Waits until the raw key `key` exists; returns whether it did.")
      .def(
          "_set_model",
          [](Client& c, const std::string& name, const py::bytes& model, const std::string& backend,
             const std::string& device, int batch_size, int min_batch_size, int min_batch_timeout,
             const std::string& tag, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
            std::string bytes = model;
            py::gil_scoped_release release;
            c.set_model(name, bytes, backend, device, batch_size, min_batch_size, min_batch_timeout, tag, inputs,
                        outputs);
          },
          py::arg("name"), py::arg("model"), py::arg("backend") = "TORCH", py::arg("device") = "CPU",
          py::arg("batch_size") = 0, py::arg("min_batch_size") = 0, py::arg("min_batch_timeout") = 0,
          py::arg("tag") = "", py::arg("inputs") = std::vector<std::string>{},
          py::arg("outputs") = std::vector<std::string>{})
      .def("set_model_from_file", &Client::set_model_from_file, py::arg("name"), py::arg("model_file"),
           py::arg("backend") = "TORCH", py::arg("device") = "CPU", py::arg("batch_size") = 0,
           py::arg("min_batch_size") = 0, py::arg("min_batch_timeout") = 0, py::arg("tag") = "",
           py::arg("inputs") = std::vector<std::string>{}, py::arg("outputs") = std::vector<std::string>{},
           py::call_guard<py::gil_scoped_release>(),
           "Stores the TorchScript model in `model_file` (torch.jit.save) under `name`, for `device` "
           "(CPU, GPU, GPU:n); batch_size > 0 batches calls from many callers (docs/inference.md).")
      .def(
          "set_script",
          [](Client& c, const std::string& name, const std::string& script, const std::string& device) {
            c.set_script(name, device, script);
          },
          py::arg("name"), py::arg("script"), py::arg("device") = "CPU", py::call_guard<py::gil_scoped_release>(),
          "Stores TorchScript source (def f(x: torch.Tensor): ...) under `name`; run_script calls its functions.")
      .def(
          "set_script_from_file",
          [](Client& c, const std::string& name, const std::string& file, const std::string& device) {
            c.set_script_from_file(name, device, file);
          },
          py::arg("name"), py::arg("script_file"), py::arg("device") = "CPU", py::call_guard<py::gil_scoped_release>(),
          "Stores the TorchScript source in `script_file` under `name`.")
      .def("run_model", &Client::run_model, py::arg("name"), py::arg("inputs"), py::arg("outputs"),
           py::call_guard<py::gil_scoped_release>(),
           "Runs the stored model on the named input tensors and stores its results under the output names. "
           "Raises InferenceError with the reason when the model fails.")
      .def("run_script", &Client::run_script, py::arg("name"), py::arg("function"), py::arg("inputs"),
           py::arg("outputs"), py::call_guard<py::gil_scoped_release>(),
           "Runs `function` of the stored script on the named input tensors, storing the results.")
      .def(
          "get_model", [](Client& c, const std::string& name) { return py::bytes(c.get_model(name)); }, py::arg("name"),
          "The stored model's bytes (TorchScript).")
      .def(
          "get_script", [](Client& c, const std::string& name) { return c.get_script(name); }, py::arg("name"),
          "The stored script's source.")
      .def("model_exists", &Client::model_exists, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "True when a model or script is stored under `name`.")
      .def("poll_model", &Client::poll_model, py::arg("name"), py::arg("interval_ms"), py::arg("tries"),
           py::call_guard<py::gil_scoped_release>(),
           "Waits until a model is stored under `name`; returns whether it was.")
      .def("delete_model", &Client::delete_model, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "Removes the stored model (KeyNotFound when there is none).")
      .def("delete_script", &Client::delete_script, py::arg("name"), py::call_guard<py::gil_scoped_release>(),
           "Removes the stored script (KeyNotFound when there is none).")
      .def("use_model_ensemble_prefix", &Client::use_model_ensemble_prefix, py::arg("on"),
           "Whether model names are prefixed like tensors (off by default, as in SmartRedis).")
      .def("db_addresses", &Client::db_addresses, py::call_guard<py::gil_scoped_release>(),
           "The address of every server (each shard of a cluster), as the calls below take them.")
      .def("get_db_node_info", &Client::get_db_node_info, py::arg("address"), py::call_guard<py::gil_scoped_release>(),
           "INFO of the server at `address`, as a dict of strings (used_memory, connected_clients, ...).")
      .def("config_get", &Client::config_get, py::arg("expression"), py::arg("address"),
           py::call_guard<py::gil_scoped_release>(), "CONFIG GET `expression` on one server, as a dict.")
      .def("config_set", &Client::config_set, py::arg("parameter"), py::arg("value"), py::arg("address"),
           py::call_guard<py::gil_scoped_release>(), "CONFIG SET on one server.")
      .def("save", &Client::save, py::arg("addresses") = std::vector<std::string>{},
           py::call_guard<py::gil_scoped_release>(),
           "Writes a snapshot on the listed servers (default: every one); waits until written.")
      .def("flush_db", &Client::flush_db, py::arg("addresses") = std::vector<std::string>{},
           py::call_guard<py::gil_scoped_release>(), "Removes every key from the listed servers (default: every one).")
      .def("set_data_source", &Client::set_data_source, py::arg("source"),
           "Reads keys under `source` (one of SSKEYIN, or SSKEYOUT) from now on.")
      .def_property_readonly("data_source", &Client::data_source)
      .def("use_tensor_prefix", &Client::use_tensor_prefix, py::arg("on"),
           "Whether tensor keys are prefixed with SSKEYOUT / the data source (key_prefixing).")
      .def("use_dataset_prefix", &Client::use_dataset_prefix, py::arg("on"),
           "Whether dataset keys are prefixed with SSKEYOUT / the data source (key_prefixing).")
      .def("use_list_prefix", &Client::use_list_prefix, py::arg("on"),
           "Whether list keys are prefixed with SSKEYOUT / the data source (key_prefixing).")
      .def("use_tensor_ensemble_prefix", &Client::use_tensor_ensemble_prefix, py::arg("on"),
           "SmartRedis's name for use_tensor_prefix.")
      .def("use_dataset_ensemble_prefix", &Client::use_dataset_ensemble_prefix, py::arg("on"),
           "SmartRedis's name for use_dataset_prefix.")
      .def("use_list_ensemble_prefix", &Client::use_list_ensemble_prefix, py::arg("on"),
           "SmartRedis's name for use_list_prefix.")
      .def("set_chunk_bytes", &Client::set_chunk_bytes, py::arg("bytes"),
           "Large tensors travel in chunks of this many bytes (default 1 MiB, the server's sweet spot).")
      .def("_scramble_slot_map_for_tests", &Client::scramble_slot_map_for_tests,
           "For tests only: forgets which shard holds which slots, as after a resharding.");
}
