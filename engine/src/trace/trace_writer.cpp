#include "trace/trace_writer.h"

#include "tokenizer/tokenizer.h"
#include "trace/trace_json.h"

namespace inferlens {
namespace {

std::string line(const nlohmann::json& json) {
    // Piece names are UTF-8; replace rather than fail on anything that is not.
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Each candidate's piece, and what the chosen token is: the chip and the answer text a replay
// shows are built from these.
void addPieces(nlohmann::json& json, const SamplingTrace& trace, const Tokenizer& tokenizer) {
    nlohmann::json& candidates = json["candidates"];
    for (size_t i = 0; i < trace.candidates.size(); ++i)
        candidates[i]["piece"] = tokenizer.piece(trace.candidates[i].id);
    json["chosen_piece"] = tokenizer.piece(trace.chosenId);
    json["chosen_special"] = tokenizer.isSpecial(trace.chosenId);
    const auto byte = tokenizer.byteValue(trace.chosenId);
    json["chosen_byte"] = byte ? nlohmann::json(*byte) : nlohmann::json(nullptr);
}

// A server's step (remote/): the texts it gave for its candidates and its choice stand for the
// pieces, so that a replay shows what the server said.
void addServerPieces(nlohmann::json& json, const SamplingTrace& trace) {
    const SamplingTrace::ServerReport& server = *trace.server;
    nlohmann::json& candidates = json["candidates"];
    for (size_t i = 0; i < trace.candidates.size() && i < server.texts.size(); ++i)
        candidates[i]["piece"] = server.texts[i];
    json["chosen_piece"] = server.chosenText;
    json["chosen_special"] = false;
    json["chosen_byte"] = nullptr;
}

}  // namespace

TraceWriter::TraceWriter(std::FILE* out, std::function<bool(int64_t, int64_t)> attention,
                         const Tokenizer* tokenizer)
    : out_(out), attention_(std::move(attention)), tokenizer_(tokenizer) {}

ProbeInterest TraceWriter::interest() const {
    ProbeInterest interest;
    interest.tokenization = interest.steps = interest.layers = interest.kvCache =
        interest.sampling = interest.finished = true;
    interest.attention = attention_;
    return interest;
}

void TraceWriter::writeLine(const std::string& text) {
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
}

void TraceWriter::onTokenized(const TokenizationInfo& info) {
    writeLine(line(toJson(info)));
}

void TraceWriter::onStepBegin(const StepEvent& step) {
    writeLine(line(stepJson("step_begin", step)));
}

void TraceWriter::onLayerEnd(const LayerEvent& layer) {
    writeLine(line(toJson(layer)));
}

void TraceWriter::onAttention(const AttentionEvent& attention) {
    writeLine(line(toJson(attention)));
}

void TraceWriter::onKvCache(int64_t step, const KvCacheStats& stats) {
    writeLine(line(kvCacheJson(step, stats)));
}

void TraceWriter::onSampling(int64_t step, const SamplingTrace& trace) {
    nlohmann::json json = toJson(trace);
    json["event"] = "sampling";
    json["step"] = step;
    if (trace.server)
        addServerPieces(json, trace);
    else if (tokenizer_)
        addPieces(json, trace, *tokenizer_);
    writeLine(line(json));
}

void TraceWriter::onStepEnd(const StepEvent& step) {
    writeLine(line(stepJson("step_end", step)));
}

void TraceWriter::onFinished(const FinishedEvent& finished) {
    writeLine(line(toJson(finished)));
}

}  // namespace inferlens
