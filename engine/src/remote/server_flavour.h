#pragma once
// Which server we talk to, where the OpenAI-compatible servers differ: request field names
// (llama-server's repeat_penalty and n_probs, vLLM's and SGLang's repetition_penalty), which
// sampling settings they accept beyond OpenAI's, and their discovery and tokenizer endpoints.

#include <string_view>

namespace inferlens::remote {

enum class ServerFlavour {
    GenericOpenAi,  // only what the OpenAI API reference defines
    LlamaServer,    // llama.cpp's llama-server
    Vllm,
    Sglang,
};

inline std::string_view flavourName(ServerFlavour flavour) {
    switch (flavour) {
        case ServerFlavour::GenericOpenAi:
            return "OpenAI-compatible";
        case ServerFlavour::LlamaServer:
            return "llama-server";
        case ServerFlavour::Vllm:
            return "vLLM";
        case ServerFlavour::Sglang:
            return "SGLang";
    }
    return "OpenAI-compatible";
}

}  // namespace inferlens::remote
