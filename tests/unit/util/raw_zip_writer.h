// Test support: writes zip archives byte by byte (no zip64), so that tests can make the ones
// no zip library writes: entries whose declared sizes lie (a few bytes that claim gigabytes),
// deflated or stored, with both headers agreeing so that readers get as far as the data. Also
// a torch.save archive (archive/data.pkl, archive/data/<key>, archive/version) around a pickle
// the test composes with PickleWriter. Link ZLIB::ZLIB.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::test {

struct RawZipEntry {
    std::string name;
    std::string data;              // as stored (already deflated when deflate is set)
    bool deflate = false;
    std::uint64_t declaredSize = 0; // the uncompressed size the headers claim
    std::uint32_t crc = 0;
};

// A stored entry that tells the truth.
inline RawZipEntry storedEntry(std::string name, std::string data)
{
    RawZipEntry e{std::move(name), std::move(data)};
    e.declaredSize = e.data.size();
    e.crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(e.data.data()), static_cast<uInt>(e.data.size())));
    return e;
}

// A deflated entry of `plain` that declares `declared` bytes (plain.size() for the truth).
inline RawZipEntry deflatedEntry(std::string name, std::string_view plain, std::uint64_t declared)
{
    z_stream z{};
    deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(plain.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    RawZipEntry e{std::move(name), std::move(out), true, declared};
    e.crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(plain.data()), static_cast<uInt>(plain.size())));
    return e;
}

inline void putLe(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    }
}

inline std::string rawZip(const std::vector<RawZipEntry>& entries)
{
    std::string out;
    std::string directory;
    for (const auto& e : entries) {
        const std::uint64_t offset = out.size();
        const int method = e.deflate ? 8 : 0;
        auto common = [&](std::string& s) {
            putLe(s, 20, 2); // version needed
            putLe(s, 0, 2);  // flags
            putLe(s, method, 2);
            putLe(s, 0, 2); // time
            putLe(s, 0x21, 2); // date: 1980-01-01
            putLe(s, e.crc, 4);
            putLe(s, e.data.size(), 4);
            putLe(s, e.declaredSize, 4);
            putLe(s, e.name.size(), 2);
            putLe(s, 0, 2); // extra
        };
        putLe(out, 0x04034b50, 4);
        common(out);
        out += e.name;
        out += e.data;
        putLe(directory, 0x02014b50, 4);
        putLe(directory, 20, 2); // version made by
        common(directory);
        putLe(directory, 0, 2); // comment
        putLe(directory, 0, 2); // disk
        putLe(directory, 0, 2); // internal attributes
        putLe(directory, 0, 4); // external attributes
        putLe(directory, offset, 4);
        directory += e.name;
    }
    const std::uint64_t directoryAt = out.size();
    out += directory;
    putLe(out, 0x06054b50, 4);
    putLe(out, 0, 2);
    putLe(out, 0, 2);
    putLe(out, entries.size(), 2);
    putLe(out, entries.size(), 2);
    putLe(out, directory.size(), 4);
    putLe(out, directoryAt, 4);
    putLe(out, 0, 2);
    return out;
}

// Pickle opcodes (protocol 2) for the objects torch.save writes.
class PickleWriter {
public:
    PickleWriter() { m_out = "\x80\x02"; }
    PickleWriter& raw(std::string_view ops) { m_out += ops; return *this; }
    PickleWriter& integer(std::int64_t v)
    {
        m_out += "\x8a\x08"; // LONG1 of 8 bytes: any int64
        putLe(m_out, static_cast<std::uint64_t>(v), 8);
        return *this;
    }
    PickleWriter& text(std::string_view s)
    {
        m_out += 'X';
        putLe(m_out, s.size(), 4);
        m_out += s;
        return *this;
    }
    PickleWriter& global(std::string_view module, std::string_view name)
    {
        m_out += 'c';
        m_out += module;
        m_out += '\n';
        m_out += name;
        m_out += '\n';
        return *this;
    }
    PickleWriter& ints(const std::vector<std::int64_t>& values)
    {
        m_out += '(';
        for (auto v : values) {
            integer(v);
        }
        m_out += 't';
        return *this;
    }
    // torch._utils._rebuild_tensor_v2(storage(key, numel), offset, sizes, strides, False,
    // OrderedDict()), as torch.save writes a float tensor.
    PickleWriter& tensor(std::string_view key, std::int64_t numel, std::int64_t offset,
                         const std::vector<std::int64_t>& sizes,
                         const std::vector<std::int64_t>& strides)
    {
        global("torch._utils", "_rebuild_tensor_v2");
        m_out += "((";
        text("storage").global("torch", "FloatStorage").text(key).text("cpu").integer(numel);
        m_out += "tQ";
        integer(offset).ints(sizes).ints(strides);
        m_out += "\x89";
        global("collections", "OrderedDict");
        m_out += ")Rt";
        m_out += 'R';
        return *this;
    }
    std::string done() const { return m_out + "."; }

private:
    std::string m_out;
};

// A torch.save archive: archive/data.pkl, the records (key -> bytes), archive/version.
inline std::string torchSaveZip(const std::string& pickle,
                                const std::vector<std::pair<std::string, std::string>>& records)
{
    std::vector<RawZipEntry> entries{storedEntry("archive/data.pkl", pickle)};
    for (const auto& [key, bytes] : records) {
        entries.push_back(storedEntry("archive/data/" + key, bytes));
    }
    entries.push_back(storedEntry("archive/version", "3\n"));
    return rawZip(entries);
}

// n floats 0, 1, 2, ... as a storage record's bytes.
inline std::string floatRecord(int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        const float f = static_cast<float>(i);
        out.append(reinterpret_cast<const char*>(&f), sizeof f);
    }
    return out;
}

} // namespace fxs::test
