# INFERLENS_SANITIZE is handed to -fsanitize= as it is, for every target of the project.
if(INFERLENS_SANITIZE)
  message(STATUS "InferLens: sanitizers -fsanitize=${INFERLENS_SANITIZE}")
  add_compile_options(-fsanitize=${INFERLENS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${INFERLENS_SANITIZE})
endif()
