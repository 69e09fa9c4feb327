// INTERNAL to core/compile (LibTorch): runs a region's schedule on tensors: generated steps
// through the entries of the loaded artifact, extern steps through the eager engine's execution
// plan (the same dispatcher calls the interpreter makes, without its reporting). Not a public
// header: it names at::Tensor.
#pragma once

#include "core/compile/region_schedule.h"
#include "core/compile/shared_library.h"

#include <ATen/ATen.h>

#include <memory>

namespace fxs::compile::detail {

class ScheduleRunner {
public:
    // Prepares the extern steps (their sub-graphs and plans). Error::Unsupported when the
    // engine cannot run one of them. `inputs`: the region inputs, in call order.
    static Result<std::unique_ptr<ScheduleRunner>> create(const graph::Graph& graph,
                                                          const RegionSchedule& schedule,
                                                          const std::vector<graph::NodeId>& inputs,
                                                          const std::vector<graph::NodeId>& outputs);
    ~ScheduleRunner();

    // Runs every step once; returns the region outputs in the order given to create().
    Result<std::vector<at::Tensor>> run(const SharedLibrary& lib,
                                        const std::vector<at::Tensor>& inputs) const;

private:
    ScheduleRunner();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fxs::compile::detail
