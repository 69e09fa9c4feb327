#include "core/exec/torch_save.h"

#include "core/exec/executor.h"
#include "core/util/diagnostics.h"
#include "core/util/strings.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace fxs::exec::detail {

namespace {

// LibTorch 1.13's unpickler lacks SETITEM and APPEND, which Python uses for a dict or list of
// ONE entry (`torch.save({"x": t})`): rewrite `}q\0 <key> <value> s .` as
// `}q\0 ( <key> <value> u .` (MARK ... SETITEMS; for lists `a` -> MARK ... APPENDS `e`), which
// every version reads. Pickles hold no byte offsets, so inserting a byte is safe.
void patchSingleEntry(std::string& pkl)
{
    if (pkl.size() <= 7 || pkl.compare(0, 2, "\x80\x02") != 0 || pkl[3] != 'q' || pkl[4] != 0) {
        return;
    }
    const char tail = pkl[pkl.size() - 2];
    if (pkl.back() != '.' || !((pkl[2] == '}' && tail == 's') || (pkl[2] == ']' && tail == 'a'))) {
        return;
    }
    pkl[pkl.size() - 2] = tail == 's' ? 'u' : 'e';
    pkl.insert(5, 1, '(');
}

// A refusal from inside the unpickler's record callback, carried out through LibTorch.
struct GateRefusal {
    Error error;
};

// The storage records the unpickler was given, by the address of their bytes: what a tensor's
// storage really holds, whatever the pickle declared.
struct Record {
    std::string key;
    std::uint64_t bytes = 0;
};
using Records = std::unordered_map<const void*, Record>;

Error refusal(ErrorCode code, std::string message, const std::string& where, std::string expected,
              std::string found)
{
    Error e = makeError(code, std::move(message), where);
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

// x * y and x + y on unsigned 64-bit values, false on overflow.
bool mulInto(std::uint64_t& x, std::uint64_t y) { return !__builtin_mul_overflow(x, y, &x); }
bool addInto(std::uint64_t& x, std::uint64_t y) { return !__builtin_add_overflow(x, y, &x); }

class TensorCheck {
public:
    TensorCheck(const Records& records, const TorchSaveArchive& archive)
        : m_records(&records), m_where(archive.label()), m_cap(archive.limits().maxTotalBytes)
    {
    }
    // Without records (a module LibTorch loaded itself): a view is checked against the bytes
    // its storage really holds.
    TensorCheck(const std::string& where, std::uint64_t cap) : m_where(where), m_cap(cap) {}

    Status check(const at::Tensor& t);

private:
    Status checkView(const at::Tensor& t, const std::string& key, std::uint64_t storageBytes);
    Error tooLarge(const std::string& what, std::uint64_t bytes) const
    {
        return refusal(ErrorCode::Unsupported,
                       what + " is " + formatBytes(bytes) + ", more than the limit of " +
                           formatBytes(m_cap),
                       m_where, "at most " + formatBytes(m_cap), formatBytes(bytes));
    }

    const Records* m_records = nullptr;
    const std::string& m_where;
    std::uint64_t m_cap;
    std::uint64_t m_total = 0; // bytes of the distinct tensors so far
};

Status TensorCheck::check(const at::Tensor& t)
{
    if (!t.defined()) {
        return {};
    }
    if (t.layout() != at::kStrided || t.is_quantized() || !t.has_storage()) {
        return refusal(ErrorCode::Unsupported, "a tensor of the pickle is not a dense one",
                       m_where, "dense (strided) tensors", c10::str(t.layout()));
    }
    const c10::Storage& storage = t.storage();
    const std::uint64_t declared = storage.nbytes();
    if (m_records == nullptr) {
        return checkView(t, "(module storage)", declared);
    }
    const auto it = m_records->find(storage.data());
    const std::uint64_t held = it != m_records->end() ? it->second.bytes : 0;
    const std::string key = it != m_records->end() ? it->second.key : std::string("(none)");
    if (declared > held) {
        return refusal(ErrorCode::Parse,
                       "storage '" + abbreviate(key) + "' declares " + formatBytes(declared) +
                           "; its record holds " + formatBytes(held),
                       m_where, "at most " + std::to_string(held) + " bytes",
                       std::to_string(declared) + " bytes");
    }
    return checkView(t, key, declared);
}

// The farthest element the view reaches (offset + sum of (size - 1) * stride) must lie inside
// the storage, and the tensor's own bytes (what an op on it allocates) under the cap.
Status TensorCheck::checkView(const at::Tensor& t, const std::string& key,
                              std::uint64_t storageBytes)
{
    const auto sizes = t.sizes();
    const auto strides = t.strides();
    const std::int64_t offset = t.storage_offset();
    bool empty = false;
    std::uint64_t elements = 1;
    std::uint64_t last = offset < 0 ? 0 : static_cast<std::uint64_t>(offset);
    bool fits = offset >= 0;
    for (std::size_t i = 0; i < sizes.size() && fits; ++i) {
        fits = sizes[i] >= 0 && strides[i] >= 0;
        empty = empty || sizes[i] == 0;
        std::uint64_t reach = sizes[i] > 0 ? static_cast<std::uint64_t>(sizes[i] - 1) : 0;
        fits = fits && mulInto(reach, static_cast<std::uint64_t>(strides[i])) &&
               addInto(last, reach);
        if (fits && !mulInto(elements, static_cast<std::uint64_t>(sizes[i]))) {
            return tooLarge("a tensor of the pickle", std::numeric_limits<std::uint64_t>::max());
        }
    }
    std::uint64_t end = last;
    const auto item = static_cast<std::uint64_t>(t.element_size());
    fits = fits && (empty || (addInto(end, 1) && mulInto(end, item) && end <= storageBytes));
    if (!fits) {
        return refusal(ErrorCode::Parse,
                       "a tensor reaches past its storage '" + abbreviate(key) + "'", m_where,
                       "offset + (size - 1) * stride within " + std::to_string(storageBytes) +
                           " bytes",
                       "offset " + std::to_string(offset) + ", sizes " + c10::str(sizes) +
                           ", strides " + c10::str(strides));
    }
    std::uint64_t bytes = empty ? 0 : elements;
    if (!mulInto(bytes, item) || bytes > m_cap) {
        return tooLarge("a tensor of the pickle (" + c10::str(sizes) + ")", bytes);
    }
    if (!addInto(m_total, bytes) || m_total > m_cap) {
        return tooLarge("the pickle's tensors together", m_total);
    }
    return {};
}

// Every tensor reachable from root, each container and tensor once (memo'd values may be
// shared any number of times), without recursion.
Status checkTensors(const c10::IValue& root, TensorCheck& check)
{
    std::vector<const c10::IValue*> todo{&root};
    std::unordered_set<const void*> seen;
    while (!todo.empty()) {
        const c10::IValue& v = *todo.back();
        todo.pop_back();
        if (v.isPtrType() && !seen.insert(v.internalToPointer()).second) {
            continue;
        }
        if (v.isTensor()) {
            if (auto s = check.check(v.toTensor()); !s.ok()) {
                return s;
            }
        } else if (v.isTuple()) {
            for (const auto& e : v.toTupleRef().elements()) {
                todo.push_back(&e);
            }
        } else if (v.isList()) {
            for (const auto& e : v.toListRef()) {
                todo.push_back(&e);
            }
        } else if (v.isGenericDict()) {
            for (const auto& kv : v.toGenericDict()) {
                todo.push_back(&kv.key());
                todo.push_back(&kv.value());
            }
        } else if (v.isObject()) {
            for (const auto& slot : v.toObjectRef().slots()) {
                todo.push_back(&slot);
            }
        }
    }
    return {};
}

// What torch::jit::pickle_load does, with the patch above, records read through the gate and
// the tensors checked before anyone uses them.
Result<c10::IValue> unpickle(TorchSaveArchive& archive)
{
    std::string pkl = archive.pickle();
    patchSingleEntry(pkl);
    std::size_t pos = 0;
    auto read = [&](char* buf, std::size_t n) {
        n = std::min(n, pkl.size() - pos);
        std::memcpy(buf, pkl.data() + pos, n);
        pos += n;
        return n;
    };
    Records records;
    auto readRecord = [&](const std::string& key) {
        auto bytes = archive.readRecord(key);
        if (!bytes.ok()) {
            throw GateRefusal{bytes.error()};
        }
        at::DataPtr data = c10::GetCPUAllocator()->allocate(bytes->size());
        std::memcpy(data.get(), bytes->data(), bytes->size());
        records[data.get()] = {key, bytes->size()};
        return data;
    };
    torch::jit::Unpickler unpickler(read, nullptr, nullptr, readRecord, c10::Device(c10::kCPU));
    unpickler.set_version(archive.version());
    c10::IValue value = unpickler.parse_ivalue();
    TensorCheck check(records, archive);
    if (auto checked = checkTensors(value, check); !checked.ok()) {
        return checked.error();
    }
    return value;
}

Result<c10::IValue> guarded(Result<TorchSaveArchive> archive)
{
    if (!archive.ok()) {
        return archive.error();
    }
    try {
        return unpickle(*archive);
    } catch (const GateRefusal& r) {
        return r.error;
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Runtime, "out of memory while unpickling", archive->label());
    } catch (const std::exception& e) {
        return refusal(ErrorCode::Parse, "LibTorch cannot read the pickle", archive->label(),
                       "a file written by torch.save", torchMessage(e));
    }
}

} // namespace

Status checkLoadedTensors(const c10::IValue& root, const std::string& where,
                          std::uint64_t maxTotalBytes)
{
    TensorCheck check(where, maxTotalBytes);
    return checkTensors(root, check);
}

Result<c10::IValue> readTorchSave(const std::string& path, const TorchSaveLimits& limits)
{
    return guarded(TorchSaveArchive::open(path, limits));
}

Result<c10::IValue> readTorchSaveBytes(std::string bytes, const std::string& label,
                                       const TorchSaveLimits& limits)
{
    return guarded(TorchSaveArchive::fromBytes(std::move(bytes), label, limits));
}

} // namespace fxs::exec::detail
