#pragma once
// Engine values → the panels' plain data (widgets/panel_data.h). The live probe (gui_probe) and the
// trace reader both convert through here, so that a replayed trace shows what the live run showed.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decoding/beam_search.h"
#include "kv_cache.h"
#include "panel_data.h"
#include "probe.h"
#include "sampling/sampling_trace.h"
#include "tokenizer/tokenizer.h"

namespace inferlens::gui {

// Each prompt token with the bytes of info.text it stands for.
std::vector<widgets::TokenChip> promptChips(const TokenizationInfo& info);

// A token known only by id and piece (a generated one): it stands for its byte (a byte piece),
// nothing (a special), or else its piece with sentencepiece's "▁" written as a space.
widgets::TokenChip tokenChip(int32_t id, const std::string& piece, bool special,
                             std::optional<uint8_t> byte, bool generated);

// The pieces of a trace's candidates, in order (the labels samplingStep wants).
std::vector<std::string> candidatePieces(const SamplingTrace& trace, const Tokenizer& tokenizer);

// `pieces[i]` is the piece of trace.candidates[i], the row's label.
widgets::SamplingStep samplingStep(int64_t step, const SamplingTrace& trace,
                                   std::span<const std::string> pieces);

// A server's step (fromServer) under other sampling settings: the sampler's stages run over its
// top-N alone, their probabilities renormalised among themselves (the rest of the vocabulary is
// unknown, and the penalties, which need the token history, change nothing here). The candidate
// the server chose stays marked. For the sliders' preview after a remote answer.
widgets::SamplingStep reshapeServerStep(const widgets::SamplingStep& step,
                                        const SamplingParams& params);

widgets::AttentionMatrix attentionMatrix(const AttentionEvent& event);

widgets::KvCachePoint kvCachePoint(const KvCacheStats& stats);

// A beam search's node, labelled with its token as the token strip shows `chip` (the node's).
widgets::BeamTreeNode beamTreeNode(const BeamNode& node, const widgets::TokenChip& chip);

}  // namespace inferlens::gui
