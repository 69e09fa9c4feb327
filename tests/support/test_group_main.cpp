// The main of a group of Qt Tests (tests/test_file.h): `group TEST [Qt Test arguments]` runs the
// test named TEST with the arguments after it, as the test's own executable would; without a
// known name it lists the group's tests and exits with 2.
#include "tests/test_file.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace fxs::test {
namespace {

std::map<std::string, TestMain>& registry()
{
    static std::map<std::string, TestMain> tests;
    return tests;
}

} // namespace

bool registerTest(const char* name, TestMain run)
{
    registry().emplace(name, run);
    return true;
}

} // namespace fxs::test

int main(int argc, char* argv[])
{
    const auto& tests = fxs::test::registry();
    const auto it = argc > 1 ? tests.find(argv[1]) : tests.end();
    if (it == tests.end()) {
        std::fprintf(stderr, "usage: %s TEST [Qt Test arguments]; the tests of this group:\n",
                     argc > 0 ? argv[0] : "group");
        for (const auto& [name, run] : tests) {
            std::fprintf(stderr, "  %s\n", name.c_str());
        }
        return 2;
    }
    // The test sees its own name as the program's, and the arguments after it.
    return it->second(argc - 1, argv + 1);
}
