#include "core/exec/torch_save.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include <algorithm>
#include <cstring>
#include <sstream>

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

// What torch::jit::pickle_load does, with the patch above.
c10::IValue readFrom(caffe2::serialize::PyTorchStreamReader& reader)
{
    auto record = reader.getRecord("data.pkl");
    std::string pkl(static_cast<const char*>(std::get<0>(record).get()), std::get<1>(record));
    patchSingleEntry(pkl);
    std::size_t pos = 0;
    auto read = [&](char* buf, std::size_t n) {
        n = std::min(n, pkl.size() - pos);
        std::memcpy(buf, pkl.data() + pos, n);
        pos += n;
        return n;
    };
    auto readRecord = [&](const std::string& name) {
        return std::get<0>(reader.getRecord("data/" + name));
    };
    torch::jit::Unpickler unpickler(read, nullptr, nullptr, readRecord, c10::Device(c10::kCPU));
    unpickler.set_version(reader.version());
    return unpickler.parse_ivalue();
}

} // namespace

c10::IValue readTorchSave(const std::string& path)
{
    caffe2::serialize::PyTorchStreamReader reader(path);
    return readFrom(reader);
}

c10::IValue readTorchSaveBytes(const std::string& bytes)
{
    std::istringstream in(bytes);
    caffe2::serialize::PyTorchStreamReader reader(&in);
    return readFrom(reader);
}

} // namespace fxs::exec::detail
