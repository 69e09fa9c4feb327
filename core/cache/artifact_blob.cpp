#include "core/cache/artifact_blob.h"

#include <charconv>

namespace fxs::cache::detail {
namespace {

constexpr std::string_view kFormat1 = "fxscope-artifact-1";

// Reads a decimal number ending at `stop` from blob[pos...]; advances pos past `stop` (so pos
// stays <= blob.size()).
bool readNumber(const std::string& blob, std::size_t& pos, char stop, std::uint64_t& out)
{
    const auto end = blob.find(stop, pos);
    if (end == std::string::npos) {
        return false;
    }
    const auto r = std::from_chars(blob.data() + pos, blob.data() + end, out);
    if (r.ec != std::errc() || r.ptr != blob.data() + end) {
        return false;
    }
    pos = end + 1;
    return true;
}

bool unpackFormat1(const std::string& blob, std::size_t pos, Artifact& out)
{
    std::uint64_t so = 0;
    std::uint64_t src = 0;
    if (!readNumber(blob, pos, '\n', so) || !readNumber(blob, pos, '\n', src)) {
        return false;
    }
    // Each length against what is left, never a sum that can wrap (an unsigned remote entry
    // is decoded before anything vouches for it).
    const std::size_t left = blob.size() - pos; // readNumber leaves pos <= size
    if (so > left || src != left - so) {
        return false;
    }
    out.files = {{ArtifactKind::SharedObject, blob.substr(pos, so)},
                 {ArtifactKind::CppSource, blob.substr(pos + so, src)}};
    return true;
}

} // namespace

std::string packArtifact(const Artifact& a)
{
    std::string head = std::string(kArtifactFormat) + "\n" + std::to_string(a.files.size()) + "\n";
    std::string body;
    for (const auto& f : a.files) {
        head += std::to_string(int(f.kind)) + " " + std::to_string(f.bytes.size()) + "\n";
        body += f.bytes;
    }
    return head + body;
}

bool unpackArtifact(const std::string& blob, Artifact& out)
{
    const auto nl = blob.find('\n');
    if (nl == std::string::npos) {
        return false;
    }
    const std::string_view format(blob.data(), nl);
    if (format == kFormat1) {
        return unpackFormat1(blob, nl + 1, out);
    }
    std::size_t pos = nl + 1;
    std::uint64_t count = 0;
    if (format != kArtifactFormat || !readNumber(blob, pos, '\n', count) || count > 64) {
        return false;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes(count);
    for (auto& [kind, size] : sizes) {
        if (!readNumber(blob, pos, ' ', kind) || !readNumber(blob, pos, '\n', size)) {
            return false;
        }
    }
    out.files.clear();
    for (const auto& [kind, size] : sizes) {
        if (size > blob.size() - pos || kind == 0 || kind > 255) {
            return false;
        }
        out.files.push_back({static_cast<ArtifactKind>(kind), blob.substr(pos, size)});
        pos += size;
    }
    return pos == blob.size();
}

} // namespace fxs::cache::detail

namespace fxs::cache {

std::string serializeArtifact(const Artifact& artifact) { return detail::packArtifact(artifact); }

bool deserializeArtifact(const std::string& bytes, Artifact& out)
{
    return detail::unpackArtifact(bytes, out);
}

} // namespace fxs::cache
