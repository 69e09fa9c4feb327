#include "core/util/error.h"

namespace fxs {

const char* errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::Io: return "io";
    case ErrorCode::Parse: return "parse";
    case ErrorCode::Checksum: return "checksum";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Invalid: return "invalid";
    case ErrorCode::Runtime: return "runtime";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Internal: return "internal";
    }
    return "unknown";
}

std::string Error::toString() const
{
    std::string s;
    if (!where.empty()) {
        s += where + ": ";
    }
    s += message;
    if (!expected.empty()) {
        s += " (expected " + expected;
        s += found.empty() ? ")" : ", found " + found + ")";
    }
    return s;
}

Error makeError(ErrorCode code, std::string message, std::string where)
{
    Error e;
    e.code = code;
    e.message = std::move(message);
    e.where = std::move(where);
    return e;
}

} // namespace fxs
