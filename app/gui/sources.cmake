# fxscope_app: everything of the desktop app but main(), so tests can drive a MainWindow;
# fxscope: the executable. Needs the graph view (Graphviz).
if(NOT TARGET fxscope_layout)
    message(STATUS "fxscope: Graphviz not found; the desktop app is not built")
    return()
endif()
fxscope_add_library(fxscope_app
    app_context.cpp
    cache_browser_controller.cpp
    cache_controller.cpp
    compile_controller.cpp
    diagnosis_controller.cpp
    getting_started.cpp
    graph_area.cpp
    main_window.cpp
    main_window_menus.cpp
    profile_controller.cpp
    recent_files.cpp
    region_controller.cpp
    region_controller_nested.cpp
    region_controller_project.cpp
    runtime_controller.cpp
    shown_graph.cpp
    shown_graph_presenter.cpp
    shutdown.cpp
    smoke_test.cpp
    structure_controller.cpp
    workspace_loader.cpp
)
target_link_libraries(fxscope_app PUBLIC fxscope_views Qt6::Widgets
    PRIVATE fxscope_warnings)
fxscope_pch(fxscope_app qt_widgets.h)
fxscope_front_end(fxscope_app)
# The About box's library versions come from core (fxscope_about); Qt's from Qt itself.
target_link_libraries(fxscope_app PRIVATE fxscope_about)

add_executable(fxscope main.cpp)
target_link_libraries(fxscope PRIVATE fxscope_app fxscope_torchscript fxscope_settings
    fxscope_warnings)
fxscope_front_end(fxscope)
install(TARGETS fxscope RUNTIME DESTINATION bin)
