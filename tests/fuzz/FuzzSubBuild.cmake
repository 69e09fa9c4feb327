# Builds the libFuzzer targets in one clang sub-build of this source tree and runs each for a
# bounded time under CTest. The sub-build compiles only what the fuzz targets need: the Qt-free
# importers (util, graph, model, io) and, for fuzz_torchscript, the two domains the TorchScript
# importer needs (exec, torchscript) against the same LibTorch; each domain once.
find_program(FXSCOPE_CLANGXX NAMES clang++ clang++-14)
find_program(FXSCOPE_CLANG NAMES clang clang-14)
if(NOT FXSCOPE_CLANGXX OR NOT FXSCOPE_CLANG)
    message(STATUS "fxscope: clang not found; fuzz targets are not built")
    return()
endif()
include(ExternalProject)
# -O1 with line tables, as libFuzzer and ASan recommend: reports name files and lines, and the
# instrumented build takes less time than at -O2 with full debug information.
set(fuzz_args -DFXSCOPE_FUZZ_ONLY=ON -DFXSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
    -DCMAKE_CXX_COMPILER=${FXSCOPE_CLANGXX} -DCMAKE_C_COMPILER=${FXSCOPE_CLANG}
    -G ${CMAKE_GENERATOR})
# The same LibTorch as this build (Torch_DIR is set by find_package here), and the same
# sanitizers as above (fuzzer-no-link, address, undefined; FxscopeSettings.cmake) on fxscope's
# code and the LibTorch headers it compiles. LibTorch's library is not instrumented: its bad
# reads show only when they crash. ASan needs no options for it: libstdc++ does not annotate
# its containers, so uninstrumented code cannot cause container-overflow reports; only
# LibTorch's own leaks are suppressed (fuzz_torchscript.lsan.supp).
set(fuzz_targets fuzz_graph_code fuzz_torch_trace fuzz_export_json fuzz_json_text
    fuzz_profile_trace fuzz_pt2 fuzz_project)
if(Torch_DIR)
    list(APPEND fuzz_args -DFXSCOPE_FUZZ_TORCH=ON -DTorch_DIR=${Torch_DIR})
    list(APPEND fuzz_targets fuzz_torchscript)
endif()
set(fuzz_dir "${CMAKE_BINARY_DIR}/fuzz-build")
ExternalProject_Add(fxscope_fuzzers
    SOURCE_DIR "${PROJECT_SOURCE_DIR}"
    BINARY_DIR "${fuzz_dir}"
    CMAKE_ARGS ${fuzz_args}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)

set(FXSCOPE_FUZZ_SECONDS 10 CACHE STRING "How long CTest runs each fuzz target")
# fuzz_torchscript: archives up to 64 KB (the seeds are 4-12 KB), a dictionary of zip, source
# and pickle tokens, and LibTorch's own leaks suppressed (see the .supp file).
set(fuzz_torchscript_args -max_len=65536 -dict=${CMAKE_CURRENT_LIST_DIR}/fuzz_torchscript.dict)
set(fuzz_torchscript_supp "${CMAKE_CURRENT_LIST_DIR}/fuzz_torchscript.lsan.supp")
set(fuzz_torchscript_env LSAN_OPTIONS=suppressions=${fuzz_torchscript_supp}:print_suppressions=0)
# fuzz_pt2: archives up to 32 KB (the seeds are 12-15 KB) and a dictionary of zip record
# signatures and the entry names the reader looks for.
set(fuzz_pt2_args -max_len=32768 -dict=${CMAKE_CURRENT_LIST_DIR}/fuzz_pt2.dict)
foreach(target IN LISTS fuzz_targets)
    set(binary "${fuzz_dir}/tests/fuzz/${target}")
    set(corpus "${CMAKE_BINARY_DIR}/fuzz-corpus/${target}")
    add_test(NAME ${target}
        COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1 ${${target}_env}
                "${binary}" -max_total_time=${FXSCOPE_FUZZ_SECONDS}
                -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 ${${target}_args}
                "${corpus}" "${CMAKE_CURRENT_LIST_DIR}/seeds/${target}")
    set_tests_properties(${target} PROPERTIES LABELS fuzz TIMEOUT 300 COST ${FXSCOPE_FUZZ_SECONDS})
    file(MAKE_DIRECTORY "${corpus}")
endforeach()
