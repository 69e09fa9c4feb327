// The precompiled header of the GUI tests: the common one and Qt Widgets.
#pragma once

#include "tests/pch/test_pch.h"

#include <QtWidgets>
