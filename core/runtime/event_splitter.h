// Splits a Chrome trace's JSON text, fed in pieces of any size, into the objects of its
// top-level "traceEvents" array and its other top-level values, without building a document:
// a byte scanner that tracks strings, escapes and nesting. Not a JSON validator: each piece it
// hands out is checked by whoever decodes it.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace fxs::runtime {

class EventSplitter {
public:
    // json: one complete element (an event object, or a top-level value) followed by at least
    // kReadablePadding readable bytes (simdjson reads past the end). Return false to stop.
    using EventSink = std::function<bool(std::string_view json)>;
    using ValueSink = std::function<bool(std::string_view key, std::string_view json)>;
    static constexpr std::size_t kReadablePadding = 64;

    EventSplitter(std::string name, std::size_t maxElementBytes, EventSink onEvent,
                  ValueSink onTopValue);
    // Scans the next bytes (data must have kReadablePadding readable bytes past size).
    // An Error (Parse/Unsupported) stops the scan; elements before it were delivered.
    Status feed(const char* data, std::size_t size);
    // The input ended: an Error when it ended inside the document, or held no traceEvents.
    Status finish() const;
    std::uint64_t line() const { return m_line; }
    bool sawEvents() const { return m_sawEvents; }

private:
    enum class Where : std::uint8_t { Before, TopKey, TopColon, TopValue, Events, Inside, After };
    Status fail(std::string message, std::string expected, std::string found) const;
    Status element(const char* data, std::size_t begin, std::size_t end, bool event);
    Status scanString(const char* data, std::size_t size, std::size_t& i);

    std::string m_name;
    std::size_t m_maxElement;
    EventSink m_onEvent;
    ValueSink m_onTopValue;
    std::string m_carry; // the current element's bytes from earlier pieces
    std::string m_key;   // the current top-level key
    bool m_capturing = false;
    bool m_captureIsEvent = false;
    bool m_inString = false;
    bool m_escape = false;
    bool m_keyString = false; // the open string is a top-level key
    bool m_sawEvents = false;
    bool m_stopped = false;
    int m_depth = 0;
    int m_captureDepth = 0; // depth at which the captured element started
    Where m_where = Where::Before;
    std::uint64_t m_line = 1;
};

} // namespace fxs::runtime
