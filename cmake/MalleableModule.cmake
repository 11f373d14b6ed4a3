# mall_add_library(<name> SOURCES ... [PUBLIC_LIBS ...] [PRIVATE_LIBS ...] [OUTPUT name])
# One library of the project: shared, include/ public, warnings on, exported as
# malleable::<name>, installed with its headers and listed in malleable.pc.
function(mall_add_library name)
  cmake_parse_arguments(A "" "OUTPUT" "SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
  add_library(${name} SHARED ${A_SOURCES})
  add_library(malleable::${name} ALIAS ${name})
  if(NOT A_OUTPUT)
    set(A_OUTPUT "malleable_${name}")
  endif()
  set_target_properties(${name} PROPERTIES OUTPUT_NAME ${A_OUTPUT}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_Fortran_MODULE_DIRECTORY}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${MALL_FORTRAN_MODDIR}>)
  target_link_libraries(${name} PUBLIC ${A_PUBLIC_LIBS}
                        PRIVATE ${A_PRIVATE_LIBS} $<BUILD_INTERFACE:mall_build_flags>)
  install(TARGETS ${name} EXPORT malleableTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY MALL_PC_LIBS -l${A_OUTPUT})
endfunction()

# A Fortran module target's .mod files are installed beside the headers.
function(mall_install_fortran_modules)
  install(DIRECTORY ${CMAKE_Fortran_MODULE_DIRECTORY}/ DESTINATION ${MALL_FORTRAN_MODDIR}
          FILES_MATCHING PATTERN "*.mod")
endfunction()
