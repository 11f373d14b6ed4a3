// SPDX-License-Identifier: BSD-3-Clause
// The cases of malleable-blacs-dyn-bench (main.cpp), one function each: argv[0] is the
// case's name, the rest its arguments; the return value is the program's exit status. A
// case that spawns runs this program again with its name as the first argument.
#pragma once

namespace blacs_dyn_bench {

const char* program_path();                    // the program's argv[0], for its spawns
int case_expand(int argc, char** argv);        // expand_bench.cpp
int case_expand_nodes(int argc, char** argv);  // expand_nodes_bench.cpp

}  // namespace blacs_dyn_bench
