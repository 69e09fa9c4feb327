// INTERNAL to core/compile (LibTorch): runs a region's schedule on tensors: generated steps
// through the loaded artifact (GeneratedCode: a host shared object's entries or CUDA kernels),
// extern steps through the eager engine's execution plan (the same dispatcher calls the
// interpreter makes, without its reporting) on the region's device. Not a public header: it
// names at::Tensor.
#pragma once

#include "core/compile/region_schedule.h"

#include <ATen/ATen.h>

#include <memory>

namespace fxs::compile::detail {

// Runs generated program `program` of a schedule on its input tensors; returns its outputs.
class GeneratedCode {
public:
    virtual ~GeneratedCode() = default;
    virtual Result<std::vector<at::Tensor>> run(int program, const codegen::RegionProgram& prog,
                                                const std::vector<at::Tensor>& inputs) const = 0;
};

class ScheduleRunner {
public:
    // Prepares the extern steps (their sub-graphs and plans for `device`). Error::Unsupported
    // when the engine cannot run one of them. `inputs`: the region inputs, in call order.
    static Result<std::unique_ptr<ScheduleRunner>> create(const graph::Graph& graph,
                                                          const RegionSchedule& schedule,
                                                          const std::vector<graph::NodeId>& inputs,
                                                          const std::vector<graph::NodeId>& outputs,
                                                          c10::Device device = c10::kCPU);
    ~ScheduleRunner();

    // Runs every step once; returns the region outputs in the order given to create().
    Result<std::vector<at::Tensor>> run(const GeneratedCode& code,
                                        const std::vector<at::Tensor>& inputs) const;

private:
    ScheduleRunner();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::compile::detail
