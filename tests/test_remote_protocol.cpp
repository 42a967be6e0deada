// The OpenAI-compatible protocol of remote/: request bodies per server flavour, and answers in the
// shapes each project documents or defines in its source, labelled with where they come from.
// Expected values are read off those documents by hand.

#include <algorithm>

#include <QTest>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "remote/openai_request.h"
#include "remote/openai_response.h"
#include "remote/remote_error.h"
#include "remote/server_info.h"

using namespace inferlens::remote;
using nlohmann::json;

// JSON compared as text (keys sorted), so that a failure shows both values.
#define COMPARE_JSON(actual, expected)                    \
    QCOMPARE(QString::fromStdString(json(actual).dump()), \
             QString::fromStdString(json(expected).dump()))

namespace {

GenerationRequest everySetting() {
    GenerationRequest request;
    request.model = "m";
    request.maxTokens = 64;
    request.temperature = 0.7;
    request.topP = 0.9;
    request.topK = 40;
    request.minP = 0.05;
    request.presencePenalty = 0.1;
    request.frequencyPenalty = 0.2;
    request.repetitionPenalty = 1.1;
    request.seed = 42;
    request.stop = {"\n\n"};
    request.logitBias = {{15043, -100.0}};
    request.topLogprobs = 5;
    return request;
}

RemoteErrorKind kindOfFailure(std::string_view text) {
    try {
        parseCompletionUpdate(text);
    } catch (const RemoteError& error) {
        return error.kind();
    }
    return RemoteErrorKind::Other;
}

std::string bytesOf(std::initializer_list<int> values) {
    std::string bytes;
    for (int value : values)
        bytes.push_back(char(value));
    return bytes;
}

}  // namespace

class TestRemoteProtocol : public QObject {
    Q_OBJECT
  private slots:
    // ---- requests ----

    void onlySetFieldsAreWritten() {
        GenerationRequest request;
        request.stream = false;
        const json body = chatCompletionBody(ServerFlavour::Vllm, request, {{"user", "hi"}});
        const json expected = {{"stream", false},
                               {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
        QCOMPARE(QString::fromStdString(body.dump()), QString::fromStdString(expected.dump()));
    }

    void genericChatRequestHasOnlyOpenAiFields() {
        const json body =
            chatCompletionBody(ServerFlavour::GenericOpenAi, everySetting(), {{"user", "hi"}});
        // OpenAI API reference, chat/create: logprobs (bool) + top_logprobs (int); logit_bias maps
        // token ids (as strings) to a bias.
        COMPARE_JSON(body.at("logprobs"), json(true));
        COMPARE_JSON(body.at("top_logprobs"), json(5));
        COMPARE_JSON(body.at("logit_bias"), json({{"15043", -100.0}}));
        COMPARE_JSON(body.at("stream_options"), json({{"include_usage", true}}));
        COMPARE_JSON(body.at("max_tokens"), json(64));
        COMPARE_JSON(body.at("seed"), json(42));
        COMPARE_JSON(body.at("stop"), json({"\n\n"}));
        for (const char* absent :
             {"top_k", "min_p", "repetition_penalty", "repeat_penalty", "n_probs"})
            QVERIFY2(!body.contains(absent), absent);
        const auto dropped = settingsNotCarried(ServerFlavour::GenericOpenAi, everySetting());
        QCOMPARE(dropped, (std::vector<std::string>{"top_k", "min_p", "repetition_penalty"}));
    }

    void llamaServerRequestUsesItsNames() {
        // llama-server b4747 README (examples/server/README.md, POST /completion options):
        // repeat_penalty, n_probs, top_k, min_p; logit_bias as [[id, bias]] (server.cpp).
        const json body =
            chatCompletionBody(ServerFlavour::LlamaServer, everySetting(), {{"user", "hi"}});
        COMPARE_JSON(body.at("repeat_penalty"), json(1.1));
        COMPARE_JSON(body.at("n_probs"), json(5));
        COMPARE_JSON(body.at("top_k"), json(40));
        COMPARE_JSON(body.at("min_p"), json(0.05));
        COMPARE_JSON(body.at("logit_bias"), json::parse("[[15043, -100.0]]"));
        QVERIFY(!body.contains("repetition_penalty"));
        QVERIFY(settingsNotCarried(ServerFlavour::LlamaServer, everySetting()).empty());
    }

    void vllmAndSglangRequestsUseRepetitionPenalty() {
        for (ServerFlavour flavour : {ServerFlavour::Vllm, ServerFlavour::Sglang}) {
            // vLLM CompletionRequest (vllm/entrypoints/openai/engine/protocol.py) and SGLang's
            // sampling parameters: repetition_penalty, top_k, min_p.
            const json body = completionBody(flavour, everySetting(), std::string("Once"));
            COMPARE_JSON(body.at("repetition_penalty"), json(1.1));
            COMPARE_JSON(body.at("top_k"), json(40));
            COMPARE_JSON(body.at("prompt"), json("Once"));
            // Legacy completions: logprobs is the number of alternatives.
            COMPARE_JSON(body.at("logprobs"), json(5));
            QVERIFY(!body.contains("top_logprobs"));
            QVERIFY(!body.contains("repeat_penalty"));
            QVERIFY(!body.contains("n_probs"));
        }
    }

    void completionPromptMayBeTokenIds() {
        const json body = completionBody(ServerFlavour::LlamaServer, GenerationRequest(),
                                         std::vector<int32_t>{1, 15043, 29991});
        COMPARE_JSON(body.at("prompt"), json({1, 15043, 29991}));
    }

    void streamOptionsOnlyWhenStreaming() {
        // vLLM rejects stream_options without stream (validate_stream_options).
        GenerationRequest request;
        request.stream = false;
        QVERIFY(!completionBody(ServerFlavour::Vllm, request, std::string("x"))
                     .contains("stream_options"));
    }

    void flavourSpecificSwitches() {
        GenerationRequest request;
        request.postSamplingProbs = true;
        request.tokensAsIds = true;
        const json llama = completionBody(ServerFlavour::LlamaServer, request, std::string("x"));
        COMPARE_JSON(llama.at("post_sampling_probs"), json(true));
        QVERIFY(!llama.contains("return_tokens_as_token_ids"));
        const json vllm = completionBody(ServerFlavour::Vllm, request, std::string("x"));
        COMPARE_JSON(vllm.at("return_tokens_as_token_ids"), json(true));
        QVERIFY(!vllm.contains("post_sampling_probs"));
    }

    // Branching: vLLM and SGLang continue a final assistant message when asked (their chat
    // request's continue_final_message, add_generation_prompt false); llama-server continues one by
    // itself; a plain OpenAI server cannot, which is named.
    void continuingAnAnswer() {
        GenerationRequest request;
        request.continueFinalMessage = true;
        const std::vector<ChatMessage> messages{{"user", "Hi"}, {"assistant", "Hello, I"}};
        for (const ServerFlavour flavour : {ServerFlavour::Vllm, ServerFlavour::Sglang}) {
            const json body = chatCompletionBody(flavour, request, messages);
            COMPARE_JSON(body.at("continue_final_message"), json(true));
            COMPARE_JSON(body.at("add_generation_prompt"), json(false));
        }
        const json llama = chatCompletionBody(ServerFlavour::LlamaServer, request, messages);
        QVERIFY(!llama.contains("continue_final_message"));
        COMPARE_JSON(llama.at("messages").back().at("content"), json("Hello, I"));
        const auto dropped = settingsNotCarried(ServerFlavour::GenericOpenAi, request);
        QVERIFY(std::find(dropped.begin(), dropped.end(), "continue_final_message") !=
                dropped.end());
        QVERIFY(!chatCompletionBody(ServerFlavour::Vllm, GenerationRequest{}, messages)
                     .contains("continue_final_message"));
    }

    // GBNF is llama-server's dialect: only there is a grammar sent, elsewhere it is named as not
    // carried rather than sent to a field that reads another dialect.
    void grammarOnlyForLlamaServer() {
        GenerationRequest request;
        request.grammar = "root ::= \"yes\" | \"no\"";
        COMPARE_JSON(
            completionBody(ServerFlavour::LlamaServer, request, std::string("x")).at("grammar"),
            json(*request.grammar));
        for (const ServerFlavour other :
             {ServerFlavour::Vllm, ServerFlavour::Sglang, ServerFlavour::GenericOpenAi}) {
            QVERIFY(!chatCompletionBody(other, request, {}).contains("grammar"));
            const auto dropped = settingsNotCarried(other, request);
            QVERIFY(std::find(dropped.begin(), dropped.end(), "grammar") != dropped.end());
        }
        QVERIFY(settingsNotCarried(ServerFlavour::LlamaServer, request).empty());
    }

    // ---- answers ----

    void openAiChatLogprobsExample() {
        // OpenAI API reference, POST /v1/chat/completions, "Logprobs" example response (its
        // first two tokens; platform.openai.com/docs/api-reference/chat/create).
        const char* answer = R"({
          "id": "chatcmpl-123", "object": "chat.completion", "created": 1702685778,
          "model": "gpt-4o-mini",
          "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": "Hello! How can I assist you today?"},
            "logprobs": {"content": [
              {"token": "Hello", "logprob": -0.31725305, "bytes": [72, 101, 108, 108, 111],
               "top_logprobs": [
                 {"token": "Hello", "logprob": -0.31725305, "bytes": [72, 101, 108, 108, 111]},
                 {"token": "Hi", "logprob": -1.3190403, "bytes": [72, 105]}]},
              {"token": "!", "logprob": -0.02380986, "bytes": [33],
               "top_logprobs": [
                 {"token": "!", "logprob": -0.02380986, "bytes": [33]},
                 {"token": " there", "logprob": -3.787621, "bytes": [32, 116, 104, 101, 114, 101]}]}
            ]},
            "finish_reason": "stop"
          }],
          "usage": {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18}
        })";
        const CompletionUpdate update = parseCompletionUpdate(answer);
        QCOMPARE(update.text, std::string("Hello! How can I assist you today?"));
        QCOMPARE(update.finishReason.value_or(""), std::string("stop"));
        QCOMPARE(update.tokens.size(), size_t(2));
        QCOMPARE(update.tokens[0].chosen.text, std::string("Hello"));
        QCOMPARE(*update.tokens[0].chosen.logprob, -0.31725305);
        QCOMPARE(*update.tokens[0].chosen.bytes, std::string("Hello"));
        QVERIFY(!update.tokens[0].chosen.id);
        QCOMPARE(update.tokens[1].alternatives.size(), size_t(2));
        QCOMPARE(update.tokens[1].alternatives[1].text, std::string(" there"));
        QCOMPARE(*update.tokens[1].alternatives[1].logprob, -3.787621);
        QCOMPARE(update.usage->promptTokens, int64_t(9));
        QCOMPARE(update.usage->completionTokens, int64_t(9));
    }

    void openAiStreamChunksWithoutTokens() {
        // OpenAI API reference, chat streaming: the first chunk carries only the role, and with
        // stream_options.include_usage the last one has empty choices and the usage.
        const CompletionUpdate first = parseCompletionUpdate(
            R"({"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,
                "model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant",
                "content":""},"logprobs":null,"finish_reason":null}]})");
        QVERIFY(first.text.empty());
        QVERIFY(first.tokens.empty());
        QVERIFY(!first.finishReason);
        const CompletionUpdate last = parseCompletionUpdate(
            R"({"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,
                "model":"gpt-4o-mini","choices":[],
                "usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}})");
        QVERIFY(last.tokens.empty());
        QCOMPARE(last.usage->completionTokens, int64_t(12));
    }

    void llamaServerStreamedChatChunk() {
        // llama-server b4747, examples/server/server.cpp: to_json_oaicompat_chat() of a partial
        // result with n_probs: the per-token objects of probs_vector_to_json, with "id", and
        // timings; a piece that is not whole UTF-8 has its text cut and its bytes complete.
        const char* chunk = R"({"choices":[{"finish_reason":null,"index":0,
            "delta":{"content":" Paris"},
            "logprobs":{"content":[{"id":6342,"token":" Paris","bytes":[32,80,97,114,105,115],
              "logprob":-0.0721,
              "top_logprobs":[{"id":6342,"token":" Paris","bytes":[32,80,97,114,105,115],
                               "logprob":-0.0721},
                              {"id":263,"token":"","bytes":[226,128],"logprob":-2.9}]}]}}],
            "created":1735142223,"id":"chatcmpl-x","model":"gpt-3.5-turbo",
            "system_fingerprint":"b4747-abc","object":"chat.completion.chunk",
            "timings":{"prompt_n":12,"prompt_ms":30.5,"prompt_per_token_ms":2.54,
                       "prompt_per_second":393.4,"predicted_n":3,"predicted_ms":41.0,
                       "predicted_per_token_ms":13.6,"predicted_per_second":73.1}})";
        const CompletionUpdate update = parseCompletionUpdate(chunk);
        QCOMPARE(update.text, std::string(" Paris"));
        QCOMPARE(update.tokens.size(), size_t(1));
        QCOMPARE(update.tokens[0].chosen.id.value_or(-1), 6342);
        QCOMPARE(update.tokens[0].alternatives[1].id.value_or(-1), 263);
        QCOMPARE(update.tokens[0].alternatives[1].text, std::string());
        QCOMPARE(*update.tokens[0].alternatives[1].bytes, bytesOf({226, 128}));
        QCOMPARE(update.timings->promptTokens.value_or(0), int64_t(12));
        QCOMPARE(*update.timings->promptMs, 30.5);
        QCOMPARE(update.timings->predictedTokens.value_or(0), int64_t(3));
        QCOMPARE(*update.timings->predictedMs, 41.0);
    }

    void llamaServerChatEntryAfterACutCharacter() {
        // Captured from the vendored llama-server (llama-cpp-python 0.3.36's llama.cpp) serving a
        // random-weight model: the token before id 292 ended inside a UTF-8 character and has no
        // entry; its byte 235 leads this entry, not the alternative's.
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\ufffd an"},
                "logprobs":{"content":[{"id":292,"token":"\ufffd an","bytes":[235,32,97,110],
                "logprob":-3.363037109375,"top_logprobs":[{"id":292,"token":" an",
                "bytes":[32,97,110],"logprob":-3.363037109375}]}]}}],"created":1796291337,
                "id":"chatcmpl-x","model":"/tmp/m.gguf","system_fingerprint":"b0-unknown",
                "object":"chat.completion.chunk"})");
        QCOMPARE(update.tokens.size(), size_t(1));
        QCOMPARE(*update.tokens[0].chosen.bytes, bytesOf({235, 32, 97, 110}));
        QCOMPARE(*update.tokens[0].alternatives[0].bytes, std::string(" an"));
        QCOMPARE(update.tokens[0].chosen.id.value_or(-1),
                 update.tokens[0].alternatives[0].id.value_or(-2));
    }

    void llamaServerFinalStreamChunk() {
        // llama-server b4747, to_json_oaicompat_chat_stream(): empty delta, finish_reason, usage
        // and timings in one chunk.
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1,
                "id":"chatcmpl-x","model":"m","system_fingerprint":"b","object":"chat.completion.chunk",
                "usage":{"completion_tokens":16,"prompt_tokens":7,"total_tokens":23},
                "timings":{"prompt_n":7,"prompt_ms":5.0,"predicted_n":16,"predicted_ms":200.0}})");
        QVERIFY(update.text.empty());
        QCOMPARE(update.finishReason.value_or(""), std::string("length"));
        QCOMPARE(update.usage->promptTokens, int64_t(7));
        QCOMPARE(*update.timings->predictedMs, 200.0);
    }

    void llamaServerCompletionsUseThePerTokenShape() {
        // llama-server b4747 answers /v1/completions too with logprobs.content[...]
        // (to_json_oaicompat of server_task_result_cmpl_partial), not the legacy arrays.
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"text":" upon","index":0,"finish_reason":null,
                "logprobs":{"content":[{"id":2501,"token":" upon","bytes":[32,117,112,111,110],
                "logprob":-0.01,"top_logprobs":[]}]}}],"object":"text_completion"})");
        QCOMPARE(update.text, std::string(" upon"));
        QCOMPARE(update.tokens.size(), size_t(1));
        QCOMPARE(update.tokens[0].chosen.id.value_or(-1), 2501);
    }

    void llamaServerNativeCompletionProbabilities() {
        // llama-server b4747 README, POST /completion, "completion_probabilities" response format.
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"content":" the","tokens":[279],"stop":true,"stop_type":"limit",
                "completion_probabilities":[{"id":279,"logprob":-0.5,"token":" the",
                  "bytes":[32,116,104,101],
                  "top_logprobs":[{"id":279,"logprob":-0.5,"token":" the","bytes":[32,116,104,101]},
                                  {"id":264,"logprob":-1.5,"token":" a","bytes":[32,97]}]}]})");
        QCOMPARE(update.text, std::string(" the"));
        QCOMPARE(update.tokenIds, std::vector<int32_t>{279});
        QCOMPARE(update.finishReason.value_or(""), std::string("length"));
        QCOMPARE(update.tokens[0].alternatives[1].id.value_or(-1), 264);
        QCOMPARE(*update.tokens[0].alternatives[1].logprob, -1.5);
    }

    void llamaServerPostSamplingProbabilities() {
        // llama-server b4747 README: with post_sampling_probs, "prob" (0..1) replaces "logprob"
        // and "top_probs" replaces "top_logprobs".
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"content":"x","completion_probabilities":[{"id":1,"token":"x","bytes":[120],
                "prob":0.25,"top_probs":[{"id":1,"token":"x","bytes":[120],"prob":0.25},
                                         {"id":2,"token":"y","bytes":[121],"prob":0.0}]}]})");
        QCOMPARE(*update.tokens[0].chosen.logprob, std::log(0.25));
        QCOMPARE(update.tokens[0].alternatives.size(), size_t(2));
        QVERIFY(std::isinf(*update.tokens[0].alternatives[1].logprob));
    }

    void vllmLegacyCompletionLogprobs() {
        // vLLM CompletionLogProbs (vllm/entrypoints/openai/engine/protocol.py): text_offset,
        // token_logprobs, tokens, top_logprobs: list[dict[str, float] | None]; stop_reason is a
        // vLLM addition. The object's key order says nothing: most likely must come first.
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"id":"cmpl-1","object":"text_completion","created":1,"model":"facebook/opt-125m",
                "choices":[{"index":0,"text":" a day","finish_reason":"length","stop_reason":null,
                  "logprobs":{"text_offset":[5,7],"token_logprobs":[-1.25,-0.5],
                    "tokens":[" a"," day"],
                    "top_logprobs":[{" a":-1.25," the":-0.75},{" day":-0.5," time":-2.0}]}}],
                "usage":{"prompt_tokens":4,"total_tokens":6,"completion_tokens":2}})");
        QCOMPARE(update.text, std::string(" a day"));
        QCOMPARE(update.tokens.size(), size_t(2));
        QCOMPARE(update.tokens[0].chosen.text, std::string(" a"));
        QCOMPARE(*update.tokens[0].chosen.logprob, -1.25);
        QCOMPARE(update.tokens[0].textOffset.value_or(-1), int64_t(5));
        QCOMPARE(update.tokens[0].alternatives[0].text, std::string(" the"));
        QCOMPARE(update.tokens[0].alternatives[1].text, std::string(" a"));
        QCOMPARE(update.usage->completionTokens, int64_t(2));
    }

    void vllmTokensAsIds() {
        // vLLM CompletionRequest.return_tokens_as_token_ids: 'tokens are represented as strings
        // of the form "token_id:{token_id}"' (vllm/entrypoints/openai/engine/protocol.py).
        ResponseOptions options;
        options.tokensAsIds = true;
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"index":0,"delta":{"content":"é"},"logprobs":{"content":[
                {"token":"token_id:2634","logprob":-0.1,"bytes":[116,111,107],
                 "top_logprobs":[{"token":"token_id:2634","logprob":-0.1},
                                 {"token":"token_id:68","logprob":-2.5}]}]},
                "finish_reason":null}]})",
            options);
        QCOMPARE(update.tokens[0].chosen.id.value_or(-1), 2634);
        QVERIFY(update.tokens[0].chosen.text.empty());
        QVERIFY(!update.tokens[0].chosen.bytes);
        QCOMPARE(update.tokens[0].alternatives[1].id.value_or(-1), 68);
        // Without the option the same text is just text.
        const CompletionUpdate plain = parseCompletionUpdate(
            R"({"choices":[{"index":0,"text":"","logprobs":{"tokens":["token_id:5"],
                "token_logprobs":[-1.0]}}]})");
        QCOMPARE(plain.tokens[0].chosen.text, std::string("token_id:5"));
        QVERIFY(!plain.tokens[0].chosen.id);
    }

    void vllmTokenIdsList() {
        // vLLM CompletionResponseStreamChoice.token_ids (return_token_ids).
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"index":0,"text":"ab","token_ids":[64,65],"finish_reason":null}]})");
        QCOMPARE(update.tokenIds, (std::vector<int32_t>{64, 65}));
    }

    void nullLogprobsAreAbsentValues() {
        // Legacy completions with echo: the first prompt token has token_logprobs null and
        // top_logprobs null (OpenAI legacy completions; vLLM's list[float | None]).
        const CompletionUpdate update = parseCompletionUpdate(
            R"({"choices":[{"index":0,"text":"Hi","logprobs":{"tokens":["Hi"],
                "token_logprobs":[null],"top_logprobs":[null],"text_offset":[0]}}]})");
        QVERIFY(!update.tokens[0].chosen.logprob);
        QVERIFY(update.tokens[0].alternatives.empty());
    }

    void streamEvents() {
        QVERIFY(!parseStreamEvent({"message", "[DONE]", true}));
        const auto update =
            parseStreamEvent({"message", R"({"choices":[{"index":0,"delta":{"content":"a"}}]})"});
        QCOMPARE(update->text, std::string("a"));
        // llama-server b4747's mid-stream error event (server.cpp, handle_completions_impl).
        bool reported = false;
        try {
            parseStreamEvent(
                {"error",
                 R"({"code":500,"message":"Context size exceeded","type":"server_error"})"});
        } catch (const RemoteError& error) {
            reported = error.kind() == RemoteErrorKind::ServerReported &&
                       std::string(error.what()).find("Context size exceeded") != std::string::npos;
        }
        QVERIFY(reported);
    }

    void errorObjectsInsideAnAnswer() {
        // vLLM ErrorResponse {"error": {message, type, param, code}} (engine/protocol.py) and
        // SGLang's {"object": "error", "message", ...} (sglang/srt/entrypoints/openai/protocol.py).
        QCOMPARE(kindOfFailure(R"({"error":{"message":"bad","type":"BadRequestError",
                                   "param":null,"code":400}})"),
                 RemoteErrorKind::ServerReported);
        // Later llama-server (tools/server/server-context.cpp of the llama.cpp that
        // llama-cpp-python 0.3.36 vendors) writes a failure mid-stream as data: {"error": {...}}.
        QCOMPARE(kindOfFailure(R"({"error":{"code":400,"message":"context size exceeded",
                                   "type":"exceed_context_size_error"}})"),
                 RemoteErrorKind::ServerReported);
        QCOMPARE(kindOfFailure(R"({"object":"error","message":"bad","type":"BadRequestError",
                                   "param":null,"code":400})"),
                 RemoteErrorKind::ServerReported);
    }

    void malformedAnswersAreProtocolErrors() {
        QCOMPARE(kindOfFailure("{not json"), RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure("[1,2]"), RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"id":"x"})"), RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"choices":"no"})"), RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"choices":[{"index":0,"text":5}]})"), RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"choices":[{"index":0,"text":"","logprobs":{"content":[
                                   {"token":"a","logprob":"high"}]}}]})"),
                 RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"choices":[{"index":0,"text":"","logprobs":{"content":[
                                   {"token":"a","logprob":-1,"bytes":[300]}]}}]})"),
                 RemoteErrorKind::Protocol);
        QCOMPARE(kindOfFailure(R"({"choices":[{"index":0,"text":"","logprobs":{
                                   "tokens":["a","b"],"token_logprobs":[-1]}}]})"),
                 RemoteErrorKind::Protocol);
        // The message says where.
        try {
            parseCompletionUpdate(R"({"choices":[{"index":0,"text":"","logprobs":{"content":[
                                      {"token":"a","logprob":"high"}]}}]})");
        } catch (const RemoteError& error) {
            QVERIFY2(std::string(error.what()).find("choices[0].logprobs.content[0].logprob") !=
                         std::string::npos,
                     error.what());
        }
    }

    // ---- server errors ----

    void serverErrorMessagesInEveryShape() {
        // llama-server b4747 README, "API errors".
        QCOMPARE(
            serverErrorMessage(
                R"({"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}})")
                .value_or(""),
            std::string("Invalid API Key"));
        // vLLM ErrorResponse (engine/protocol.py).
        QCOMPARE(serverErrorMessage(R"({"error":{"message":"The model `x` does not exist.",
                                      "type":"NotFoundError","param":null,"code":404}})")
                     .value_or(""),
                 std::string("The model `x` does not exist."));
        // vLLM's and SGLang's API key middleware (vllm/entrypoints/openai/api_server.py,
        // sglang/srt/utils.py add_api_key_middleware).
        QCOMPARE(serverErrorMessage(R"({"error":"Unauthorized"})").value_or(""),
                 std::string("Unauthorized"));
        // SGLang ErrorResponse (sglang/srt/entrypoints/openai/protocol.py).
        QCOMPARE(serverErrorMessage(R"({"object":"error","message":"Input is too long",
                                      "type":"BadRequestError","param":null,"code":400})")
                     .value_or(""),
                 std::string("Input is too long"));
        // FastAPI, which vLLM and SGLang run on: HTTPException and request validation.
        QCOMPARE(serverErrorMessage(R"({"detail":"Not Found"})").value_or(""),
                 std::string("Not Found"));
        QCOMPARE(serverErrorMessage(R"({"detail":[{"type":"int_parsing","loc":["body","max_tokens"],
                                      "msg":"Input should be a valid integer","input":"x"}]})")
                     .value_or(""),
                 std::string("\"max_tokens\": Input should be a valid integer"));
        QVERIFY(!serverErrorMessage("<html>502 Bad Gateway</html>"));
        QVERIFY(!serverErrorMessage(R"({"ok":true})"));
    }

    void httpStatusErrorsSayWhatHappened() {
        const RemoteError refused = httpStatusError(
            401,
            R"({"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}})",
            "GET /v1/models", true);
        QCOMPARE(refused.kind(), RemoteErrorKind::Unauthorized);
        QVERIFY(std::string(refused.what()).find("refused the API key") != std::string::npos);
        QVERIFY(std::string(refused.what()).find("Invalid API Key") != std::string::npos);
        const RemoteError missing = httpStatusError(401, "", "GET /v1/models", false);
        QVERIFY(std::string(missing.what()).find("none was given") != std::string::npos);
        const RemoteError failed =
            httpStatusError(500, "<html>oops</html>", "POST /v1/completions", true);
        QCOMPARE(failed.kind(), RemoteErrorKind::Http);
        QCOMPARE(failed.httpStatus(), 500L);
        QVERIFY(std::string(failed.what())
                    .find("HTTP 500 Internal Server Error to POST "
                          "/v1/completions: <html>oops</html>") != std::string::npos);
    }

    // ---- discovery ----

    void llamaServerModelsAndProps() {
        // llama-server b4747 README, GET /v1/models and GET /props examples.
        const auto models = parseModelList(R"({"object":"list","data":[{
            "id":"../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf","object":"model",
            "created":1735142223,"owned_by":"llamacpp",
            "meta":{"vocab_type":2,"n_vocab":128256,"n_ctx_train":131072,"n_embd":4096,
                    "n_params":8030261312,"size":4912898304}}]})");
        QCOMPARE(models.size(), size_t(1));
        QCOMPARE(models[0].trainedContextLength.value_or(0), int64_t(131072));
        QCOMPARE(models[0].vocabularySize.value_or(0), int64_t(128256));
        QCOMPARE(guessFlavour({models, false, false}).flavour, ServerFlavour::LlamaServer);
        // The llama.cpp vendored by llama-cpp-python 0.3.36 adds the slot's context to "meta"
        // (tools/server/server-context.cpp, get_res_model_info).
        const auto newer = parseModelList(R"({"object":"list","data":[{"id":"m","object":"model",
            "owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":49152,"n_ctx":4096,
            "n_ctx_train":8192}}]})");
        QCOMPARE(newer[0].slotContextLength.value_or(0), int64_t(4096));
        QVERIFY(!models[0].slotContextLength);

        const LlamaServerProps props = parseLlamaServerProps(R"json({
            "default_generation_settings":{"id":0,"id_task":-1,"n_ctx":1024,"speculative":false,
              "is_processing":false,"params":{"n_predict":-1,"temperature":0.8}},
            "total_slots":1,"model_path":"../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
            "chat_template":"...","build_info":"b(build number)-(build commit hash)"})json");
        QCOMPARE(props.contextLength.value_or(0), int64_t(1024));
        QCOMPARE(props.totalSlots.value_or(0), int64_t(1));
        QCOMPARE(props.modelPath, std::string("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"));
    }

    void vllmAndSglangModelCards() {
        // vLLM ModelCard (engine/protocol.py): owned_by "vllm", max_model_len.
        const auto vllm = parseModelList(R"({"object":"list","data":[{"id":"Qwen/Qwen2.5-72B",
            "object":"model","created":1,"owned_by":"vllm","root":"Qwen/Qwen2.5-72B","parent":null,
            "max_model_len":32768,"permission":[]}]})");
        QCOMPARE(vllm[0].maxModelLength.value_or(0), int64_t(32768));
        QCOMPARE(guessFlavour({vllm, false, false}).flavour, ServerFlavour::Vllm);
        // SGLang ModelCard (sglang/srt/entrypoints/openai/protocol.py): owned_by "sglang".
        const auto sglang =
            parseModelList(R"({"object":"list","data":[{"id":"qwen/qwen2.5-0.5b-instruct",
            "object":"model","created":1,"owned_by":"sglang","root":"qwen/qwen2.5-0.5b-instruct",
            "max_model_len":32768}]})");
        QCOMPARE(guessFlavour({sglang, false, false}).flavour, ServerFlavour::Sglang);
    }

    void flavourGuessWithoutOwnedBy() {
        // A proxy that rewrites owned_by: the endpoints decide, then max_model_len.
        std::vector<ModelCard> anonymous(1);
        anonymous[0].id = "m";
        anonymous[0].ownedBy = "organization-owner";
        QCOMPARE(guessFlavour({anonymous, true, false}).flavour, ServerFlavour::LlamaServer);
        QCOMPARE(guessFlavour({anonymous, false, true}).flavour, ServerFlavour::Sglang);
        QCOMPARE(guessFlavour({anonymous, false, false}).flavour, ServerFlavour::GenericOpenAi);
        anonymous[0].maxModelLength = 4096;
        QCOMPARE(guessFlavour({anonymous, false, false}).flavour, ServerFlavour::Vllm);
    }

    void tokenizeRequestsAndAnswers() {
        // llama-server b4747 README, POST /tokenize: with_pieces gives {id, piece}, the piece as
        // text or, when not valid UTF-8, as a list of bytes (its 'á' on stories260k example).
        const json llama = *tokenizeBody(ServerFlavour::LlamaServer, "m", "á", false);
        COMPARE_JSON(llama,
                     json({{"content", "á"}, {"add_special", false}, {"with_pieces", true}}));
        const Tokenization pieces = parseTokenizeAnswer(
            R"({"tokens":[{"id":198,"piece":[195]},{"id":164,"piece":[161]}]})");
        QCOMPARE(pieces.ids, (std::vector<int32_t>{198, 164}));
        QCOMPARE(pieces.pieces, (std::vector<std::string>{bytesOf({195}), bytesOf({161})}));
        const Tokenization text = parseTokenizeAnswer(
            R"({"tokens":[{"id":123,"piece":"Hello"},{"id":456,"piece":" world"},{"id":789,"piece":"!"}]})");
        QCOMPARE(text.pieces[1], std::string(" world"));

        // vLLM TokenizeRequest/TokenizeResponse: {model, prompt, add_special_tokens} ->
        // {count, max_model_len, tokens}.
        const json vllm = *tokenizeBody(ServerFlavour::Vllm, "m", "hi", true);
        COMPARE_JSON(vllm, json({{"model", "m"}, {"prompt", "hi"}, {"add_special_tokens", true}}));
        const Tokenization ids =
            parseTokenizeAnswer(R"({"count":3,"max_model_len":32768,"tokens":[1,2,3]})");
        QCOMPARE(ids.ids, (std::vector<int32_t>{1, 2, 3}));
        QVERIFY(ids.pieces.empty());
        QCOMPARE(ids.maxModelLength.value_or(0), int64_t(32768));

        QVERIFY(!tokenizeBody(ServerFlavour::GenericOpenAi, "m", "hi", true));
    }

    void detokenizeAnswers() {
        QCOMPARE(parseDetokenizeAnswer(R"({"content":"Hello"})"), std::string("Hello"));  // llama
        QCOMPARE(parseDetokenizeAnswer(R"({"prompt":"Hello"})"), std::string("Hello"));   // vLLM
        COMPARE_JSON(*detokenizeBody(ServerFlavour::LlamaServer, "m", {1, 2}),
                     json({{"tokens", {1, 2}}}));
        bool threw = false;
        try {
            parseDetokenizeAnswer(R"({"nothing":1})");
        } catch (const RemoteError& error) {
            threw = error.kind() == RemoteErrorKind::Protocol;
        }
        QVERIFY(threw);
    }
};

QTEST_APPLESS_MAIN(TestRemoteProtocol)
#include "test_remote_protocol.moc"
