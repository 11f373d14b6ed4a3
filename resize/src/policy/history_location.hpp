// SPDX-License-Identifier: BSD-3-Clause
// Where the resize history of an application is kept (predict.hpp's
// resize_history_location), from a configuration already read: the session's, read once
// at its start. resize_history_location itself reads the environment at its call.
#pragma once

#include <string>

#include "common/config.hpp"
#include "malleable/resize/predict.hpp"

namespace resize::detail {

HistoryLocation history_location(const config::Policies& env, const std::string& app, const std::string& executable);

}  // namespace resize::detail
