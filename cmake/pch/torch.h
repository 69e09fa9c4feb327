// Precompiled for every domain that links LibTorch (cmake/FxscopeBuildCost.cmake).
#include <ATen/ATen.h>
