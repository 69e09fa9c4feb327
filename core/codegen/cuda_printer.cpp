#include "core/codegen/cuda_printer.h"

#include "core/codegen/cuda_column.h"
#include "core/codegen/cuda_element.h"
#include "core/codegen/cuda_prelude.h"
#include "core/codegen/expr_table.h"
#include "core/codegen/source_text.h"

#include <algorithm>
#include <map>
#include <set>

namespace fxs::codegen {
namespace {

using detail::ElementWriter;

std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t nextPow2(std::int64_t v)
{
    std::int64_t p = 1;
    while (p < v) {
        p *= 2;
    }
    return p;
}

constexpr std::int64_t kMaxGrid = 2147483647;
constexpr std::int64_t kMaxRowThreads = 1024;
// Small index spaces are spread over more multiprocessors: a pointwise or row kernel's block is
// halved (down to kSpreadMinBlock threads) while its grid has fewer than kSpreadBlocks blocks.
// Measured on H200 (tools/bench/tuning_sweep.sh, LLaMA-24's training step, 2 rounds): its
// pointwise kernels of 8K-64K elements took 5 % less time in blocks of 64 than of 256 threads,
// its RMSNorm rows (128 of 256 floats) 3 % less two rows a block than four.
constexpr std::int64_t kSpreadBlocks = 128;
constexpr std::int64_t kSpreadMinBlock = 64;
// A pointwise grid of at least this many blocks is "wide" (CudaTuning::wide): H200, 132
// multiprocessors of 8 such blocks each, two waves or more. Only kernels read in words of four
// 32-bit elements: chain8 over 16M/64M bfloat16 (words of 8) ran 1-2 % slower that way.
constexpr std::int64_t kWideBlocks = 2048;
constexpr std::int64_t kMaxRegisterRow = 32; // elements per thread a row keeps in registers
// Rows each group of a pipelined row kernel takes in turn (the grid is sized for it): measured on
// H100, softmax+layer_norm over rows of 1024 bfloat16 ran 5 % faster with 4 rows a group than
// with one, and slower with a grid sized to the multiprocessors (fewer, longer-lived groups).
constexpr std::int64_t kPipelinedRows = 4;

// Prints the device functions and entries of one kernel and chooses its launch.
class KernelPrinter {
public:
    KernelPrinter(const Kernel& k, const RegionProgram& prog, const CudaTuning& tuning)
        : m_k(k), m_prog(prog), m_tune(tuning), m_idx(detail::fitsInt32(k) ? "int" : "int64_t"),
          m_name(source::identifier(k.name))
    {
        for (auto d : k.shape) {
            m_total *= d;
        }
    }

    std::string print();
    const CudaLaunch& launch() const { return m_launch; }
    const detail::MathCalls& calls() const { return m_calls; }

private:
    const Kernel& m_k;
    const RegionProgram& m_prog;
    CudaTuning m_tune; // the caller's, its blocks narrowed for small index spaces (print)
    const std::string m_idx;
    const std::string m_name; // the kernel's entry symbol, a checked identifier
    std::int64_t m_total = 1;
    CudaLaunch m_launch;
    detail::MathCalls m_calls;
    // Row reductions: threads per row, rows per block; loads fetched a row ahead (pipelined
    // kernels: their words p<load>[m_words] are arguments of the row function).
    std::int64_t m_threads = 1;
    std::int64_t m_rowsPerBlock = 1;
    std::map<int, int> m_ahead; // load -> 32-bit words of a thread's part of the row

    std::string params() const;
    std::string args() const;
    std::string alignedDecl() const;
    std::string header() const;
    std::string pointwiseChunk(int v);
    std::string pointwiseEntry(const std::string& name, int v) const;
    std::set<int> earlyLoads(const ElementWriter& w) const;
    bool registerRow(int v) const;
    std::string wordParams(bool input) const;
    std::string fetchFunction(int v);
    std::string rowFunction(int v);
    std::string rowLoop(ElementWriter& w, int loop, std::int64_t chunks, bool registers,
                        const std::string& in);
    std::string rowEntry(const std::string& name, int v) const;
    std::string pipelinedLoop(int v) const;
    std::string wordList(const std::string& prefix) const;
    std::string wordArrays(const std::string& prefix, const std::string& in) const;
    std::string combine(int reduction) const;
};

std::string KernelPrinter::params() const
{
    std::string s;
    for (std::size_t i = 0; i < m_prog.inputs.size(); ++i) {
        s += std::string(i ? ", " : "") + "const " + detail::cudaStorageName(m_prog.inputs[i].type) +
             "* __restrict__ in" + str(std::int64_t(i));
    }
    for (std::size_t i = 0; i < m_prog.outputs.size(); ++i) {
        s += std::string(i || !m_prog.inputs.empty() ? ", " : "") +
             detail::cudaStorageName(m_prog.outputs[i].type) + "* __restrict__ out" +
             str(std::int64_t(i));
    }
    return s;
}

std::string KernelPrinter::args() const
{
    std::string s;
    for (std::size_t i = 0; i < m_prog.inputs.size(); ++i) {
        s += (i ? ", in" : "in") + str(std::int64_t(i));
    }
    for (std::size_t i = 0; i < m_prog.outputs.size(); ++i) {
        s += (i || !m_prog.inputs.empty() ? ", out" : "out") + str(std::int64_t(i));
    }
    return s;
}

// The entry's test of the vector path (chunks of V > 1): every buffer 16-byte aligned, as
// LibTorch's allocations are unless a view starts inside one.
std::string KernelPrinter::alignedDecl() const
{
    std::string s;
    for (std::size_t i = 0; i < m_prog.inputs.size(); ++i) {
        s += std::string(s.empty() ? "" : " | ") + "(uint64_t)in" + str(std::int64_t(i));
    }
    for (std::size_t i = 0; i < m_prog.outputs.size(); ++i) {
        s += std::string(s.empty() ? "" : " | ") + "(uint64_t)out" + str(std::int64_t(i));
    }
    return "    const bool aligned = ((" + (s.empty() ? std::string("0") : s) + ") % 16) == 0;\n";
}

std::string KernelPrinter::header() const
{
    std::string s = detail::kernelComment(m_k);
    s += "// index space " + detail::shapeText(m_k.shape) +
         (m_k.flat ? ", flat" : ", rows " + str(m_k.rows()) + " x inner " + str(m_k.inner())) +
         ", " + str(std::int64_t(m_k.reductions.size())) + " row reduction(s)";
    if (!m_k.reductions.empty()) {
        s += ", " + str(m_threads) + " thread(s) per row";
    }
    if (!m_ahead.empty()) {
        s += ", " + str(kPipelinedRows) + " rows per group, each fetched during the previous one";
    }
    return s + "\n";
}

// Elements e .. e+V-1 (one row) of a pointwise kernel.
std::string KernelPrinter::pointwiseChunk(int v)
{
    ElementWriter w(m_k, v, false);
    const std::string in = "    ";
    const int loop = int(m_k.reductions.size());
    // The scalar chunk serves a scalar kernel and a vector kernel's tail: one copy of its code.
    const char* inlining = v == 1 ? "__noinline__" : "__forceinline__";
    std::string s = "static __device__ " + std::string(inlining) + " void " + m_name + "_chunk" +
                    str(v) + "(" + params() + ", const " + m_idx + " e" +
                    (v > 1 ? ", const bool aligned" : "") + ")\n{\n";
    if (m_k.flat) {
        s += in + "const " + m_idx + " c0 = e;\n";
    } else {
        s += in + "const " + m_idx + " r = e / " + str(m_k.inner()) + ";\n";
        s += in + "const " + m_idx + " c0 = e - r * " + str(m_k.inner()) + ";\n";
    }
    s += w.rowPrologue(m_idx, in);
    const std::set<int> loads = w.loadsOf(loop);
    s += w.arrays(loads, false, v, in) + w.outputArrays(in);
    for (int l : loads) {
        s += w.fillChunk(l, "", m_idx, in);
    }
    s += in + "#pragma unroll\n" + in + "for (int v = 0; v < " + str(v) + "; ++v) {\n";
    s += in + "    const " + m_idx + " c = c0 + v;\n" + in + "    (void)c;\n";
    s += w.element(loop, "v", "v", in + "    ") + in + "}\n";
    s += w.storeChunk(m_idx, "", in);
    const std::string rows = w.rowStores(in + "    ");
    if (!rows.empty()) {
        s += in + "if (c0 == 0) {\n" + rows + in + "}\n";
    }
    m_calls.insert(w.calls().begin(), w.calls().end());
    return s + "}\n";
}

std::string KernelPrinter::pointwiseEntry(const std::string& name, int v) const
{
    const std::int64_t block = m_tune.block;
    const std::int64_t step = block * m_tune.unroll;
    const std::int64_t chunks = m_total / v;
    const std::int64_t tail = m_total % v;
    std::string s = "extern \"C\" __global__ void __launch_bounds__(" + str(block) + ") " + name +
                    "(" + params() + ")\n{\n";
    if (v > 1) {
        s += alignedDecl();
    }
    s += "    for (" + m_idx + " i = (" + m_idx + ")blockIdx.x * " + str(step) + " + (" + m_idx +
         ")threadIdx.x; i < " +
         str(chunks) + "; i += (" + m_idx + ")gridDim.x * " + str(step) + ") {\n";
    s += "        #pragma unroll\n        for (int u = 0; u < " + str(m_tune.unroll) +
         "; ++u) {\n";
    s += "            const " + m_idx + " q = i + u * " + str(block) + ";\n";
    // Each chunk is tested against the end even where the step divides the chunks (where none
    // could pass it): without the test, chain8 over 16M/64M float32 in two chunks a thread ran
    // 3-5 % slower on H200.
    s += "            if (q < " + str(chunks) + ") {\n";
    s += "                " + m_name + "_chunk" + str(v) + "(" + args() + ", q * " + str(v) +
         (v > 1 ? ", aligned" : "") + ");\n            }\n        }\n    }\n";
    if (tail) {
        s += "    if (blockIdx.x == 0 && threadIdx.x < " + str(tail) + ") {\n        " + m_name +
             "_chunk1(" + args() + ", " + str(chunks * v) + " + threadIdx.x);\n    }\n";
    }
    return s + "}\n";
}

// The reduction's operator object ("fxs_max()").
std::string KernelPrinter::combine(int reduction) const
{
    switch (m_k.reductions[std::size_t(reduction)].kind) {
    case ReduceKind::Sum: return "fxs_sum()";
    case ReduceKind::Max: return "fxs_max()";
    case ReduceKind::Min: return "fxs_min()";
    }
    return "fxs_sum()";
}

// One loop over the row: a reduction phase (loop < reductions) or the epilogue.
std::string KernelPrinter::rowLoop(ElementWriter& w, int loop, std::int64_t chunks, bool registers,
                                   const std::string& in)
{
    const int v = w.vector();
    const bool epilogue = loop == int(m_k.reductions.size());
    const bool tail = m_k.inner() % (m_threads * v) != 0;
    const std::string j = registers ? "j * " + str(v) + " + v" : "v";
    std::string s = in + (registers ? "#pragma unroll\n" : "#pragma unroll 1\n");
    s += in + "for (int j = 0; j < " + str(chunks) + "; ++j) {\n";
    const std::string in2 = in + "    ";
    s += in2 + "const " + m_idx + " c0 = ((" + m_idx + ")j * " + str(m_threads) + " + t) * " +
         str(v) + ";\n";
    std::string body;
    if (!registers) {
        for (int l : w.loadsOf(loop)) {
            body += w.fillChunk(l, "", m_idx, in2);
        }
    }
    body += in2 + "#pragma unroll\n" + in2 + "for (int v = 0; v < " + str(v) + "; ++v) {\n";
    body += in2 + "    const " + m_idx + " c = c0 + v;\n" + in2 + "    (void)c;\n";
    body += w.element(loop, j, "v", in2 + "    ");
    if (!epilogue) {
        const std::string red = "red" + str(loop);
        const std::string op = "t" + str(m_k.reductions[std::size_t(loop)].operand);
        body += in2 + "    " + red + " = " + combine(loop) + "(" + red + ", " + op + ");\n";
    }
    body += in2 + "}\n";
    if (epilogue) {
        body += w.storeChunk(m_idx, "live", in2);
    }
    if (tail) {
        std::string indented;
        std::size_t pos = 0;
        while (pos < body.size()) {
            const std::size_t nl = body.find('\n', pos);
            indented += "    " + body.substr(pos, nl - pos + 1);
            pos = nl + 1;
        }
        s += in2 + "if (c0 < " + str(m_k.inner()) + ") {\n" + indented + in2 + "}\n";
    } else {
        s += body;
    }
    return s + in + "}\n";
}

// The shared-memory scratch of a row group's reduction of type t.
const char* scratchOf(ComputeType t)
{
    return t == ComputeType::Float ? "smf" : t == ComputeType::Double ? "smd" : "smi";
}

// Loads the reduction phases read (the row function fills them first).
std::set<int> KernelPrinter::earlyLoads(const ElementWriter& w) const
{
    std::set<int> early;
    for (int l = 0; l < int(m_k.reductions.size()); ++l) {
        const std::set<int> used = w.loadsOf(l);
        early.insert(used.begin(), used.end());
    }
    return early;
}

// Whether a thread's part of the row stays in registers (else every phase streams the row).
bool KernelPrinter::registerRow(int v) const
{
    return ceilDiv(m_k.inner(), m_threads * v) * v <= kMaxRegisterRow;
}

// ", const uint32_t (&p0)[4]" per load fetched ahead (the fetch's outputs when !input).
std::string KernelPrinter::wordParams(bool input) const
{
    std::string s;
    for (const auto& [l, words] : m_ahead) {
        s += std::string(", ") + (input ? "const " : "") + "uint32_t (&p" + str(l) + ")[" +
             str(words) + "]";
    }
    return s;
}

// The words of the early loads of row r, by the group's thread t (pipelined kernels).
std::string KernelPrinter::fetchFunction(int v)
{
    const std::int64_t chunks = ceilDiv(m_k.inner(), m_threads * v);
    const ElementWriter w(m_k, v, true);
    const std::string in = "    ";
    std::string s = "static __device__ __forceinline__ void " + m_name + "_fetch" + str(v) +
                    "(" + params() + ", const " + m_idx + " r, const " + m_idx +
                    " t, const bool aligned" + wordParams(false) + ")\n{\n";
    for (const auto& [l, words] : m_ahead) {
        s += w.loadBase(l, m_idx, in);
    }
    s += in + "#pragma unroll\n" + in + "for (int j = 0; j < " + str(chunks) + "; ++j) {\n";
    s += in + "    const " + m_idx + " c0 = ((" + m_idx + ")j * " + str(m_threads) + " + t) * " +
         str(v) + ";\n" + in + "    if (c0 < " + str(m_k.inner()) + ") {\n";
    for (const auto& [l, words] : m_ahead) {
        s += w.fetchWords(l, "j * " + str(w.wordsPerChunk(l)), m_idx, in + "        ");
    }
    return s + in + "    }\n" + in + "}\n}\n";
}

// One row of a row-reduction kernel, by the group's thread t.
std::string KernelPrinter::rowFunction(int v)
{
    const std::int64_t chunks = ceilDiv(m_k.inner(), m_threads * v);
    const bool registers = registerRow(v);
    ElementWriter w(m_k, v, registers);
    const std::string in = "    ";
    std::string s = "static __device__ __forceinline__ void " + m_name + "_row" + str(v) + "(" +
                    params() + ", const " + m_idx + " r, const " + m_idx + " t, const bool live" +
                    wordParams(true) + ", float* smf, double* smd, int64_t* smi" +
                    (v > 1 ? ", const bool aligned" : "") + ")\n{\n";
    s += in + "(void)smf;\n" + in + "(void)smd;\n" + in + "(void)smi;\n";
    s += w.rowPrologue(m_idx, in);
    const int loops = int(m_k.reductions.size());
    const std::set<int> early = earlyLoads(w);
    std::set<int> late;
    for (int l : w.loadsOf(loops)) {
        if (!early.count(l)) {
            late.insert(l);
        }
    }
    const std::int64_t slots = registers ? chunks * v : v;
    if (registers && !m_ahead.empty()) {
        s += w.arrays(early, true, int(slots), in);
        s += in + "// the row's values in registers, from the words fetched ahead\n";
        s += in + "#pragma unroll\n" + in + "for (int j = 0; j < " + str(chunks) + "; ++j) {\n";
        for (int l : early) {
            s += w.unpackWords(l, "j * " + str(v), "j * " + str(w.wordsPerChunk(l)), in + "    ");
        }
        s += in + "}\n";
    } else if (registers) {
        s += w.arrays(early, true, int(slots), in);
        s += in + "// the row's values in registers\n";
        s += in + "#pragma unroll\n" + in + "for (int j = 0; j < " + str(chunks) + "; ++j) {\n";
        s += in + "    const " + m_idx + " c0 = ((" + m_idx + ")j * " + str(m_threads) + " + t) * " +
             str(v) + ";\n";
        s += in + "    if (c0 < " + str(m_k.inner()) + ") {\n";
        for (int l : early) {
            s += w.fillChunk(l, "j * " + str(v), m_idx, in + "        ");
        }
        s += in + "    }\n" + in + "}\n";
    } else {
        std::set<int> all = early;
        all.insert(late.begin(), late.end());
        s += w.arrays(all, false, v, in);
    }
    for (int l = 0; l < loops; ++l) {
        const Reduction& r = m_k.reductions[std::size_t(l)];
        const std::string red = "red" + str(l);
        s += in + "// phase " + str(l) + ": row reduction\n";
        s += in + detail::computeName(r.type) + " " + red + " = " +
             detail::reductionIdentity(r, detail::cudaDialect()) + ";\n";
        s += rowLoop(w, l, chunks, registers, in);
        s += in + red + " = fxs_group<" + str(m_threads) + ">(" + red + ", " + combine(l) +
             ", " + scratchOf(r.type) + ");\n";
    }
    s += in + "// epilogue\n";
    if (registers && !late.empty()) {
        s += w.arrays(late, false, int(slots), in);
        s += in + "#pragma unroll\n" + in + "for (int j = 0; j < " + str(chunks) + "; ++j) {\n";
        s += in + "    const " + m_idx + " c0 = ((" + m_idx + ")j * " + str(m_threads) + " + t) * " +
             str(v) + ";\n" + in + "    if (c0 < " + str(m_k.inner()) + ") {\n";
        for (int l : late) {
            s += w.fillChunk(l, "j * " + str(v), m_idx, in + "        ");
        }
        s += in + "    }\n" + in + "}\n";
    }
    s += w.outputArrays(in);
    s += rowLoop(w, loops, chunks, registers, in);
    const std::string rows = w.rowStores(in + "    ");
    if (!rows.empty()) {
        s += in + "if (live && t == 0) {\n" + rows + in + "}\n";
    }
    m_calls.insert(w.calls().begin(), w.calls().end());
    return s + "}\n";
}

std::string KernelPrinter::rowEntry(const std::string& name, int v) const
{
    const std::int64_t block = m_threads * m_rowsPerBlock;
    std::string s = "extern \"C\" __global__ void __launch_bounds__(" + str(block) + ") " + name +
                    "(" + params() + ")\n{\n";
    std::set<std::string> scratch;
    for (const auto& r : m_k.reductions) {
        scratch.insert(scratchOf(r.type));
    }
    const bool shared = m_threads > 32;
    const std::pair<const char*, const char*> kinds[] = {
        {"smf", "float"}, {"smd", "double"}, {"smi", "int64_t"}};
    for (const auto& [name, type] : kinds) {
        s += shared && scratch.count(name)
                 ? "    __shared__ " + std::string(type) + " " + name + "[32];\n"
                 : "    " + std::string(type) + "* " + name + " = nullptr;\n";
    }
    if (v > 1) {
        s += alignedDecl();
    }
    s += "    const " + m_idx + " t = threadIdx.x % " + str(m_threads) + ";\n";
    s += "    const " + m_idx + " g = threadIdx.x / " + str(m_threads) + ";\n";
    if (!m_ahead.empty()) {
        return s + pipelinedLoop(v) + "}\n";
    }
    s += "    for (" + m_idx + " r0 = (" + m_idx + ")blockIdx.x * " + str(m_rowsPerBlock) + "; r0 < " +
         str(m_k.rows()) + "; r0 += (" + m_idx + ")gridDim.x * " + str(m_rowsPerBlock) + ") {\n";
    s += "        const bool live = r0 + g < " + str(m_k.rows()) + ";\n";
    s += "        // Every thread of a group takes part in its shuffles: spare groups redo the last "
         "row and store nothing.\n";
    s += "        const " + m_idx + " r = live ? r0 + g : " + str(m_k.rows() - 1) + ";\n";
    s += "        " + m_name + "_row" + str(v) + "(" + args() + ", r, t, live, smf, smd, smi" +
         (v > 1 ? ", aligned" : "") + ");\n";
    return s + "    }\n}\n";
}

// The entry's loop of a pipelined kernel: each group takes rows r0 + g, r0 + g + step, ...,
// fetching the next row's words before reducing the current one, so its loads are in flight
// during the current row's reductions (each a chain of shuffles and barriers).
std::string KernelPrinter::pipelinedLoop(int v) const
{
    const std::string I = m_idx;
    const std::string rows = str(m_k.rows());
    const std::string in = "    ";
    const std::string in2 = in + in;
    // The row of group g at r0 (the last row for a spare group).
    auto rowOf = [&](const std::string& r0) {
        return r0 + " + g < " + rows + " ? " + r0 + " + g : " + str(m_k.rows() - 1);
    };
    const std::string fetch = m_name + "_fetch" + str(v) + "(" + args() + ", ";
    std::string s = in + "const " + I + " step = (" + I + ")gridDim.x * " + str(m_rowsPerBlock) +
                    ";\n";
    s += in + I + " r0 = (" + I + ")blockIdx.x * " + str(m_rowsPerBlock) + ";\n";
    s += wordArrays("p", in) + in + fetch + rowOf("r0") + ", t, aligned" + wordList("p") + ");\n";
    s += in + "for (; r0 < " + rows + "; r0 += step) {\n";
    s += in2 + "const bool live = r0 + g < " + rows + ";\n";
    s += in2 + "// Every thread of a group takes part in its shuffles: spare groups redo the last "
               "row and store nothing.\n";
    s += in2 + "const " + I + " r = live ? r0 + g : " + str(m_k.rows() - 1) + ";\n";
    s += in2 + "const bool more = r0 + step < " + rows + ";\n" + wordArrays("q", in2);
    s += in2 + "// The next row's words are in flight while this row reduces.\n";
    s += in2 + "if (more) {\n" + in2 + in + fetch + rowOf("r0 + step") + ", t, aligned" +
         wordList("q") + ");\n" + in2 + "}\n";
    s += in2 + m_name + "_row" + str(v) + "(" + args() + ", r, t, live" + wordList("p") +
         ", smf, smd, smi, aligned);\n";
    // An unconditional copy: ptxas keeps the loop in 64 registers (72 with a conditional one).
    for (const auto& [l, words] : m_ahead) {
        const std::string id = str(l);
        s += in2 + "#pragma unroll\n" + in2 + "for (int i = 0; i < " + str(words) + "; ++i) {\n" +
             in2 + "    p" + id + "[i] = q" + id + "[i];\n" + in2 + "}\n";
    }
    return s + in + "}\n";
}

// ", p0, p1": the arrays of words fetched ahead, by prefix.
std::string KernelPrinter::wordList(const std::string& prefix) const
{
    std::string s;
    for (const auto& [l, words] : m_ahead) {
        s += ", " + prefix + str(l);
    }
    return s;
}

// Their declarations, zeroed (a chunk past the row's end is never fetched).
std::string KernelPrinter::wordArrays(const std::string& prefix, const std::string& in) const
{
    std::string s;
    for (const auto& [l, words] : m_ahead) {
        s += in + "uint32_t " + prefix + str(l) + "[" + str(words) + "] = {};\n";
    }
    return s;
}

// One entry per kernel. With vector width V > 1 the entry takes chunks of V elements and reads
// them as 128-bit words when every buffer is aligned, element by element otherwise (the test is
// the entry's first statement): compiling the computation once rather than in a scalar and a
// vector kernel halves NVRTC's time, the larger part of a cold compile.
std::string KernelPrinter::print()
{
    if (m_k.columns) {
        return detail::printCudaColumnKernel(m_k, params(), m_tune, m_launch, m_calls);
    }
    const bool reduction = !m_k.reductions.empty();
    std::string s;
    m_launch.kernel = m_name;
    if (!reduction) {
        const int v = detail::vectorWidth(m_k, m_total);
        if (m_tune.wide && v == 4 && m_tune.unroll == 1 && m_tune.block >= 2 * kSpreadMinBlock &&
            ceilDiv(m_total / v, m_tune.block) >= kWideBlocks) {
            m_tune.block /= 2;
            m_tune.unroll = 2;
        }
        while (m_tune.block > kSpreadMinBlock &&
               ceilDiv(m_total / v, std::int64_t(m_tune.block) * m_tune.unroll) < kSpreadBlocks) {
            m_tune.block /= 2;
        }
        m_launch.block = m_tune.block;
        m_launch.vector = v;
        const std::int64_t step = std::int64_t(m_tune.block) * m_tune.unroll;
        m_launch.grid = std::min(kMaxGrid, ceilDiv(m_total / v, step));
        s = header();
        if (v == 1 || m_total % v != 0) {
            s += pointwiseChunk(1) + "\n";
        }
        if (v > 1) {
            s += pointwiseChunk(v) + "\n";
        }
        return s + pointwiseEntry(m_name, v);
    }
    const int perThread = std::max(1, m_tune.rowElements) * (detail::onlyHalfRows(m_k) ? 2 : 1);
    m_threads = std::clamp(nextPow2(ceilDiv(m_k.inner(), perThread)),
                           std::int64_t(1), kMaxRowThreads);
    m_rowsPerBlock = std::max<std::int64_t>(1, m_tune.rowBlock / m_threads);
    const int v = detail::vectorWidth(m_k, ceilDiv(m_k.inner(), m_threads));
    m_launch.vector = v;
    // 16-bit rows only: their kernels are short of loads in flight (half the bytes a register
    // of float32); float32 rows ran 2 % slower pipelined (H100, rows of 1024).
    if (registerRow(v) && detail::onlyHalfRows(m_k)) {
        const ElementWriter w(m_k, v, true);
        const std::set<int> early = earlyLoads(w);
        if (w.fetchesWords(early)) {
            const std::int64_t chunks = ceilDiv(m_k.inner(), m_threads * v);
            for (int l : early) {
                m_ahead[l] = int(chunks) * w.wordsPerChunk(l);
            }
        }
    }
    const std::int64_t rowsPerGroup = m_ahead.empty() ? 1 : kPipelinedRows;
    while (m_rowsPerBlock > 1 && m_threads * m_rowsPerBlock > kSpreadMinBlock &&
           ceilDiv(m_k.rows(), m_rowsPerBlock * rowsPerGroup) < kSpreadBlocks) {
        m_rowsPerBlock /= 2;
    }
    m_launch.block = int(m_threads * m_rowsPerBlock);
    m_launch.grid = m_k.inner() == 0
                        ? 0
                        : std::min(kMaxGrid, ceilDiv(m_k.rows(), m_rowsPerBlock * rowsPerGroup));
    std::string text = header();
    if (!m_ahead.empty()) {
        text += fetchFunction(v) + "\n";
    }
    text += rowFunction(v) + "\n";
    return text + rowEntry(m_name, v);
}

// True when the programs store floating values and every one is float16 or bfloat16 (what
// CudaSchedule::nvrtcOptions says).
bool onlyHalfFloatStores(const std::vector<RegionProgram>& programs)
{
    bool any = false;
    for (const auto& prog : programs) {
        for (const auto& k : prog.kernels) {
            for (const auto& st : k.stores) {
                if (st.type == ScalarType::Float32 || st.type == ScalarType::Float64) {
                    return false;
                }
                any = any || scalarTypeSize(st.type) == 2; // float16, bfloat16
            }
        }
    }
    return any;
}

} // namespace

std::string CudaTuning::text() const
{
    const std::string s =
        "block=" + str(block) + " unroll=" + str(unroll) + " row_elements=" + str(rowElements);
    return (rowBlock == CudaTuning().rowBlock ? s : s + " row_block=" + str(rowBlock)) +
           (wide ? "" : " wide=0");
}

std::optional<CudaTuning> CudaTuning::parse(std::string_view text)
{
    CudaTuning t;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find_first_of(" ,", pos), text.size());
        const std::string_view field = text.substr(pos, end - pos);
        pos = end + 1;
        if (field.empty()) {
            continue;
        }
        const std::size_t eq = field.find('=');
        if (eq == std::string_view::npos) {
            return std::nullopt;
        }
        const std::string name(field.substr(0, eq));
        int value = 0;
        for (char ch : field.substr(eq + 1)) {
            if (ch < '0' || ch > '9' || value > 100000) {
                return std::nullopt;
            }
            value = value * 10 + (ch - '0');
        }
        if (name == "block" && value >= 32 && value <= 1024 && value % 32 == 0) {
            t.block = value;
        } else if (name == "unroll" && value >= 1 && value <= 16) {
            t.unroll = value;
        } else if (name == "row_elements" && value >= 1 && value <= 64) {
            t.rowElements = value;
        } else if (name == "row_block" && value >= 32 && value <= 1024 && value % 32 == 0) {
            t.rowBlock = value;
        } else if (name == "wide" && value <= 1) {
            t.wide = value == 1;
        } else {
            return std::nullopt;
        }
    }
    return t;
}

Result<CudaTuning> CudaTuning::read(std::string_view text)
{
    if (auto t = parse(text)) {
        return *t;
    }
    Error e = makeError(ErrorCode::Invalid, "expected launch parameters such as '" +
                                                CudaTuning().text() + "', found '" +
                                                std::string(text) + "'");
    e.expected = CudaTuning().text();
    e.found = std::string(text);
    return e;
}

std::string CudaLaunch::text() const
{
    std::string s = kernel + " grid=" + str(grid) + " block=" + str(block);
    return vector > 1 ? s + " vector=" + str(vector) : s;
}

CudaSchedule printCudaSchedule(const std::vector<RegionProgram>& programs, const CudaTuning& tuning)
{
    CudaSchedule out;
    std::string kernels;
    for (const auto& prog : programs) {
        out.launches.emplace_back();
        for (const auto& k : prog.kernels) {
            KernelPrinter p(k, prog, tuning);
            kernels += "\n" + p.print();
            out.launches.back().push_back(p.launch());
        }
    }
    // No region id, node name or other input text: the source is a function of the cache key
    // alone (README, security).
    out.source = "// Generated by fxscope. CUDA C++ for NVRTC; no headers.\n";
    if (onlyHalfFloatStores(programs)) {
        out.nvrtcOptions.push_back("--use_fast_math");
        out.source += "// Built with --use_fast_math: every floating value stored is 16-bit.\n";
    }
    if (programs.size() > 1) {
        out.source += "// " + str(std::int64_t(programs.size())) +
                      " programs, one per generated step of the region's schedule; the steps "
                      "between them are LibTorch calls made by the host.\n";
    }
    out.source += detail::cudaPrelude() + kernels;
    return out;
}

} // namespace fxs::codegen
