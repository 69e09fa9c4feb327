#include "core/cache/cache_key.h"

#include "core/util/digest.h"

#include <algorithm>

namespace fxs::cache {

std::string inputLabel(int index) { return "input[" + std::to_string(index) + "]"; }

KeyBuilder& KeyBuilder::add(std::string_view label, std::string_view canonicalText)
{
    KeyComponent c{std::string(label), std::string(canonicalText), toHex(sha256(canonicalText))};
    auto it = std::lower_bound(m_components.begin(), m_components.end(), c.label,
                               [](const KeyComponent& a, const std::string& l) { return a.label < l; });
    if (it != m_components.end() && it->label == c.label) {
        *it = std::move(c);
    } else {
        m_components.insert(it, std::move(c));
    }
    return *this;
}

std::string KeyBuilder::key() const { return keyFromComponents(m_components); }

std::string KeyBuilder::transcript() const
{
    std::string out;
    for (const auto& c : m_components) {
        out += "[" + c.digest.substr(0, 12) + "] " + c.label + ": " + c.text + "\n";
    }
    return out;
}

std::string keyFromComponents(const std::vector<KeyComponent>& sortedComponents)
{
    Sha256Builder h;
    h.update(kKeyVersion);
    h.update("\n");
    for (const auto& c : sortedComponents) {
        h.update(c.label);
        h.update("=");
        h.update(c.digest);
        h.update("\n");
    }
    return toHex(h.finish());
}

const KeyComponent* findComponent(const std::vector<KeyComponent>& components,
                                  std::string_view label)
{
    for (const auto& c : components) {
        if (c.label == label) {
            return &c;
        }
    }
    return nullptr;
}

std::string regionDigest(const std::vector<KeyComponent>& components)
{
    const KeyComponent* c = findComponent(components, kLabelRegion);
    return c ? c->digest : std::string();
}

} // namespace fxs::cache
