// SPDX-License-Identifier: BSD-3-Clause
// Every environment setting the project's libraries and malleable-run read, in one table
// (pure data): its name(s), part, type, default, when it is read and what it does.
// `malleable-run --settings` prints it as docs/guide/configuration.md's table, and the docs
// check (tests/docs/check_settings.py) compares the two and finds every name the sources read
// in it: a default cannot be documented one way and coded another without a test failing.
#pragma once

#include <cstddef>
#include <string>

namespace launcher {

struct Setting {
  const char* names;    // "NAME" or "NAME1, NAME2" (variables read together)
  const char* part;     // blacs-dyn, redist, redist drop-in, resize, malleable-run
  const char* type;
  const char* default_value;
  const char* read;     // when it is read (at use, session start, policy made, launch, ...)
  const char* meaning;  // markdown; a long one ends "(more below)": configuration.md says it whole
};

const Setting* settings_table(std::size_t* count);
// The table as markdown: the header, the rule, one row per setting ("| `NAME` | part | ... |").
std::string settings_markdown();

}  // namespace launcher
