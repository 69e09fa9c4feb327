#include "core/codegen/cuda_column.h"

#include "core/codegen/cuda_element.h"
#include "core/codegen/expr_emitter.h"
#include "core/codegen/source_text.h"

#include <algorithm>

namespace fxs::codegen::detail {
namespace {

std::string colText(std::int64_t v) { return std::to_string(v); }

std::int64_t colCeilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks a column kernel aims for (about two per multiprocessor of an H100/H200), and the rows
// each thread takes at least before the rows are split over more blocks.
constexpr std::int64_t kTargetBlocks = 256;
constexpr std::int64_t kMinRowsPerThread = 4;
// Threads a block may grow to so that one block per column tile takes every row (at most
// kMinRowsPerThread each) instead of splitting the rows over blocks: the split's combine (a
// partial stored, a fence, an atomic, the partials read back) is two more trips to memory,
// most of a small kernel's time (LLaMA's RMSNorm weight gradients, 128 rows x 256 columns:
// 4.7 us split over 32 blocks).
constexpr std::int64_t kMaxColumnBlock = 1024;
// Rows of threads a block combines in order by its first row; more are halved in a tree first.
constexpr int kSerialCombineRows = 8;
// Blocks an unsplit column kernel's narrowed tiles aim for: about one a multiprocessor.
constexpr std::int64_t kBlocksUnsplit = 128;

std::string combineOf(const Reduction& r)
{
    switch (r.kind) {
    case ReduceKind::Sum: return "fxs_sum()";
    case ReduceKind::Max: return "fxs_max()";
    case ReduceKind::Min: return "fxs_min()";
    }
    return "fxs_sum()";
}

class ColumnPrinter {
public:
    ColumnPrinter(const Kernel& k, const ColumnPlan& plan)
        : m_k(k), m_plan(plan), m_idx(fitsInt32(k) ? "int" : "int64_t"),
          m_name(source::identifier(k.name)), m_emit(k, cudaDialect(), RowCachePlan())
    {
    }

    std::string kernel(const std::string& params, int block);
    const MathCalls& calls() const { return m_emit.calls(); }

private:
    const Kernel& m_k;
    const ColumnPlan& m_plan;
    const std::string m_idx;
    const std::string m_name;
    ExprEmitter m_emit;

    std::string loadText(int index) const;
    std::string bases(const std::string& in) const;
    std::string stores(bool results, const std::string& in) const;
    std::string rowPass(const std::string& in);
    std::string blockCombine(const std::string& in) const;
    std::string splitCombine(const std::string& in) const;
    std::string epilogue(const std::string& in);
};

std::string ColumnPrinter::loadText(int index) const
{
    const Load& l = m_k.loads.at(std::size_t(index));
    const std::string inner = innerIndexText(m_k, l.access);
    const std::string at = "[b" + colText(index) + (inner.empty() ? "" : " + " + inner) + "]";
    const std::string value = loadValue(l.type, "in" + colText(l.access.buffer) + at);
    return guardedLoadText(m_k, l, value, "c", cudaDialect());
}

// Row bases of every access at row r (unused ones cost nothing).
std::string ColumnPrinter::bases(const std::string& in) const
{
    std::string s;
    for (std::size_t l = 0; l < m_k.loads.size(); ++l) {
        s += in + "const " + m_idx + " b" + colText(std::int64_t(l)) + " = " +
             rowBaseText(m_k, m_k.loads[l].access) + ";\n" + in + "(void)b" +
             colText(std::int64_t(l)) + ";\n";
    }
    for (std::size_t i = 0; i < m_k.stores.size(); ++i) {
        s += in + "const " + m_idx + " s" + colText(std::int64_t(i)) + " = " +
             rowBaseText(m_k, m_k.stores[i].access) + ";\n" + in + "(void)s" +
             colText(std::int64_t(i)) + ";\n";
    }
    return s;
}

std::string ColumnPrinter::stores(bool results, const std::string& in) const
{
    std::string s;
    for (std::size_t i = 0; i < m_k.stores.size(); ++i) {
        const Store& st = m_k.stores[i];
        if (isColumnResult(m_k, st) != results) {
            continue;
        }
        const std::string inner = innerIndexText(m_k, st.access);
        s += in + "out" + colText(st.access.buffer) + "[s" + colText(std::int64_t(i)) +
             (inner.empty() ? "" : " + " + inner) + "] = " +
             storeValue(st.type, "t" + colText(st.expr)) + ";\n";
    }
    return s;
}

// The thread's rows of its column: the reductions' operands folded, the row outputs stored.
std::string ColumnPrinter::rowPass(const std::string& in)
{
    const std::string I = m_idx;
    const std::string rows = colText(m_k.rows());
    const std::string per = colText(m_plan.rowsPerSplit);
    const std::vector<int> roots = columnPassRoots(m_k);
    std::string s = in + "if (live) {\n";
    const std::string in2 = in + "    ";
    s += in2 + "const " + I + " r1 = (split + 1) * " + per + " < " + rows + " ? (split + 1) * " +
         per + " : " + rows + ";\n";
    // Unrolled: the loads of several rows are in flight together (a thread takes a few rows).
    s += in2 + "#pragma unroll 4\n";
    s += in2 + "for (" + I + " r = split * " + per + " + ty; r < r1; r += " + colText(m_plan.ty) +
         ") {\n";
    const std::string in3 = in2 + "    ";
    s += bases(in3);
    s += m_emit.statements(roots, -1, "c", in3, [this](int i) { return loadText(i); });
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const Reduction& r = m_k.reductions[i];
        const std::string acc = "acc" + colText(std::int64_t(i));
        s += in3 + acc + " = " + combineOf(r) + "(" + acc + ", t" + colText(r.operand) + ");\n";
    }
    s += stores(false, in3);
    return s + in2 + "}\n" + in + "}\n";
}

// The TY partials of each column of the block, combined in order by its first row of threads;
// more than kSerialCombineRows rows of threads are first halved in a tree (row y takes row
// y + h, h = TY/2 down to 8), a fixed order too.
std::string ColumnPrinter::blockCombine(const std::string& in) const
{
    std::string s;
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const std::string id = colText(std::int64_t(i));
        s += in + "sm" + id + "[threadIdx.x] = acc" + id + ";\n";
    }
    s += in + "__syncthreads();\n";
    int rows = m_plan.ty;
    if (rows > kSerialCombineRows) {
        s += in + "for (int h = " + colText(rows / 2) + "; h >= " + colText(kSerialCombineRows) +
             "; h /= 2) {\n" + in + "    if (ty < h) {\n";
        for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
            const std::string id = colText(std::int64_t(i));
            s += in + "        sm" + id + "[threadIdx.x] = " + combineOf(m_k.reductions[i]) +
                 "(sm" + id + "[threadIdx.x], sm" + id + "[threadIdx.x + h * " +
                 colText(m_plan.tx) + "]);\n";
        }
        s += in + "    }\n" + in + "    __syncthreads();\n" + in + "}\n";
        rows = kSerialCombineRows;
        for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
            const std::string id = colText(std::int64_t(i));
            s += in + "acc" + id + " = sm" + id + "[threadIdx.x];\n";
        }
    }
    s += in + "if (ty == 0) {\n";
    s += in + "    for (int y = 1; y < " + colText(rows) + "; ++y) {\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const std::string id = colText(std::int64_t(i));
        s += in + "        acc" + id + " = " + combineOf(m_k.reductions[i]) + "(acc" + id +
             ", sm" + id + "[y * " + colText(m_plan.tx) + " + tx]);\n";
    }
    return s + in + "    }\n" + in + "}\n";
}

// Split rows: the partials of the S blocks of a tile, combined in split order by the last one.
std::string ColumnPrinter::splitCombine(const std::string& in) const
{
    const std::string S = colText(m_plan.splits);
    const std::string C = colText(m_k.inner());
    std::string s = in + "if (ty == 0 && live) {\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        s += in + "    " + m_name + "_part" + colText(std::int64_t(i)) + "[split * " + C +
             " + c] = acc" + colText(std::int64_t(i)) + ";\n";
    }
    s += in + "}\n" + in + "__threadfence();\n" + in + "__syncthreads();\n";
    s += in + "__shared__ bool lastBlock;\n";
    s += in + "if (threadIdx.x == 0) {\n" + in + "    lastBlock = atomicAdd(&" + m_name +
         "_done[tile], 1u) == " + colText(m_plan.splits - 1) + "u;\n" + in + "}\n";
    s += in + "__syncthreads();\n" + in + "if (!lastBlock) {\n" + in + "    return;\n" + in +
         "}\n" + in + "__threadfence();\n";
    s += in + "if (threadIdx.x == 0) {\n" + in + "    " + m_name +
         "_done[tile] = 0u; // for the next launch\n" + in + "}\n";
    s += in + "if (ty == 0 && live) {\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const Reduction& r = m_k.reductions[i];
        const std::string acc = "acc" + colText(std::int64_t(i));
        const std::string type = computeName(r.type);
        s += in + "    " + acc + " = " + reductionIdentity(r, cudaDialect()) + ";\n";
        s += in + "    for (int p = 0; p < " + S + "; ++p) {\n";
        s += in + "        " + acc + " = " + combineOf(r) + "(" + acc + ", ((volatile " + type +
             "*)" + m_name + "_part" + colText(std::int64_t(i)) + ")[p * " + C + " + c]);\n";
        s += in + "    }\n";
    }
    return s + in + "}\n";
}

// The columns' results, by the threads of the first row of threads.
std::string ColumnPrinter::epilogue(const std::string& in)
{
    std::vector<int> roots;
    for (const auto& st : m_k.stores) {
        if (isColumnResult(m_k, st)) {
            roots.push_back(st.expr);
        }
    }
    std::string s = in + "if (ty == 0 && live) {\n";
    const std::string in2 = in + "    ";
    s += in2 + "const " + m_idx + " r = 0;\n" + in2 + "(void)r;\n" + bases(in2);
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        s += in2 + "const " + computeName(m_k.reductions[i].type) + " red" +
             colText(std::int64_t(i)) + " = acc" + colText(std::int64_t(i)) + ";\n";
    }
    s += m_emit.statements(roots, -1, "c", in2, [this](int i) { return loadText(i); });
    return s + stores(true, in2) + in + "}\n";
}

std::string ColumnPrinter::kernel(const std::string& params, int block)
{
    const std::string I = m_idx;
    const std::string in = "    ";
    std::string s;
    if (m_plan.splits > 1) {
        for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
            s += "__device__ " + std::string(computeName(m_k.reductions[i].type)) + " " + m_name +
                 "_part" + colText(std::int64_t(i)) + "[" +
                 colText(m_plan.splits * m_k.inner()) + "];\n";
        }
        s += "__device__ unsigned int " + m_name + "_done[" + colText(m_plan.tiles) + "];\n";
    }
    s += "extern \"C\" __global__ void __launch_bounds__(" + colText(block) + ") " + m_name + "(" +
         params + ")\n{\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        s += in + "__shared__ " + computeName(m_k.reductions[i].type) + " sm" +
             colText(std::int64_t(i)) + "[" + colText(block) + "];\n";
    }
    s += in + "const " + I + " tx = threadIdx.x % " + colText(m_plan.tx) + ";\n";
    s += in + "const " + I + " ty = threadIdx.x / " + colText(m_plan.tx) + ";\n";
    s += in + "const " + I + " tile = blockIdx.x % " + colText(m_plan.tiles) + ";\n";
    s += in + "const " + I + " split = blockIdx.x / " + colText(m_plan.tiles) + ";\n";
    s += in + "(void)split;\n";
    s += in + "const " + I + " c = tile * " + colText(m_plan.tx) + " + tx;\n";
    s += in + "const bool live = c < " + colText(m_k.inner()) + ";\n";
    for (std::size_t i = 0; i < m_k.reductions.size(); ++i) {
        const Reduction& r = m_k.reductions[i];
        s += in + computeName(r.type) + " acc" + colText(std::int64_t(i)) + " = " +
             reductionIdentity(r, cudaDialect()) + ";\n";
    }
    s += rowPass(in) + blockCombine(in);
    if (m_plan.splits > 1) {
        s += splitCombine(in);
    }
    return s + epilogue(in) + "}\n";
}

} // namespace

ColumnPlan planColumns(const Kernel& k, int block)
{
    ColumnPlan p;
    auto pow2 = [](std::int64_t v, std::int64_t most) {
        std::int64_t q = 1;
        while (q < v && q < most) {
            q *= 2;
        }
        return q;
    };
    const std::int64_t cols = std::max<std::int64_t>(k.inner(), 1);
    const std::int64_t rows = k.rows();
    // A warp's worth of columns (fewer when there are fewer), as many rows of threads as the
    // rows need up to the block, and the rest of the block along the columns.
    const std::int64_t warpCols = pow2(cols, 32);
    p.ty = int(pow2(std::max<std::int64_t>(rows, 1), block / warpCols));
    p.tx = int(pow2(cols, block / p.ty));
    p.tiles = colCeilDiv(cols, p.tx);
    const std::int64_t most = std::max<std::int64_t>(1, rows / (p.ty * kMinRowsPerThread));
    p.splits = std::clamp(colCeilDiv(kTargetBlocks, p.tiles), std::int64_t(1), most);
    p.rowsPerSplit = std::max<std::int64_t>(1, colCeilDiv(rows, p.splits));
    p.splits = std::max<std::int64_t>(1, colCeilDiv(rows, p.rowsPerSplit));
    // Rows that would be split but fit one block of up to kMaxColumnBlock threads (at most
    // kMinRowsPerThread each): that block takes them all, no split. Its tiles are narrowed (down
    // to 8 columns: a warp then reads 4 rows of 32 bytes, whole sectors) while that gives more
    // blocks up to one a multiprocessor and more rows of threads.
    if (p.splits == 1) {
        return p;
    }
    ColumnPlan best = p;
    for (std::int64_t tx = p.tx; tx >= std::min<std::int64_t>(8, p.tx); tx /= 2) {
        // As many rows of threads as rows, up to the block: one row a thread when they fit
        // (the loads of a thread's rows are not all in flight at once: each is a trip).
        const std::int64_t ty = pow2(rows, kMaxColumnBlock / tx);
        if (ty * kMinRowsPerThread < rows) {
            continue;
        }
        const std::int64_t tiles = colCeilDiv(cols, tx);
        if (best.splits == 1 && (best.tiles >= kBlocksUnsplit || tiles == best.tiles)) {
            break;
        }
        best.tx = int(tx);
        best.ty = int(ty);
        best.tiles = tiles;
        best.splits = 1;
        best.rowsPerSplit = rows;
    }
    return best;
}

std::string printCudaColumnKernel(const Kernel& k, const std::string& params,
                                  const CudaTuning& tuning, CudaLaunch& launch, MathCalls& calls)
{
    const ColumnPlan plan = planColumns(k, tuning.block);
    launch.kernel = source::identifier(k.name);
    launch.block = plan.tx * plan.ty;
    launch.vector = 1;
    launch.grid = k.inner() == 0 ? 0 : plan.tiles * plan.splits;
    std::string s = kernelComment(k);
    s += "// index space " + shapeText(k.shape) + ", " + colText(k.inner()) + " column(s) x " +
         colText(k.rows()) + " row(s), " + colText(std::int64_t(k.reductions.size())) +
         " column reduction(s); blocks of " + colText(plan.tx) + " columns x " + colText(plan.ty) +
         " rows of threads";
    if (plan.splits > 1) {
        s += ", the rows split over " + colText(plan.splits) +
             " blocks a tile (partials combined in order by the last block)";
    }
    ColumnPrinter p(k, plan);
    s += "\n" + p.kernel(params, launch.block);
    calls.insert(p.calls().begin(), p.calls().end());
    return s;
}

} // namespace fxs::codegen::detail
