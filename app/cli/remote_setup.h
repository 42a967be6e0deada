#pragma once
// What generate, chat, trace and bench share when they run on a server (--remote URL) instead of
// a local model: the connection (URL, model, API key, certificate authorities), the sampling
// flags the API carries, and a clear refusal of the flags that only a local model has.

#include <optional>
#include <set>
#include <string>

#include "arguments.h"

#ifdef INFERLENS_HAVE_REMOTE
#include "remote/remote_generator.h"
#endif

namespace inferlens::cli {

// --remote URL --remote-model NAME --api-key-file FILE --ca-file PEM. Every command that can run
// on a server accepts them, also in a build without the remote client, which then says so.
std::set<std::string> remoteValueOptions();

// With --remote: runs `command` (generate, chat, trace or bench) on the server and returns its
// exit code. Without: nullopt, and the command runs on a local model. In a build without the
// remote client, --remote is a UsageError that says so.
std::optional<int> runOnServer(const std::string& command, const Arguments& args);

#ifdef INFERLENS_HAVE_REMOTE

// The connection made and the request settings read. The API key comes from --api-key-file (its
// first line) or the INFERLENS_API_KEY environment variable, never from the command line, where
// other users of the machine could read it. Throws UsageError for a flag that only a local model
// has, RemoteError when the server cannot be reached, refuses the key or serves no such model.
// Settings the server's API cannot carry are named on stderr (samplingNotCarried).
struct RemoteSetup {
    explicit RemoteSetup(const Arguments& args);

    remote::RemoteConnection connection;
    remote::RemoteSettings settings;
};

// The commands on a server (remote_commands.cpp).
int runRemoteGenerate(const Arguments& args);
int runRemoteChat(const Arguments& args);
int runRemoteTrace(const Arguments& args);
int runRemoteBench(const Arguments& args);

#endif

}  // namespace inferlens::cli
