# INFERLENS_FUZZ instruments every target for libFuzzer's coverage and for ASan and UBSan (the fuzz
# executables themselves link libFuzzer: tests/fuzz/CMakeLists.txt).
if(INFERLENS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "INFERLENS_FUZZ needs clang (CC=clang CXX=clang++): libFuzzer is clang's")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# INFERLENS_SANITIZE is handed to -fsanitize= as it is, for every target of the project.
if(INFERLENS_SANITIZE)
  message(STATUS "InferLens: sanitizers -fsanitize=${INFERLENS_SANITIZE}")
  add_compile_options(-fsanitize=${INFERLENS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${INFERLENS_SANITIZE})
endif()
