#pragma once
// Reads a generation trace (the JSON lines `inferlens-cli trace` writes, engine/src/trace/) back
// into the panels' data, in the order a live run delivers it, so that the app can replay a trace
// without the model. The trace must carry token text (a TraceWriter given the tokenizer).

#include <QString>
#include <variant>
#include <vector>

#include "panel_data.h"

namespace inferlens::gui {

struct GeneratedToken {
    widgets::TokenChip chip;
    // What the token adds to the answer, decoded as StreamingDetokenizer does: only whole UTF-8
    // characters, so a byte piece that starts a character adds "" and the one that completes it the
    // character. Bytes that can form no character become U+FFFD, one per byte: on the byte piece
    // that shows it, or, when another piece or the end cuts a character short, on its last byte
    // piece (special tokens, stop tokens among them, always add ""). Unlike a live run,
    // sentencepiece's rule that the answer's first piece loses its leading "▁" is not applied (the
    // trace does not say whether the model adds a dummy prefix): the answer may start with a space.
    QString text;
};

// Steps appear as the engine runs them: per step its attention and KV cache, then its LoopTiming;
// after each step that produced logits, the SamplingStep and the GeneratedToken it chose.
using TraceEvent = std::variant<std::vector<widgets::TokenChip>,  // the prompt ("tokenized")
                                GeneratedToken, widgets::AttentionMatrix, widgets::KvCachePoint,
                                widgets::SamplingStep, widgets::LoopTiming>;

struct RecordedTrace {
    std::vector<TraceEvent> events;
    QString finishReason;  // as the trace names it: "eos", "max_tokens", "context_full", ...
};

// Throws inferlens::Error naming `path` and the 1-based line for anything malformed: a line that is
// not a JSON object, an unknown event, a missing or ill-typed field, attention rows of the wrong
// length, events out of order, a trace that ends before its "tokenized" or "finished" event.
// Empty lines are skipped.
RecordedTrace readTrace(const QString& path);

}  // namespace inferlens::gui
