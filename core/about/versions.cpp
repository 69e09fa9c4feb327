// Versions: compile-time macros of the headers against run-time queries of the loaded libraries.
#include "core/about/versions.h"

#include "core/cuda/device.h"
#include "core/cuda/nvrtc.h"

#include <sqlite3.h>
#include <torch/version.h>

#ifdef FXSCOPE_HAVE_GRAPHVIZ
#include "core/layout/graph_layout.h"

#include <graphviz/graphviz_version.h>
#endif

namespace fxs::about {

namespace {

#ifdef FXSCOPE_HAVE_GRAPHVIZ
ComponentVersion graphviz()
{
    return {"Graphviz", PACKAGE_VERSION, layout::graphvizVersion()};
}
#endif

void addCuda(std::vector<ComponentVersion>& out)
{
    if (auto driver = cuda::driverVersion()) {
        out.push_back({"CUDA driver", "", *driver});
    }
    if (auto nvrtc = cuda::Nvrtc::get()) {
        out.push_back({"NVRTC", "", (*nvrtc)->version()});
    }
}

} // namespace

std::string ComponentVersion::text() const
{
    const std::string& shown = running.empty() ? built : running;
    std::string out = name + " " + (shown.empty() ? std::string("unknown") : shown);
    if (!running.empty() && !built.empty() && running != built) {
        out += " (built with " + built + ")";
    }
    return out;
}

std::vector<ComponentVersion> componentVersions()
{
    std::vector<ComponentVersion> out;
    // LibTorch has no run-time version query: the shared library's soname pins the version.
    out.push_back({"LibTorch", TORCH_VERSION, ""});
#ifdef FXSCOPE_HAVE_GRAPHVIZ
    out.push_back(graphviz());
#endif
    out.push_back({"SQLite", SQLITE_VERSION, sqlite3_libversion()});
    addCuda(out);
    return out;
}

std::string versionsLine(const std::vector<ComponentVersion>& components)
{
    std::string out;
    for (const auto& c : components) {
        out += (out.empty() ? "" : " · ") + c.text();
    }
    return out;
}

} // namespace fxs::about
