#pragma once
// Where to find a model when the user names none: the INFERLENS_MODEL environment variable, then
// the bundled model next to the executable (build tree or install prefix). The lookup depends on
// the executable's location, never on the working directory.

#include <string>
#include <vector>

namespace inferlens {

// Where the bundled model is looked for, in order: <executable>/../share/inferlens/models, the
// source tree (build-tree executables), the configured install prefix.
std::vector<std::string> defaultModelCandidates();
// INFERLENS_MODEL when set (even if missing: opening it then names the problem), else the first
// candidate that exists; throws Error listing what was tried when none does.
std::string findDefaultModel();

}  // namespace inferlens
