// Problems found while reading input: each has a location (file:line), what was expected and
// what was found. Importers keep going after a problem and return partial results plus these.
#pragma once

#include "core/util/error.h"

#include <string>
#include <vector>

namespace fxs {

enum class Severity : std::uint8_t { Note, Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string file;
    int line = 0; // 1-based; 0 when the problem concerns the whole file
    std::string message;
    std::string expected;
    std::string found;

    // "file:line" (or "file" when line is 0).
    std::string where() const;
    // "file:line: message (expected X, found Y)".
    std::string toString() const;
};

class Diagnostics {
public:
    void add(Diagnostic d) { m_items.push_back(std::move(d)); }
    void error(std::string file, int line, std::string message, std::string expected = {},
               std::string found = {});
    void warning(std::string file, int line, std::string message);
    void note(std::string file, int line, std::string message);
    void append(const Diagnostics& other);

    const std::vector<Diagnostic>& items() const { return m_items; }
    bool empty() const { return m_items.empty(); }
    std::size_t size() const { return m_items.size(); }
    std::size_t errorCount() const;

private:
    std::vector<Diagnostic> m_items;
};

// Abbreviates untrusted text for messages: at most maxChars, control bytes escaped.
std::string abbreviate(std::string_view text, std::size_t maxChars = 60);

} // namespace fxs
