// Tokenizer for the small Python subset that printed graph code uses: names, numbers, strings,
// operators, brackets and trailing `#` comments. Works one physical line at a time so the caller
// can join bracketed continuation lines. Not a Python lexer: no INDENT tokens, no triple-quoted
// strings, no f-strings. Internal to fxscope_io.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

enum class TokKind : std::uint8_t { Name, Int, Float, String, Op };

struct PyToken {
    TokKind kind = TokKind::Op;
    std::string_view text;    // view into the source (String: with prefix and quotes)
    std::string_view comment; // `# ...` text (no '#', trimmed) that follows this token on its line
    int line = 0;             // physical line the token is on
};

struct LexState {
    int depth = 0;              // open ( [ { brackets
    std::string_view errorText; // non-empty after a lexical error: the offending text
};

// Appends the tokens of one physical line. Returns false on a lexical error (unterminated string,
// unexpected character); st.errorText then names what was found.
bool lexLine(std::string_view line, int lineNo, std::vector<PyToken>& out, LexState& st);

// True when the token is the operator/punctuation op.
inline bool isOp(const PyToken& t, std::string_view op)
{
    if (t.kind != TokKind::Op || t.text.size() != op.size()) {
        return false;
    }
    for (std::size_t i = 0; i < op.size(); ++i) { // ops are 1-3 chars: no memcmp call
        if (t.text[i] != op[i]) {
            return false;
        }
    }
    return true;
}

} // namespace fxs::io::detail
