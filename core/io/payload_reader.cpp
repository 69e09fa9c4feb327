#include "core/io/payload_reader.h"

#include <algorithm>
#include <cstring>

namespace fxs::io::detail {

namespace {
constexpr std::size_t kPadding = 64; // simdjson::SIMDJSON_PADDING, without the header here
constexpr std::size_t kInitialCapacity = 64 * 1024;
}

namespace {

// True when the cursor is at blank lines that a payload line follows.
bool blankLinesInsidePayload(const LineCursor& cursor)
{
    LineCursor probe = cursor;
    while (!probe.atEnd() && probe.peek().empty()) {
        probe.next();
    }
    return !probe.atEnd() && probe.peek()[0] == '\t';
}

} // namespace

Payload PayloadReader::read(LineCursor& cursor)
{
    Payload p;
    m_buf.clear();
    if (m_buf.capacity() < kInitialCapacity) {
        m_buf.reserve(kInitialCapacity); // most payloads then fit without regrowing
    }
    while (!cursor.atEnd()) {
        const std::string_view line = cursor.peek();
        if (line.empty() && p.lineCount > 0 && blankLinesInsidePayload(cursor)) {
            cursor.advance(line);
            ++p.droppedBlankLines;
            continue;
        }
        if (line.empty() || line[0] != '\t') {
            break;
        }
        if (p.lineCount == 0) {
            p.rawOffset = cursor.offset();
        }
        cursor.advance(line);
        const std::size_t lineEnd = cursor.offset() - (cursor.lastLineUnterminated() ? 0 : 1);
        p.rawLength = lineEnd - p.rawOffset;
        if (p.lineCount == 0) {
            p.firstLine = cursor.lineNumber();
        } else {
            m_buf.push_back('\n');
        }
        m_buf.append(line.data() + 1, line.size() - 1);
        ++p.lineCount;
        p.truncated = cursor.lastLineUnterminated();
    }
    if (m_buf.capacity() < m_buf.size() + kPadding) {
        m_buf.reserve(m_buf.size() + kPadding);
    }
    p.text = m_buf;
    return p;
}

PayloadCheck verifyPayload(const Envelope& env, std::string_view text)
{
    PayloadCheck check;
    const Md5 digest = md5(text);
    check.ok = env.payloadMd5Valid && digest == env.payloadMd5;
    if (!check.ok) {
        check.foundHex = toHex(digest);
    }
    return check;
}

std::string payloadWithBlankLines(std::string_view data, const Payload& payload)
{
    std::string out;
    const std::string_view raw = data.substr(payload.rawOffset, payload.rawLength);
    std::size_t pos = 0;
    while (pos <= raw.size()) {
        const std::size_t nl = std::min(raw.find('\n', pos), raw.size());
        std::string_view line = raw.substr(pos, nl - pos);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!line.empty() && line[0] == '\t') {
            line.remove_prefix(1);
        }
        out.append(pos > 0 ? "\n" : "").append(line);
        pos = nl + 1;
    }
    return out;
}

} // namespace fxs::io::detail
