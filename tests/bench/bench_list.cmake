fxscope_add_bench(bench_graph_code SOURCES bench_graph_code.cpp LIBS fxscope_io)
fxscope_add_bench(bench_trace_import SOURCES bench_trace_import.cpp LIBS fxscope_io fxscope_diagnose)
fxscope_add_bench(bench_codegen SOURCES bench_codegen.cpp LIBS fxscope_compile fxscope_cache fxscope_torch)
fxscope_add_bench(bench_interpreter SOURCES bench_interpreter.cpp
    LIBS fxscope_exec fxscope_io fxscope_torch)
fxscope_add_bench(bench_explain SOURCES bench_explain.cpp LIBS fxscope_explain)
fxscope_add_bench(bench_partition SOURCES bench_partition.cpp LIBS fxscope_partition fxscope_io)
fxscope_add_bench(bench_graph_view SOURCES bench_graph_view.cpp LIBS fxscope_views fxscope_io
    fxscope_structure)
fxscope_add_bench(bench_pt2_import SOURCES bench_pt2_import.cpp LIBS fxscope_io ZLIB::ZLIB)
fxscope_add_bench(bench_profile_import SOURCES bench_profile_import.cpp LIBS fxscope_runtime fxscope_io)
fxscope_add_bench(bench_rank_folder SOURCES bench_rank_folder.cpp LIBS fxscope_io fxscope_diagnose)
fxscope_add_bench(bench_profile_reuse SOURCES bench_profile_reuse.cpp LIBS fxscope_profile fxscope_io)
fxscope_add_bench(bench_schedule_runner SOURCES bench_schedule_runner.cpp
    LIBS fxscope_compile fxscope_exec fxscope_torch)
