#pragma once
// The guided tour: short annotated steps that follow one real generation through the double loop
// — chat template and tokenization, embedding, every stage of a layer, the LM head, sampling, the
// outer loop, the KV cache and what each step costs — quoting the figures of the model on screen
// and of the last generation (shapes from step_costs.h: for ChatGLM2-6B and a 17-token prompt,
// hidden states [17, 1, 4096], query [17, 1, 32, 128], key/value [17, 1, 2, 128], logits over
// 65,024 entries). Each step names the panel it talks about, which the window highlights.

#include <QString>
#include <QStringList>
#include <vector>

#include "models/model_config.h"
#include "sampling/sampling_params.h"

namespace inferlens::gui {

// What the tour quotes: the model, and the last generation when there is one.
struct TourFacts {
    ModelConfig config;
    double bytesPerWeight = 2;
    qint64 contextSize = 0;
    QString chatTemplate;
    // The last generation (promptTokens 0: none yet).
    int promptTokens = 0;
    QStringList promptPieces;  // the prompt's first pieces, as shown on the chips
    int generatedTokens = 0;
    QString firstToken;  // the first generated token as text
    float firstTokenProbability = 0;
    int firstTokenCandidates = 0;  // candidates left after top-k / top-p / min-p at that step
    QString finishReason;
    SamplingParams sampling;
    int layer = 0, head = 0;  // the head on the heat map
};

struct TourStep {
    QString title;
    QString body;   // rich text
    QString panel;  // object name of the dock it talks about
};

std::vector<TourStep> buildTour(const TourFacts& facts);

// "65,024": figures with digit groups, the same in every language.
QString groupedNumber(qint64 value);

}  // namespace inferlens::gui
