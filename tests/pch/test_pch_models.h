// The precompiled header of the model tests (QtGui without widgets: item models, decorations,
// selection): the common one and Qt GUI.
#pragma once

#include "tests/pch/test_pch.h"

#include <QtGui>
