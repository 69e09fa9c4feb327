// The region compiler's cache key, built ccache-style: each labelled component is canonicalised
// by the caller, digested on its own (SHA-256) and kept with a readable transcript, so a miss
// can be explained component by component. Not for storage (cache_store.h) or for building
// the canonical texts of a region (region_canon.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fxs::cache {

// Version salts. Bumping one changes every key (codegen, key layout) or the database schema.
inline constexpr std::string_view kKeyVersion = "fxscope-key-1";
inline constexpr std::string_view kCodegenVersion = "fxscope-codegen-6";
inline constexpr std::string_view kArtifactFormat = "fxscope-artifact-2";

// Standard component labels (persisted: append only, never renamed).
inline constexpr std::string_view kLabelRegion = "region";
inline constexpr std::string_view kLabelOptions = "options";
inline constexpr std::string_view kLabelCodegen = "codegen_version";
inline constexpr std::string_view kLabelCompiler = "compiler";
inline constexpr std::string_view kLabelTorch = "libtorch_version";
inline constexpr std::string_view kLabelIsa = "cpu_isa";
inline constexpr std::string_view kLabelSchedule = "schedule"; // generated vs LibTorch steps
inline constexpr std::string_view kLabelDevice = "device";          // "cuda" (CUDA keys only)
inline constexpr std::string_view kLabelCudaArch = "cuda_arch";     // "sm_90"
inline constexpr std::string_view kLabelNvrtc = "nvrtc_version";    // "13.0"
inline constexpr std::string_view kLabelLaunch = "launch";          // grids, blocks, tuning
// "sha256=<hex>" of the generated source: whatever reaches the source is in the key.
inline constexpr std::string_view kLabelSource = "source";
std::string inputLabel(int index); // "input[3]"

struct KeyComponent {
    std::string label;  // "region", "input[0]", "compiler", ...
    std::string text;   // canonical text (what was digested)
    std::string digest; // lower-case hex SHA-256 of text
    bool operator==(const KeyComponent&) const = default;
};

class KeyBuilder {
public:
    // Adds a component; a label added twice replaces the earlier text.
    KeyBuilder& add(std::string_view label, std::string_view canonicalText);
    // Components sorted by label (the key does not depend on the order of add()).
    const std::vector<KeyComponent>& components() const { return m_components; }
    // Hex SHA-256 over kKeyVersion and every "label=digest" line (see keyFromComponents).
    std::string key() const;
    // Readable transcript: one "[digest12] label: text" block per component.
    std::string transcript() const;

private:
    std::vector<KeyComponent> m_components;
};

// The key of already-digested components: sha256("<kKeyVersion>\n" + "label=digest\n"...),
// components in label order.
std::string keyFromComponents(const std::vector<KeyComponent>& sortedComponents);
// The digest of the region component, "" when absent: the region's identity.
std::string regionDigest(const std::vector<KeyComponent>& components);
const KeyComponent* findComponent(const std::vector<KeyComponent>& components,
                                  std::string_view label);

} // namespace fxs::cache
