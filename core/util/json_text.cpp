#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

namespace fxs {

std::string dumpJson(const nlohmann::json& value, int indent)
{
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace fxs
