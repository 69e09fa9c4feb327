#include "core/export/export_weights.h"

#include "core/exec/torch_bridge.h"
#include "core/exec/torch_save.h"
#include "core/util/strings.h"
#include "core/util/zip_archive.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace fxs::exported {

using exec::makeHandle;
using exec::toScalarType;
using exec::ValueStore;
namespace detail = exec::detail;
namespace {

// What a program's weights may declare together (each entry once), and what one may be; sample
// inputs take the file cap (kDefaultMaxFileBytes, 2 GiB). Both are checked by declared size
// before anything is read.
constexpr std::uint64_t kMaxWeightBytes = 16ull << 30;
constexpr std::uint64_t kMaxSampleInputBytes = kDefaultMaxFileBytes;

Error entryError(const std::string& where, std::string message, std::string expected,
                 std::string found)
{
    Error e = makeError(ErrorCode::Parse, std::move(message), where);
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

// x * y and x + y on non-negative 64-bit values, false on overflow.
bool mulInto(std::int64_t& x, std::int64_t y) { return !__builtin_mul_overflow(x, y, &x); }
bool addInto(std::int64_t& x, std::int64_t y) { return !__builtin_add_overflow(x, y, &x); }

// Bytes the view reaches in its storage: (offset + the farthest element + 1) * item, or 0 for
// an empty view; nullopt when a size, stride or the offset is negative or the sum overflows.
std::optional<std::int64_t> reachedBytes(const std::vector<std::int64_t>& sizes,
                                         const std::vector<std::int64_t>& strides,
                                         std::int64_t offset, std::int64_t item)
{
    std::int64_t last = offset;
    bool ok = offset >= 0;
    bool empty = false;
    for (std::size_t i = 0; i < sizes.size() && ok; ++i) {
        std::int64_t reach = sizes[i] > 0 ? sizes[i] - 1 : 0;
        ok = sizes[i] >= 0 && strides[i] >= 0 && mulInto(reach, strides[i]) && addInto(last, reach);
        empty = empty || sizes[i] == 0;
    }
    if (!ok || !addInto(last, 1) || !mulInto(last, item)) {
        return std::nullopt;
    }
    return empty ? 0 : last;
}

// Raw storage bytes viewed with the meta's sizes, strides and storage offset. The bytes are
// shared by every weight that views the same entry with the same dtype.
Result<at::Tensor> rawTensor(const model::ExportWeight& w, const at::Tensor& flat,
                             const std::string& where)
{
    const graph::TensorMeta& m = *w.meta;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    for (const auto& s : m.sizes) {
        sizes.push_back(s.value);
    }
    for (const auto& s : m.strides.value_or(std::vector<graph::SymInt>{})) {
        strides.push_back(s.value);
    }
    if (m.hasSymbolicSizes() || strides.size() != sizes.size()) {
        return entryError(where, "weight '" + w.fqn + "' has no concrete shape",
                          "concrete sizes and strides", m.toString());
    }
    const std::int64_t item = flat.element_size();
    const auto reached = reachedBytes(sizes, strides, w.storageOffset, item);
    const auto held = static_cast<std::int64_t>(flat.numel()) * item;
    if (!reached || *reached > held) {
        return entryError(where, "weight file too short for '" + w.fqn + "'",
                          (reached ? std::to_string(*reached) + " bytes"
                                   : std::string("a view inside the file")) +
                              " (" + m.toString() + ", storage offset " +
                              std::to_string(w.storageOffset) + ")",
                          std::to_string(held) + " bytes");
    }
    const auto bytes = m.nbytes();
    if (!bytes || std::uint64_t(*bytes) > kMaxWeightBytes) {
        return makeError(ErrorCode::Unsupported,
                         "weight '" + w.fqn + "' is larger than the limit of " +
                             formatBytes(kMaxWeightBytes) + " (" + m.toString() + ")",
                         where);
    }
    return flat.as_strided(sizes, strides, w.storageOffset);
}

// An entry's bytes as a flat tensor of `st`, without a copy (the tensor owns the buffer).
at::Tensor flatTensor(std::string bytes, at::ScalarType st)
{
    const auto item = static_cast<std::size_t>(c10::elementSize(st));
    const auto elements = static_cast<std::int64_t>(bytes.size() / item);
    auto* owned = new std::string(std::move(bytes));
    return at::from_blob(owned->data(), {elements}, [owned](void*) { delete owned; },
                         at::TensorOptions().dtype(st));
}

class WeightReader {
public:
    WeightReader(const ZipArchive& zip, const model::ExportedProgram& program) : m_zip(zip)
    {
        for (const auto& w : program.weights) {
            if (w.pickled) {
                m_pickledEntries.insert(w.entry);
            }
        }
    }

    Result<at::Tensor> read(const model::ExportWeight& w)
    {
        const std::string where = m_zip.path() + "!" + w.entry;
        if (!w.pickled && !w.meta) {
            return entryError(where, "weight '" + w.fqn + "' has no tensor meta",
                              "tensor_meta in the weights config", "none");
        }
        auto bytes = pickledDict(w.entry);
        if (!bytes.ok()) {
            return bytes.error();
        }
        if (!w.pickled) {
            auto flat = flatEntry(w);
            if (!flat.ok()) {
                return flat.error();
            }
            return rawTensor(w, *flat, where);
        }
        const c10::IValue& v = **bytes;
        c10::IValue item = v;
        if (v.isGenericDict()) { // a state dict of many (older archives)
            const auto dict = v.toGenericDict();
            const auto it = dict.find(c10::IValue(w.fqn));
            if (it == dict.end()) {
                Error e = makeError(ErrorCode::Invalid, "weight '" + w.fqn + "' is not in " +
                                                            "the pickled state dict", where);
                e.expected = "a key " + w.fqn;
                e.found = std::to_string(dict.size()) + " other keys";
                return e;
            }
            item = it->value();
        }
        if (!item.isTensor()) {
            return entryError(where, "weight '" + w.fqn + "' is not a tensor", "a tensor",
                              item.tagKind());
        }
        return item.toTensor();
    }

private:
    // The unpickled object of a pickled entry (read once per entry); a null IValue for raw ones.
    Result<const c10::IValue*> pickledDict(const std::string& entry)
    {
        static const c10::IValue kNone;
        if (const auto it = m_pickles.find(entry); it != m_pickles.end()) {
            return &it->second;
        }
        if (!isPickled(entry)) {
            return &kNone;
        }
        auto bytes = m_zip.read(entry, kMaxWeightBytes);
        if (!bytes.ok()) {
            return bytes.error();
        }
        auto value = detail::readTorchSaveBytes(std::move(*bytes), m_zip.path() + "!" + entry,
                                                {kMaxWeightBytes});
        if (!value.ok()) {
            Error e = value.error();
            e.message = "cannot read pickled weights: " + e.message;
            return e;
        }
        return &m_pickles.emplace(entry, std::move(*value)).first->second;
    }

    // A raw entry's bytes as a flat tensor of the weight's dtype, read once per entry and
    // dtype: weights that view one entry share it.
    Result<at::Tensor> flatEntry(const model::ExportWeight& w)
    {
        const auto st = toScalarType(w.meta->dtype);
        if (!st) {
            return makeError(ErrorCode::Unsupported,
                             "weight '" + w.fqn + "' has a dtype this LibTorch lacks",
                             m_zip.path() + "!" + w.entry);
        }
        const auto key = std::make_pair(w.entry, *st);
        if (const auto it = m_flat.find(key); it != m_flat.end()) {
            return it->second;
        }
        auto raw = m_zip.read(w.entry, kMaxWeightBytes);
        if (!raw.ok()) {
            return raw.error();
        }
        return m_flat.emplace(key, flatTensor(std::move(*raw), *st)).first->second;
    }

    bool isPickled(const std::string& entry) const { return m_pickledEntries.count(entry) != 0; }

    const ZipArchive& m_zip;
    std::set<std::string> m_pickledEntries;
    std::map<std::string, c10::IValue> m_pickles;
    std::map<std::pair<std::string, at::ScalarType>, at::Tensor> m_flat;
};

// Before any weight is read: what the entries they come from declare together (each entry
// once), against kMaxWeightBytes.
Status checkDeclaredWeights(const ZipArchive& zip, const model::ExportedProgram& program)
{
    std::set<std::string> entries;
    std::uint64_t total = 0;
    for (const auto& w : program.weights) {
        if (entries.insert(w.entry).second) {
            total += std::min<std::uint64_t>(zip.size(w.entry).value_or(0), kMaxWeightBytes + 1);
        }
        if (total > kMaxWeightBytes) {
            Error e = makeError(ErrorCode::Unsupported,
                                "the weights declare " + formatBytes(total) +
                                    " or more together, more than the limit of " +
                                    formatBytes(kMaxWeightBytes),
                                zip.path());
            e.expected = "at most " + formatBytes(kMaxWeightBytes);
            e.found = "at least " + formatBytes(total) + " in " +
                      std::to_string(entries.size()) + " entries";
            return e;
        }
    }
    return {};
}

// Tensors of a pytree (tuples, lists, dict values in order), depth first.
void flattenTensors(const c10::IValue& v, std::vector<at::Tensor>& out, int depth)
{
    if (depth > 32) {
        return;
    }
    if (v.isTensor()) {
        out.push_back(v.toTensor());
    } else if (v.isTuple()) {
        for (const auto& e : v.toTupleRef().elements()) {
            flattenTensors(e, out, depth + 1);
        }
    } else if (v.isList()) {
        for (const auto& e : v.toListRef()) {
            flattenTensors(e, out, depth + 1);
        }
    } else if (v.isGenericDict()) {
        for (const auto& kv : v.toGenericDict()) {
            flattenTensors(kv.value(), out, depth + 1);
        }
    }
}

// The sample inputs entry's bytes, refused by its declared size before anything is allocated.
Result<std::string> readSampleInputs(const ZipArchive& zip, const std::string& entry)
{
    const std::string where = zip.path() + "!" + entry;
    const auto declared = zip.size(entry);
    if (declared && *declared > kMaxSampleInputBytes) {
        Error e = makeError(ErrorCode::Unsupported,
                            "the sample inputs declare " + formatBytes(*declared) +
                                ", more than the limit of " + formatBytes(kMaxSampleInputBytes),
                            where);
        e.expected = "at most " + formatBytes(kMaxSampleInputBytes);
        e.found = formatBytes(*declared) + " (" + std::to_string(*declared) + " bytes)";
        return e;
    }
    return zip.read(entry, kMaxSampleInputBytes);
}

} // namespace

Result<std::shared_ptr<ValueStore>> loadExportSampleInputs(const model::ExportedProgram& program)
{
    if (program.sampleInputsEntry.empty()) {
        return makeError(ErrorCode::Invalid, "the archive has no sample inputs",
                         program.archivePath);
    }
    const std::string where = program.archivePath + "!" + program.sampleInputsEntry;
    try {
        auto zip = ZipArchive::open(program.archivePath);
        if (!zip.ok()) {
            return zip.error();
        }
        auto bytes = readSampleInputs(*zip, program.sampleInputsEntry);
        if (!bytes.ok()) {
            return bytes.error();
        }
        auto value = detail::readTorchSaveBytes(std::move(*bytes), where, {kMaxSampleInputBytes});
        if (!value.ok()) {
            Error e = value.error();
            e.message = "cannot read the sample inputs: " + e.message;
            return e;
        }
        std::vector<at::Tensor> tensors;
        flattenTensors(*value, tensors, 0);
        std::vector<std::string> names;
        for (const auto& in : program.inputs) {
            if (in.kind == model::ExportInputKind::UserInput) {
                names.push_back(in.name);
            }
        }
        if (names.size() != tensors.size()) {
            Error e = makeError(ErrorCode::Invalid, "sample inputs do not match the user inputs",
                                where);
            e.expected = std::to_string(names.size()) + " tensors";
            e.found = std::to_string(tensors.size());
            return e;
        }
        auto store = std::make_shared<ValueStore>();
        for (std::size_t i = 0; i < names.size(); ++i) {
            store->set(names[i], makeHandle(tensors[i]));
        }
        return store;
    } catch (const std::exception& e) {
        return entryError(where, "cannot read the sample inputs", "a torch.save file", e.what());
    }
}

Result<std::shared_ptr<ValueStore>> loadExportWeights(const model::ExportedProgram& program)
{
    try {
        auto zip = ZipArchive::open(program.archivePath);
        if (!zip.ok()) {
            return zip.error();
        }
        if (auto declared = checkDeclaredWeights(*zip, program); !declared.ok()) {
            return declared.error();
        }
        WeightReader reader(*zip, program);
        auto store = std::make_shared<ValueStore>();
        for (const auto& in : program.inputs) {
            if (in.kind != model::ExportInputKind::Parameter &&
                in.kind != model::ExportInputKind::Buffer &&
                in.kind != model::ExportInputKind::TensorConstant) {
                continue;
            }
            const model::ExportWeight* w = program.weight(in.target);
            if (w == nullptr) {
                Error e = makeError(ErrorCode::Invalid, "the archive holds no weight for '" +
                                                            in.target + "'", program.archivePath);
                e.expected = "a weights or constants entry for placeholder " + in.name;
                e.found = "none";
                return e;
            }
            auto t = reader.read(*w);
            if (!t.ok()) {
                return t.error();
            }
            store->set(in.name, makeHandle(std::move(*t)));
        }
        return store;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("while loading weights: ") + e.what(),
                         program.archivePath);
    }
}

} // namespace fxs::exported
