# Layers enforced by the build: one library per folder of src/, linking only the layers below it.
#
# A layer's sources see exactly two include folders, both generated here under
# ${CMAKE_BINARY_DIR}/layers/NAME/:
#   include/wgpt/  links to the public headers (include/wgpt/*.h) of the layer and of every layer
#                  below it, and to no other;
#   private/NAME/  links to the layer's own private headers (src/NAME/*.h, included as "NAME/x.h").
# So an include the wrong way across layers — a public header of a layer above, or another layer's
# private header — is "No such file" at compile time; tests/layers/ proves it in CI. What a layer
# links with (its DEPENDS) decides what it sees, so the two cannot drift apart.
#
# Every header of include/wgpt/ belongs to exactly one layer: wgpt_public_headers() holds the table,
# and configuring fails naming a header that is missing from it. Layer libraries keep their include
# folders private; programs and tests use the umbrella target wgpt_core (wgpt::wgpt), whose
# interface is include/ itself.

# wgpt_public_headers(HEADER LAYER [HEADER LAYER ...]): which layer owns each public header.
function(wgpt_public_headers)
  set(pairs ${ARGN})
  list(LENGTH pairs count)
  math(EXPR odd "${count} % 2")
  if(odd)
    message(FATAL_ERROR "wgpt_public_headers: give HEADER LAYER pairs")
  endif()
  set(listed "")
  while(pairs)
    list(POP_FRONT pairs header layer)
    if(NOT EXISTS "${CMAKE_SOURCE_DIR}/include/wgpt/${header}")
      message(FATAL_ERROR "wgpt_public_headers: include/wgpt/${header} does not exist")
    endif()
    set_property(GLOBAL APPEND PROPERTY WGPT_LAYER_HEADERS_${layer} "${header}")
    list(APPEND listed "${header}")
  endwhile()
  file(GLOB present CONFIGURE_DEPENDS RELATIVE "${CMAKE_SOURCE_DIR}/include/wgpt"
       "${CMAKE_SOURCE_DIR}/include/wgpt/*.h")
  foreach(header ${present})
    if(NOT header IN_LIST listed)
      message(FATAL_ERROR "include/wgpt/${header} belongs to no layer: add `${header} LAYER` to "
                          "wgpt_public_headers() in CMakeLists.txt")
    endif()
  endforeach()
endfunction()

# Links (or, where the file system refuses links, copies) `source` as `link`.
function(_wgpt_stage source link)
  get_filename_component(folder "${link}" DIRECTORY)
  file(MAKE_DIRECTORY "${folder}")
  file(CREATE_LINK "${source}" "${link}" SYMBOLIC COPY_ON_ERROR)
endfunction()

# Gives `target` the include folders and private dependencies of layer `layer`, exactly as the
# layer's own sources get them (tests/layers/ compiles its probes through this).
function(wgpt_layer_compile_settings target layer)
  set(root "${CMAKE_BINARY_DIR}/layers/${layer}")
  target_include_directories(${target} PRIVATE "${root}/include" "${root}/private")
  get_property(system_includes GLOBAL PROPERTY WGPT_LAYER_SYSTEM_INCLUDES_${layer})
  if(system_includes)
    target_include_directories(${target} SYSTEM PRIVATE ${system_includes})
  endif()
  # Header-only (nlohmann-json): nothing to link, so it stays out of the installed interface.
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:wgpt_json>)
endfunction()

# wgpt_add_layer(NAME [DEPENDS LOWER...] [SOURCES extra.cpp...] [SYSTEM_INCLUDES dir...])
# Adds target wgpt_NAME from src/NAME/*.cpp (a header-only layer becomes an interface library).
# DEPENDS names only layers added before; their own dependencies come along.
function(wgpt_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS;SOURCES;SYSTEM_INCLUDES")
  set(visible ${name})
  foreach(lower ${arg_DEPENDS})
    if(NOT TARGET wgpt_${lower})
      message(FATAL_ERROR "layer ${name} depends on ${lower}, which is not a layer added before it")
    endif()
    get_property(lower_visible GLOBAL PROPERTY WGPT_LAYER_VISIBLE_${lower})
    list(APPEND visible ${lower_visible})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set_property(GLOBAL PROPERTY WGPT_LAYER_VISIBLE_${name} ${visible})
  set_property(GLOBAL PROPERTY WGPT_LAYER_SYSTEM_INCLUDES_${name} ${arg_SYSTEM_INCLUDES})
  set_property(GLOBAL APPEND PROPERTY WGPT_LAYERS ${name})

  # Staged afresh at every configure, so a header that left a layer leaves its staging too.
  set(root "${CMAKE_BINARY_DIR}/layers/${name}")
  file(REMOVE_RECURSE "${root}")
  foreach(layer ${visible})
    get_property(headers GLOBAL PROPERTY WGPT_LAYER_HEADERS_${layer})
    foreach(header ${headers})
      _wgpt_stage("${CMAKE_SOURCE_DIR}/include/wgpt/${header}" "${root}/include/wgpt/${header}")
    endforeach()
  endforeach()
  file(GLOB private_headers CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/src/${name}/*.h")
  foreach(header ${private_headers})
    get_filename_component(file_name "${header}" NAME)
    _wgpt_stage("${header}" "${root}/private/${name}/${file_name}")
  endforeach()
  file(MAKE_DIRECTORY "${root}/include" "${root}/private")

  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/src/${name}/*.cpp")
  list(APPEND sources ${arg_SOURCES})
  if(sources)
    add_library(wgpt_${name} STATIC ${sources})
    wgpt_layer_compile_settings(wgpt_${name} ${name})
    foreach(lower ${arg_DEPENDS})
      target_link_libraries(wgpt_${name} PUBLIC wgpt_${lower})
    endforeach()
  else()
    add_library(wgpt_${name} INTERFACE)
    foreach(lower ${arg_DEPENDS})
      target_link_libraries(wgpt_${name} INTERFACE wgpt_${lower})
    endforeach()
  endif()
  set_target_properties(wgpt_${name} PROPERTIES EXPORT_NAME ${name})
endfunction()

# Every layer's target, lowest first.
function(wgpt_layer_targets out)
  get_property(layers GLOBAL PROPERTY WGPT_LAYERS)
  set(targets "")
  foreach(layer ${layers})
    list(APPEND targets wgpt_${layer})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# tests/layers/refused/LAYER_what.cpp must fail to compile as part of LAYER, on the first header it
# includes, and tests/layers/allowed/LAYER_what.cpp must compile: the first proves that a wrong
# include is a build error, the second that the check is not failing everything. Each builds a
# target of its own (excluded from `all`) through the real build, one at a time.
function(wgpt_add_layer_checks)
  foreach(outcome refused allowed)
    file(GLOB probes CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/tests/layers/${outcome}/*.cpp")
    foreach(probe ${probes})
      get_filename_component(stem "${probe}" NAME_WE)
      string(REGEX REPLACE "_.*" "" layer "${stem}")
      if(NOT TARGET wgpt_${layer})
        message(FATAL_ERROR "${probe}: the name must start with a layer and '_'")
      endif()
      set(target wgpt_layer_check_${outcome}_${stem})
      add_library(${target} OBJECT EXCLUDE_FROM_ALL "${probe}")
      wgpt_layer_compile_settings(${target} ${layer})
      add_test(NAME layers.${outcome}.${stem}
               COMMAND ${CMAKE_COMMAND} --build "${CMAKE_BINARY_DIR}" --target ${target})
      set_tests_properties(layers.${outcome}.${stem} PROPERTIES RESOURCE_LOCK wgpt_build_tree
                                                                LABELS layers)
      if(outcome STREQUAL "refused")
        file(STRINGS "${probe}" first_include REGEX "^#include [<\"]" LIMIT_COUNT 1)
        string(REGEX REPLACE "^#include [<\"]([^>\"]+)[>\"].*" "\\1" header "${first_include}")
        string(REPLACE "." "\\." header_pattern "${header}")
        # GCC: "wgpt/model.h: No such file or directory"; clang: "'wgpt/model.h' file not found".
        set_tests_properties(layers.${outcome}.${stem} PROPERTIES PASS_REGULAR_EXPRESSION
                             "${header_pattern}'?:? (No such file or directory|file not found)")
      endif()
    endforeach()
  endforeach()
endfunction()
