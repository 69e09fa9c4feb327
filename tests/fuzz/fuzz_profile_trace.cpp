// libFuzzer target for the torch.profiler trace reader (core/runtime: event_splitter and
// profile_trace_reader): any bytes must read without crashing, hanging or growing without
// bound, and the bytes fed in two pieces (cut where the first input byte says) must give the
// same events, devices and error as in one piece. The join is not fuzzed (it reads what the
// reader kept). Seeds: tests/fuzz/seeds/fuzz_profile_trace.
#include "core/runtime/event_splitter.h"
#include "core/runtime/profile_trace_reader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::vector<std::string> split(std::string_view text, std::size_t cut, bool& ok)
{
    std::vector<std::string> out;
    fxs::runtime::EventSplitter s(
        "fuzz.json", 1 << 20,
        [&](std::string_view j) {
            out.emplace_back(j);
            return true;
        },
        [&](std::string_view k, std::string_view j) {
            out.push_back(std::string(k) + "\n" + std::string(j));
            return true;
        });
    ok = true;
    for (std::string_view piece : {text.substr(0, cut), text.substr(cut)}) {
        std::vector<char> buf(piece.size() + fxs::runtime::EventSplitter::kReadablePadding);
        std::memcpy(buf.data(), piece.data(), piece.size());
        if (!s.feed(buf.data(), piece.size())) {
            ok = false;
            return out;
        }
    }
    ok = s.finish().ok();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) {
        return 0;
    }
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    (void)fxs::runtime::looksLikeProfileTrace(text);
    const auto result = fxs::runtime::readProfileTraceText(text, "fuzz.json");
    if (result.trace.eventsRead < static_cast<std::int64_t>(result.trace.events.size())) {
        std::abort();
    }
    const std::size_t cut = text.empty() ? 0 : data[0] % (text.size() + 1);
    bool wholeOk = false;
    bool piecesOk = false;
    const auto whole = split(text, text.size(), wholeOk);
    const auto pieces = split(text, cut, piecesOk);
    if (wholeOk != piecesOk || (wholeOk && whole != pieces)) {
        std::abort(); // the pieces the bytes come in must not matter
    }
    return 0;
}
