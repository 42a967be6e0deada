#include "models/rope_frequencies.h"

#include <cmath>
#include <numbers>

namespace inferlens {

std::vector<double> ropeFrequencies(const ModelConfig& c, int64_t layer) {
    const bool local = c.isSlidingLayer(layer);
    const double base = local ? c.localRopeBase : c.ropeBase;
    std::vector<double> frequencies(size_t(c.ropeDims / 2));
    for (size_t i = 0; i < frequencies.size(); ++i) {
        double theta = std::pow(base, -2.0 * double(i) / double(c.ropeDims));
        if (!local) {
            theta /= c.ropeLinearFactor;
            if (!c.ropeFrequencyDivisors.empty())
                theta /= double(c.ropeFrequencyDivisors[i]);
        }
        frequencies[i] = theta;
    }
    return frequencies;
}

std::vector<float> llama3RopeDivisors(const Llama3RopeScaling& s, double base, int64_t ropeDims) {
    const double lowFrequencyWavelength = double(s.originalContext) / s.lowFreqFactor;
    const double highFrequencyWavelength = double(s.originalContext) / s.highFreqFactor;
    std::vector<float> divisors(size_t(ropeDims / 2));
    for (size_t i = 0; i < divisors.size(); ++i) {
        const double frequency = std::pow(base, -2.0 * double(i) / double(ropeDims));
        const double wavelength = 2 * std::numbers::pi / frequency;
        double divisor = 1.0;
        if (wavelength > lowFrequencyWavelength) {
            divisor = s.factor;
        } else if (wavelength >= highFrequencyWavelength) {
            const double smooth = (double(s.originalContext) / wavelength - s.lowFreqFactor) /
                                  (s.highFreqFactor - s.lowFreqFactor);
            divisor = 1.0 / ((1 - smooth) / s.factor + smooth);
        }
        divisors[i] = float(divisor);
    }
    return divisors;
}

}  // namespace inferlens
