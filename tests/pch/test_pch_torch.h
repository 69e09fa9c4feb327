// The precompiled header of the tests that link LibTorch: the common one and ATen.
#pragma once

#include "tests/pch/test_pch.h"

#include <ATen/ATen.h>
