// What every Qt Test file includes. A test file is compiled either on its own, as its own
// executable (FXSCOPE_TEST_GROUPS=OFF), or, by default, with the other tests of its folder and
// kind in one translation unit and one executable, its group (tests/CMakeLists.txt): that
// compiles the tests in about a third of the time, since Qt Test's and JSON's templates are
// instantiated once per group instead of once per test.
// In a group, each file's code after its includes sits in a namespace of its own
// (FXSCOPE_TEST_BEGIN ... FXSCOPE_TEST_END, named by the group's generated source), so helpers
// in the anonymous namespaces of two files never collide, and QTEST_MAIN, QTEST_GUILESS_MAIN and
// QTEST_APPLESS_MAIN register the test with the group's main (tests/support/test_group_main.cpp)
// instead of defining main. `group TEST [Qt Test arguments]` runs one test, as its own
// executable would; CTest runs each test so, under its own name.
#pragma once

#include <QtTest>

#if defined(FXSCOPE_TEST_GROUP)

namespace fxs::test {

using TestMain = int (*)(int argc, char* argv[]);

// Called once per test file, before main: the group's main runs `name`'s function.
bool registerTest(const char* name, TestMain run);

} // namespace fxs::test

#define FXSCOPE_TEST_BEGIN namespace FXSCOPE_TEST_FILE {
#define FXSCOPE_TEST_END }

// Qt's own main, as a function the group calls (qtest.h's QTEST_MAIN_WRAPPER, same steps).
#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...)                                                        \
    int runTest(int argc, char* argv[])                                                           \
    {                                                                                             \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                        \
        __VA_ARGS__                                                                               \
        TestObject tc;                                                                            \
        QTEST_SET_MAIN_SOURCE_PATH                                                                \
        return QTest::qExec(&tc, argc, argv);                                                     \
    }                                                                                             \
    const bool registered = ::fxs::test::registerTest(FXSCOPE_TEST_NAME, runTest);

#else

#define FXSCOPE_TEST_BEGIN
#define FXSCOPE_TEST_END

#endif
