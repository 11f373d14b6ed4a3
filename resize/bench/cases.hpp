// SPDX-License-Identifier: BSD-3-Clause
// The cases of malleable-resize-bench (main.cpp), one function each: argv[0] is the case's
// name, the rest its arguments; the return value is the program's exit status.
#pragma once

namespace resize::bench {

int case_checkpoint(int argc, char** argv);       // checkpoint_bench.cpp
int case_levels(int argc, char** argv);           // levels_bench.cpp
int case_levels_recover(int argc, char** argv);   // levels_recover_bench.cpp
int case_levels_overhead(int argc, char** argv);  // levels_overhead.cpp
int case_matrix_map(int argc, char** argv);       // matrix_map_bench.cpp

}  // namespace resize::bench
