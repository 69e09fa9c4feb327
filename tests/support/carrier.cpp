// The source of a test's carrier target (tests/test_groups.cmake): a static library that is
// never built; it only holds what CMake says of the test, for its group to take.
