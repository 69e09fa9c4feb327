// The unit that makes a shared precompiled header (cmake/FxscopeBuildCost.cmake); no code.
