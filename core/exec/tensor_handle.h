// Opaque handles to tensors produced or consumed by the execution engine, and a named store of
// them. Lets torch-free code (the region compiler, the CLI, tests) keep node values from a run
// and look at their raw data, sizes, strides and dtype. Not a tensor library: no arithmetic.
#pragma once

#include "core/graph/dtype.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace fxs::exec {

// A reference-counted handle to one tensor (shares storage with the run that produced it).
// Cheap to copy: it holds the tensor's own reference, no allocation of its own (the compiled
// run passes every region's inputs and outputs through handles). Default-constructed handles
// are undefined (defined() == false).
class TensorHandle {
public:
    TensorHandle();
    ~TensorHandle();
    TensorHandle(const TensorHandle&);
    TensorHandle& operator=(const TensorHandle&);
    TensorHandle(TensorHandle&&) noexcept;
    TensorHandle& operator=(TensorHandle&&) noexcept;

    bool defined() const;
    // Address of the first element (device memory when isCuda()); null when undefined.
    void* data() const;
    std::vector<std::int64_t> sizes() const;
    std::vector<std::int64_t> strides() const; // in elements
    graph::DType dtype() const;
    std::string device() const; // "cpu", "cuda:0"
    bool isCuda() const;
    std::int64_t numel() const;
    // A contiguous CPU copy of the elements as float64 (for comparisons in tests and reports).
    std::vector<double> toDoubles() const;

private:
    friend TensorHandle makeHandle(at::Tensor t);
    friend const at::Tensor& tensorOf(const TensorHandle& h);
    // An at::Tensor (one reference-counted pointer) made in place by tensor_handle.cpp, which
    // checks the size and alignment; this header stays free of LibTorch.
    alignas(void*) unsigned char m_tensor[sizeof(void*)];
};

// Node name -> tensor handle. Values that are not tensors (ints, None) are not stored.
class ValueStore {
public:
    void set(const std::string& name, TensorHandle handle) { m_values[name] = std::move(handle); }
    const TensorHandle* find(const std::string& name) const;
    bool contains(const std::string& name) const { return m_values.count(name) != 0; }
    std::size_t size() const { return m_values.size(); }
    const std::map<std::string, TensorHandle>& values() const { return m_values; }

private:
    std::map<std::string, TensorHandle> m_values;
};

} // namespace fxs::exec
