# Builds and runs a consumer project against Socratic, either installed (MODE=install) or added
# with add_subdirectory (MODE=subdir). Invoked by CTest with -D SOURCE_DIR, WORK_DIR, MODE.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(consumer_flags -DCMAKE_BUILD_TYPE=Release)
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/socratic-build -DCMAKE_BUILD_TYPE=Release
      -DSOCRATIC_BUILD_TESTS=OFF -DSOCRATIC_BUILD_EXAMPLES=OFF -DSOCRATIC_BUILD_TOOLS=OFF
      -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/socratic-build)
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/packaging/installed_consumer -B ${WORK_DIR}/consumer
      ${consumer_flags} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/packaging/subdir_consumer -B ${WORK_DIR}/consumer
      ${consumer_flags} -DSOCRATIC_SOURCE=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)
message(STATUS "consumer (${MODE}) built and ran")
