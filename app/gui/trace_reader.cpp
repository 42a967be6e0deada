#include "trace_reader.h"

#include <QFile>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "panel_conversion.h"
#include "sampling/sampling_trace.h"
#include "tokenizer/utf8_assembler.h"
#include "trace_fields.h"

namespace inferlens::gui {
namespace {

using nlohmann::json;

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

class TraceParser {
  public:
    explicit TraceParser(std::string path) : path_(std::move(path)) {}

    void parseLine(int64_t number, const QByteArray& text);
    RecordedTrace end(int64_t lastLine);

  private:
    void tokenized(const json& event);
    void stepBegin(const json& event);
    void layerEnd(const json& event);
    void stepEnd(const json& event);
    void attention(const json& event);
    void kvCache(const json& event);
    void sampling(const json& event);
    void finish(const json& event);
    void addGenerated(widgets::TokenChip chip);
    void endByteRun();

    std::string path_;
    TraceFields fields_{path_};
    RecordedTrace trace_;
    bool tokenized_ = false;
    bool finished_ = false;
    std::optional<widgets::LoopTiming> step_;  // the step begun and not yet ended
    // The answer's bytes: a character split over byte pieces is held until it completes, and the
    // last byte token that holds it is the one a never-completed character is charged to.
    Utf8Assembler bytes_;
    size_t heldBy_ = 0;
};

void TraceParser::parseLine(int64_t number, const QByteArray& text) {
    fields_.at(number, "");
    const json event = json::parse(text.begin(), text.end(), nullptr, false);
    if (event.is_discarded() || !event.is_object())
        fields_.fail("not a JSON object");
    const std::string kind = fields_.text(event, "event");
    fields_.at(number, kind);
    if (finished_)
        fields_.fail("an event after 'finished'");
    if (kind == "tokenized")
        return tokenized(event);
    if (!tokenized_)
        fields_.fail("an event before 'tokenized'");
    if (kind == "step_begin")
        stepBegin(event);
    else if (kind == "layer_end")
        layerEnd(event);
    else if (kind == "step_end")
        stepEnd(event);
    else if (kind == "attention")
        attention(event);
    else if (kind == "kv_cache")
        kvCache(event);
    else if (kind == "sampling")
        sampling(event);
    else if (kind == "finished")
        finish(event);
    else
        fields_.fail("unknown event");
}

RecordedTrace TraceParser::end(int64_t lastLine) {
    fields_.at(lastLine + 1, "");
    if (!tokenized_)
        fields_.fail("the trace ends before its 'tokenized' event");
    if (!finished_)
        fields_.fail("the trace ends before its 'finished' event");
    endByteRun();  // the end of the answer, as StreamingDetokenizer::flush
    return std::move(trace_);
}

void TraceParser::tokenized(const json& event) {
    if (tokenized_)
        fields_.fail("a second 'tokenized' event");
    tokenized_ = true;
    TokenizationInfo info;
    info.text = fields_.text(event, "text");
    const auto textSize = int64_t(info.text.size());
    for (const json& token : fields_.array(event, "tokens")) {
        fields_.object(token, "a token");
        TokenInfo entry;
        entry.id = int32_t(fields_.integer(token, "id", 0, std::numeric_limits<int32_t>::max()));
        entry.piece = fields_.text(token, "piece");
        entry.begin = fields_.integer(token, "begin", 0, textSize);
        entry.end = fields_.integer(token, "end", entry.begin, textSize);
        entry.special = fields_.boolean(token, "special");
        entry.byteFallback = fields_.boolean(token, "byte_fallback");
        info.tokens.push_back(std::move(entry));
    }
    trace_.events.emplace_back(promptChips(info));
}

void TraceParser::stepBegin(const json& event) {
    if (step_)
        fields_.fail("step " + std::to_string(step_->step) + " has not ended");
    const std::string phase = fields_.text(event, "phase");
    if (phase != "prefill" && phase != "decode")
        fields_.fail("'phase' must be \"prefill\" or \"decode\"");
    step_.emplace();
    step_->step = int(fields_.integer(event, "step", 0, kIntMax));
    step_->prefill = phase == "prefill";
    step_->tokenCount = int(fields_.integer(event, "tokens", 0, kIntMax));
}

void TraceParser::layerEnd(const json& event) {
    if (!step_ || fields_.integer(event, "step", 0, kIntMax) != step_->step)
        fields_.fail("not inside the step it names");
    // Layers run in order, so the next one is the only one that may end.
    const auto next = int64_t(step_->layerSeconds.size());
    if (fields_.integer(event, "layer", 0, kIntMax) != next)
        fields_.fail("layers end in order, so 'layer' must be " + std::to_string(next));
    step_->layerSeconds.push_back(fields_.number(event, "seconds"));
}

void TraceParser::stepEnd(const json& event) {
    if (!step_ || fields_.integer(event, "step", 0, kIntMax) != step_->step)
        fields_.fail("ends a step that has not begun");
    step_->stepSeconds = fields_.number(event, "seconds");
    trace_.events.emplace_back(std::move(*step_));
    step_.reset();
}

void TraceParser::attention(const json& event) {
    AttentionEvent attention;
    attention.step = fields_.integer(event, "step", 0, kIntMax);
    attention.layer = fields_.integer(event, "layer", 0, kIntMax);
    attention.head = fields_.integer(event, "head", 0, kIntMax);
    attention.firstQuery = fields_.integer(event, "first_query", 0, kIntMax);
    const json& rows = fields_.array(event, "weights");
    if (rows.empty() || int64_t(rows.size()) > kIntMax - attention.firstQuery)
        fields_.fail("'weights' must hold between 1 and 2^31 - 1 - first_query rows");
    attention.queryCount = int64_t(rows.size());
    attention.keyCount = attention.firstQuery + attention.queryCount;
    // The trace leaves out the masked zeros after each causal row; the panels want them back.
    std::vector<float> weights;
    for (int64_t row = 0; row < attention.queryCount; ++row) {
        const json& values = rows[size_t(row)];
        const int64_t length = attention.firstQuery + row + 1;
        if (!values.is_array() || int64_t(values.size()) != length)
            fields_.fail("row " + std::to_string(row) + " of 'weights' must hold " +
                         std::to_string(length) + " numbers");
        for (const json& value : values)
            weights.push_back(float(fields_.numberValue(value, "a weight")));
        weights.resize(size_t((row + 1) * attention.keyCount));
    }
    if (event.contains("window_tokens")) {
        attention.sinkTokens = fields_.integer(event, "sink_tokens", 0, kIntMax);
        attention.windowTokens = fields_.integer(event, "window_tokens", 1, kIntMax);
    }
    if (event.contains("layer_window_tokens"))
        attention.layerWindowTokens = fields_.integer(event, "layer_window_tokens", 1, kIntMax);
    attention.weights = weights;
    trace_.events.emplace_back(attentionMatrix(attention));
}

void TraceParser::kvCache(const json& event) {
    KvCacheStats stats;
    stats.tokens = fields_.integer(event, "tokens", 0, kInt64Max);
    stats.bytesUsed = fields_.integer(event, "bytes_used", 0, kInt64Max);
    stats.bytesAllocated = fields_.integer(event, "bytes_allocated", 0, kInt64Max);
    stats.bytesUsedFullMultiHead =
        fields_.integer(event, "bytes_used_full_multi_head", 0, kInt64Max);
    for (const json& bytes : fields_.array(event, "bytes_used_per_layer"))
        stats.bytesUsedPerLayer.push_back(
            fields_.integerValue(bytes, "a layer's bytes", 0, kInt64Max));
    // Fields of later versions: traces without them are of f32 caches that never slid.
    if (event.contains("kv_type")) {
        try {
            stats.type = parseKvType(fields_.text(event, "kv_type"));
        } catch (const Error& error) {
            fields_.fail(error.what());
        }
        stats.bytesUsedAsF32 = fields_.integer(event, "bytes_used_as_f32", 0, kInt64Max);
    }
    if (event.contains("evicted_tokens")) {
        stats.slides = true;
        stats.sinkTokens = fields_.integer(event, "sink_tokens", 0, stats.tokens);
        stats.evictedTokens = fields_.integer(event, "evicted_tokens", 0, kInt64Max);
    }
    trace_.events.emplace_back(kvCachePoint(stats));
}

std::optional<SamplingStage> stageNamed(const std::string& name) {
    for (size_t stage = 0; stage < kSamplingStageCount; ++stage)
        if (name == samplingStageName(SamplingStage(stage)))
            return SamplingStage(stage);
    return std::nullopt;
}

void TraceParser::sampling(const json& event) {
    SamplingTrace trace;
    std::vector<std::string> pieces;
    for (const json& candidate : fields_.array(event, "candidates")) {
        fields_.object(candidate, "a candidate");
        TraceCandidate row;
        row.id = int32_t(fields_.integer(candidate, "id", 0, std::numeric_limits<int32_t>::max()));
        const json& probability =
            fields_.object(fields_.field(candidate, "probability"), "'probability'");
        for (size_t stage = 0; stage < kSamplingStageCount; ++stage) {
            const char* name = samplingStageName(SamplingStage(stage));
            // Traces from before the logit processors lack their stages: those changed nothing.
            row.probability[stage] =
                isMaskingStage(SamplingStage(stage)) && !probability.contains(name)
                    ? row.probability[stage - 1]
                    : float(fields_.number(probability, name));
        }
        const json& cutBy = fields_.field(candidate, "cut_by");
        if (!cutBy.is_null()) {
            row.cutBy = cutBy.is_string() ? stageNamed(cutBy.get<std::string>()) : std::nullopt;
            if (!row.cutBy)
                fields_.fail("'cut_by' must be null or a sampling stage");
        }
        trace.candidates.push_back(row);
        pieces.push_back(fields_.text(candidate, "piece"));
    }
    const json& entropy = fields_.object(fields_.field(event, "entropy"), "'entropy'");
    trace.entropy[size_t(kFinalSamplingStage)] =
        fields_.number(entropy, samplingStageName(kFinalSamplingStage));
    trace.nucleusMass = fields_.number(event, "nucleus_mass");
    trace.chosenId =
        int32_t(fields_.integer(event, "chosen_id", 0, std::numeric_limits<int32_t>::max()));
    trace.chosenRank = fields_.integer(event, "chosen_rank", 0, kInt64Max);
    trace.chosenProbability = float(fields_.number(event, "chosen_probability"));
    if (event.contains("server")) {  // a server's report (remote/): only its top-N is known
        const json& server = fields_.object(fields_.field(event, "server"), "'server'");
        SamplingTrace::ServerReport report;
        report.knownMass = fields_.number(server, "known_mass");
        if (report.knownMass < 0 || report.knownMass > 1)
            fields_.fail("'known_mass' must be between 0 and 1");
        for (const json& text : fields_.array(server, "texts")) {
            if (!text.is_string())
                fields_.fail("'texts' must hold strings");
            report.texts.push_back(text.get<std::string>());
        }
        report.chosenText = fields_.text(server, "chosen_text");
        trace.server = std::move(report);
    }
    const int64_t step = fields_.integer(event, "step", 0, kIntMax);

    const std::string piece = fields_.text(event, "chosen_piece");
    const bool special = fields_.boolean(event, "chosen_special");
    std::optional<uint8_t> byte;
    if (!fields_.field(event, "chosen_byte").is_null())
        byte = uint8_t(fields_.integer(event, "chosen_byte", 0, 255));

    trace_.events.emplace_back(samplingStep(step, trace, pieces));
    addGenerated(tokenChip(trace.chosenId, piece, special, byte, true));
}

void TraceParser::finish(const json& event) {
    // A step still open here was cancelled part-way; its timing never completed, as live.
    finished_ = true;
    trace_.finishReason = QString::fromStdString(fields_.text(event, "reason"));
}

void TraceParser::addGenerated(widgets::TokenChip chip) {
    std::string text;
    if (chip.byteFallback) {
        text = bytes_.push(uint8_t(chip.bytes[0]));
    } else {
        endByteRun();  // as in StreamingDetokenizer, any other piece ends a run of bytes
        text = chip.bytes.toStdString();
    }
    trace_.events.emplace_back(GeneratedToken{std::move(chip), QString::fromStdString(text)});
    if (bytes_.holding())
        heldBy_ = trace_.events.size() - 1;
}

void TraceParser::endByteRun() {
    if (bytes_.holding())
        std::get<GeneratedToken>(trace_.events[heldBy_]).text +=
            QString::fromStdString(bytes_.flush());
}

}  // namespace

RecordedTrace readTrace(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw Error(path.toStdString() +
                    ": cannot open the trace: " + file.errorString().toStdString());
    TraceParser parser(path.toStdString());
    int64_t number = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        ++number;
        if (!line.isEmpty())
            parser.parseLine(number, line);
    }
    return parser.end(number);
}

}  // namespace inferlens::gui
