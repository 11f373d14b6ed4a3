// SPDX-License-Identifier: BSD-3-Clause
// Names the calling thread as /proc/PID/task/TID/comm shows it ("mall-" and what it does,
// at most 15 characters), so that a process's threads can be told apart from outside (the
// endurance run lists them when a count changes). Header-only; a no-op off glibc.
#pragma once

#if defined(__GLIBC__)
#include <pthread.h>
#endif

namespace malleable {

inline void name_this_thread(const char* name) {
#if defined(__GLIBC__)
  char buf[16] = {};
  for (int i = 0; i < 15 && name[i] != '\0'; ++i) buf[i] = name[i];
  (void)pthread_setname_np(pthread_self(), buf);
#else
  (void)name;
#endif
}

}  // namespace malleable
