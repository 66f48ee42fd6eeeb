# The SDK's layering, checked on the preprocessor's view of the headers (-D CXX, SOURCE_DIR):
# - core/*.hpp, concepts.hpp and any.hpp (the concepts' type erasures) include nothing of the SDK
#   outside core/ (their definitions in core/impl/*.ipp included), version.hpp, detail/sha256.hpp
#   with its definitions (a leaf that content hashes need) and detail/separate_compilation.hpp
#   (the one macro that makes those definitions inline or compiled once): the value types, the
#   four concepts and their type erasures stand alone;
# - suite/*.hpp (the field's problems: descriptions, loaders, correctness rules) include only
#   suite/ and what core/ may: a problem's description never depends on the judge or the tool;
# - no `__has_include` on the project's own headers (a build either has a header or is broken).
set(include_dir ${SOURCE_DIR}/include)
file(GLOB core_headers ${include_dir}/socratic/core/*.hpp)
set(failures "")
foreach(header IN LISTS core_headers ITEMS ${include_dir}/socratic/concepts.hpp ${include_dir}/socratic/any.hpp)
  execute_process(COMMAND ${CXX} -std=c++20 -MM -I${include_dir} ${header}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${header}: does not preprocess:\n${err}\n")
    continue()
  endif()
  string(REGEX MATCHALL "include/socratic/[^ \\\n]+" used "${deps}")
  foreach(dep IN LISTS used)
    if(NOT dep MATCHES "^include/socratic/((core/[^/]+|version|concepts|any|detail/sha256|detail/separate_compilation)\\.hpp|(core/impl/[^/]+|impl/sha256)\\.ipp)$")
      string(APPEND failures "${header} includes ${dep}, outside core/\n")
    endif()
  endforeach()
endforeach()
file(GLOB suite_headers ${include_dir}/socratic/suite/*.hpp)
foreach(header IN LISTS suite_headers)
  execute_process(COMMAND ${CXX} -std=c++20 -MM -I${include_dir} ${header}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${header}: does not preprocess:\n${err}\n")
    continue()
  endif()
  string(REGEX MATCHALL "include/socratic/[^ \\\n]+" used "${deps}")
  foreach(dep IN LISTS used)
    if(NOT dep MATCHES "^include/socratic/((suite/[^/]+|core/[^/]+|version|detail/sha256|detail/separate_compilation)\\.hpp|(core/impl/[^/]+|impl/sha256)\\.ipp)$")
      string(APPEND failures "${header} includes ${dep}, outside suite/ and core/\n")
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE sources ${include_dir}/*.hpp ${SOURCE_DIR}/tools/*.hpp ${SOURCE_DIR}/tools/*.cpp)
foreach(source IN LISTS sources)
  file(STRINGS ${source} lines REGEX "__has_include *\\(\"socratic/")
  if(lines)
    string(APPEND failures "${source}: __has_include on a project header: ${lines}\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "layering:\n${failures}")
endif()
list(LENGTH core_headers n)
list(LENGTH suite_headers s)
message(STATUS "layering: ${n} core headers, concepts.hpp and any.hpp include only core/, ${s} suite headers only suite/ and core/; no __has_include on project headers")
