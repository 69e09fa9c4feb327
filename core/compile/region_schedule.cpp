#include "core/compile/region_schedule.h"

#include "core/codegen/lowering.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace fxs::compile::detail {
namespace {

using graph::NodeId;

bool isGetitem(const graph::Node& n)
{
    return n.getitemOf != graph::kNoNode || graph::opBaseName(n.target) == "getitem";
}

// The value a view (or any node) takes as its first argument, or kNoNode.
NodeId firstArgNode(const graph::Node& n)
{
    return !n.args.empty() && n.args[0].isNode() ? n.args[0].node : graph::kNoNode;
}

NodeId getitemParent(const graph::Node& n)
{
    return n.getitemOf != graph::kNoNode ? n.getitemOf : firstArgNode(n);
}

std::string shapeText(const std::vector<std::int64_t>& v)
{
    std::string s;
    for (auto d : v) {
        s += (s.empty() ? "" : ",") + std::to_string(d);
    }
    return "[" + s + "]";
}

// A segment of the order before it becomes a step.
struct Segment {
    bool generated = false;
    std::vector<NodeId> nodes;
};

class Planner {
public:
    explicit Planner(const ScheduleRequest& r) : m_req(r), m_g(*r.graph) {}

    Result<RegionSchedule> run();

private:
    void glueGetitems();
    void classify();
    bool attractViews();
    void makeExtern(NodeId id, const codegen::Refusal& why);
    std::vector<Segment> segments() const;
    ScheduleStep stepOf(const Segment& seg) const;
    // Lowers one generated segment; false (with a new cut or extern node) when it must be
    // planned again.
    Result<bool> lowerSegment(ScheduleStep& step, RegionSchedule& s);
    void failAt(const std::vector<NodeId>& seg, NodeId at, const codegen::Refusal& why);
    void freeViewAtCut(const std::vector<NodeId>& seg, NodeId at);
    NodeId nodeNamed(const std::vector<NodeId>& seg, const std::string& where) const;
    int canonicalPosition(NodeId id) const;

    const ScheduleRequest& m_req;
    const graph::Graph& m_g;
    std::vector<NodeId> m_order;
    std::unordered_set<NodeId> m_inRegion;
    std::unordered_set<NodeId> m_outputs;
    std::unordered_set<NodeId> m_extern;
    std::unordered_set<NodeId> m_cuts; // a generated run starts anew at these nodes
    std::vector<std::pair<NodeId, std::string>> m_cutWhy; // each cut's node and reason
    std::map<NodeId, codegen::BufferSpec> m_made; // buffers of generated steps' outputs
    std::unordered_map<NodeId, int> m_position;   // canonical position of each region node
    std::string m_firstReason;
    codegen::RefusalKind m_firstKind = codegen::RefusalKind::Op;
};

// getitems run right after their tuple so a cut never separates them from it.
void Planner::glueGetitems()
{
    m_inRegion.insert(m_req.order.begin(), m_req.order.end());
    for (std::size_t i = 0; i < m_req.order.size(); ++i) {
        m_position.emplace(m_req.order[i], static_cast<int>(i));
    }
    m_outputs.insert(m_req.outputs.begin(), m_req.outputs.end());
    std::unordered_map<NodeId, std::vector<NodeId>> items;
    for (NodeId id : m_req.order) {
        const graph::Node& n = m_g.node(id);
        if (isGetitem(n) && m_inRegion.count(getitemParent(n))) {
            items[getitemParent(n)].push_back(id);
        }
    }
    for (NodeId id : m_req.order) {
        const graph::Node& n = m_g.node(id);
        if (isGetitem(n) && m_inRegion.count(getitemParent(n))) {
            continue;
        }
        m_order.push_back(id);
        for (NodeId item : items[id]) {
            m_order.push_back(item);
        }
    }
}

void Planner::makeExtern(NodeId id, const codegen::Refusal& why)
{
    if (!m_extern.insert(id).second) {
        return;
    }
    if (m_firstReason.empty()) {
        m_firstReason = why.message + " (" + m_req.regionId + ":" + m_g.node(id).name + ")";
        m_firstKind = why.kind;
    }
    for (NodeId u : m_g.node(id).users) {
        if (m_inRegion.count(u) && isGetitem(m_g.node(u)) && getitemParent(m_g.node(u)) == id) {
            m_extern.insert(u);
        }
    }
}

void Planner::classify()
{
    for (NodeId id : m_order) {
        const graph::Node& n = m_g.node(id);
        if (!isGetitem(n)) {
            if (auto why = codegen::opRefusal(n)) {
                makeExtern(id, *why);
            }
        }
    }
    while (attractViews()) {
    }
    // LibTorch views (free: no kernel) between generated nodes would cut one kernel into
    // several. Those of a region input (or of such a view) that sit between generated nodes run
    // first; those no region node reads but such views run last (LLaMA's SwiGLU: the returned
    // views of the two matrix products around silu, forward and backward, each made silu and
    // its product two kernels). Views next to other LibTorch steps stay with them.
    std::unordered_set<NodeId> early;
    for (NodeId id : m_order) {
        const NodeId src = firstArgNode(m_g.node(id));
        if (m_extern.count(id) && codegen::isViewNode(m_g.node(id)) &&
            src != graph::kNoNode && (!m_inRegion.count(src) || early.count(src))) {
            early.insert(id);
        }
    }
    const auto generatedAround = [&](std::size_t i, int step) {
        for (auto j = std::ptrdiff_t(i) + step; j >= 0 && j < std::ptrdiff_t(m_order.size());
             j += step) {
            if (!early.count(m_order[std::size_t(j)])) {
                return !m_extern.count(m_order[std::size_t(j)]);
            }
        }
        return false;
    };
    std::unordered_set<NodeId> first;
    for (std::size_t i = 0; i < m_order.size(); ++i) {
        if (early.count(m_order[i]) && generatedAround(i, -1) && generatedAround(i, 1)) {
            first.insert(m_order[i]);
        }
    }
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it) { // and the views they read
        const NodeId src = firstArgNode(m_g.node(*it));
        if (first.count(*it) && early.count(src)) {
            first.insert(src);
        }
    }
    std::unordered_set<NodeId> last;
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it) {
        const auto& users = m_g.node(*it).users;
        if (m_extern.count(*it) && codegen::isViewNode(m_g.node(*it)) && !first.count(*it) &&
            std::all_of(users.begin(), users.end(),
                        [&](NodeId u) { return !m_inRegion.count(u) || last.count(u); })) {
            last.insert(*it);
        }
    }
    std::stable_partition(m_order.begin(), m_order.end(),
                          [&](NodeId id) { return first.count(id) != 0; });
    std::stable_partition(m_order.begin(), m_order.end(),
                          [&](NodeId id) { return !last.count(id); });
}

// A view whose region users are all extern, a returned view of an extern value or a region
// input, a returned expand no region node reads, or a returned view no region node reads of a
// value the region returns, stays a free LibTorch view instead of a copy made by a kernel (a
// kernel reading it takes it as a strided input).
bool Planner::attractViews()
{
    bool changed = false;
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it) {
        const graph::Node& n = m_g.node(*it);
        if (m_extern.count(*it) || !codegen::isViewNode(n)) {
            continue;
        }
        bool any = false;
        bool allExtern = true;
        for (NodeId u : n.users) {
            if (m_inRegion.count(u)) {
                any = true;
                allExtern = allExtern && m_extern.count(u) != 0;
            }
        }
        const NodeId src = firstArgNode(n);
        const bool srcExtern = !m_inRegion.count(src) || m_extern.count(src);
        // A returned expand that only leaves the region: the kernel stores its source and
        // LibTorch expands that for free (a stored expansion writes it several times over and
        // needs an index space of its own: LLaMA's 24 attention masks, one kernel each).
        const bool freeExpand = !any && graph::opBaseName(n.target) == "expand";
        // A view no region node reads of a value the region returns anyway (stored either way):
        // a free LibTorch view, not a second copy (GPT-12's transposes of the gradients for the
        // weight-gradient mm, which as copies also cut gelu_backward from its bias sum).
        const bool ofReturned = !any && m_outputs.count(src) != 0;
        if ((any && allExtern) ||
            ((!any || m_outputs.count(*it)) && (srcExtern || freeExpand || ofReturned))) {
            m_extern.insert(*it);
            changed = true;
        }
    }
    return changed;
}

std::vector<Segment> Planner::segments() const
{
    std::vector<Segment> segs;
    for (NodeId id : m_order) {
        const bool gen = !m_extern.count(id);
        if (segs.empty() || segs.back().generated != gen || (gen && m_cuts.count(id))) {
            segs.push_back({gen, {}});
        }
        segs.back().nodes.push_back(id);
    }
    return segs;
}

ScheduleStep Planner::stepOf(const Segment& seg) const
{
    ScheduleStep step;
    step.generated = seg.generated;
    step.nodes = seg.nodes;
    const std::unordered_set<NodeId> mine(seg.nodes.begin(), seg.nodes.end());
    for (NodeId id : seg.nodes) {
        for (NodeId in : m_g.node(id).inputs) {
            if (!mine.count(in) &&
                std::find(step.inputs.begin(), step.inputs.end(), in) == step.inputs.end()) {
                step.inputs.push_back(in);
            }
        }
        const auto& users = m_g.node(id).users;
        const bool readLater = std::any_of(users.begin(), users.end(), [&](NodeId u) {
            return m_inRegion.count(u) && !mine.count(u);
        });
        if (readLater || m_outputs.count(id)) {
            step.outputs.push_back(id);
        }
    }
    return step;
}

NodeId Planner::nodeNamed(const std::vector<NodeId>& seg, const std::string& where) const
{
    const std::string prefix = m_req.regionId + ":";
    const std::string name = where.rfind(prefix, 0) == 0 ? where.substr(prefix.size()) : where;
    for (NodeId id : seg) {
        if (m_g.node(id).name == name) {
            return id;
        }
    }
    return seg.front();
}

// Position of a region node in the request's (canonical) order: the v<i> of scheduleText.
int Planner::canonicalPosition(NodeId id) const
{
    const auto it = m_position.find(id);
    return it == m_position.end() ? -1 : it->second;
}

// The node the lowering stopped at starts a new kernel. When it already starts one, the kernel
// may have been shaped by later nodes (one index space for all): the node gets a kernel of its
// own (with its getitems); only when that fails too does it stay a LibTorch call.
void Planner::failAt(const std::vector<NodeId>& seg, NodeId at, const codegen::Refusal& why)
{
    if (at != seg.front()) {
        m_cuts.insert(at);
        m_cutWhy.emplace_back(at, why.message);
        freeViewAtCut(seg, at);
        return;
    }
    auto next = std::find_if(seg.begin() + 1, seg.end(), [&](NodeId id) {
        return !isGetitem(m_g.node(id)) || getitemParent(m_g.node(id)) != at;
    });
    if (next != seg.end()) {
        m_cuts.insert(*next);
        m_cutWhy.emplace_back(*next, "after a node that needs a kernel of its own: " + why.message);
    } else {
        makeExtern(at, why);
    }
}

// A view the kernel could not take of a value made before it in the same run: after the cut
// that value is stored by the kernel before, contiguous as eager lays it out, and a view the
// region returns or LibTorch reads would be stored again by the kernel after (a copy: GPT-12's
// layer norm backward storing its transposed clone, then a column sum re-storing its view).
// It stays a free LibTorch view; the kernel after reads it as a strided input.
void Planner::freeViewAtCut(const std::vector<NodeId>& seg, NodeId at)
{
    const graph::Node& n = m_g.node(at);
    const NodeId src = firstArgNode(n);
    const auto before = std::find(seg.begin(), seg.end(), at);
    if (!codegen::isViewNode(n) || std::find(seg.begin(), before, src) == before) {
        return;
    }
    const auto spec = codegen::bufferSpecFromMeta(m_g.node(src));
    const bool stored = std::any_of(n.users.begin(), n.users.end(), [&](NodeId u) {
        return !m_inRegion.count(u) || m_extern.count(u);
    });
    if (spec && spec->strides == codegen::contiguousStrides(spec->sizes) &&
        (stored || m_outputs.count(at))) {
        m_extern.insert(at);
    }
}

Result<bool> Planner::lowerSegment(ScheduleStep& step, RegionSchedule& s)
{
    const bool allViews = std::all_of(step.nodes.begin(), step.nodes.end(), [&](NodeId id) {
        return codegen::isViewNode(m_g.node(id)) || isGetitem(m_g.node(id));
    });
    if (allViews) {
        for (NodeId id : step.nodes) {
            m_extern.insert(id);
        }
        return false;
    }
    codegen::LoweringRequest lr{&m_g, m_req.regionId, step.nodes, step.inputs, step.outputs, {}};
    for (NodeId in : step.inputs) {
        auto made = m_made.find(in);
        const KernelInput input = made != m_made.end() ? KernelInput{made->second, {}}
                                                       : m_req.specOf(in);
        if (!input.spec) {
            const auto reader = std::find_if(step.nodes.begin(), step.nodes.end(), [&](NodeId id) {
                const auto& ins = m_g.node(id).inputs;
                return std::find(ins.begin(), ins.end(), in) != ins.end();
            });
            failAt(step.nodes, *reader, input.refusal);
            return false;
        }
        lr.inputSpecs.push_back(*input.spec);
    }
    for (NodeId out : step.outputs) {
        lr.outputStrides.push_back(m_req.layoutOf ? m_req.layoutOf(out)
                                                  : std::vector<std::int64_t>{});
    }
    auto prog = codegen::lowerRegion(lr);
    if (!prog) {
        if (prog.error().code != ErrorCode::Unsupported) {
            return prog.error();
        }
        failAt(step.nodes, nodeNamed(step.nodes, prog.error().where),
               {codegen::RefusalKind::Shape, prog.error().message});
        return false;
    }
    for (std::size_t i = 0; i < step.outputs.size() && i < prog->outputs.size(); ++i) {
        m_made[step.outputs[i]] = prog->outputs[i];
    }
    // The printers name nodes by canonical position (as the key's schedule does), never by name.
    for (auto& k : prog->kernels) {
        k.canonicalNodes.clear();
        for (NodeId id : step.nodes) {
            k.canonicalNodes.push_back(canonicalPosition(id));
        }
    }
    step.program = static_cast<int>(s.programs.size());
    s.programs.push_back(std::move(*prog));
    return true;
}

Result<RegionSchedule> Planner::run()
{
    glueGetitems();
    classify();
    // Each failed attempt adds a cut or an extern node, so this ends.
    for (std::size_t attempt = 0; attempt <= 2 * m_order.size() + 2; ++attempt) {
        RegionSchedule s;
        m_made.clear();
        bool done = true;
        for (const Segment& seg : segments()) {
            s.steps.push_back(stepOf(seg));
            ScheduleStep& step = s.steps.back();
            (step.generated ? s.generatedNodes : s.externNodes) += int(step.nodes.size());
            if (!step.generated) {
                continue;
            }
            auto ok = lowerSegment(step, s);
            if (!ok) {
                return ok.error();
            }
            if (!*ok) {
                done = false;
                break;
            }
        }
        if (!done) {
            continue;
        }
        for (std::size_t i = 0; i < s.programs.size(); ++i) {
            auto& kernels = s.programs[i].kernels;
            for (std::size_t j = 0; j < kernels.size(); ++j) {
                // Program i's kernels: "fx3_row_mul_rsqrt_sum_4096x256", a second one (a column
                // part, codegen/lowering.cpp) "fx3_1_col_...": named after what they compute, so
                // a profile's kernel list says what each is (identical regions share the names
                // with their code).
                kernels[j].name = "fx" + std::to_string(i) + (j ? "_" + std::to_string(j) : "") +
                                  "_" + codegen::describeKernel(kernels[j]);
            }
        }
        s.externReason = m_firstReason;
        s.externKind = m_firstKind;
        s.cuts = m_cutWhy;
        return s;
    }
    return makeError(ErrorCode::Internal, "the region could not be scheduled", m_req.regionId);
}

} // namespace

Result<RegionSchedule> scheduleRegion(const ScheduleRequest& request)
{
    if (!request.graph || request.order.empty() || !request.specOf) {
        return makeError(ErrorCode::Invalid, "empty region", request.regionId);
    }
    return Planner(request).run();
}

std::string scheduleText(const RegionSchedule& schedule, const std::vector<graph::NodeId>& order)
{
    std::unordered_map<NodeId, std::size_t> pos;
    for (std::size_t i = 0; i < order.size(); ++i) {
        pos[order[i]] = i;
    }
    std::string text;
    for (const auto& step : schedule.steps) {
        text += step.generated ? "gen" : "ext";
        for (NodeId id : step.nodes) {
            text += " v" + std::to_string(pos.at(id));
        }
        if (step.generated) {
            const auto& prog = schedule.programs.at(std::size_t(step.program));
            for (std::size_t i = 0; i < step.inputs.size() && i < prog.inputs.size(); ++i) {
                auto p = pos.find(step.inputs[i]);
                if (p == pos.end()) {
                    continue; // a region input: its meta is a key component of its own
                }
                const auto& b = prog.inputs[i];
                text += " | v" + std::to_string(p->second) + ":" +
                        std::string(codegen::scalarTypeName(b.type)) + shapeText(b.sizes) +
                        shapeText(b.strides);
            }
            for (std::size_t i = 0; i < prog.outputs.size(); ++i) {
                const auto& b = prog.outputs[i];
                if (b.strides != codegen::contiguousStrides(b.sizes)) {
                    text += " > o" + std::to_string(i) + ":" + shapeText(b.strides);
                }
            }
        }
        text += ";";
    }
    return text;
}

} // namespace fxs::compile::detail
