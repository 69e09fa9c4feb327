// Payload extraction for TORCH_TRACE records: the tab-indented lines after an envelope, copied
// once into one contiguous buffer without their tabs, and checked against has_payload's MD5.
// Internal to core/io; knows nothing of what payloads mean.
#pragma once

#include "core/io/trace_envelope.h"

#include <string>
#include <string_view>

namespace fxs::io::detail {

struct Payload {
    std::string_view text; // lines joined by '\n', tabs removed; valid until the next read()
    int firstLine = 0;     // file line of the first payload line (0 when there is none)
    int lineCount = 0;
    bool truncated = false; // the data ended inside the payload without a final '\n'
    // Untabbed blank lines between payload lines, dropped as tlparse drops them (a blank line
    // that belongs to a payload is written as a lone TAB).
    int droppedBlankLines = 0;
    // Where the payload's lines (TABs included) lie in the cursor's data, for references that
    // keep the payload without copying it (model::PayloadRef).
    std::size_t rawOffset = 0;
    std::size_t rawLength = 0;
};

class PayloadReader {
public:
    // Consumes every following line that starts with a TAB, and the blank lines between such
    // lines (dropped from the text). The returned text keeps
    // SIMDJSON_PADDING spare capacity so JSON decoders can read it in place (see buffer()).
    Payload read(LineCursor& cursor);
    // The buffer behind the last Payload, with its capacity, for padded JSON parsing.
    const std::string& buffer() const { return m_buf; }

private:
    std::string m_buf;
};

// Hex MD5 of text compared with the envelope's digest.
struct PayloadCheck {
    bool ok = false;
    std::string foundHex; // filled only when !ok
};
PayloadCheck verifyPayload(const Envelope& env, std::string_view text);
// The payload's text with its dropped blank lines kept as empty lines (the other reading of a
// payload with droppedBlankLines, tried when the first one's MD5 does not match).
std::string payloadWithBlankLines(std::string_view data, const Payload& payload);

} // namespace fxs::io::detail
