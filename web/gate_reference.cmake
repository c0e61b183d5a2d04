# Writes one of the gate's references: the native tool's generation as JSON (its ids are what the
# page's ?gate mode must reproduce in the browser), with the sampling FLAGS given ("|"-separated).
#   cmake -DTOOL=wgpt -DMODEL=dir -DPROMPT=text -DTOKENS=n -DFLAGS=--greedy -DOUTPUT=file
#         -P web/gate_reference.cmake
string(REPLACE "|" ";" FLAGS "${FLAGS}")
execute_process(
  COMMAND "${TOOL}" generate -m "${MODEL}" -p "${PROMPT}" -n "${TOKENS}" ${FLAGS} --json
  OUTPUT_FILE "${OUTPUT}" ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "${TOOL} generate failed (${status}): ${errors}")
endif()
