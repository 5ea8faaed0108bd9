#include "python/csrc/field_values.h"

#include <string>
#include <string_view>

#include "feedrate/error.h"
#include "python/csrc/tensors.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

py::bytes bytes_of(std::string_view value) {
  return {value.data(), value.size()};
}

// A list of one Python value per sample, made by `make` from the field's bytes. A value that
// Python refuses although the decode stage took it raises feedrate.Error naming the sample.
template <typename Make>
py::list each(const Batch& batch, std::size_t f, Make make) {
  py::list values(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    try {
      values[i] = make(batch.field(i, f));
    } catch (py::error_already_set& e) {
      throw Error("sample " + std::to_string(batch.indices()[i]) + ": field '" +
                  batch.fields()[f].entry + "': Python cannot read its value: " + e.what());
    }
  }
  return values;
}

// UTF-8 text as str; `errors` as Python's bytes.decode takes it.
py::str text(std::string_view value, const char* errors) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(value.data(), static_cast<Py_ssize_t>(value.size()), errors);
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

}  // namespace

py::object field_values(const Batch& batch, std::size_t f, ArrayKind arrays) {
  switch (batch.fields()[f].kind) {
    case FieldKind::kInteger:
      return int64_array(
          batch.size(), [&](std::size_t i) { return batch.field_integer(i, f); }, arrays);
    case FieldKind::kText:
      return each(batch, f, [](std::string_view value) { return text(value, "strict"); });
    case FieldKind::kKey:
      // A member name that is not UTF-8 keeps its bytes as Python's tarfile and os.fsdecode
      // keep them on POSIX.
      return each(batch, f, [](std::string_view value) { return text(value, "surrogateescape"); });
    case FieldKind::kJson: {
      const py::object loads = py::module_::import("json").attr("loads");
      return each(batch, f, [&](std::string_view value) { return loads(bytes_of(value)); });
    }
    case FieldKind::kNpy: {
      const py::object load = py::module_::import("numpy").attr("load");
      const py::object bytes_io = py::module_::import("io").attr("BytesIO");
      return each(batch, f,
                  [&](std::string_view value) { return load(bytes_io(bytes_of(value))); });
    }
    case FieldKind::kBytes:
      return each(batch, f, bytes_of);
    case FieldKind::kClass:
      break;
  }
  throw py::type_error("feedrate: field '" + batch.fields()[f].entry + "' has no Python value");
}

}  // namespace feedrate::python
