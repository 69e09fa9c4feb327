# What keeps a fresh build short (issue 26), for the libraries and programs (the tests have their
# own precompiled headers, tests/CMakeLists.txt):
# - precompiled headers where several units parse the same heavy headers: LibTorch's ATen (about
#   11 s of parsing a unit) in every domain that uses it, through one shared header
#   (fxscope_torch_pch); Qt's widgets in views and the app, CLI11 and nlohmann::json in the CLI
#   (fxscope_pch). -Winvalid-pch makes a unit that cannot use it say so; it then compiles without.
# - the front ends (CLI, views, app: glue over core and Qt) at -O1 in optimised builds: a quarter
#   less compile time; the engine, readers and layout stay at the build type's level.
# Off for the clang fuzz sub-build. -DFXSCOPE_LIBRARY_PCH=OFF checks that every unit includes
# what it uses.
option(FXSCOPE_LIBRARY_PCH "Precompiled headers for fxscope's libraries and programs" ON)
option(FXSCOPE_FRONT_END_O1 "Compile the CLI and GUI front ends at -O1 in optimised builds" ON)
set(FXSCOPE_PCH_DIR "${CMAKE_CURRENT_LIST_DIR}/pch")

# fxscope_front_end(TARGET): a front end's code, compiled at -O1 in optimised builds.
function(fxscope_front_end target)
    if(FXSCOPE_FRONT_END_O1 AND NOT FXSCOPE_FUZZ_ONLY)
        target_compile_options(${target} PRIVATE
            $<$<CONFIG:RelWithDebInfo,Release,MinSizeRel>:-O1>)
    endif()
endfunction()

# fxscope_pch(TARGET HEADER): the target's units include cmake/pch/HEADER first, precompiled.
function(fxscope_pch target header)
    if(FXSCOPE_LIBRARY_PCH AND NOT FXSCOPE_FUZZ_ONLY)
        target_precompile_headers(${target} PRIVATE "${FXSCOPE_PCH_DIR}/${header}")
        target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Winvalid-pch>)
    endif()
endfunction()

# fxscope_torch_pch(TARGET): a domain linking LibTorch reuses one precompiled ATen header,
# made once by fxscope_pch_torch_libs with the same flags (fxscope_settings, LibTorch's).
function(fxscope_torch_pch target)
    if(NOT FXSCOPE_LIBRARY_PCH OR FXSCOPE_FUZZ_ONLY OR NOT TARGET fxscope_torch)
        return()
    endif()
    if(NOT TARGET fxscope_pch_torch_libs)
        add_library(fxscope_pch_torch_libs OBJECT "${FXSCOPE_PCH_DIR}/pch_donor.cpp")
        target_link_libraries(fxscope_pch_torch_libs PRIVATE fxscope_settings fxscope_torch)
        target_precompile_headers(fxscope_pch_torch_libs PRIVATE "${FXSCOPE_PCH_DIR}/torch.h")
        set_target_properties(fxscope_pch_torch_libs PROPERTIES AUTOMOC OFF)
    endif()
    target_precompile_headers(${target} REUSE_FROM fxscope_pch_torch_libs)
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Winvalid-pch>)
endfunction()
