#include "core/util/diagnostics.h"

#include <algorithm>
#include <cstdio>

namespace fxs {

std::string Diagnostic::where() const
{
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string Diagnostic::toString() const
{
    std::string s = where() + ": " + message;
    if (!expected.empty() || !found.empty()) {
        s += " (expected " + (expected.empty() ? std::string("?") : expected) + ", found " +
             (found.empty() ? std::string("nothing") : found) + ")";
    }
    return s;
}

void Diagnostics::error(std::string file, int line, std::string message, std::string expected,
                        std::string found)
{
    m_items.push_back({Severity::Error, std::move(file), line, std::move(message),
                       std::move(expected), std::move(found)});
}

void Diagnostics::warning(std::string file, int line, std::string message)
{
    m_items.push_back({Severity::Warning, std::move(file), line, std::move(message), {}, {}});
}

void Diagnostics::note(std::string file, int line, std::string message)
{
    m_items.push_back({Severity::Note, std::move(file), line, std::move(message), {}, {}});
}

void Diagnostics::append(const Diagnostics& other)
{
    m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end());
}

std::size_t Diagnostics::errorCount() const
{
    return static_cast<std::size_t>(std::count_if(m_items.begin(), m_items.end(), [](const auto& d) {
        return d.severity == Severity::Error;
    }));
}

std::string abbreviate(std::string_view text, std::size_t maxChars)
{
    std::string out;
    for (char c : text) {
        if (out.size() >= maxChars) {
            out += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace fxs
