// Small string helpers shared by the importers and printers. Knows nothing of graphs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs {

// " → ": the arrow every explanation puts between an old and a new value.
inline constexpr std::string_view kChangeArrow = " \u2192 ";

std::string_view trim(std::string_view s);
std::string_view trimLeft(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
std::optional<std::int64_t> parseInt(std::string_view s);
std::optional<double> parseDouble(std::string_view s); // accepts inf, -inf, nan
// Number of leading spaces (tabs count as one).
int indentOf(std::string_view line);
// Shortest round-trip text of a double, Python style: "1e-05", "0.5", "inf", "nan".
std::string formatDouble(double v);
// "512 bytes", "1.5 KiB", "64.0 GiB": sizes in messages.
std::string formatBytes(std::uint64_t bytes);
// Text made safe to place in HTML or XML text or a double- or single-quoted attribute (& < > "
// ' as entities): the SVG writer's and the report's.
std::string escapeMarkup(std::string_view text);

} // namespace fxs
