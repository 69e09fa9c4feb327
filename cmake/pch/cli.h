// Precompiled for the CLI's units (cmake/FxscopeBuildCost.cmake).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
