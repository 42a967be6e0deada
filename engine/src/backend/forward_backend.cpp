#include "backend/forward_backend.h"

#include "core/error.h"

namespace inferlens {

void ForwardBackend::setCacheSlots(int count) {
    if (count != 1)
        throw Error(deviceName() + " keeps one sequence's KV cache: beam search runs on the CPU");
}

void ForwardBackend::useCacheSlot(int slot) {
    if (slot != 0)
        throw Error("KV cache slot " + std::to_string(slot) + " does not exist");
}

void ForwardBackend::copyCacheSlot(int from, int to) {
    if (from != 0 || to != 0)
        throw Error("KV cache slots " + std::to_string(from) + " → " + std::to_string(to) +
                    " do not exist");
}

}  // namespace inferlens
