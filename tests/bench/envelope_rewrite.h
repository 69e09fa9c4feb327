// Rewrites a number of a TORCH_TRACE log's envelope lines for the benchmarks that build large
// logs out of recorded ones: the value after `key` ("\"frame_id\": ", "\"rank\": ") set to
// next(old), in envelope lines only (payload lines start with a tab), so payload MD5s stay
// valid. Test code only.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

namespace fxs::bench {

template <typename Next>
std::string rewriteEnvelopes(std::string_view log, std::string_view key, Next next)
{
    std::string out;
    out.reserve(log.size() + log.size() / 64);
    std::size_t pos = 0;
    while (pos < log.size()) {
        std::size_t end = log.find('\n', pos);
        end = end == std::string_view::npos ? log.size() : end + 1;
        const std::string_view line = log.substr(pos, end - pos);
        const auto at = line[0] == '\t' ? std::string_view::npos : line.find(key);
        if (at == std::string_view::npos) {
            out.append(line);
        } else {
            const std::size_t digits = at + key.size();
            std::size_t stop = digits;
            while (stop < line.size() && line[stop] >= '0' && line[stop] <= '9') {
                ++stop;
            }
            const int old = std::atoi(std::string(line.substr(digits, stop - digits)).c_str());
            out.append(line.substr(0, digits));
            out += std::to_string(next(old));
            out.append(line.substr(stop));
        }
        pos = end;
    }
    return out;
}

} // namespace fxs::bench
