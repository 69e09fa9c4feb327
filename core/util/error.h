// Structured errors for expected failures (bad input, missing files, unsupported graphs).
// Not for programming errors: those are assertions. Every error says where (file:line when
// known), what was expected and what was found, so a user can act on it.
#pragma once

#include <cstdint>
#include <string>

namespace fxs {

enum class ErrorCode : std::uint8_t {
    Io = 1,          // a file could not be opened or read
    Parse = 2,       // input text does not have the expected shape
    Checksum = 3,    // a payload or blob failed its digest check
    Unsupported = 4, // well-formed input that fxscope cannot handle (yet)
    Invalid = 5,     // a request that contradicts the data (unknown node, cyclic region, ...)
    Runtime = 6,     // a failure while executing or compiling
    Cancelled = 7,   // the caller's cancel token fired
    Internal = 8,    // a bug in fxscope: report it
};

const char* errorCodeName(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::Internal;
    std::string message;  // what went wrong, in words a user understands
    std::string where;    // "file:line" or a node/region name; may be empty
    std::string expected; // what the reader expected; may be empty
    std::string found;    // what it found instead (abbreviated); may be empty

    bool isInternal() const { return code == ErrorCode::Internal; }
    // "file:12: expected X, found Y: message" with the empty parts left out.
    std::string toString() const;
};

Error makeError(ErrorCode code, std::string message, std::string where = {});

} // namespace fxs
