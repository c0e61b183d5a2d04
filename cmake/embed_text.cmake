# Writes OUTPUT: a C++ source defining `char wgpt::cli::SYMBOL[]` holding the text of INPUT
# (for files the tool carries inside itself, such as the trace page's template).
file(READ "${INPUT}" text)
if(text MATCHES "\\)embed\"")
  message(FATAL_ERROR "${INPUT} contains ')embed\"', which would end the raw string early")
endif()
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${name} by cmake/embed_text.cmake. Do not edit.\n"
     "namespace wgpt::cli {\n\nextern const char ${SYMBOL}[];\n"
     "const char ${SYMBOL}[] = R\"embed(${text})embed\";\n\n}  // namespace wgpt::cli\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
