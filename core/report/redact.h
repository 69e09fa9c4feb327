// What `--redact` leaves of a free text of a report (a finding, a cache headline, a recompile
// reason): the words that say what happened, without what could carry the user's code or data.
// Code quoted in backticks becomes `[code]`, double-quoted text "[text]", anything that looks
// like a file path or a file name (with its line) [path] / [file], and every number that is not
// a compile id ("0/1", "1/0/2") [value] — constants, sizes, config values. Identifiers stay
// (op and input names, config keys, `layers.0`, `s77`): they name things, they hold no data.
// Not an HTML escaper (html.h); not a parser of any format.
#pragma once

#include <string>
#include <string_view>

namespace fxs::report {

std::string redactText(std::string_view text);

// The text between the tags of markup fxscope wrote (the graph's SVG: labels, titles) redacted
// the same way; tags and their attributes as they are.
std::string redactMarkupText(std::string_view markup);

} // namespace fxs::report
