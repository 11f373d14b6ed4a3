# SPDX-License-Identifier: BSD-3-Clause
# The arbiter's paths for the prefix it is installed to, at configure time (the build
# tree's unit, the .deb's conffiles) and at install time (`cmake --install --prefix P`,
# cpack, which installs with the prefix /usr into a DESTDIR): the unit names the daemon
# and the configuration where that install puts them, whatever prefix CMake was
# configured with. Included by cluster/CMakeLists.txt, cmake/MalleablePackaging.cmake and
# the install rule there.

# mall_full_install_dir(<out> <prefix> <name> <dir>): GNUInstallDirs' CMAKE_INSTALL_FULL_<name>
# for <prefix> (GNUInstallDirs_get_absolute_install_dir's rule, CMake 3.25: SYSCONFDIR,
# LOCALSTATEDIR and RUNSTATEDIR are /etc, /var for the prefixes / and /usr and /etc/opt/...,
# /var/opt/... for /opt/...; every other directory is under the prefix, / meaning /usr).
# cluster/CMakeLists.txt checks it against GNUInstallDirs for the configured prefix.
function(mall_full_install_dir out prefix name dir)
  set(_state_dir FALSE)
  if(name MATCHES "^(SYSCONFDIR|LOCALSTATEDIR|RUNSTATEDIR)$")
    set(_state_dir TRUE)
  endif()
  if(IS_ABSOLUTE "${dir}")
    set(r "${dir}")
  elseif(prefix STREQUAL "/")
    if(_state_dir OR dir MATCHES "^usr/")
      set(r "/${dir}")
    else()
      set(r "/usr/${dir}")
    endif()
  elseif(prefix MATCHES "^/usr/?$" AND _state_dir)
    set(r "/${dir}")
  elseif(prefix MATCHES "^/opt/" AND NOT prefix MATCHES "^/opt/homebrew/" AND _state_dir)
    set(r "/${dir}${prefix}")
  else()
    set(r "${prefix}/${dir}")
  endif()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

# mall_arbiter_paths(<prefix> <sbindir> <sysconfdir> <docdir>): sets, for <prefix>,
# MALL_ARBITER_SBINDIR, MALL_ARBITER_CONF (the configuration file) and MALL_ARBITER_DOC
# (the admin guide's install page, as a file:// URL), as the unit template names them.
macro(mall_arbiter_paths prefix sbindir sysconfdir docdir)
  mall_full_install_dir(MALL_ARBITER_SBINDIR "${prefix}" SBINDIR "${sbindir}")
  mall_full_install_dir(_mall_arbiter_etc "${prefix}" SYSCONFDIR "${sysconfdir}")
  set(MALL_ARBITER_CONF "${_mall_arbiter_etc}/malleable/arbiterd.conf")
  mall_full_install_dir(_mall_arbiter_doc "${prefix}" DOCDIR "${docdir}")
  set(MALL_ARBITER_DOC "file://${_mall_arbiter_doc}/guide/arbiter.md")
endmacro()

# mall_arbiter_install(<template dir> <scratch dir> <sbindir> <sysconfdir> <docdir>): at
# install time (CMAKE_INSTALL_PREFIX is the install's prefix, DESTDIR applied by
# file(INSTALL)): the unit configured for that prefix into lib/systemd/system, the
# configuration into its full sysconfdir. An edited configuration already there is kept
# (the new default beside it as arbiterd.conf.new, said in the install's output), as dpkg
# keeps a conffile. A macro: file(INSTALL) records the files in the caller's manifest.
macro(mall_arbiter_install template_dir scratch sbindir sysconfdir docdir)
  mall_arbiter_paths("${CMAKE_INSTALL_PREFIX}" "${sbindir}" "${sysconfdir}" "${docdir}")
  string(RANDOM LENGTH 16 _mall_arbiter_tag)
  set(_mall_arbiter_tmp "${scratch}/arbiter-install-${_mall_arbiter_tag}")
  configure_file("${template_dir}/malleable-arbiterd.service.in"
                 "${_mall_arbiter_tmp}/malleable-arbiterd.service" @ONLY)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE
       FILES "${_mall_arbiter_tmp}/malleable-arbiterd.service")
  file(REMOVE_RECURSE "${_mall_arbiter_tmp}")
  get_filename_component(_mall_arbiter_etc "${MALL_ARBITER_CONF}" DIRECTORY)
  set(_mall_arbiter_have "$ENV{DESTDIR}${MALL_ARBITER_CONF}")
  if(EXISTS "${_mall_arbiter_have}")
    file(SHA256 "${_mall_arbiter_have}" _mall_arbiter_old)
    file(SHA256 "${template_dir}/arbiterd.conf" _mall_arbiter_new)
  endif()
  if(EXISTS "${_mall_arbiter_have}" AND NOT _mall_arbiter_old STREQUAL _mall_arbiter_new)
    message(STATUS "Keeping the edited ${_mall_arbiter_have}: the new default is arbiterd.conf.new beside it")
    file(INSTALL DESTINATION "${_mall_arbiter_etc}" TYPE FILE RENAME arbiterd.conf.new
         FILES "${template_dir}/arbiterd.conf")
  else()
    file(INSTALL DESTINATION "${_mall_arbiter_etc}" TYPE FILE FILES "${template_dir}/arbiterd.conf")
  endif()
endmacro()
