// libFuzzer target for `.fxscope` project files (core/partition/project_file: parseProject), which
// users share and open: any bytes must parse or give a Parse/Unsupported error that says what it
// expected, never an exception (a mistyped part once escaped as one and aborted the CLI), a
// crash or unbounded growth; a project that parses serializes and parses back equal. Seeds:
// tests/fuzz/seeds/fuzz_project.
#include "core/partition/project_file.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

bool sameProject(const fxs::partition::Project& a, const fxs::partition::Project& b)
{
    if (a.schema != b.schema || a.sourcePath != b.sourcePath ||
        a.sourceSha256 != b.sourceSha256 || a.viewState != b.viewState ||
        a.regions.size() != b.regions.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.regions.size(); ++i) {
        const auto& x = a.regions[i];
        const auto& y = b.regions[i];
        if (x.id != y.id || x.name != y.name || x.annotation != y.annotation ||
            x.options != y.options || x.nodes != y.nodes) {
            return false;
        }
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto project = fxs::partition::parseProject(text);
    if (!project) {
        if (project.error().message.empty()) {
            std::abort(); // every refusal says what went wrong
        }
        return 0;
    }
    const auto again = fxs::partition::parseProject(fxs::partition::serializeProject(*project));
    if (!again || !sameProject(*project, *again)) {
        std::abort();
    }
    return 0;
}
