# INTERFACE targets that carry the project's warnings and common definitions.
add_library(fxscope_settings INTERFACE)
target_compile_features(fxscope_settings INTERFACE cxx_std_20)
target_compile_definitions(fxscope_settings INTERFACE QT_NO_KEYWORDS
    FXSCOPE_VERSION="${PROJECT_VERSION}")
target_include_directories(fxscope_settings INTERFACE "${PROJECT_SOURCE_DIR}")

add_library(fxscope_warnings INTERFACE)
target_compile_options(fxscope_warnings INTERFACE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)

if(FXSCOPE_SANITIZERS)
    add_compile_options(-fsanitize=${FXSCOPE_SANITIZERS} -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${FXSCOPE_SANITIZERS})
endif()

# Fuzz sub-build: instrument everything for libFuzzer (the fuzz mains link -fsanitize=fuzzer).
if(FXSCOPE_FUZZ_ONLY)
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
endif()

# gold links the ~130 test programs (each against LibTorch's and Qt's shared libraries) about ten
# times faster than the default linker; RUNPATH as the default linker writes it.
option(FXSCOPE_USE_GOLD "Link with gold when the compiler accepts -fuse-ld=gold" ON)
if(FXSCOPE_USE_GOLD)
    include(CheckLinkerFlag)
    check_linker_flag(CXX "-fuse-ld=gold" FXSCOPE_HAVE_GOLD)
    if(FXSCOPE_HAVE_GOLD)
        add_link_options(-fuse-ld=gold -Wl,--enable-new-dtags)
    endif()
endif()
