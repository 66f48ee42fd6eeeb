# Extracts every ```cpp block of README.md and compiles it (syntax and types, no link), so the
# README's examples cannot rot; a block may include no Socratic header but <socratic/socratic.hpp>,
# so the umbrella header must declare all they use. -D README, OUT_DIR, CXX, INCLUDE_DIR.
file(READ ${README} text)
# CMake lists are ';'-separated: hide the code's semicolons while splitting into blocks.
string(REPLACE ";" "@SEMICOLON@" text "${text}")
string(REGEX MATCHALL "```cpp\n[^`]*```" blocks "${text}")
list(LENGTH blocks count)
if(count EQUAL 0)
  message(FATAL_ERROR "no ```cpp block found in ${README}")
endif()
set(i 0)
foreach(block IN LISTS blocks)
  string(REGEX REPLACE "^```cpp\n" "" code "${block}")
  string(REGEX REPLACE "```$" "" code "${code}")
  string(REPLACE "@SEMICOLON@" ";" code "${code}")
  # The umbrella header declares everything a README example uses.
  string(REGEX MATCHALL "#include <socratic/[^>]*>" includes "${code}")
  foreach(inc IN LISTS includes)
    if(NOT inc STREQUAL "#include <socratic/socratic.hpp>")
      message(FATAL_ERROR "README block ${i} includes ${inc}: the README's examples use <socratic/socratic.hpp> alone")
    endif()
  endforeach()
  set(src ${OUT_DIR}/readme_block_${i}.cpp)
  file(WRITE ${src} "${code}")
  # As the README's quick start builds them: the heavy parts compiled separately.
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Wextra -DSOCRATIC_SEPARATE_COMPILATION=1
                          -DBOOST_PROCESS_USE_STD_FS=1 "-DSOCRATIC_DATA_DIR=\"/usr/local/share/socratic\""
                          -I${INCLUDE_DIR} ${src}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "README block ${i} does not compile:\n${err}")
  endif()
  math(EXPR i "${i} + 1")
endforeach()
message(STATUS "${count} README block(s) compile")
