# wgpt::version(), commit() and webgpu_build() (include/wgpt/version.h): the version comes from
# project(), the WebGPU library's description is found here, the commit at every build.

if(EMSCRIPTEN)
  set(WGPT_WEBGPU_BUILD "the browser's WebGPU, through Emscripten")
else()
  # The library's file name, the npm package it came from (package.json beside it), its digest.
  get_filename_component(library_name "${WGPT_WEBGPU_LIBRARY}" NAME)
  get_filename_component(library_folder "${WGPT_WEBGPU_LIBRARY}" DIRECTORY)
  file(SHA256 "${WGPT_WEBGPU_LIBRARY}" library_digest)
  string(SUBSTRING "${library_digest}" 0 16 library_digest)
  set(WGPT_WEBGPU_BUILD "${library_name}")
  if(EXISTS "${library_folder}/package.json")
    file(READ "${library_folder}/package.json" package)
    string(JSON package_name ERROR_VARIABLE no_name GET "${package}" name)
    string(JSON package_version ERROR_VARIABLE no_version GET "${package}" version)
    if(NOT no_name AND NOT no_version)
      string(APPEND WGPT_WEBGPU_BUILD " from npm ${package_name} ${package_version}")
    endif()
    if(package MATCHES "\"dawn\"")
      string(APPEND WGPT_WEBGPU_BUILD " (Dawn)")
    endif()
  endif()
  string(APPEND WGPT_WEBGPU_BUILD ", sha256 ${library_digest}…")
endif()

set(WGPT_VERSION_CPP "${CMAKE_CURRENT_BINARY_DIR}/generated/version.cpp")
add_custom_target(wgpt_version_info
  COMMAND ${CMAKE_COMMAND} "-DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}" "-DOUTPUT=${WGPT_VERSION_CPP}"
          "-DVERSION=${PROJECT_VERSION}" "-DWEBGPU_BUILD=${WGPT_WEBGPU_BUILD}"
          -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/version_info.cmake"
  BYPRODUCTS "${WGPT_VERSION_CPP}"
  COMMENT "Recording the commit"
  VERBATIM)
