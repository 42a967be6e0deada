#include "remote_setup.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "core/error.h"
#include "generation_setup.h"

namespace inferlens::cli {

std::set<std::string> remoteValueOptions() {
    return {"remote", "remote-model", "api-key-file", "ca-file"};
}

std::optional<int> runOnServer(const std::string& command, const Arguments& args) {
    if (!args.value("remote")) {
        for (const std::string& name : remoteValueOptions())
            if (args.value(name))
                throw UsageError("--" + name + " needs --remote URL");
        return std::nullopt;
    }
#ifdef INFERLENS_HAVE_REMOTE
    if (command == "generate")
        return runRemoteGenerate(args);
    if (command == "chat")
        return runRemoteChat(args);
    if (command == "trace")
        return runRemoteTrace(args);
    if (command == "bench")
        return runRemoteBench(args);
    throw UsageError(command + " does not run on a server");
#else
    throw UsageError(command +
                     " --remote: this build has no remote client (configured with "
                     "INFERLENS_REMOTE=OFF)");
#endif
}

#ifdef INFERLENS_HAVE_REMOTE

namespace {

// The options a local model has and a server does not, with the reason the person is given.
constexpr std::pair<const char*, const char*> kLocalOnly[] = {
    {"model", "the server has its models; choose one of them with --remote-model NAME"},
    {"threads", "the server decides how it runs the model"},
    {"device", "the server decides how it runs the model"},
    {"attention", "attention stays on the server: the API returns tokens, not layers"},
    {"ctx-size", "the server's context is set when it is started"},
    {"kv-type", "the KV cache stays on the server"},
    {"window", "the KV cache stays on the server"},
    {"sinks", "the KV cache stays on the server"},
    {"no-cache", "the KV cache stays on the server"},
    {"beams",
     "beam search needs every hypothesis's scores at each step, which the API does "
     "not give"},
    {"nbest", "beam search runs only on a local model"},
    {"length-penalty", "beam search runs only on a local model"},
    {"no-early-stopping", "beam search runs only on a local model"},
    {"template", "the server applies its own chat template"},
    {"synth", "--synth generates a local model"},
    {"dtype", "--synth generates a local model"},
    {"capture-attention", "attention stays on the server: the API returns tokens, not layers"},
    {"warmup", "each of the --runs runs has a prompt of its own; their medians are reported"},
};

void refuseLocalOnlyOptions(const Arguments& args) {
    for (const auto& [name, why] : kLocalOnly)
        if (args.value(name) || args.flag(name))
            throw UsageError(std::string("--") + name + " does not apply with --remote: " + why);
}

// The first line of `path`, without its line end and surrounding blanks.
std::string keyFromFile(const std::string& path) {
    std::ifstream file(path);
    if (!file)
        throw Error(path + ": cannot read the API key file");
    std::string key;
    std::getline(file, key);
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!key.empty() && blank(key.back()))
        key.pop_back();
    size_t start = 0;
    while (start < key.size() && blank(key[start]))
        ++start;
    key.erase(0, start);
    if (key.empty())
        throw Error(path + ": the API key file's first line is empty");
    return key;
}

remote::HttpOptions httpOptionsFrom(const Arguments& args) {
    remote::HttpOptions options;
    options.baseUrl = args.required("remote");
    if (const auto path = args.value("api-key-file"))
        options.apiKey = keyFromFile(*path);
    else if (const char* key = std::getenv("INFERLENS_API_KEY"))
        options.apiKey = key;
    options.caBundlePath = args.value("ca-file").value_or("");
    return options;
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names)
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

}  // namespace

RemoteSetup::RemoteSetup(const Arguments& args)
    : connection((refuseLocalOnlyOptions(args), httpOptionsFrom(args)),
                 args.value("remote-model").value_or("")) {
    SamplingFlags flags = samplingFlagsFrom(args, std::nullopt);
    settings.sampling = std::move(flags.sampling);
    settings.stop = std::move(flags.stopStrings);
    settings.maxTokens = flags.maxTokens;
    const std::vector<std::string> dropped =
        remote::samplingNotCarried(connection.flavour(), settings.sampling);
    if (!dropped.empty())
        std::fprintf(stderr,
                     "inferlens-cli: %s does not take these settings, which are left out: %s\n",
                     std::string(remote::flavourName(connection.flavour())).c_str(),
                     joined(dropped).c_str());
}

#endif

}  // namespace inferlens::cli
