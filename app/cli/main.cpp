// inferlens-cli: the engine from the command line.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <new>

#include "arguments.h"
#include "commands.h"
#include "core/error.h"

namespace {

constexpr const char* kUsage = R"(usage: inferlens-cli COMMAND [OPTIONS]

Every command that reads a model takes --model PATH: a GGUF file, or a Hugging Face directory
(config.json, model.safetensors or model.safetensors.index.json — or PyTorch's pytorch_model.bin or
pytorch_model.bin.index.json —, tokenizer.model). Without it, the INFERLENS_MODEL environment
variable names the model, else the bundled model is used.

commands:
  info     --model PATH
           Validate the whole model (tensors, configuration, tokenizer) and describe it.
  tokenize [--model PATH] --text TEXT [--json] [--no-prefix]
           The ids, pieces and byte spans of TEXT, with the model's own prefix tokens.
  generate [--model PATH] --prompt TEXT [--json] [--no-cache] [SAMPLING] [RUN]
           Continue TEXT as given (the model's prefix tokens are added, no chat template).
           stdout carries only the generated text; --json prints one object per step with
           its sampling trace. --beams K [--nbest N] [--length-penalty X]
           [--no-early-stopping]: beam search instead of sampling (the sampling flags do not
           apply); --json then prints the hypotheses and the search tree.
  chat     [--model PATH] [--system TEXT] [--template auto|chatglm2|chatglm3|llama2|zephyr|plain]
           [SAMPLING] [RUN]
           Interactive multi-turn chat; each stdin line is a user message. --template auto
           (the default) renders the model's own Jinja chat template, else a built-in one.
  trace    [--model PATH] --prompt TEXT [--chat] [--system TEXT] [--template NAME]
           [--attention all|none|LAYER:HEAD,...] [--out FILE] [SAMPLING] [RUN]
           Every probe event of one generation as JSON lines.
  score    [--model PATH] (--text TEXT | --file FILE) [--json] [--ctx-size N] [--threads N]
           Mean next-token loss (nats/token) and perplexity of texts: FILE.jsonl holds one
           {"text": ...} document a line, any other file is one document. Each document is
           scored as training saw it: prefix tokens, the text, the end-of-sequence token.
  logits   --model PATH --ids 1,2,3 --out FILE.npy [--no-cache] [--ctx-size N] [--threads N]
           [--device D] [--attention fused|reference] [--kv-type T] [--window W [--sinks S]]
           Run the ids exactly as given and save float32 logits [n_ids, vocab] as .npy.
  synth    --out PATH [--arch llama|chatglm|qwen2|qwen3|gemma3] [--layers N] [--hidden N]
           [--heads N] [--kv-heads N] [--head-dim N] [--ffn N] [--vocab N] [--ctx N]
           [--rope-base X] [--rope-scaling none|linear|llama3 [--rope-factor X]
           [--rope-original-ctx N]] [--sliding-window N] [--sliding-pattern N]
           [--local-rope-base X] [--softcap X] (the last four: gemma3) [--dtype TYPE] [--seed N]
           [--format gguf|hf] [--tied-embeddings]
           Write a random-weight model with a sentencepiece tokenizer.
  convert  --model PATH --out PATH --format gguf|hf [--dtype TYPE]
           Convert between a GGUF file and a Hugging Face directory. TYPE: f32, f16, bf16, or
           (GGUF only) q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k; a quantized GGUF
           becomes f32 in a Hugging Face directory (exact dequantization).

  kv-experiment [--model PATH] --prompt TEXT [--chat] [--system TEXT] [--template NAME]
           [--tokens N] [--threads N] [--json]
           Generate N tokens (default 128) greedily twice, with and without the KV cache: are
           the tokens identical, and the time and FLOPs of the first 32, 64, 128, 256 tokens.
           Exits with 1 if the tokens differ.

  bench    [--model PATH | --synth chatglm2-6b|tinyllama-1.1b [--dtype f16|bf16|q8_0|q4_0]]
           [--prompt-tokens N] [--gen-tokens N] [--threads N] [--ctx-size N] [--device D]
           [--attention fused|reference] [--kv-type T] [--window W [--sinks S]]
           [--capture-attention] [--warmup] [--json]
           Measure prefill and decode tokens/s, time to first token and peak memory. --synth
           runs random weights of a known shape generated on the GPU (needs --device cuda).
           --warmup: an untimed run first, as llama-bench does (else a cold start's figures).

SAMPLING: --seed N --temperature X (0: greedy) --top-k N (0: off) --top-p X --min-p X
          --repeat-penalty X --repeat-last-n N --frequency-penalty X --presence-penalty X
          --logit-bias ID=X (added to a token's logit; -inf bans it, +inf forces it)
          --ban TEXT (never generated, however it would be split into tokens)
          --min-tokens N (the turn cannot end before N new tokens)
          --grammar FILE (GBNF) or --json-schema FILE: the output follows it, and is whole
          when --max-tokens ends it
          (--logit-bias, --ban and --stop may be given several times)
RUN:      --max-tokens N --ctx-size N --threads N (0: all cores) --device cpu|cuda[:N]
          --attention fused|reference (the CPU's attention kernel: fused is tiled with an
          online softmax and never stores the probabilities, reference computes every one;
          not on trace, whose --attention picks the heads to record)
          --kv-type f32|f16|int8 (how the CPU's KV cache stores keys and values: f16 halves
          its memory, int8 quarters it, with a scale per head and token)
          --window W [--sinks S] (a sliding KV cache on the CPU: keep the first S tokens,
          default 4, and the last W; generation runs on past the context, in bounded memory)
          --stop TEXT (end the generation where TEXT appears; it is not printed)

REMOTE:   --remote URL [--remote-model NAME] [--api-key-file FILE] [--ca-file PEM]
          generate, chat, trace and bench run on a server that speaks the OpenAI API
          (llama-server, vLLM, SGLang, ...) instead of a local model: the server's tokenizer,
          chat template and context; the sampling trace from its top log-probabilities (the
          unknown tail's mass kept as such); step times from the tokens' arrival. The API key
          is read from FILE's first line or INFERLENS_API_KEY, never from the command line.
          Flags of a local model (--model, --device, --kv-type, --beams, ...) are refused;
          settings the server does not take are named on stderr. bench --runs N: medians.

exit codes: 0 success, 1 the work failed (the reason is printed), 2 wrong usage.
)";

}  // namespace

int main(int argc, char** argv) {
    using namespace inferlens::cli;
    const std::map<std::string, std::function<int(const Words&)>> commands{
        {"info", runInfo},
        {"logits", runLogits},
        {"synth", runSynth},
        {"convert", runConvert},
        {"bench", runBench},
        {"tokenize", runTokenize},
        {"generate", runGenerate},
        {"chat", runChat},
        {"trace", runTrace},
        {"score", runScore},
        {"kv-experiment", runKvExperiment}};
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const auto command = commands.find(argv[1]);
    if (command == commands.end()) {
        std::fprintf(stderr, "inferlens-cli: unknown command '%s'\n\n%s", argv[1], kUsage);
        return 2;
    }
    const Words words(argv + 2, argv + argc);
    if (std::find(words.begin(), words.end(), "--help") != words.end()) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    try {
        return command->second(words);
    } catch (const UsageError& error) {
        std::fprintf(stderr, "inferlens-cli %s: %s (see inferlens-cli --help)\n", argv[1],
                     error.what());
        return 2;
    } catch (const inferlens::Error& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "error: out of memory\n");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
    }
    return 1;
}
