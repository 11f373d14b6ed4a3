# SPDX-License-Identifier: BSD-3-Clause
# Warnings and sanitizers applied to every target of the project (not to dependencies).
add_library(mall_build_flags INTERFACE)
target_compile_options(mall_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra>
  $<$<COMPILE_LANGUAGE:Fortran>:-Wall -fimplicit-none>)
if(MALL_WERROR)
  target_compile_options(mall_build_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX,C>:-Werror>)
endif()
if(MALL_SANITIZE)
  # One switch: -DMALL_SANITIZE=ON. ASan + UBSan; leak checking is left to LSan's
  # defaults but Open MPI's own one-off allocations are suppressed (cmake/lsan.supp).
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(mall_build_flags INTERFACE ${_san})
  target_link_options(mall_build_flags INTERFACE ${_san})
endif()
