#include "backend/devices.h"

#include <charconv>

#include "core/error.h"

namespace inferlens {

std::string ComputeDevice::name() const {
    return isCuda() ? "cuda:" + std::to_string(index) : "cpu";
}

ComputeDevice parseComputeDevice(const std::string& text) {
    if (text == "cpu")
        return {};
    if (text == "cuda")
        return {ComputeDevice::Kind::Cuda, 0};
    const std::string prefix = "cuda:";
    if (text.rfind(prefix, 0) == 0) {
        int index = -1;
        const char* first = text.data() + prefix.size();
        const char* last = text.data() + text.size();
        const auto [end, error] = std::from_chars(first, last, index);
        if (error == std::errc() && end == last && first != last && index >= 0)
            return {ComputeDevice::Kind::Cuda, index};
    }
    throw Error("the device must be cpu, cuda or cuda:N (N a GPU index), not '" + text + "'");
}

}  // namespace inferlens
