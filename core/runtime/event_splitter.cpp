#include "core/runtime/event_splitter.h"

#include "core/util/nesting.h"

#include <algorithm>
#include <cstring>

namespace fxs::runtime {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string shown(char c)
{
    if (static_cast<unsigned char>(c) < 0x20) {
        return "byte " + std::to_string(static_cast<unsigned char>(c));
    }
    return std::string("'") + c + "'";
}

constexpr std::size_t kMaxKeyBytes = 256;

// Bytes that change the scanner's state inside a value (or count a line).
struct InterestingBytes {
    bool table[256] = {};
    constexpr InterestingBytes()
    {
        for (unsigned char c : {'"', '{', '[', '}', ']', ',', '\n'}) {
            table[c] = true;
        }
    }
    constexpr bool operator[](unsigned char c) const { return table[c]; }
};
constexpr InterestingBytes kInteresting;

struct StringStops {
    bool table[256] = {};
    constexpr StringStops()
    {
        for (unsigned char c : {'"', '\\', '\n'}) {
            table[c] = true;
        }
    }
    constexpr bool operator[](unsigned char c) const { return table[c]; }
};
constexpr StringStops kStringStop;

} // namespace

EventSplitter::EventSplitter(std::string name, std::size_t maxElementBytes, EventSink onEvent,
                             ValueSink onTopValue)
    : m_name(std::move(name)), m_maxElement(maxElementBytes), m_onEvent(std::move(onEvent)),
      m_onTopValue(std::move(onTopValue))
{
}

Status EventSplitter::fail(std::string message, std::string expected, std::string found) const
{
    Error e;
    e.code = ErrorCode::Parse;
    e.message = std::move(message);
    e.where = m_name + ":" + std::to_string(m_line);
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

// Hands out bytes [begin, end) of this piece, joined to what earlier pieces held.
Status EventSplitter::element(const char* data, std::size_t begin, std::size_t end, bool event)
{
    std::string_view json;
    if (m_carry.empty()) {
        json = std::string_view(data + begin, end - begin);
    } else {
        if (m_carry.size() + (end - begin) > m_maxElement) {
            Error e{ErrorCode::Unsupported, "a trace event or top-level value is too large",
                    m_name + ":" + std::to_string(m_line),
                    "at most " + std::to_string(m_maxElement) + " bytes", "more"};
            return e;
        }
        m_carry.reserve(m_carry.size() + (end - begin) + kReadablePadding);
        m_carry.append(data + begin, end - begin);
        json = m_carry;
    }
    const bool go = event ? m_onEvent(json) : m_onTopValue(m_key, json);
    m_carry.clear();
    m_capturing = false;
    m_stopped = !go;
    return {};
}

// Strings in traces are short (keys, "X", kernel names): a table loop beats memchr calls.
Status EventSplitter::scanString(const char* data, std::size_t size, std::size_t& i)
{
    while (i < size) {
        if (m_escape) {
            m_escape = false;
            if (m_keyString && m_key.size() < kMaxKeyBytes) {
                m_key.push_back(data[i]);
            }
            ++i;
            continue;
        }
        const std::size_t from = i;
        while (i < size && !kStringStop[static_cast<unsigned char>(data[i])]) {
            ++i;
        }
        if (m_keyString && m_key.size() < kMaxKeyBytes) {
            m_key.append(data + from, std::min(i - from, kMaxKeyBytes - m_key.size()));
        }
        if (i >= size) {
            break;
        }
        if (data[i] == '\n') {
            return fail("a line break inside a JSON string", "'\"' closing the string",
                        "a line break");
        }
        if (data[i] == '"') {
            m_inString = false;
            return {};
        }
        m_escape = true; // a backslash
        if (m_keyString && m_key.size() < kMaxKeyBytes) {
            m_key.push_back('\\');
        }
        ++i;
    }
    return {};
}

Status EventSplitter::feed(const char* data, std::size_t size)
{
    std::size_t start = 0; // where the element being captured starts in this piece
    for (std::size_t i = 0; i < size && !m_stopped; ++i) {
        if (m_inString) {
            if (auto s = scanString(data, size, i); !s) {
                return s;
            }
            if (i >= size) {
                break;
            }
            if (!m_inString && m_keyString) {
                m_keyString = false;
                m_where = Where::TopColon;
            }
            continue;
        }
        if (m_where == Where::Inside) { // most bytes: nothing to do but pass them
            while (i < size && !kInteresting[static_cast<unsigned char>(data[i])]) {
                ++i;
            }
            if (i >= size) {
                break;
            }
        }
        const char c = data[i];
        if (c == '\n') {
            ++m_line;
        }
        switch (m_where) {
        case Where::Before:
            if (c == '{') {
                m_depth = 1;
                m_where = Where::TopKey;
            } else if (!isSpace(c)) {
                return fail("not a Chrome trace", "a JSON object '{'", shown(c));
            }
            break;
        case Where::TopKey:
            if (c == '"') {
                m_inString = m_keyString = true;
                m_key.clear();
            } else if (c == '}') {
                m_depth = 0;
                m_where = Where::After;
            } else if (c != ',' && !isSpace(c)) {
                return fail("unexpected text in the trace object", "a key or '}'", shown(c));
            }
            break;
        case Where::TopColon:
            if (c == ':') {
                m_where = Where::TopValue;
            } else if (!isSpace(c)) {
                return fail("unexpected text after a key", "':'", shown(c));
            }
            break;
        case Where::TopValue:
            if (isSpace(c)) {
                break;
            }
            if (c == '[' && m_key == "traceEvents") {
                m_depth = 2;
                m_sawEvents = true;
                m_where = Where::Events;
                break;
            }
            m_capturing = true;
            m_captureIsEvent = false;
            m_captureDepth = 1;
            start = i;
            m_where = Where::Inside;
            --i; // scan this character as part of the value
            break;
        case Where::Events:
            if (c == '{') {
                m_capturing = m_captureIsEvent = true;
                m_captureDepth = 2;
                start = i;
                m_where = Where::Inside;
                --i;
            } else if (c == ']') {
                m_depth = 1;
                m_where = Where::TopKey;
            } else if (c != ',' && !isSpace(c)) {
                return fail("unexpected element in traceEvents", "an event object '{'", shown(c));
            }
            break;
        case Where::Inside:
            if (c == '"') {
                m_inString = true;
            } else if (c == '{' || c == '[') {
                if (++m_depth > kMaxNesting) {
                    return fail("JSON nested too deeply",
                                "at most " + std::to_string(kMaxNesting) + " levels", "more");
                }
            } else if (c == '}' || c == ']') {
                if (m_depth == m_captureDepth) { // a scalar top-level value ends the object
                    if (auto s = element(data, start, i, false); !s) {
                        return s;
                    }
                    m_depth = 0;
                    m_where = Where::After;
                } else if (--m_depth == m_captureDepth) {
                    if (auto s = element(data, start, i + 1, m_captureIsEvent); !s) {
                        return s;
                    }
                    m_where = m_captureIsEvent ? Where::Events : Where::TopKey;
                }
            } else if (c == ',' && m_depth == m_captureDepth) {
                if (auto s = element(data, start, i, false); !s) {
                    return s;
                }
                m_where = Where::TopKey;
            }
            break;
        case Where::After:
            if (!isSpace(c)) {
                return fail("text after the end of the trace", "the end of the file", shown(c));
            }
            break;
        }
    }
    if (m_capturing && !m_stopped) {
        if (m_carry.size() + (size - start) > m_maxElement) {
            Error e{ErrorCode::Unsupported, "a trace event or top-level value is too large",
                    m_name + ":" + std::to_string(m_line),
                    "at most " + std::to_string(m_maxElement) + " bytes", "more"};
            return e;
        }
        m_carry.append(data + start, size - start);
    }
    return {};
}

Status EventSplitter::finish() const
{
    if (m_stopped) {
        return {};
    }
    if (m_where == Where::Before) {
        return fail("empty trace", "a JSON object with traceEvents", "end of file");
    }
    if (m_where != Where::After) {
        return fail(m_capturing && m_captureIsEvent ? "the trace is cut short inside an event"
                                                    : "the trace is cut short",
                    "the rest of the JSON document", "end of file");
    }
    if (!m_sawEvents) {
        return fail("a JSON object without a traceEvents array", "\"traceEvents\": [...]",
                    "none");
    }
    return {};
}

} // namespace fxs::runtime
