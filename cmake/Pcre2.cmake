# PCRE2 (8-bit code units), as the target inferlens::pcre2, for the pre-tokenizers of byte-level BPE
# vocabularies: through pkg-config where Debian's libpcre2-dev installed it, else by a plain search
# under CMAKE_PREFIX_PATH (tests/gpu/check.sh unpacks the .deb files into a prefix).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(Pcre2 QUIET IMPORTED_TARGET libpcre2-8)
endif()
add_library(inferlens_pcre2 INTERFACE)
add_library(inferlens::pcre2 ALIAS inferlens_pcre2)
if(Pcre2_FOUND)
  target_link_libraries(inferlens_pcre2 INTERFACE PkgConfig::Pcre2)
else()
  find_path(PCRE2_INCLUDE_DIR pcre2.h)
  find_library(PCRE2_LIBRARY pcre2-8)
  if(NOT PCRE2_INCLUDE_DIR OR NOT PCRE2_LIBRARY)
    message(FATAL_ERROR "PCRE2 was not found: install libpcre2-dev "
                        "(scripts/install-deps.sh does), or point CMAKE_PREFIX_PATH at it")
  endif()
  target_include_directories(inferlens_pcre2 INTERFACE ${PCRE2_INCLUDE_DIR})
  target_link_libraries(inferlens_pcre2 INTERFACE ${PCRE2_LIBRARY})
endif()
