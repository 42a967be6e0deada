# sentencepiece, as the target inferlens::sentencepiece: through pkg-config where the Debian
# package installed it, else by a plain search under CMAKE_PREFIX_PATH (tests/gpu/check.sh unpacks
# the .deb files into a prefix on a machine that has no pkg-config data for it).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SentencePiece QUIET IMPORTED_TARGET sentencepiece)
endif()
add_library(inferlens_sentencepiece INTERFACE)
add_library(inferlens::sentencepiece ALIAS inferlens_sentencepiece)
if(SentencePiece_FOUND)
  target_link_libraries(inferlens_sentencepiece INTERFACE PkgConfig::SentencePiece)
else()
  find_path(SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h)
  find_library(SENTENCEPIECE_LIBRARY sentencepiece)
  if(NOT SENTENCEPIECE_INCLUDE_DIR OR NOT SENTENCEPIECE_LIBRARY)
    message(FATAL_ERROR "sentencepiece was not found: install libsentencepiece-dev "
                        "(scripts/install-deps.sh does), or point CMAKE_PREFIX_PATH at it")
  endif()
  target_include_directories(inferlens_sentencepiece INTERFACE ${SENTENCEPIECE_INCLUDE_DIR})
  target_link_libraries(inferlens_sentencepiece INTERFACE ${SENTENCEPIECE_LIBRARY})
endif()
