#include "core/report/redact.h"

#include <cctype>

namespace fxs::report {
namespace {

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "0/1", "1/0/2": Dynamo's compile ids (frame/attempt or compiled-autograd/frame/attempt).
bool isCompileId(std::string_view t)
{
    int parts = 1;
    bool digit = false;
    for (char c : t) {
        if (c == '/') {
            if (!digit) {
                return false;
            }
            ++parts;
            digit = false;
        } else if (isDigit(c)) {
            digit = true;
        } else {
            return false;
        }
    }
    return digit && parts >= 2 && parts <= 3;
}

// 64, -1, 2.0, 1e-05, 0x7f, 3.5%: a literal value.
bool isNumber(std::string_view t)
{
    if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
        t.remove_prefix(1);
    }
    if (!t.empty() && t.back() == '%') {
        t.remove_suffix(1);
    }
    if (t.empty() || !(isDigit(t.front()) || (t.front() == '.' && t.size() > 1))) {
        return false;
    }
    for (char c : t) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+')) {
            return false;
        }
    }
    return true;
}

bool endsWith(std::string_view t, std::string_view s)
{
    return t.size() >= s.size() && t.substr(t.size() - s.size()) == s;
}

// record.py, model.py:71, trace.log.gz, x.pt2
bool isFileName(std::string_view t)
{
    const auto colon = t.find(':');
    std::string_view name = colon == std::string_view::npos ? t : t.substr(0, colon);
    for (std::string_view ext : {".py", ".log", ".gz", ".pt2", ".pt", ".txt", ".json", ".cpp",
                                 ".h", ".cu", ".so"}) {
        if (endsWith(name, ext) && name.size() > ext.size()) {
            return true;
        }
    }
    return false;
}

std::string redactWord(std::string_view word)
{
    // Punctuation around a word stays: "(64," → "([value],".
    constexpr std::string_view kOpening = "([{<,;";
    constexpr std::string_view kClosing = ")]}>,;:.";
    std::size_t lead = 0;
    while (lead < word.size() && kOpening.find(word[lead]) != std::string_view::npos) {
        ++lead;
    }
    std::size_t trail = word.size();
    while (trail > lead && kClosing.find(word[trail - 1]) != std::string_view::npos) {
        --trail;
    }
    const std::string_view core = word.substr(lead, trail - lead);
    std::string out(word.substr(0, lead));
    if (core.empty() || isCompileId(core)) {
        out += core;
    } else if (core.find('/') != std::string_view::npos ||
               core.find('\\') != std::string_view::npos) {
        out += "[path]";
    } else if (isFileName(core)) {
        out += "[file]";
    } else if (isNumber(core)) {
        out += "[value]";
    } else {
        out += core;
    }
    out += word.substr(trail);
    return out;
}

} // namespace

std::string redactText(std::string_view text)
{
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '`' || c == '"') {
            const auto close = text.find(c, i + 1);
            out += c == '`' ? "`[code]`" : "\"[text]\"";
            i = close == std::string_view::npos ? text.size() : close + 1;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            out += c;
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
               text[end] != '`' && text[end] != '"') {
            ++end;
        }
        out += redactWord(text.substr(i, end - i));
        i = end;
    }
    return out;
}

std::string redactMarkupText(std::string_view markup)
{
    std::string out;
    std::size_t i = 0;
    while (i < markup.size()) {
        const auto open = markup.find('<', i);
        const std::string_view text =
            markup.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
        out += redactText(text);
        if (open == std::string_view::npos) {
            break;
        }
        const auto close = markup.find('>', open);
        const std::size_t end = close == std::string_view::npos ? markup.size() : close + 1;
        out += markup.substr(open, end - open);
        i = end;
    }
    return out;
}

} // namespace fxs::report
