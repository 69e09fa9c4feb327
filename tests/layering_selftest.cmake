# Runs layering.cmake on scratch trees under SCRATCH: a clean tree passes, and each tree with
# one bad include fails naming the rule it breaks. Tests the checker, not the source tree.
# Usage: cmake -DCHECKER=.../layering.cmake -DSCRATCH=<dir> -P layering_selftest.cmake

# write_tree(dir file1 content1 file2 content2 ...)
function(write_tree dir)
    file(REMOVE_RECURSE "${dir}")
    set(args ${ARGN})
    list(LENGTH args n)
    math(EXPR last "${n} - 1")
    foreach(i RANGE 0 ${last} 2)
        math(EXPR j "${i} + 1")
        list(GET args ${i} path)
        list(GET args ${j} text)
        file(WRITE "${dir}/${path}" "${text}\n")
    endforeach()
endfunction()

# A clean tree every case starts from: each layer includes what it may.
set(clean
    core/util/cancel.h "#pragma once"
    core/graph/graph.h "#include \"core/util/cancel.h\""
    core/io/loader.cpp "#include \"core/graph/graph.h\""
    core/explain/explainer.cpp "#include \"core/io/loader.h\""
    core/keydiff/component_diff.cpp "KeyDiff diffComponents(Keys a, Keys b)\n{\n    return {}\n}"
    core/explain/component_differ.cpp "#include \"core/keydiff/component_diff.h\"\nComponentDiff diffLookups(const Lookup& a, const Lookup& b)\n{\n    return keydiff::diffComponents(keysOf(a), keysOf(b))\n}"
    core/exec/interpreter.cpp "#include \"core/graph/graph.h\""
    core/compile/graph_compile.cpp "#include \"core/exec/interpreter.h\""
    views/jobs/job_tracker.h "#include \"core/util/cancel.h\"\n#include <QObject>"
    views/panels/panel.cpp "#include \"views/jobs/job_tracker.h\"\n#include <QWidget>"
    app/cli/main.cpp "#include \"core/io/loader.h\""
    app/gui/region_controller.h "#include \"app/gui/app_context.h\""
    app/gui/region_controller_project.cpp "#include \"app/gui/region_controller.h\""
    app/gui/main_window.cpp "#include \"app/gui/region_controller.h\"")

# expect(case-name expected-message-regex extra-file extra-content): the clean tree plus one file.
function(expect name regex)
    set(dir "${SCRATCH}/${name}")
    write_tree("${dir}" ${clean} ${ARGN})
    execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${dir} -P "${CHECKER}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(regex STREQUAL "")
        if(NOT rc EQUAL 0)
            message(FATAL_ERROR "${name}: the clean tree should pass: ${err}")
        endif()
    elseif(rc EQUAL 0)
        message(FATAL_ERROR "${name}: the checker passed a tree it must refuse")
    elseif(NOT err MATCHES "${regex}")
        message(FATAL_ERROR "${name}: refused, but not for the expected rule: ${err}")
    endif()
    message(STATUS "${name}: ok")
endfunction()

expect(clean "")
expect(io_includes_compile "core/io must not include core/compile"
       core/io/bad.cpp "#include \"core/compile/graph_compile.h\"")
expect(explain_includes_exec "core/explain must not include core/exec"
       core/explain/bad.h "#include \"core/exec/interpreter.h\"")
expect(unknown_domain "core/newdomain is not in the layering table"
       core/newdomain/x.cpp "#include \"core/util/cancel.h\"")
expect(core_includes_qt "core must not include Qt"
       core/graph/bad.cpp "#include <QString>")
expect(model_includes_widget "item models must not include widgets"
       views/models/bad.cpp "#include <QTreeView>")
expect(app_includes_torch "views/app must not include LibTorch"
       app/gui/bad.cpp "#include <torch/torch.h>")
expect(views_include_app "views must not include the app"
       views/graph/bad.cpp "#include \"app/gui/main_window.h\"")
expect(jobs_include_widgets "views/jobs is QtCore and core/util only"
       views/jobs/bad.cpp "#include <QWidget>")
expect(jobs_include_models "views/jobs is QtCore and core/util only"
       views/jobs/bad.cpp "#include \"views/models/workspace.h\"")
expect(cli_includes_views "fxscope-cli links core alone"
       app/cli/bad.cpp "#include \"views/models/workspace.h\"")
expect(controllers_include_each_other "controllers must not include each other"
       app/gui/profile_controller.cpp "#include \"app/gui/compile_controller.h\"")
# A controller painting the graph view instead of writing its decoration layer.
expect(controller_calls_view_setter "controllers must not call GraphView setters"
       app/gui/compile_controller.cpp "m_context->graphView()->setRegionTint(id, tint);")
expect(controller_holds_view "controllers must not call GraphView setters"
       app/gui/region_controller.h "views::GraphView* m_view;")
expect(second_component_differ "one component differ \\(core/keydiff\\)"
       core/cache/cache_explain.cpp "std::vector<ComponentChange> diffComponents(const Keys& a,\n                                             const Keys& b)\n{\n}")
expect(second_nearest_entry "one component differ \\(core/keydiff\\)"
       core/explain/lookup_matcher.cpp "const Entry* nearestEntry(const std::vector<Entry>& entries)\n{\n}")
expect(second_similarity_index "one component differ \\(core/keydiff\\)"
       core/explain/lookup_matcher.h "class SimilarityIndex {\n}")
expect(strict_json_dump "JSON text goes through fxs::dumpJson"
       app/cli/bad.cpp "std::string s = value.dump(2);")
expect(direct_json_parse "JSON text is read through fxs::parseJson"
       core/io/bad.cpp "const Json root = Json::parse(text, nullptr, false);")
expect(direct_ordered_json_parse "JSON text is read through fxs::parseJson"
       app/cli/bad.cpp "auto j = nlohmann::ordered_json::parse(text);")
file(REMOVE_RECURSE "${SCRATCH}")
