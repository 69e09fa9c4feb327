#include "core/io/payload_reader.h"

#include <cstring>

namespace fxs::io::detail {

namespace {
constexpr std::size_t kPadding = 64; // simdjson::SIMDJSON_PADDING, without the header here
constexpr std::size_t kInitialCapacity = 64 * 1024;
}

Payload PayloadReader::read(LineCursor& cursor)
{
    Payload p;
    m_buf.clear();
    if (m_buf.capacity() < kInitialCapacity) {
        m_buf.reserve(kInitialCapacity); // most payloads then fit without regrowing
    }
    while (!cursor.atEnd()) {
        const std::string_view line = cursor.peek();
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

} // namespace fxs::io::detail
