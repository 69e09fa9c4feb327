// The headers every test of one kind parses: precompiled once per kind (tests/CMakeLists.txt)
// and reused by each test executable of that kind. Only third-party and standard headers: a
// change to fxscope's own headers never rebuilds the precompiled header.
#pragma once

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
