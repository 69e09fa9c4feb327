# Builds the libFuzzer targets in a clang sub-build of this source tree (only the Qt-free,
# torch-free importers are compiled there) and runs each for a bounded time under CTest.
find_program(FXSCOPE_CLANGXX NAMES clang++ clang++-14)
find_program(FXSCOPE_CLANG NAMES clang clang-14)
if(NOT FXSCOPE_CLANGXX OR NOT FXSCOPE_CLANG)
    message(STATUS "fxscope: clang not found; fuzz targets are not built")
    return()
endif()
include(ExternalProject)
set(fuzz_dir "${CMAKE_BINARY_DIR}/fuzz-build")
ExternalProject_Add(fxscope_fuzzers
    SOURCE_DIR "${PROJECT_SOURCE_DIR}"
    BINARY_DIR "${fuzz_dir}"
    CMAKE_ARGS -DFXSCOPE_FUZZ_ONLY=ON -DFXSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
               -DCMAKE_CXX_COMPILER=${FXSCOPE_CLANGXX} -DCMAKE_C_COMPILER=${FXSCOPE_CLANG}
               -G ${CMAKE_GENERATOR}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)

set(FXSCOPE_FUZZ_SECONDS 20 CACHE STRING "How long CTest runs each fuzz target")
foreach(target IN ITEMS fuzz_graph_code fuzz_torch_trace fuzz_export_json fuzz_json_text)
    set(corpus "${CMAKE_BINARY_DIR}/fuzz-corpus/${target}")
    add_test(NAME ${target}
        COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
                "${fuzz_dir}/tests/fuzz/${target}" -max_total_time=${FXSCOPE_FUZZ_SECONDS}
                -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
                "${corpus}" "${CMAKE_CURRENT_LIST_DIR}/seeds/${target}")
    set_tests_properties(${target} PROPERTIES LABELS fuzz TIMEOUT 300)
    file(MAKE_DIRECTORY "${corpus}")
endforeach()
