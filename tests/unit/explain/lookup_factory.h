// Hand-built cache lookups for the explain tests: components as the reader would produce them
// from "[digest] family[index]: value" lines, without depending on the TORCH_TRACE reader.
#pragma once

#include "core/model/cache_lookup.h"

#include <string>
#include <utility>
#include <vector>

namespace fxs::test {

// name "inductor_config[max_fusion_size]" → family "inductor_config", index "max_fusion_size".
inline model::KeyComponent component(std::string name, std::string value, std::string digest)
{
    model::KeyComponent c;
    c.name = std::move(name);
    const auto open = c.name.find('[');
    c.family = c.name.substr(0, open);
    if (open != std::string::npos && c.name.back() == ']') {
        c.index = c.name.substr(open + 1, c.name.size() - open - 2);
    }
    c.value = std::move(value);
    c.digest = std::move(digest);
    return c;
}

// A digest that changes with the value (good enough for tests: not PyTorch's hash).
inline std::string fakeDigest(const std::string& name, const std::string& value)
{
    std::size_t h = std::hash<std::string>{}(name + "\x1f" + value);
    std::string d;
    const char* alphabet = "abcdefghijklmnopqrstuvwxyz234567";
    for (int i = 0; i < 52; ++i) {
        d += alphabet[h % 32];
        h = h / 32 + (h % 32) * 0x9E3779B97F4A7C15ull + static_cast<std::size_t>(i);
    }
    return d;
}

inline model::KeyComponent comp(std::string name, std::string value)
{
    std::string digest = fakeDigest(name, value);
    return component(std::move(name), std::move(value), std::move(digest));
}

inline model::CacheLookup lookup(model::CacheKind cache, model::CacheState state,
                                 std::string key, std::vector<model::KeyComponent> components,
                                 std::string compileId = "0/0")
{
    model::CacheLookup l;
    l.cache = cache;
    l.state = state;
    l.detailedStatus = state == model::CacheState::Hit ? "hit" : "full_miss";
    if (!key.empty()) {
        l.key = std::move(key);
    }
    l.components = std::move(components);
    l.compileId = *model::CompileId::parse(compileId);
    return l;
}

inline model::CacheLookup fxMiss(std::string key, std::vector<model::KeyComponent> components,
                                 std::string compileId = "0/0")
{
    return lookup(model::CacheKind::FxGraph, model::CacheState::Miss, std::move(key),
                  std::move(components), std::move(compileId));
}

inline model::CacheLookup fxHit(std::string key, std::vector<model::KeyComponent> components,
                                std::string compileId = "0/0")
{
    return lookup(model::CacheKind::FxGraph, model::CacheState::Hit, std::move(key),
                  std::move(components), std::move(compileId));
}

inline model::CacheLookup aotMiss(std::string key, std::vector<model::KeyComponent> components,
                                  std::string compileId = "0/0")
{
    return lookup(model::CacheKind::AotAutograd, model::CacheState::Miss, std::move(key),
                  std::move(components), std::move(compileId));
}

inline model::CacheLookup bypass(model::CacheKind cache, std::string reason,
                                 std::string compileId = "0/0")
{
    model::CacheLookup l = lookup(cache, model::CacheState::Bypass, {}, {}, std::move(compileId));
    l.detailedStatus.clear();
    l.bypassReason = std::move(reason);
    l.bypassExceptionType = "BypassAOTAutogradCache";
    return l;
}

// A typical key: n inductor_config entries plus an input, a gm and environment lines.
inline std::vector<model::KeyComponent> typicalComponents(int n, int maxFusionSize = 64)
{
    std::vector<model::KeyComponent> cs;
    cs.push_back(comp("inductor_config[max_fusion_size]", std::to_string(maxFusionSize)));
    for (int i = 1; i < n; ++i) {
        cs.push_back(comp("inductor_config[option_" + std::to_string(i) + "]",
                          i % 2 ? "True" : "False"));
    }
    cs.push_back(comp("example_inputs[0]",
                      "TensorMetadata(dtype=torch.float32, shape=torch.Size([64, 64]), "
                      "stride=(64, 1), device=device(type='cuda', index=0), "
                      "layout=torch.strided, requires_grad=True)"));
    cs.push_back(comp("fx_kwargs[is_backward]", "False"));
    cs.push_back(comp("torch_version", std::string("\x80\x02}q\x00", 5)));
    cs.back().readable = false;
    cs.push_back(comp("system_info[device]", "{'name': 'NVIDIA H200'}"));
    return cs;
}

} // namespace fxs::test
