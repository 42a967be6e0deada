# Links with LLVM's lld when it is installed (scripts/install-deps.sh installs it): the suite is
# about 100 executables, each of which GNU ld takes 2 to 3 s to link and lld under half a second.
# Without lld the default linker is used.
find_program(INFERLENS_LLD ld.lld)
if(INFERLENS_LLD)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>)
endif()
