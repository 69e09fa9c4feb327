# Use ccache for every compiler launch when it is installed, so rebuilds are quick.
find_program(FXSCOPE_CCACHE ccache)
if(FXSCOPE_CCACHE)
    set(CMAKE_C_COMPILER_LAUNCHER "${FXSCOPE_CCACHE}")
    set(CMAKE_CXX_COMPILER_LAUNCHER "${FXSCOPE_CCACHE}")
endif()
