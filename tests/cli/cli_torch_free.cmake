# fxscope-cli runs its torch-free commands without LibTorch and hands the rest to
# fxscope-cli-torch (app/cli/launcher.h). Run as
#   cmake -DCLI=<fxscope-cli> -DDATA=<tests/data> -DWORK=<scratch dir> -P cli_torch_free.cmake
# Checks, each able to fail:
#  1. fxscope-cli's dynamic dependencies name no LibTorch library (ldd);
#  2. `diagnose` of a real log loads no LibTorch file at run time (LD_DEBUG=files) and answers;
#  3. `run --help` and `inspect` of a TorchScript .pt are answered (by fxscope-cli-torch: the .pt
#     graph's node count is in the JSON);
#  4. without fxscope-cli-torch beside it, `run` fails with exit 127 and says what is missing,
#     while `inspect` of a log still works.
function(fail what)
    message(FATAL_ERROR "cli_torch_free: ${what}")
endfunction()

execute_process(COMMAND ldd "${CLI}" OUTPUT_VARIABLE deps RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    fail("ldd ${CLI} failed (${rc})")
endif()
if(deps MATCHES "libtorch|libc10")
    fail("fxscope-cli depends on LibTorch:\n${deps}")
endif()

set(log "${DATA}/recorded/traces/nccl_same")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env LD_DEBUG=files "${CLI}" diagnose "${log}" --json
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT out MATCHES "\"findings\"")
    fail("diagnose gave no findings (exit ${rc}):\n${out}")
endif()
if(err MATCHES "file=[^ ]*(libtorch|libc10)")
    fail("diagnose loaded LibTorch")
endif()

execute_process(COMMAND "${CLI}" run --help OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "--from-forward")
    fail("run --help was not answered (exit ${rc}):\n${out}")
endif()
execute_process(COMMAND "${CLI}" inspect "${DATA}/torchscript/mlp.pt" --json
    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"nodes\": [1-9]")
    fail("inspect of a .pt was not answered (exit ${rc}):\n${out}")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(COPY "${CLI}" DESTINATION "${WORK}")
get_filename_component(name "${CLI}" NAME)
execute_process(COMMAND "${WORK}/${name}" run --help
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 127 OR NOT err MATCHES "fxscope-cli-torch was found neither")
    fail("run without fxscope-cli-torch: exit ${rc}, ${err}")
endif()
execute_process(COMMAND "${WORK}/${name}" inspect "${DATA}/recorded/traces/nccl_same" --json
    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"graphs\"")
    fail("inspect without fxscope-cli-torch failed (exit ${rc})")
endif()
file(REMOVE_RECURSE "${WORK}")
