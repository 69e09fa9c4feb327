cmake_policy(SET CMP0057 NEW)
# Fails when core/ includes a Qt header, a LibTorch-free layer breaks its rule, a core domain
# includes one it may not (the table below), views include the app, or controllers include
# each other. Run on the source tree (ctest: layering) and on scratch trees (layering_selftest).
set(include_line "^[ \t]*#[ \t]*include[ \t]*")
# forbid(<rule> <regex> <glob>...): fails naming the rule when a line of a file under one of
# the globs matches regex.
function(forbid rule regex)
    file(GLOB_RECURSE files ${ARGN})
    foreach(f IN LISTS files)
        file(STRINGS "${f}" lines REGEX "${regex}")
        if(lines)
            message(FATAL_ERROR "${rule}: ${f}: ${lines}")
        endif()
    endforeach()
endfunction()

forbid("core must not include Qt" "${include_line}[<\"]Q[A-Za-z]"
       "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/core/*.inl")
forbid("item models must not include widgets"
       "${include_line}[<\"](QtWidgets/|QWidget|QAbstractItemView|QTreeView|QTableView|\"views/widgets)"
       "${ROOT}/views/models/*.h" "${ROOT}/views/models/*.cpp")
forbid("views/app must not include LibTorch (go through core)"
       "${include_line}[<\"](torch|ATen|c10)/"
       "${ROOT}/views/*.h" "${ROOT}/views/*.cpp" "${ROOT}/app/*.h" "${ROOT}/app/*.cpp")
# Core headers that the app, views and CLI include (the public ones) carry no torch, sqlite3 or
# Graphviz types, not even transitively; core-internal headers (bridges used only by core .cpp
# files) may.
file(GLOB_RECURSE core_headers RELATIVE "${ROOT}" "${ROOT}/core/*.h")
set(heavy "")
foreach(h IN LISTS core_headers)
    file(STRINGS "${ROOT}/${h}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](torch/|ATen/|c10/|sqlite3|gvc|graphviz/|cgraph)")
    if(lines)
        list(APPEND heavy "${h}")
    endif()
endforeach()
# Propagate: a header that includes a heavy header is heavy too.
set(changed TRUE)
while(changed)
    set(changed FALSE)
    foreach(h IN LISTS core_headers)
        if(h IN_LIST heavy)
            continue()
        endif()
        file(STRINGS "${ROOT}/${h}" incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"core/")
        foreach(inc IN LISTS incs)
            string(REGEX REPLACE ".*\"(core/[^\"]+)\".*" "\\1" inc "${inc}")
            if(inc IN_LIST heavy)
                list(APPEND heavy "${h}")
                set(changed TRUE)
                break()
            endif()
        endforeach()
    endforeach()
endwhile()
file(GLOB_RECURSE front_files "${ROOT}/app/*.h" "${ROOT}/app/*.cpp" "${ROOT}/views/*.h" "${ROOT}/views/*.cpp")
foreach(f IN LISTS front_files)
    file(STRINGS "${f}" incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"core/")
    foreach(inc IN LISTS incs)
        string(REGEX REPLACE ".*\"(core/[^\"]+)\".*" "\\1" inc "${inc}")
        if(inc IN_LIST heavy)
            message(FATAL_ERROR "${f} includes ${inc}, which exposes torch/sqlite/graphviz: "
                                "public core headers must use pimpl")
        endif()
    endforeach()
endforeach()
# Core domains and the domains each may include besides itself. A new domain gets a line here
# (and in ARCHITECTURE.md); an include outside its line fails. The table is the current graph:
# util ← graph ← model ← io ← explain; keydiff (on util) under explain and cache; exec, codegen,
# layout on graph; compile and profile on top.
set(core_deps_util "")
set(core_deps_graph util)
set(core_deps_model util graph)
set(core_deps_io util graph model)
set(core_deps_keydiff util) # labelled components compared: below explain and cache
set(core_deps_explain util graph model io keydiff)
set(core_deps_exec util graph)
set(core_deps_torchscript util graph model io exec)
set(core_deps_export util graph model io exec)
set(core_deps_codegen util graph)
set(core_deps_partition util graph codegen)
set(core_deps_cache util graph keydiff)
set(core_deps_remote util graph keydiff cache) # cache's types; keydiff via cache's headers
set(core_deps_compile util graph cache remote codegen cuda exec partition)
set(core_deps_trace_profile util model) # torch-free: compile-time profiles, the Chrome trace format
set(core_deps_profile util graph model exec partition compile cuda structure trace_profile)
set(core_deps_layout util graph structure) # structure: module groups (module_tree.h)
set(core_deps_diagnose util graph model io explain trace_profile structure) # structure: nested remedy
set(core_deps_report util graph model io explain trace_profile diagnose) # HTML of a diagnosis
set(core_deps_cuda util)
set(core_deps_structure util graph model)
set(core_deps_runtime util graph model structure) # profiler traces joined with Inductor provenance
set(core_deps_about util cuda layout) # layout: the Graphviz it loaded, when built with it
file(GLOB core_domains LIST_DIRECTORIES true RELATIVE "${ROOT}/core" "${ROOT}/core/*")
foreach(domain IN LISTS core_domains)
    if(NOT IS_DIRECTORY "${ROOT}/core/${domain}")
        continue()
    endif()
    if(NOT DEFINED core_deps_${domain})
        message(FATAL_ERROR "core/${domain} is not in the layering table of tests/layering.cmake: "
                            "add set(core_deps_${domain} ...) with the domains it may include")
    endif()
    file(GLOB_RECURSE domain_files "${ROOT}/core/${domain}/*.h" "${ROOT}/core/${domain}/*.cpp"
         "${ROOT}/core/${domain}/*.inl")
    foreach(f IN LISTS domain_files)
        file(STRINGS "${f}" incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"core/")
        foreach(inc IN LISTS incs)
            string(REGEX REPLACE ".*\"core/([^/\"]+)/.*" "\\1" other "${inc}")
            if(NOT other STREQUAL domain AND NOT other IN_LIST core_deps_${domain})
                message(FATAL_ERROR "core/${domain} must not include core/${other}: ${f}: ${inc} "
                                    "(allowed: ${core_deps_${domain}})")
            endif()
        endforeach()
    endforeach()
endforeach()

# One component differ: pairing keys, diffing them and choosing the nearest stored key are
# core/keydiff's. A function of one of those names declared or defined at namespace scope
# (a line that starts with its type) anywhere else in core, views or the app, or a second
# similarity index class, fails: explain and the region cache add rank tables and describers.
set(keydiff_names "(diffComponents|pairComponents|nearestEntry)")
file(GLOB_RECURSE differ_files "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/app/*.h"
     "${ROOT}/app/*.cpp" "${ROOT}/views/*.h" "${ROOT}/views/*.cpp")
foreach(f IN LISTS differ_files)
    if(f MATCHES "/core/keydiff/[^/]*$")
        continue()
    endif()
    file(STRINGS "${f}" lines REGEX
         "^[A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&:]${keydiff_names}[ \t]*\\(|^(class|struct)[ \t]+SimilarityIndex")
    if(lines)
        message(FATAL_ERROR "one component differ (core/keydiff) — a second implementation: "
                            "${f}: ${lines}")
    endif()
endforeach()

# Outside core: views never include the app; the job tracker is QtCore and core/util only; the
# CLI links core alone; controllers never include each other (they share the AppContext).
forbid("views must not include the app" "${include_line}\"app/"
       "${ROOT}/views/*.h" "${ROOT}/views/*.cpp")
forbid("views/jobs is QtCore and core/util only"
       "${include_line}(\"(core/[^u]|core/u[^t]|views/[^j])|<(QtWidgets/|QtGui/|QWidget|QGui|QApplication|QColor|QFont|QIcon|QImage|QPixmap|QPainter|QAbstractItem))"
       "${ROOT}/views/jobs/*.h" "${ROOT}/views/jobs/*.cpp")
forbid("fxscope-cli links core alone" "${include_line}(\"(views/|app/gui/)|<Q[A-Za-z])"
       "${ROOT}/app/cli/*.h" "${ROOT}/app/cli/*.cpp")
file(GLOB_RECURSE controller_files "${ROOT}/app/gui/*_controller*.h" "${ROOT}/app/gui/*_controller*.cpp")
foreach(f IN LISTS controller_files)
    get_filename_component(name "${f}" NAME)
    string(REGEX REPLACE "_controller.*" "_controller.h" own "${name}")
    file(STRINGS "${f}" incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"app/gui/[a-z_]*_controller\\.h\"")
    foreach(inc IN LISTS incs)
        if(NOT inc MATCHES "\"app/gui/${own}\"")
            message(FATAL_ERROR "controllers must not include each other (use the AppContext): "
                                "${f}: ${inc}")
        endif()
    endforeach()
endforeach()
# The graph on screen is drawn from layers with owners, not painted by controllers: a controller
# writes its GraphDecorations layer or the NodeSelectionModel (from the AppContext), never the
# GraphView's setters, and holds no GraphView.
forbid("controllers must not call GraphView setters (write a GraphDecorations layer or the NodeSelectionModel)"
       "([Vv]iew[A-Za-z_]*(\\(\\))?[ \t]*(->|\\.)[ \t]*(setRegionTint|setNodeColors|clearNodeColors|setRegions|clearRegions|setHighlighted|setSelectedNodes|setBanner)[ \t]*\\(|views::GraphView[ \t]*\\*|graphView[ \t]*\\(\\))"
       "${ROOT}/app/gui/*_controller*.h" "${ROOT}/app/gui/*_controller*.cpp")
# One JSON writer: nlohmann's dump() throws on invalid UTF-8 unless told to replace it, so
# everything goes through core/util/json_text (dumpJson), which does.
file(GLOB_RECURSE json_users "${ROOT}/core/*.cpp" "${ROOT}/core/*.h" "${ROOT}/app/*.cpp"
     "${ROOT}/app/*.h" "${ROOT}/views/*.cpp" "${ROOT}/views/*.h")
foreach(f IN LISTS json_users)
    if(f MATCHES "core/util/json_text\\.cpp$")
        continue()
    endif()
    file(STRINGS "${f}" lines REGEX "[.>]dump\\(")
    if(lines)
        message(FATAL_ERROR "JSON text goes through fxs::dumpJson (core/util/json_text.h): "
                            "${f}: ${lines}")
    endif()
endforeach()
# One JSON reader: every JSON text goes through core/util/json_parse (parseJson), which refuses
# nesting past kMaxNesting before nlohmann builds a value whose copy, dump or our own readers
# would overflow the stack (issue 31). A direct parse, SAX parse or binary-format reader of
# nlohmann anywhere else fails.
set(json_readers "parse|sax_parse|accept|from_cbor|from_msgpack|from_bson|from_ubjson|from_bjdata")
foreach(f IN LISTS json_users)
    if(f MATCHES "core/util/json_parse\\.cpp$")
        continue()
    endif()
    file(STRINGS "${f}" lines REGEX "[Jj]son(<[^>]*>)?::(${json_readers})[ \t]*\\(")
    if(lines)
        message(FATAL_ERROR "JSON text is read through fxs::parseJson (core/util/json_parse.h): "
                            "${f}: ${lines}")
    endif()
endforeach()
message(STATUS "layering ok (core-internal heavy headers: ${heavy})")
