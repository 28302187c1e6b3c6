// Seeded random model inputs (onnxopt run, verify, optimize --check; onnxopt.optimize(check=N)).

#include "onnx_core/verify/random_inputs.h"

#include <cmath>
#include <set>

#include "onnx_core/common/error.h"

namespace onnxopt::core::verify {

namespace {

using eval::Tensor;

// mulberry32, bit for bit the generator of tests/ort/prng.js.
class Mulberry32 {
 public:
  explicit Mulberry32(std::uint32_t seed) : state_(seed) {}
  double Next() {
    state_ += 0x6D2B79F5u;
    std::uint32_t t = state_;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }

 private:
  std::uint32_t state_;
};

template <class T>
void FillIntegers(Tensor& tensor, Mulberry32& rand, std::int64_t int_max) {
  T* data = tensor.MutableData<T>();
  for (std::int64_t i = 0; i < tensor.size(); ++i)
    data[i] = static_cast<T>(std::floor(rand.Next() * static_cast<double>(int_max)));
}

Tensor RandomTensor(const std::string& name, int elem_type, std::vector<std::int64_t> shape, Mulberry32& rand,
                    const RandomInputOptions& options) {
  Tensor tensor(elem_type, std::move(shape));
  const std::int64_t n = tensor.size();
  const double r = options.float_range;
  switch (elem_type) {
    case TensorProto::FLOAT: {
      float* data = tensor.MutableData<float>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<float>((rand.Next() * 2 - 1) * r);
      break;
    }
    case TensorProto::DOUBLE: {
      double* data = tensor.MutableData<double>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = (rand.Next() * 2 - 1) * r;
      break;
    }
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: {
      std::uint16_t* data = tensor.MutableData<std::uint16_t>();
      const bool half = elem_type == TensorProto::FLOAT16;
      for (std::int64_t i = 0; i < n; ++i) {
        const auto value = static_cast<float>((rand.Next() * 2 - 1) * r);
        data[i] = half ? core::eval::FloatToHalf(value) : core::eval::FloatToBFloat16(value);
      }
      break;
    }
    case TensorProto::INT8: FillIntegers<std::int8_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT16: FillIntegers<std::int16_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT32: FillIntegers<std::int32_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT64: FillIntegers<std::int64_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT8: FillIntegers<std::uint8_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT16: FillIntegers<std::uint16_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT32: FillIntegers<std::uint32_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT64: FillIntegers<std::uint64_t>(tensor, rand, options.int_max); break;
    case TensorProto::BOOL: {
      bool* data = tensor.MutableData<bool>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = rand.Next() < 0.5;
      break;
    }
    case TensorProto::STRING: {
      std::string* data = tensor.MutableData<std::string>();
      for (std::int64_t i = 0; i < n; ++i)
        data[i] = "s" + std::to_string(static_cast<std::int64_t>(std::floor(rand.Next() * static_cast<double>(options.int_max))));
      break;
    }
    default:
      throw ModelError("input '" + name + "' has element type " + std::to_string(elem_type) +
                       ", for which no random generator exists: give it with --input NAME=FILE.npy");
  }
  return tensor;
}

}  // namespace

eval::ValueMap RandomInputs(const ModelProto& model, const RandomInputOptions& options,
                                  std::map<std::string, std::int64_t>* symbols) {
  std::set<std::string, std::less<>> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  Mulberry32 rand(options.seed);
  std::map<std::string, std::int64_t> used;
  eval::ValueMap inputs;
  for (const auto& input : model.graph().input()) {
    if (initializers.contains(input.name())) continue;
    if (!input.type().has_tensor_type())
      throw ModelError("input '" + input.name() + "' is not a tensor: random inputs cannot be generated for it");
    const auto& type = input.type().tensor_type();
    std::vector<std::int64_t> shape;
    for (const auto& dim : type.shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        shape.push_back(dim.dim_value());
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        auto [it, inserted] = used.try_emplace(dim.dim_param(), 2);
        if (inserted)
          if (auto given = options.dims.find(dim.dim_param()); given != options.dims.end()) it->second = given->second;
        shape.push_back(it->second);
      } else {
        shape.push_back(2);
      }
    }
    inputs[input.name()] = RandomTensor(input.name(), type.elem_type(), std::move(shape), rand, options);
  }
  if (symbols) *symbols = std::move(used);
  return inputs;
}

}  // namespace onnxopt::core::verify
