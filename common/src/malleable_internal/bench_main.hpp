// SPDX-License-Identifier: BSD-3-Clause
// The entry of a part's benchmark program (malleable-redist-bench, malleable-resize-bench,
// malleable-blacs-dyn-bench): the case as the first argument, as SLATE's tester. Without a
// case, or with an unknown one, it lists the cases and returns 2; --help lists them and
// returns 0. A case runs with argv[0] its own name and returns the program's exit status.
#pragma once

#include <cstdio>
#include <cstring>
#include <span>

namespace malleable_internal {

struct BenchCase {
  const char* name;
  int (*run)(int, char**);
  const char* what;
};

inline int bench_usage(FILE* out, const char* program, std::span<const BenchCase> cases) {
  std::fprintf(out, "usage: %s <case> [arguments]   (<case> --help: its options, where it has them)\nSubcommands:\n", program);
  for (const BenchCase& c : cases) std::fprintf(out, "  %-16s %s\n", c.name, c.what);
  return 2;
}

inline int bench_main(int argc, char** argv, const char* program, std::span<const BenchCase> cases) {
  if (argc < 2) return bench_usage(stderr, program, cases);
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)
    return bench_usage(stdout, program, cases), 0;
  for (const BenchCase& c : cases)
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "%s: unknown case '%s'\n", program, argv[1]);
  return bench_usage(stderr, program, cases);
}

}  // namespace malleable_internal
