# The browser build (included by CMakeLists.txt under Emscripten): the library and the API's C++
# half (web/wasm_api.cpp, web/js_values.cpp) as one WebAssembly module with an ES-module loader,
# plus the page, the JavaScript API and the model's files, assembled into one static folder:
# ${WGPT_WEB_SITE}.
#
# Settings:
#   WGPT_WEB_MODEL        the model directory shipped with the page
#   WGPT_NATIVE_TOOL      a native `wgpt` binary; when set, its greedy ids for the gate prompt
#                         (gate_expected.json) and its sampled ids (gate_sampled.json) are
#                         written beside the page for the page's ?gate mode
#   WGPT_WEB_GATE_PROMPT, WGPT_WEB_GATE_TOKENS   what the gate generates

set(WGPT_WEB_MODEL "${CMAKE_CURRENT_SOURCE_DIR}/assets/brown-char" CACHE PATH
    "The model directory the page ships")
set(WGPT_NATIVE_TOOL "" CACHE FILEPATH "A native wgpt binary, to write the gate's reference ids")
set(WGPT_WEB_GATE_PROMPT "The" CACHE STRING "The prompt the page's ?gate mode decodes greedily")
set(WGPT_WEB_GATE_TOKENS 24 CACHE STRING "How many tokens the gate compares")
set(WGPT_WEB_SITE "${CMAKE_CURRENT_BINARY_DIR}/site")
# The gate's sampled run, as the native tool's flags and as the JavaScript API's options (the
# manifest carries the latter to the page): the same settings, written twice.
set(WGPT_WEB_GATE_SAMPLING_FLAGS "--seed|7|--temp|0.9|--top-k|20|--top-p|0.95|--repeat-penalty|1.2|--repeat-last-n|16")
set(WGPT_WEB_GATE_SAMPLING_OPTIONS [[{"seed": 7, "temperature": 0.9, "topK": 20, "topP": 0.95, "repeatPenalty": 1.2, "repeatLastN": 16}]])

add_executable(wgpt_wasm web/wasm_api.cpp web/council_api.cpp web/session.cpp web/js_values.cpp)
target_link_libraries(wgpt_wasm PRIVATE wgpt_core wgpt_json)
target_link_options(wgpt_wasm PRIVATE
  -lembind -fexceptions --no-entry
  "SHELL:-s MODULARIZE=1" "SHELL:-s EXPORT_ES6=1" "SHELL:-s EXPORT_NAME=createWgptModule"
  "SHELL:-s ENVIRONMENT=web,worker" "SHELL:-s ALLOW_MEMORY_GROWTH=1" "SHELL:-s INITIAL_MEMORY=33554432"
  "SHELL:-s EXPORTED_FUNCTIONS=_malloc,_free"
  $<$<CONFIG:Release>:-O3>)
set_target_properties(wgpt_wasm PROPERTIES SUFFIX ".js" RUNTIME_OUTPUT_DIRECTORY "${WGPT_WEB_SITE}")

# The page and the JavaScript API, as they are (no bundler).
file(GLOB WGPT_WEB_PAGE CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/web/*.html"
     "${CMAKE_CURRENT_SOURCE_DIR}/web/*.js" "${CMAKE_CURRENT_SOURCE_DIR}/web/*.css")
# The model's files, under model/, with a manifest naming them (the weights' format is sniffed
# from their bytes when loaded, so the name is only for fetching).
file(GLOB WGPT_WEB_MODEL_FILES CONFIGURE_DEPENDS "${WGPT_WEB_MODEL}/*.json" "${WGPT_WEB_MODEL}/*.txt"
     "${WGPT_WEB_MODEL}/*.safetensors" "${WGPT_WEB_MODEL}/*.fzm")
set(WGPT_WEB_WEIGHTS "")
foreach(candidate model.fzm model.safetensors)
  if(NOT WGPT_WEB_WEIGHTS AND EXISTS "${WGPT_WEB_MODEL}/${candidate}")
    set(WGPT_WEB_WEIGHTS "${candidate}")
  endif()
endforeach()
if(NOT WGPT_WEB_WEIGHTS OR NOT EXISTS "${WGPT_WEB_MODEL}/config.json")
  message(FATAL_ERROR "WGPT_WEB_MODEL=${WGPT_WEB_MODEL} holds no config.json with model.fzm or model.safetensors")
endif()
set(WGPT_WEB_MERGES "")
if(EXISTS "${WGPT_WEB_MODEL}/merges.txt")
  set(WGPT_WEB_MERGES "merges.txt")
endif()
get_filename_component(WGPT_WEB_MODEL_NAME "${WGPT_WEB_MODEL}" NAME)
set(WGPT_WEB_GATE_FILE "")
set(WGPT_WEB_GATE_SAMPLED_FILE "")
if(WGPT_NATIVE_TOOL)
  set(WGPT_WEB_GATE_FILE "gate_expected.json")
  set(WGPT_WEB_GATE_SAMPLED_FILE "gate_sampled.json")
endif()
configure_file(web/manifest.json.in "${WGPT_WEB_SITE}/model/manifest.json" @ONLY)

set(WGPT_WEB_OUTPUTS "")
foreach(source ${WGPT_WEB_PAGE})
  get_filename_component(name "${source}" NAME)
  add_custom_command(OUTPUT "${WGPT_WEB_SITE}/${name}"
                     COMMAND ${CMAKE_COMMAND} -E copy "${source}" "${WGPT_WEB_SITE}/${name}"
                     DEPENDS "${source}" VERBATIM)
  list(APPEND WGPT_WEB_OUTPUTS "${WGPT_WEB_SITE}/${name}")
endforeach()
# Copies `files` into the site's `folder`, adding them to WGPT_WEB_OUTPUTS.
function(wgpt_web_copy folder)
  foreach(source ${ARGN})
    get_filename_component(name "${source}" NAME)
    # Removed first: model files are often read-only, and a copy keeps that.
    add_custom_command(OUTPUT "${WGPT_WEB_SITE}/${folder}/${name}"
                       COMMAND ${CMAKE_COMMAND} -E rm -f "${WGPT_WEB_SITE}/${folder}/${name}"
                       COMMAND ${CMAKE_COMMAND} -E copy "${source}" "${WGPT_WEB_SITE}/${folder}/${name}"
                       DEPENDS "${source}" VERBATIM)
    list(APPEND WGPT_WEB_OUTPUTS "${WGPT_WEB_SITE}/${folder}/${name}")
  endforeach()
  set(WGPT_WEB_OUTPUTS "${WGPT_WEB_OUTPUTS}" PARENT_SCOPE)
endfunction()
wgpt_web_copy(model ${WGPT_WEB_MODEL_FILES})

# The council view's experts under council/ (a manifest.json naming them, config.json, vocab.json):
# Forge's four belong to another project, so they come from ../shared beside the checkout, never
# from this repository; without them the view says so.
set(WGPT_WEB_COUNCIL "${CMAKE_CURRENT_SOURCE_DIR}/../shared/fixtures/forge-council" CACHE PATH
    "The council folder the page ships (empty or absent: none)")
if(EXISTS "${WGPT_WEB_COUNCIL}/manifest.json")
  file(GLOB WGPT_WEB_COUNCIL_FILES CONFIGURE_DEPENDS "${WGPT_WEB_COUNCIL}/*.json"
       "${WGPT_WEB_COUNCIL}/*.txt" "${WGPT_WEB_COUNCIL}/*.fzm" "${WGPT_WEB_COUNCIL}/*.safetensors")
  list(FILTER WGPT_WEB_COUNCIL_FILES EXCLUDE REGEX "\\.golden\\.")  # test data, not weights
  wgpt_web_copy(council ${WGPT_WEB_COUNCIL_FILES})
else()
  message(STATUS "No council at ${WGPT_WEB_COUNCIL}: the page's council view will say so")
endif()
if(WGPT_NATIVE_TOOL)
  foreach(reference "gate_expected.json|--greedy" "gate_sampled.json|${WGPT_WEB_GATE_SAMPLING_FLAGS}")
    string(FIND "${reference}" "|" split)
    string(SUBSTRING "${reference}" 0 ${split} file)
    math(EXPR split "${split} + 1")
    string(SUBSTRING "${reference}" ${split} -1 flags)
    add_custom_command(
      OUTPUT "${WGPT_WEB_SITE}/model/${file}"
      COMMAND ${CMAKE_COMMAND} "-DTOOL=${WGPT_NATIVE_TOOL}" "-DMODEL=${WGPT_WEB_MODEL}"
              "-DPROMPT=${WGPT_WEB_GATE_PROMPT}" "-DTOKENS=${WGPT_WEB_GATE_TOKENS}"
              "-DFLAGS=${flags}" "-DOUTPUT=${WGPT_WEB_SITE}/model/${file}"
              -P "${CMAKE_CURRENT_SOURCE_DIR}/web/gate_reference.cmake"
      DEPENDS "${WGPT_NATIVE_TOOL}" ${WGPT_WEB_MODEL_FILES} "${CMAKE_CURRENT_SOURCE_DIR}/web/gate_reference.cmake"
      COMMENT "The gate's reference: native ids for '${WGPT_WEB_GATE_PROMPT}' (${file})" VERBATIM)
    list(APPEND WGPT_WEB_OUTPUTS "${WGPT_WEB_SITE}/model/${file}")
  endforeach()
endif()
add_custom_target(web_site ALL DEPENDS ${WGPT_WEB_OUTPUTS} wgpt_wasm)

# Browser tests: headless Chromium on the served folder (tests/browser/web_page_test.mjs).
enable_testing()
set(WGPT_WEB_CHECKS page_loads run_streams_and_traces api_promises gate_passes stop_works
                    bad_input no_webgpu device_lost heatmap_follows_newest seed_in_url_reproduces)
foreach(check ${WGPT_WEB_CHECKS})
  add_test(NAME browser.${check}
           COMMAND node "${CMAKE_CURRENT_SOURCE_DIR}/tests/browser/web_page_test.mjs"
                   "${WGPT_WEB_SITE}" ${check})
  set_tests_properties(browser.${check} PROPERTIES TIMEOUT 240 LABELS browser)
endforeach()
# The council and surprise views (tests/browser/tool_views_test.mjs), screenshots in screenshots/.
foreach(check council_view surprise_view surprise_long_text)
  add_test(NAME browser.${check}
           COMMAND node "${CMAKE_CURRENT_SOURCE_DIR}/tests/browser/tool_views_test.mjs"
                   "${WGPT_WEB_SITE}" ${check})
  set_tests_properties(browser.${check} PROPERTIES TIMEOUT 240 LABELS browser)
endforeach()
# Two checks measure the page's main-thread stalls while a worker runs the model on the CPU: the
# long text's (a minute of scoring) and no_webgpu's (generation). Beside another browser test on a
# 2-core machine the page's threads went up to a second without running at all (a Chrome trace
# showed gaps with no task on the main thread, not long tasks; no_webgpu failed CI at 465 ms beside
# stop_works), so both run alone.
set_tests_properties(browser.surprise_long_text browser.no_webgpu PROPERTIES RUN_SERIAL TRUE)
