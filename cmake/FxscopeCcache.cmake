# Use ccache for every compiler launch when it is installed, so rebuilds are quick. The tests'
# precompiled headers need ccache's pch sloppiness, or every test compile would miss.
find_program(FXSCOPE_CCACHE ccache)
if(FXSCOPE_CCACHE)
    set(fxscope_ccache_launcher "${CMAKE_COMMAND}" -E env
        "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
        "${FXSCOPE_CCACHE}")
    set(CMAKE_C_COMPILER_LAUNCHER ${fxscope_ccache_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${fxscope_ccache_launcher})
endif()
