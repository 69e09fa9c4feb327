// INTERNAL to core/codegen: the element-level text of the CUDA printer, shared by its pointwise
// and row-reduction kernels: how an access moves along a row, loads of a chunk of V elements into
// register arrays (128-bit words when V > 1 and the buffers are aligned), stores from them, and
// the expressions a loop needs (through the shared expression table, with row-cached values read
// from register arrays).
#pragma once

#include "core/codegen/expr_emitter.h"
#include "core/codegen/expr_table.h"
#include "core/codegen/loop_ir.h"
#include "core/codegen/row_cache.h"

#include <set>
#include <string>
#include <vector>

namespace fxs::codegen::detail {

const Dialect& cudaDialect();
const char* cudaStorageName(ScalarType t); // "float", "double", "uint16_t", "bool", "int64_t"

enum class AccessShape : std::uint8_t { Broadcast, Contiguous, Gather };
// Broadcast: the same element for the whole row; Contiguous: unit stride along the row (the
// flattened inner index); Gather: any other strides, or a guarded load moving along the row.
AccessShape accessShape(const Kernel& k, const Access& a);

// Largest vector width (elements, a power of two ≤ 8, 16 bytes of the smallest element) that
// every contiguous access of the kernel allows: offsets and outer strides multiples of it, the
// row length a multiple of it (flat kernels: only the offsets), at most `limit`. 1 when none.
int vectorWidth(const Kernel& k, std::int64_t limit);

// True when every load and store moving along the row is 16-bit (float16/bfloat16), and there
// is at least one.
bool onlyHalfRows(const Kernel& k);

// True when every index the kernel computes fits in 32-bit arithmetic (with headroom for the
// grid-stride step).
bool fitsInt32(const Kernel& k);

// A store written once per row (per-row value, or no movement along the row).
bool isRowStore(const Kernel& k, const Store& s);

// Writes the statements of a kernel's elements. Register arrays: l<load> for loads that move
// along the row, rc<expr> for row-cached values (see row_cache.h), o<store> for one chunk of
// each store's values. Expression values are t<expr>, reduction results red<i>, the row bases
// b<load> and s<store>, the chunk's first inner index c0 and the element's c.
class ElementWriter {
public:
    // v: elements per chunk (vector width); rowCache: keep row-cached values in registers.
    ElementWriter(const Kernel& k, int v, bool rowCache);

    int vector() const { return m_v; }
    bool rowCache() const { return m_emit.cache().enabled; }

    // Roots of a loop: the reduction's operand, or (loop == reductions) the per-element stores.
    std::vector<int> loopRoots(int loop) const;
    // Loads moving along the row that the loop's expressions read (row-cache reads excluded).
    std::set<int> loadsOf(int loop) const;

    // `const I b<l> = ...;` and `s<s>` row bases, and the loads constant along the row.
    std::string rowPrologue(const std::string& idx, const std::string& in) const;
    // Arrays of `slots` elements for the loads given and (cached) the row-cached values; and
    // the chunk arrays o<s>[V] of the stores.
    std::string arrays(const std::set<int>& loads, bool cached, int slots,
                       const std::string& in) const;
    std::string outputArrays(const std::string& in) const;
    // Fills l<load>[first + 0 .. first + V) from the chunk starting at inner index c0. With
    // V > 1 a contiguous access reads 128-bit words when the kernel's `aligned` holds (every
    // buffer 16-byte aligned) and element by element otherwise: one copy of the computation
    // serves both.
    std::string fillChunk(int load, const std::string& first, const std::string& idx,
                          const std::string& in) const;
    // Rows fetched ahead (see cuda_printer.cpp): a load's chunk as 32-bit words p<load>[], so
    // the next row's words can be in flight while the current row reduces. Possible when every
    // load given is contiguous and a chunk is whole 32-bit words (V > 1).
    bool fetchesWords(const std::set<int>& loads) const;
    int wordsPerChunk(int load) const; // 32-bit words of one chunk of the load
    // `const I b<load> = ...;`: the row base of one load (row index r).
    std::string loadBase(int load, const std::string& idx, const std::string& in) const;
    // Fills p<load>[first + 0 .. W) with the chunk at c0: 128-bit words when `aligned` holds,
    // else element by element, packed into the same words (so one unpacking serves both).
    std::string fetchWords(int load, const std::string& first, const std::string& idx,
                           const std::string& in) const;
    // l<load>[first + 0 .. V) from the words p<load>[words + 0 .. W).
    std::string unpackWords(int load, const std::string& first, const std::string& words,
                            const std::string& in) const;
    // The expressions of one element of `loop` (register array index text `e`), its row-cache
    // writes and (epilogue loop) the stores' chunk values o<s>[slot].
    std::string element(int loop, const std::string& e, const std::string& slot,
                        const std::string& in);
    // Writes the chunk arrays o<s>[0 .. V) at c0 when `guard` holds (vector words when
    // `aligned` holds, as fillChunk; scalars otherwise).
    std::string storeChunk(const std::string& idx, const std::string& guard,
                           const std::string& in) const;
    // Stores written once per row; the caller picks the one thread that runs them.
    std::string rowStores(const std::string& in);

    // Math library functions the expressions called.
    const MathCalls& calls() const { return m_emit.calls(); }

private:
    const Kernel& m_k;
    int m_v;
    ExprEmitter m_emit;
    std::vector<bool> m_varying;

    std::string exprs(const std::vector<int>& roots, int loop, const std::string& e,
                      const std::string& in);
    std::string loadText(int index, const std::string& el) const;
};

} // namespace fxs::codegen::detail
