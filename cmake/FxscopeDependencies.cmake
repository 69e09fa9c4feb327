# Finds the Debian-packaged dependencies. Optional ones (Graphviz, CUDA, Qt) switch features off
# with a status line instead of failing the configure.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(simdjson REQUIRED)
find_package(ZLIB REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)

if(NOT FXSCOPE_FUZZ_ONLY OR FXSCOPE_FUZZ_TORCH)
    find_package(Torch REQUIRED)
    # Torch's exported targets carry flags; wrap them in one target of ours.
    add_library(fxscope_torch INTERFACE)
    target_link_libraries(fxscope_torch INTERFACE ${TORCH_LIBRARIES})
    target_compile_options(fxscope_torch INTERFACE ${TORCH_CXX_FLAGS})
    # clang (the fuzz sub-build) with libstdc++ 12 in C++20 instantiates std::vector<IValue>'s
    # constexpr members where LibTorch 1.13's <ATen/ATen.h> reaches List.h before IValue is
    # complete; having ivalue.h first completes it. GCC builds need nothing.
    target_compile_options(fxscope_torch INTERFACE
        "$<$<CXX_COMPILER_ID:Clang>:SHELL:-include ATen/core/ivalue.h>")
endif()
if(NOT FXSCOPE_FUZZ_ONLY)
    find_package(CLI11 REQUIRED)
    find_package(fmt REQUIRED)
    pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
    # The remote tier of the artifact cache (core/remote): Debian libhiredis-dev.
    pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
endif()

set(FXSCOPE_HAVE_GRAPHVIZ OFF)
if(FXSCOPE_WITH_GRAPHVIZ AND NOT FXSCOPE_FUZZ_ONLY)
    pkg_check_modules(GRAPHVIZ IMPORTED_TARGET libgvc libcgraph)
    if(GRAPHVIZ_FOUND)
        set(FXSCOPE_HAVE_GRAPHVIZ ON)
    else()
        message(STATUS "fxscope: Graphviz not found; layout and render are disabled")
    endif()
endif()

# CUDA: the backend loads NVRTC and the driver at run time and needs nothing to build.
# FXSCOPE_HAVE_CUDA: the CUDA Toolkit (NVRTC) was found here, so its tests must find NVRTC too;
# its library directory is a fallback search place at run time. OFF disables the backend.
set(FXSCOPE_HAVE_CUDA OFF)
set(FXSCOPE_TORCH_CUDA OFF)
if(NOT FXSCOPE_ENABLE_CUDA STREQUAL "OFF" AND NOT FXSCOPE_FUZZ_ONLY)
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc)
        set(FXSCOPE_HAVE_CUDA ON)
        set(FXSCOPE_CUDA_TOOLKIT_LIBDIR "${CUDAToolkit_LIBRARY_DIR}")
    elseif(FXSCOPE_ENABLE_CUDA STREQUAL "ON")
        message(FATAL_ERROR "FXSCOPE_ENABLE_CUDA=ON but no CUDA Toolkit with NVRTC was found")
    endif()
    # LibTorch built with CUDA (a PyTorch wheel): kernels launch on its current stream.
    if(TORCH_INSTALL_PREFIX AND CUDAToolkit_FOUND)
        find_library(FXSCOPE_C10_CUDA c10_cuda HINTS "${TORCH_INSTALL_PREFIX}/lib" NO_DEFAULT_PATH)
        # torch_cuda: CUDA graphs (at::cuda::CUDAGraph) for `run --compiled --cuda-graph`.
        find_library(FXSCOPE_TORCH_CUDA_LIB torch_cuda HINTS "${TORCH_INSTALL_PREFIX}/lib"
                     NO_DEFAULT_PATH)
        if(FXSCOPE_C10_CUDA AND FXSCOPE_TORCH_CUDA_LIB)
            set(FXSCOPE_TORCH_CUDA ON)
            # cuDNN's backend API declarations (cudnn_conv.cpp finds its entry points in the
            # process at run time): the CUDA Toolkit's, else the wheel's nvidia-cudnn package.
            find_path(FXSCOPE_CUDNN_INCLUDE cudnn_backend.h
                      HINTS ${CUDAToolkit_INCLUDE_DIRS}
                            "${TORCH_INSTALL_PREFIX}/../nvidia/cudnn/include" NO_DEFAULT_PATH)
        endif()
    endif()
endif()
message(STATUS "fxscope: Graphviz=${FXSCOPE_HAVE_GRAPHVIZ} CUDA=${FXSCOPE_HAVE_CUDA} "
               "torch-CUDA=${FXSCOPE_TORCH_CUDA} cuDNN-headers=${FXSCOPE_CUDNN_INCLUDE} "
               "GUI=${FXSCOPE_BUILD_GUI}")

set(FXSCOPE_HAVE_QT OFF)
if((FXSCOPE_BUILD_GUI OR FXSCOPE_BUILD_TESTS) AND NOT FXSCOPE_FUZZ_ONLY)
    if(FXSCOPE_BUILD_GUI)
        find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Concurrent Svg SvgWidgets Charts Test)
        set(FXSCOPE_HAVE_QT ON)
    else()
        find_package(Qt6 6.4 QUIET COMPONENTS Core Test)
        if(Qt6Test_FOUND)
            set(FXSCOPE_HAVE_QT ON)
        endif()
    endif()
    if(FXSCOPE_HAVE_QT)
        set(CMAKE_AUTOMOC ON)
        set(CMAKE_AUTORCC ON)
    endif()
endif()
