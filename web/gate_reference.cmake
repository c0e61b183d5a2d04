# Writes the gate's reference: the native tool's greedy generation as JSON (its ids are what the
# page's ?gate mode must reproduce in the browser).
#   cmake -DTOOL=wgpt -DMODEL=dir -DPROMPT=text -DTOKENS=n -DOUTPUT=file -P web/gate_reference.cmake
execute_process(
  COMMAND "${TOOL}" generate -m "${MODEL}" -p "${PROMPT}" -n "${TOKENS}" --greedy --json
  OUTPUT_FILE "${OUTPUT}" ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "${TOOL} generate failed (${status}): ${errors}")
endif()
