#pragma once
// The sampler's random numbers: xoshiro256** (Blackman & Vigna, 2018) seeded through splitmix64, as
// its authors recommend. Written out here rather than taken from <random> because the standard
// leaves the algorithms of std::uniform_real_distribution (and of every distribution) to the
// library: a seed must give the same tokens with every compiler and on every platform, so both the
// generator and the conversion to [0, 1) are fixed here.

#include <cstdint>

namespace inferlens {

class Random {
  public:
    explicit Random(uint64_t seed = 0) { reseed(seed); }

    void reseed(uint64_t seed) {
        // splitmix64 spreads any seed, 0 included, over the 256-bit state (never all zeros).
        uint64_t x = seed;
        for (uint64_t& word : state_)
            word = splitMix64(x);
    }

    uint64_t next() {
        const uint64_t result = rotateLeft(state_[1] * 5, 7) * 9;
        const uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotateLeft(state_[3], 45);
        return result;
    }

    // Uniform in [0, 1): the top 53 bits times 2^-53, so every value is exact in a double and 1 is
    // never returned.
    double nextDouble() { return double(next() >> 11) * 0x1.0p-53; }

  private:
    static uint64_t rotateLeft(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static uint64_t splitMix64(uint64_t& x) {
        uint64_t z = (x += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
    }

    uint64_t state_[4];
};

}  // namespace inferlens
