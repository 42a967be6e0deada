#include "guided_tour.h"

#include <QCoreApplication>
#include <QLocale>

#include "display_text.h"
#include "teaching/step_costs.h"

namespace inferlens::gui {

namespace {

// tr() for the tour's strings (no QObject here).
class Tour {
    Q_DECLARE_TR_FUNCTIONS(GuidedTour)

  public:
    explicit Tour(const TourFacts& facts)
        : f_(facts),
          tokens_(std::max(facts.promptTokens, 1)),
          prefill_(stepCosts(facts.config, tokens_, 0, facts.bytesPerWeight)),
          decode_(stepCosts(facts.config, 1, tokens_, facts.bytesPerWeight)) {}

    std::vector<TourStep> steps() const {
        const ModelConfig& c = f_.config;
        const bool ran = f_.promptTokens > 0;
        std::vector<TourStep> steps;
        const auto add = [&](QString title, QString body, const char* panel) {
            steps.push_back({std::move(title), std::move(body), QString::fromLatin1(panel)});
        };
        add(tr("1. Chat template and tokenization"),
            ran ? tr("Your message was wrapped in the <b>%1</b> chat template and cut into "
                     "<b>%2 tokens</b>: %3… Each chip is one entry of the %4-entry vocabulary; "
                     "hover one for its id and bytes.")
                      .arg(f_.chatTemplate, groupedNumber(f_.promptTokens),
                           f_.promptPieces.join(QStringLiteral(" · ")).toHtmlEscaped(),
                           groupedNumber(c.vocabSize))
                : tr("Send a message: it is wrapped in the <b>%1</b> chat template and cut into "
                     "tokens from the %2-entry vocabulary.")
                      .arg(f_.chatTemplate, groupedNumber(c.vocabSize)),
            "tokenizationDock");
        add(tr("2. Embedding lookup"),
            tr("Each token id selects one row of the embedding table [%1, %2]. The %3 tokens "
               "become the hidden states %4: one vector of %2 numbers per token.")
                .arg(groupedNumber(c.vocabSize), groupedNumber(c.hiddenSize),
                     groupedNumber(tokens_), shapeOf(Stage::Embedding)),
            "tokenizationDock");
        add(tr("3. The inner loop: %1 layers").arg(c.layerCount),
            tr("The hidden states now pass through %1 identical layers, one after the other (the "
               "rows of the double-loop grid). Each starts with RMSNorm: every vector is divided "
               "by its root mean square and scaled by learned weights, shape unchanged %2.")
                .arg(c.layerCount)
                .arg(shapeOf(Stage::AttentionNorm)),
            "doubleLoopDock");
        add(tr("4. Query, key and value"),
            tr("Three projections turn each vector into a query %1 — %2 heads of %3 numbers — and "
               "a key and a value %4 each: %5 %6 shared by all query heads. That is %7 of "
               "arithmetic per layer for this prompt.")
                .arg(shapeOf(Stage::QkvProjection), groupedNumber(c.headCount),
                     groupedNumber(c.headDim), shapeOf(Stage::Rope), groupedNumber(c.kvHeadCount),
                     c.kvHeadCount == 1 ? tr("key/value head") : tr("key/value heads"),
                     widgets::formatFlops(prefill_.stage(Stage::QkvProjection).flops)),
            "attentionDock");
        add(tr("5. RoPE"),
            tr("Rotary position embedding turns the first %1 of each head's %2 numbers by angles "
               "that grow with the token's position, so that the dot product of a query and a "
               "key depends on how far apart they are.")
                .arg(c.ropeDims)
                .arg(c.headDim),
            "attentionDock");
        add(tr("6. Scores and softmax"),
            tr("Each query is compared with the key of every earlier token (the causal mask): "
               "%1 scores per head, divided by √%2 and turned into weights that sum to 1 by "
               "softmax. The heat map shows them for layer %3, head %4: row = query, column = "
               "key.")
                .arg(shapeOf(Stage::ScoresSoftmax))
                .arg(c.headDim)
                .arg(f_.layer)
                .arg(f_.head),
            "attentionDock");
        add(tr("7. Weighted sum, output projection, residual"),
            tr("Each head adds up the values with those weights %1; the heads are joined and "
               "projected back to %2 numbers per token, and added to the hidden states (the "
               "residual stream), which keep their shape %3.")
                .arg(shapeOf(Stage::WeightedSum), groupedNumber(c.hiddenSize),
                     shapeOf(Stage::ResidualAttention)),
            "attentionHeadsDock");
        add(tr("8. RMSNorm, SwiGLU MLP, residual"),
            tr("A second RMSNorm, then the MLP widens every vector to %1 (two projections, one "
               "through SiLU, multiplied), and narrows it back to %2; the result is added to the "
               "residual stream. The MLP holds most of the weights: %3 per layer and prompt.")
                .arg(shapeOf(Stage::SwiGluMlp), groupedNumber(c.hiddenSize),
                     widgets::formatFlops(prefill_.stage(Stage::SwiGluMlp).flops)),
            "doubleLoopDock");
        add(tr("9. Final norm and LM head"),
            tr("After layer %1, a last RMSNorm, and the LM head turns the last token's vector "
               "into logits over %2 entries %3: one score for every token the model could say "
               "next.")
                .arg(c.layerCount - 1)
                .arg(groupedNumber(c.vocabSize), shapeOf(Stage::LmHead)),
            "samplingDock");
        add(tr("10. Sampling"),
            ran ? tr("Softmax turns the logits into probabilities; temperature %1 sharpens or "
                     "flattens them, top-k %2 and top-p %3 cut the tail: %4 candidates were left, "
                     "and the draw chose “%5” (p = %6). Move a slider while paused to re-shape "
                     "this step.")
                      .arg(f_.sampling.temperature)
                      .arg(f_.sampling.topK)
                      .arg(f_.sampling.topP)
                      .arg(f_.firstTokenCandidates)
                      .arg(f_.firstToken.toHtmlEscaped())
                      .arg(double(f_.firstTokenProbability), 0, 'f', 3)
                : tr("Softmax turns the logits into probabilities; temperature %1 sharpens or "
                     "flattens them, top-k %2 and top-p %3 cut the tail, and one token is drawn.")
                      .arg(f_.sampling.temperature)
                      .arg(f_.sampling.topK)
                      .arg(f_.sampling.topP),
            "samplingDock");
        add(tr("11. The outer loop"),
            ran ? tr("The chosen token is appended and the whole inner loop runs again, for that "
                     "one token only: the double-loop grid has one column per step. This answer "
                     "took %1 tokens and ended with “%2”.")
                      .arg(f_.generatedTokens)
                      .arg(f_.finishReason)
                : tr("The chosen token is appended and the inner loop runs again for it, until "
                     "the end-of-sequence token or the length limit."),
            "doubleLoopDock");
        add(tr("12. The KV cache"),
            tr("Keys and values of past tokens never change, so each layer keeps them: the next "
               "step computes one new query, key and value and reads the rest from the cache. "
               "It holds %1 per token here (f32), at most %2 tokens. With %3 key/value groups "
               "instead of %4 heads it needs %5 per token at fp16 instead of %6: the KV panel "
               "draws both lines.")
                .arg(bytes(kvBytesPerToken(c, 4)), groupedNumber(f_.contextSize),
                     groupedNumber(c.kvHeadCount), groupedNumber(c.headCount),
                     bytes(kvBytesPerToken(c, 2)), bytes(kvBytesPerToken(c, 2, true))),
            "kvCacheDock");
        add(tr("13. What a step costs"),
            tr("The prompt's step does %1 and moves %2: %3 FLOP per byte, compute-bound. A "
               "decode step does %4 for one token but still reads every weight (%5): %6 FLOP "
               "per byte, bound by memory bandwidth. The shapes-and-costs table lists every "
               "stage.")
                .arg(widgets::formatFlops(prefill_.flops), bytes(prefill_.bytes))
                .arg(prefill_.intensity(), 0, 'f', 1)
                .arg(widgets::formatFlops(decode_.flops), bytes(decode_.bytes))
                .arg(decode_.intensity(), 0, 'f', 2),
            "stepCostsDock");
        return steps;
    }

  private:
    QString shapeOf(Stage stage, const QString& tensor = {}) const {
        for (const StageCost& cost : prefill_.stages)
            if (cost.stage == stage &&
                (tensor.isEmpty() || QString::fromStdString(cost.tensor).contains(tensor)))
                return QString::fromStdString(formatShape(cost.shape));
        return QString::fromStdString(formatShape(prefill_.stage(stage).shape));
    }
    static QString bytes(double value) {
        return value >= double(1 << 30) ? tr("%1 GiB").arg(value / double(1 << 30), 0, 'f', 2)
               : value >= double(1 << 20)
                   ? tr("%1 MiB").arg(value / double(1 << 20), 0, 'f', 1)
                   : tr("%1 KiB").arg(value / 1024.0, 0, 'f', value >= 10240 ? 0 : 1);
    }

    const TourFacts& f_;
    int64_t tokens_;
    StepCosts prefill_, decode_;
};

}  // namespace

QString groupedNumber(qint64 value) {
    return QLocale(QLocale::English).toString(value);
}

std::vector<TourStep> buildTour(const TourFacts& facts) {
    return Tour(facts).steps();
}

}  // namespace inferlens::gui
