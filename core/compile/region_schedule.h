// INTERNAL to core/compile: a region as a schedule. Nodes the code generator lowers are grouped
// into generated steps (each one fused program, one entry of the region's shared object); the
// others (mm, convolution, attention, ...) stay extern steps run by LibTorch on the host. Steps
// are in a topological order of the region. Pure graph and loop-IR work: no torch here.
#pragma once

#include "core/codegen/loop_ir.h"
#include "core/codegen/lowering.h"
#include "core/graph/graph.h"
#include "core/util/result.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fxs::compile::detail {

struct ScheduleStep {
    bool generated = false;
    std::vector<graph::NodeId> nodes;   // topological
    std::vector<graph::NodeId> inputs;  // values it reads that earlier steps or the caller made
    std::vector<graph::NodeId> outputs; // values later steps read or the region returns
    int program = -1;                   // generated: index into RegionSchedule::programs
};

struct RegionSchedule {
    std::vector<ScheduleStep> steps;
    std::vector<codegen::RegionProgram> programs; // kernels named uniquely across programs
    int externNodes = 0;    // nodes in extern steps
    int generatedNodes = 0; // nodes in generated steps
    // Why the first extern node is one ("... (r0:mm)"), and the kind of that refusal.
    std::string externReason;
    codegen::RefusalKind externKind = codegen::RefusalKind::Op;
    // Where a run of generated nodes was split into kernels because the lowering could not fuse
    // a node into the kernel being built: that node and the lowering's reason (for the dump and
    // for finding what still splits kernels; not part of the key: the steps say it).
    std::vector<std::pair<graph::NodeId, std::string>> cuts;
};

// The buffer a value will have when a generated step reads it (dtype, sizes, strides), or why
// kernels cannot take it ("input x is float64, ...": the cause, not the symptom).
struct KernelInput {
    std::optional<codegen::BufferSpec> spec;
    codegen::Refusal refusal; // when spec is empty
};
using SpecOf = std::function<KernelInput(graph::NodeId)>;
// The strides eager lays a value out with (empty when unknown): a generated step's output that
// eager makes channels_last is stored so (codegen::LoweringRequest::outputStrides).
using LayoutOf = std::function<std::vector<std::int64_t>(graph::NodeId)>;

struct ScheduleRequest {
    const graph::Graph* graph = nullptr;
    std::string regionId;
    std::vector<graph::NodeId> order;   // region nodes, topological (canonical order)
    std::vector<graph::NodeId> inputs;  // region inputs
    std::vector<graph::NodeId> outputs; // region outputs
    // Buffers of region inputs and of values extern steps produce (values of generated steps
    // are known from their programs).
    SpecOf specOf;
    LayoutOf layoutOf; // may be empty: every output contiguous
};

// Groups the region into steps: runs of lowerable nodes (cut where the lowering cannot fuse
// the next node into the kernel being built) and runs of extern nodes. A view that only feeds
// extern steps stays extern (free in LibTorch, a copy in a kernel). When no node of the region
// can be generated the schedule has no programs, and externReason/externKind say why.
// Error::Invalid for an empty request; other errors are the lowering's own (not refusals).
Result<RegionSchedule> scheduleRegion(const ScheduleRequest& request);

// Canonical text of the schedule for the cache key: each step as "gen"/"ext" and the positions
// of its nodes in `order`, plus the buffers of generated steps' inputs made by extern steps and
// the strides of their outputs that are not contiguous (" > o<slot>:[strides]").
std::string scheduleText(const RegionSchedule& schedule, const std::vector<graph::NodeId>& order);

} // namespace fxs::compile::detail
