#include "core/export/export_weights.h"

#include "core/exec/torch_bridge.h"
#include "core/exec/torch_save.h"
#include "core/io/zip_archive.h"

#include <cstring>
#include <map>
#include <set>

namespace fxs::exported {

using exec::makeHandle;
using exec::toScalarType;
using exec::ValueStore;
namespace detail = exec::detail;
namespace {

constexpr std::uint64_t kMaxWeightBytes = 16ull << 30;

Error entryError(const std::string& where, std::string message, std::string expected,
                 std::string found)
{
    Error e = makeError(ErrorCode::Parse, std::move(message), where);
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

// Raw storage bytes viewed with the meta's sizes, strides and storage offset.
Result<at::Tensor> rawTensor(const model::ExportWeight& w, const std::string& bytes,
                             const std::string& where)
{
    const graph::TensorMeta& m = *w.meta;
    const auto st = toScalarType(m.dtype);
    if (!st) {
        return makeError(ErrorCode::Unsupported,
                         "weight '" + w.fqn + "' has a dtype this LibTorch lacks", where);
    }
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
    const std::int64_t item = c10::elementSize(*st);
    std::int64_t extent = sizes.empty() ? 1 : 0; // elements the view reaches, plus one
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        extent = std::max(extent, sizes[i] == 0 ? 0 : (sizes[i] - 1) * strides[i] + 1);
    }
    const std::int64_t needed = (w.storageOffset + extent) * item;
    const auto elements = static_cast<std::int64_t>(bytes.size()) / item;
    if (extent > 0 && static_cast<std::int64_t>(bytes.size()) < needed) {
        return entryError(where, "weight file too short for '" + w.fqn + "'",
                          std::to_string(needed) + " bytes (" + m.toString() + ")",
                          std::to_string(bytes.size()) + " bytes");
    }
    at::Tensor flat = at::empty({elements}, at::TensorOptions().dtype(*st));
    std::memcpy(flat.data_ptr(), bytes.data(), static_cast<std::size_t>(elements * item));
    return flat.as_strided(sizes, strides, w.storageOffset);
}

class WeightReader {
public:
    WeightReader(const io::ZipArchive& zip, const model::ExportedProgram& program) : m_zip(zip)
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
            auto raw = m_zip.read(w.entry, kMaxWeightBytes);
            if (!raw.ok()) {
                return raw.error();
            }
            return rawTensor(w, *raw, where);
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
        try {
            return &m_pickles.emplace(entry, detail::readTorchSaveBytes(*bytes)).first->second;
        } catch (const std::exception& e) {
            return entryError(m_zip.path() + "!" + entry, "cannot read pickled weights",
                              "a torch.save file", e.what());
        }
    }

    bool isPickled(const std::string& entry) const { return m_pickledEntries.count(entry) != 0; }

    const io::ZipArchive& m_zip;
    std::set<std::string> m_pickledEntries;
    std::map<std::string, c10::IValue> m_pickles;
};

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

} // namespace

Result<std::shared_ptr<ValueStore>> loadExportSampleInputs(const model::ExportedProgram& program)
{
    if (program.sampleInputsEntry.empty()) {
        return makeError(ErrorCode::Invalid, "the archive has no sample inputs",
                         program.archivePath);
    }
    const std::string where = program.archivePath + "!" + program.sampleInputsEntry;
    try {
        auto zip = io::ZipArchive::open(program.archivePath);
        if (!zip.ok()) {
            return zip.error();
        }
        auto bytes = zip->read(program.sampleInputsEntry, kMaxWeightBytes);
        if (!bytes.ok()) {
            return bytes.error();
        }
        std::vector<at::Tensor> tensors;
        flattenTensors(detail::readTorchSaveBytes(*bytes), tensors, 0);
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
        auto zip = io::ZipArchive::open(program.archivePath);
        if (!zip.ok()) {
            return zip.error();
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
