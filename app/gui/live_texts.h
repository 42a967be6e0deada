#pragma once
// Texts that follow the interface language. Each entry sets some widget's text with tr() now and
// again whenever the language changes (QEvent::LanguageChange), so that switching the language in
// the menu needs no restart and no second list of strings: lupdate still finds every tr() here.

#include <functional>
#include <utility>
#include <vector>

namespace inferlens::gui {

class LiveTexts {
  public:
    // Runs `apply` now and on every retranslate().
    void add(std::function<void()> apply) {
        apply();
        setters_.push_back(std::move(apply));
    }
    void retranslate() const {
        for (const auto& apply : setters_)
            apply();
    }

  private:
    std::vector<std::function<void()>> setters_;
};

}  // namespace inferlens::gui
