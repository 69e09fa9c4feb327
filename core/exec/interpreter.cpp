// The Interpreter facade: chooses the device, feeds a backward graph from its forward graph,
// prepares inputs, runs the plan (with repeats) and turns values into a report. LibTorch
// exceptions stop here.
#include "core/exec/interpreter.h"
#include "core/exec/conv_layout.h"
#include "core/exec/direct_views.h"
#include "core/exec/executor.h"
#include "core/exec/forward_feed.h"
#include "core/exec/host_memory.h"
#include "core/exec/input_synth.h"
#include "core/exec/summaries.h"
#include "core/exec/torch_bridge.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>

#include <map>

namespace fxs::exec {
namespace {

using namespace detail;
using graph::NodeId;

struct GraphRun {
    RunReport report;
    std::vector<c10::IValue> slots; // kept values survive here
    std::vector<c10::IValue> outputs;
};

// What the caller provides for some inputs, besides options.inputs and the inputs file.
struct Given {
    std::map<NodeId, c10::IValue> values;
    std::map<NodeId, graph::ValueMeta> metas; // synthesise from this instead of the node's meta
};

bool graphSaysCuda(const graph::Graph& g)
{
    for (const auto& n : g.nodes()) {
        const auto* m = n.tensorMeta();
        if (m && m->device && m->device->type == "cuda") {
            return true;
        }
    }
    return false;
}

Result<c10::Device> chooseDevice(const graph::Graph& g, DevicePref pref,
                                 std::vector<std::string>& notes)
{
    const bool wantsCuda = graphSaysCuda(g);
    const bool haveCuda = at::hasCUDA();
    if (pref == DevicePref::Cuda) {
        if (!haveCuda) {
            return makeError(ErrorCode::Unsupported,
                             "CUDA was asked for, but this LibTorch has no CUDA or sees no GPU");
        }
        return c10::Device(c10::kCUDA, 0);
    }
    if (pref == DevicePref::Auto && wantsCuda && haveCuda) {
        return c10::Device(c10::kCUDA, 0);
    }
    if (wantsCuda) {
        notes.push_back(pref == DevicePref::Cpu
                            ? "the graph was recorded on CUDA; running on CPU as asked"
                            : "the graph was recorded on CUDA, but this LibTorch has no CUDA or "
                              "sees no GPU: running on CPU");
    }
    return c10::Device(c10::kCPU);
}

Result<std::vector<c10::IValue>> prepareInputs(const graph::Graph& g, const Plan& plan,
                                               const RunOptions& o, const Given& given,
                                               c10::Device device)
{
    std::map<std::string, c10::IValue> file;
    if (!o.inputsFile.empty()) {
        auto loaded = loadInputsFile(o.inputsFile);
        if (!loaded.ok()) {
            return loaded.error();
        }
        file = std::move(*loaded);
    }
    const SizeEnv sizes(o.sizes.begin(), o.sizes.end());
    const auto hints = inferInputHints(g, sizes);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
    std::vector<c10::IValue> inputs(g.size());
    int position = 0;
    for (const auto& step : plan.steps) {
        if (step.kind != StepKind::Input) {
            continue;
        }
        const auto& node = g.node(step.node);
        const std::string pos = std::to_string(position++);
        const TensorHandle* h = o.inputs ? o.inputs->find(node.name) : nullptr;
        if (!h && o.inputs && node.op == graph::OpKind::GetAttr) {
            h = o.inputs->find(node.target);
        }
        auto fileIt = file.count(node.name) ? file.find(node.name) : file.find(pos);
        c10::IValue v;
        if (auto it = given.values.find(node.id); it != given.values.end()) {
            v = it->second;
        } else if (h) {
            v = tensorOf(*h);
        } else if (fileIt != file.end()) {
            v = fileIt->second;
        } else {
            auto metaIt = given.metas.find(node.id);
            const auto& meta = metaIt != given.metas.end() ? metaIt->second : node.meta;
            auto made = synthesizeInput(node, meta, hints[node.id], sizes, device, gen);
            if (!made.ok()) {
                return made.error();
            }
            v = std::move(*made);
        }
        if (v.isTensor() && v.toTensor().defined() && v.toTensor().device() != device) {
            v = v.toTensor().to(device);
        }
        inputs[node.id] = std::move(v);
    }
    return inputs;
}

void fillReport(const graph::Graph& g, const Plan& plan, const std::vector<double>& stepMs,
                int repeat, const ExecResult& last, bool summaries, RunReport& r)
{
    r.nodesRun = plan.callNodes;
    r.peakBytes = last.peakBytes;
    for (const auto& step : plan.steps) {
        if (step.kind == StepKind::Op || step.kind == StepKind::Function ||
            step.kind == StepKind::Getitem) {
            const auto& n = g.node(step.node);
            r.perNode.push_back({n.name, n.target, stepMs[&step - plan.steps.data()] / repeat});
        } else if (step.kind == StepKind::Substitute) {
            r.perNode.push_back({step.substitute->name, "fxscope.substitute",
                                 stepMs[&step - plan.steps.data()] / repeat});
        }
    }
    const Step* outStep = plan.steps.empty() ? nullptr : &plan.steps.back();
    for (std::size_t i = 0; i < last.outputs.size(); ++i) {
        std::string name;
        if (outStep && outStep->kind == StepKind::Output &&
            outStep->args[i].kind == ArgStep::Kind::Slot) {
            name = g.node(outStep->args[i].slot).name;
        }
        if (summaries) {
            r.outputs.push_back(summarize(last.outputs[i], name));
        }
        if (last.outputs[i].isTensor() && last.outputs[i].toTensor().defined()) {
            r.kept.set("output." + std::to_string(i), makeHandle(last.outputs[i].toTensor()));
        }
    }
}

void noteConvWeights(const ConvWeightCache::Counts& before, const ConvWeightCache::Counts& after,
                     RunReport& r)
{
    r.convWeightsConverted = after.converted - before.converted;
    r.convWeightsReused = after.reused - before.reused;
    if (r.convWeightsConverted + r.convWeightsReused > 0) {
        r.notes.push_back("convolution weights: " + std::to_string(r.convWeightsConverted) +
                          " converted to channels_last, " + std::to_string(r.convWeightsReused) +
                          " reused (the same tensor, unchanged since converted)");
    }
}

Result<GraphRun> runGraph(const graph::Graph& g, const RunOptions& o, const Given& given,
                          const std::vector<NodeId>& keep, c10::Device device,
                          const CancelToken& cancel)
{
    GraphRun run;
    run.report.device = device.str();
    Plan plan = buildPlan(g, device, keep, o.substitutes);
    if (!plan.unsupported.empty()) {
        run.report.unsupported = plan.unsupported;
        return run;
    }
    const bool direct = o.directMatmuls && device.is_cuda(); // library calls made directly
    std::shared_ptr<ConvWeightCache> weights = o.convWeights;
    if (o.convLayout == ConvLayout::ChannelsLast) {
        weights = weights ? weights : std::make_shared<ConvWeightCache>(); // repeats reuse
        preferChannelsLastConvolutions(plan, &weights->impl(), direct);
    }
    const ConvWeightCache::Counts before = weights ? weights->total() : ConvWeightCache::Counts();
    if (o.chooseAddmm) {
        chooseAddmmKernels(plan, direct);
    }
    if (direct) {
        runMatmulsDirectly(plan);
    }
    if (o.directViews) {
        runViewsDirectly(plan);
    }
    // Inputs are made as normal tensors, not inference tensors: they carry version counters,
    // so a weight changed in place between runs is seen (ConvWeightCache).
    auto inputs = [&] {
        c10::InferenceMode normal(false);
        return prepareInputs(g, plan, o, given, device);
    }();
    if (!inputs.ok()) {
        return inputs.error();
    }
    ExecOptions eo{o.perNodeTiming, o.perNodeTiming && o.syncPerNode && device.is_cuda(), &cancel,
                   &o.onNode, &o.onSteps};
    const int repeat = std::max(1, o.repeat);
    std::vector<double> stepMs(plan.steps.size(), 0.0);
    ExecResult last;
    for (int i = (repeat > 1 ? -1 : 0); i < repeat; ++i) { // i == -1: warm-up
        last = ExecResult();
        if (weights) {
            weights->impl().beginRun();
        }
        if (auto s = executePlan(plan, g, *inputs, eo, last); !s.ok()) {
            return s.error();
        }
        if (eo.timing && !eo.syncCuda && device.is_cuda()) {
            // Host times without per-node syncs: each repeat starts on an idle stream, as the
            // timed runs do, not behind the earlier repeats' queued work (whose full launch
            // queue would make the host wait inside the steps).
            torch::cuda::synchronize();
        }
        if (weights) {
            weights->impl().endRun();
        }
        if (i >= 0) {
            for (std::size_t k = 0; k < stepMs.size(); ++k) {
                stepMs[k] += last.stepMs[k];
            }
            run.report.totalMs += last.totalMs / repeat;
        }
    }
    fillReport(g, plan, stepMs, repeat, last, o.summarizeOutputs, run.report);
    if (o.chooseAddmm) {
        const auto [split, all] = addmmChoiceCounts();
        if (all > 0) {
            run.report.notes.push_back("addmm: " + std::to_string(split) + " of " +
                                       std::to_string(all) +
                                       " operand shapes run as mm + bias add (timed faster "
                                       "than addmm here)");
        }
    }
    if (weights) {
        noteConvWeights(before, weights->total(), run.report);
    }
    run.report.ok = true;
    run.slots = std::move(last.slots);
    run.outputs = std::move(last.outputs);
    return run;
}

Result<std::vector<NodeId>> keepIds(const graph::Graph& g, const std::vector<std::string>& names)
{
    std::vector<NodeId> ids;
    for (const auto& name : names) {
        auto id = g.find(name);
        if (!id) {
            return makeError(ErrorCode::Invalid, "no node named '" + name + "' to keep", name);
        }
        ids.push_back(*id);
    }
    return ids;
}

// Runs the forward graph and turns its values into the backward graph's inputs.
Result<Given> feedFromForward(const graph::Graph& fw, const graph::Graph& bw, const RunOptions& o,
                              c10::Device device, const CancelToken& cancel, RunReport& report)
{
    auto feed = matchBackwardInputs(fw, bw);
    if (!feed.ok()) {
        return feed.error();
    }
    RunOptions fo = o;
    fo.forwardGraph = nullptr;
    fo.substitutes.clear();
    fo.repeat = 1;
    fo.inputsFile.clear();
    fo.inputs = nullptr;
    fo.convWeights = nullptr; // the cache holds one graph's weights
    fo.directMatmuls = false;
    auto fwRun = runGraph(fw, fo, {}, feed->fwKeep, device, cancel);
    if (!fwRun.ok()) {
        Error e = fwRun.error();
        e.message = "forward graph: " + e.message;
        return e;
    }
    if (!fwRun->report.ok) {
        for (auto u : fwRun->report.unsupported) {
            u.reason = "(forward graph) " + u.reason;
            report.unsupported.push_back(std::move(u));
        }
        return Given{};
    }
    Given given;
    int byAot = 0, byName = 0, tangents = 0;
    for (const auto& src : feed->sources) {
        if (src.tangent) {
            given.metas[src.bwInput] = src.meta;
            ++tangents;
        } else {
            given.values[src.bwInput] = fwRun->slots[src.fwNode];
            (src.rule == "aot-comment" ? byAot : byName)++;
        }
    }
    report.notes.push_back(
        "ran the forward graph first (" + std::to_string(fwRun->report.nodesRun) +
        " nodes); inputs fed from it: " + std::to_string(byAot) + " by AOT comment, " +
        std::to_string(byName) + " by name; " + std::to_string(tangents) + " tangents synthesised");
    return given;
}

Result<RunReport> runChecked(const graph::Graph& g, const RunOptions& o, const CancelToken& cancel)
{
    RunReport report;
    auto device = chooseDevice(g, o.device, report.notes);
    if (!device.ok()) {
        return device.error();
    }
    report.device = device->str();
    if (device->is_cpu()) {
        keepFreedHostMemory(); // repeats reuse the pages the first run faulted in
    }
    report.unsupported = buildPlan(g, *device).unsupported; // list everything before running
    if (o.forwardGraph) {
        for (auto u : buildPlan(*o.forwardGraph, *device).unsupported) {
            u.reason = "(forward graph) " + u.reason;
            report.unsupported.push_back(std::move(u));
        }
    }
    if (!report.unsupported.empty()) {
        return report;
    }
    auto keep = keepIds(g, o.keep);
    if (!keep.ok()) {
        return keep.error();
    }
    c10::InferenceMode inference;
    Given given;
    if (o.forwardGraph) {
        auto fed = feedFromForward(*o.forwardGraph, g, o, *device, cancel, report);
        if (!fed.ok() || !report.unsupported.empty()) {
            return fed.ok() ? Result<RunReport>(report) : Result<RunReport>(fed.error());
        }
        given = std::move(*fed);
    }
    RunOptions bo = o;
    bo.seed = o.forwardGraph ? o.seed + 1 : o.seed; // tangents differ from forward inputs
    auto run = runGraph(g, bo, given, *keep, *device, cancel);
    if (!run.ok()) {
        return run.error();
    }
    auto notes = std::move(report.notes);
    report = std::move(run->report);
    report.notes.insert(report.notes.begin(), notes.begin(), notes.end());
    for (std::size_t i = 0; i < keep->size(); ++i) {
        const auto& v = run->slots[(*keep)[i]];
        if (v.isTensor()) {
            report.kept.set(o.keep[i], makeHandle(v.toTensor()));
        }
    }
    return report;
}

} // namespace

HostMemoryHold::HostMemoryHold()
{
    holdFreedHostMemory();
}

HostMemoryHold::~HostMemoryHold()
{
    endFreedHostMemoryHold();
}

bool HostMemoryHold::effective()
{
    return hostMemoryPolicyApplies();
}

std::vector<UnsupportedOp> Interpreter::checkSupport(const graph::Graph& graph)
{
    try {
        std::vector<std::string> notes;
        auto device = chooseDevice(graph, DevicePref::Auto, notes);
        return buildPlan(graph, device.ok() ? *device : c10::Device(c10::kCPU)).unsupported;
    } catch (const std::exception& e) {
        return {{"", "", "internal error while checking the graph: " + torchMessage(e)}};
    }
}

Result<RunReport> Interpreter::run(const graph::Graph& graph, const RunOptions& options,
                                   const CancelToken& cancel)
{
    try {
        auto report = runChecked(graph, options, cancel);
        releaseFreedHostMemory(); // after the repeats: the process does not keep its peak
        return report;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Runtime, torchMessage(e));
    }
}

} // namespace fxs::exec
