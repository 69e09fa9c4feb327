// The one way text reaches a generated C++ or CUDA source: identifiers checked against
// [A-Za-z_][A-Za-z0-9_]* (no keyword, no reserved name), comments and string literals escaped so
// they cannot end early, integer literals that are valid for every int64, and a final check of
// a whole source. Printers build code from fxscope's own tokens and these helpers only; no
// string from an input (node names, targets, region ids, paths) is pasted into a source. Not a
// pretty-printer and not for dump files (they are text for people, not code).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxs::codegen::source {

// True for a C/C++/CUDA identifier a printer may declare: [A-Za-z_][A-Za-z0-9_]*, at most
// 128 characters, not a keyword of C++20 or CUDA, not reserved ("__" anywhere, a leading "_" and
// a capital).
bool isIdentifier(std::string_view text);

// text when isIdentifier(text); else "fxs_id_" and 16 hex digits of a digest of text, so a
// name that is not one can never become code (the same text always maps to the same name).
std::string identifier(std::string_view text);

// Printable ASCII that cannot end a comment or a literal early: letters, digits, space and
// punctuation are kept except '\\', '"', '\'', '?' (trigraphs) and '*' ("*/"); every other byte
// (control characters, newlines, UTF-8) becomes a 3-digit octal escape "\ooo", which never runs
// into the next character. At most maxBytes input bytes are shown ("..." marks the cut).
std::string escapeText(std::string_view text, std::size_t maxBytes = 256);

// "// " + escapeText(text) + "\n": one line, whatever text holds.
std::string comment(std::string_view text);

// A C string literal that evaluates to exactly text's bytes (up to maxBytes).
std::string stringLiteral(std::string_view text, std::size_t maxBytes = 4096);

// "INT64_C(v)"; INT64_MIN as "(-INT64_C(9223372036854775807) - 1)" (its digits alone do not fit).
std::string intLiteral(std::int64_t v);

// A double as the int64 a kernel computes with: truncated toward zero, saturated at the int64
// range, NaN as 0 (a plain cast of those is undefined behaviour).
std::int64_t saturatingInt(double v);

// A check of a whole generated source: only printable ASCII, tab and newline; no trigraph
// ("??"); no backslash before a newline (line splicing). The first problem, or nullopt.
std::optional<std::string> sourceProblem(std::string_view source);

} // namespace fxs::codegen::source
