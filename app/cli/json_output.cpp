#include "app/cli/json_output.h"

#include "core/util/json_text.h"

#include <iostream>

namespace fxs::cli {

void printJson(const nlohmann::json& value)
{
    std::cout << dumpJson(value, 2) << "\n" << std::flush;
}

nlohmann::json errorJson(const Error& e)
{
    return {{"code", errorCodeName(e.code)}, {"message", e.message}, {"where", e.where},
            {"expected", e.expected}, {"found", e.found}};
}

nlohmann::json problemCountJson(const Diagnostics& diagnostics)
{
    std::size_t warnings = 0;
    for (const auto& d : diagnostics.items()) {
        warnings += d.severity == Severity::Warning ? 1 : 0;
    }
    return {{"errors", diagnostics.errorCount()}, {"warnings", warnings}};
}

} // namespace fxs::cli
