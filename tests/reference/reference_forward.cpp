#include "reference/reference_forward.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

namespace inferlens::reference {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------------------------------------------
// Numbers: IEEE-style binary floats decoded by hand (sign, biased exponent, mantissa), exactly.

double decodeBinaryFloat(uint64_t bits, int exponentBits, int mantissaBits) {
    const uint64_t mantissa = bits & ((uint64_t(1) << mantissaBits) - 1);
    const uint64_t exponent = (bits >> mantissaBits) & ((uint64_t(1) << exponentBits) - 1);
    const bool negative = (bits >> (mantissaBits + exponentBits)) & 1;
    const int bias = (1 << (exponentBits - 1)) - 1;
    const uint64_t maxExponent = (uint64_t(1) << exponentBits) - 1;
    double value;
    if (exponent == maxExponent)
        value = mantissa == 0 ? INFINITY : NAN;
    else if (exponent == 0)  // subnormal: 0.mantissa · 2^(1 − bias)
        value = std::ldexp(double(mantissa), 1 - bias - mantissaBits);
    else  // normal: 1.mantissa · 2^(exponent − bias)
        value = std::ldexp(double(mantissa + (uint64_t(1) << mantissaBits)),
                           int(exponent) - bias - mantissaBits);
    return negative ? -value : value;
}

// ---------------------------------------------------------------------------------------------------
// Tensors: a row-major matrix of doubles. Weights are [out, in] as PyTorch stores them; activations
// are [tokens, features]. Vectors (norm weights, biases) are std::vector<double>.

struct Matrix {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<double> values;
    // The file's type of a weight matrix ("F32", "F16", "BF16"), and whether its products round
    // their inputs to it (ReferenceOptions).
    std::string storedAs = "F32";
    bool roundsInputs = false;

    Matrix() = default;
    Matrix(int64_t r, int64_t c) : rows(r), cols(c), values(size_t(r * c), 0.0) {}
    double* row(int64_t r) { return values.data() + r * cols; }
    const double* row(int64_t r) const { return values.data() + r * cols; }
};

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

// Rows [begin, begin + count) of m.
Matrix sliceRows(const Matrix& m, int64_t begin, int64_t count) {
    Matrix out(count, m.cols);
    std::copy(m.row(begin), m.row(begin) + count * m.cols, out.values.begin());
    out.storedAs = m.storedAs;
    return out;
}

// ---------------------------------------------------------------------------------------------------
// safetensors: u64 little-endian header length N, N bytes of JSON {name: {dtype, shape,
// data_offsets: [begin, end)}} (+ "__metadata__"), then the data; offsets count from the data
// start.

struct StoredTensor {
    std::string file;
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0;  // absolute byte offsets in the file
    uint64_t end = 0;
};

int64_t elementBytes(const std::string& dtype) {
    if (dtype == "F32")
        return 4;
    if (dtype == "F16" || dtype == "BF16")
        return 2;
    return 0;
}

class SafetensorsDirectory {
  public:
    explicit SafetensorsDirectory(const fs::path& directory) {
        const fs::path single = directory / "model.safetensors";
        const fs::path index = directory / "model.safetensors.index.json";
        if (fs::exists(single)) {
            readHeader(single);
        } else if (fs::exists(index)) {
            std::set<std::string> shards;
            try {
                for (const auto& [name, shard] : readJson(index).at("weight_map").items())
                    shards.insert(shard.get<std::string>());
            } catch (const json::exception& e) {
                throw ReferenceError(index.string() + ": bad weight_map: " + e.what());
            }
            for (const std::string& shard : shards)
                readHeader(directory / shard);
        } else {
            throw ReferenceError(directory.string() +
                                 ": neither model.safetensors nor model.safetensors.index.json");
        }
    }

    bool contains(const std::string& name) const { return tensors_.contains(name); }

    // The tensor `name`, which must have `shape`, decoded to doubles.
    std::vector<double> load(const std::string& name, const std::vector<int64_t>& shape) const {
        const auto found = tensors_.find(name);
        if (found == tensors_.end())
            throw ReferenceError("missing tensor " + name);
        const StoredTensor& tensor = found->second;
        if (tensor.shape != shape)
            throw ReferenceError("tensor " + name + " has shape " + shapeText(tensor.shape) +
                                 ", expected " + shapeText(shape));

        std::ifstream in(tensor.file, std::ios::binary);
        std::vector<unsigned char> bytes(tensor.end - tensor.begin);
        in.seekg(std::streamoff(tensor.begin));
        in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!in)
            throw ReferenceError(tensor.file + ": cannot read tensor " + name);

        const int64_t size = elementBytes(tensor.dtype);
        std::vector<double> values(bytes.size() / size_t(size));
        for (size_t i = 0; i < values.size(); ++i) {
            uint64_t bits = 0;  // little-endian
            for (int64_t b = size - 1; b >= 0; --b)
                bits = (bits << 8) | bytes[i * size + b];
            if (tensor.dtype == "F32")
                values[i] = decodeBinaryFloat(bits, 8, 23);
            else if (tensor.dtype == "F16")
                values[i] = halfToDouble(uint16_t(bits));
            else
                values[i] = bfloat16ToDouble(uint16_t(bits));
        }
        return values;
    }

    Matrix matrix(const std::string& name, int64_t rows, int64_t cols) const {
        Matrix m(rows, cols);
        m.values = load(name, {rows, cols});
        m.storedAs = tensors_.at(name).dtype;
        return m;
    }

    std::vector<double> vector(const std::string& name, int64_t size) const {
        return load(name, {size});
    }

    static json readJson(const fs::path& path) {
        std::ifstream in(path);
        if (!in)
            throw ReferenceError(path.string() + ": cannot open");
        try {
            return json::parse(in);
        } catch (const json::exception& e) {
            throw ReferenceError(path.string() + ": invalid JSON: " + e.what());
        }
    }

  private:
    void readHeader(const fs::path& path) {
        const std::string file = path.string();
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw ReferenceError(file + ": cannot open");
        const uint64_t fileSize = fs::file_size(path);
        unsigned char lengthBytes[8];
        in.read(reinterpret_cast<char*>(lengthBytes), 8);
        uint64_t headerLength = 0;
        for (int b = 7; b >= 0; --b)
            headerLength = (headerLength << 8) | lengthBytes[b];
        if (!in || headerLength > fileSize - 8)
            throw ReferenceError(file + ": header length runs past the end of the file");
        std::string headerText(headerLength, '\0');
        in.read(headerText.data(), std::streamsize(headerLength));

        json header;
        try {
            header = json::parse(headerText);
        } catch (const json::exception& e) {
            throw ReferenceError(file + ": invalid header JSON: " + e.what());
        }
        const uint64_t dataStart = 8 + headerLength;
        for (const auto& [name, entry] : header.items()) {
            if (name == "__metadata__")
                continue;
            try {
                StoredTensor tensor;
                tensor.file = file;
                tensor.dtype = entry.at("dtype").get<std::string>();
                tensor.shape = entry.at("shape").get<std::vector<int64_t>>();
                const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
                if (offsets.size() != 2 || offsets[1] < offsets[0])
                    throw ReferenceError("bad data_offsets");
                tensor.begin = dataStart + offsets[0];
                tensor.end = dataStart + offsets[1];
                if (tensor.end > fileSize)
                    throw ReferenceError("data runs past the end of the file");
                if (elementBytes(tensor.dtype) == 0)
                    throw ReferenceError("dtype " + tensor.dtype + " is not F32, F16 or BF16");
                int64_t count = 1;
                for (int64_t dim : tensor.shape)
                    count *= dim;
                if (tensor.end - tensor.begin != uint64_t(count * elementBytes(tensor.dtype)))
                    throw ReferenceError("byte size does not match the shape");
                tensors_[name] = std::move(tensor);
            } catch (const json::exception& e) {
                throw ReferenceError(file + ": tensor " + name + ": " + e.what());
            } catch (const ReferenceError& e) {
                throw ReferenceError(file + ": tensor " + name + ": " + e.what());
            }
        }
    }

    std::map<std::string, StoredTensor> tensors_;
};

// ---------------------------------------------------------------------------------------------------
// Configuration, read from config.json with each architecture's own key names.

struct Config {
    int64_t layers = 0;
    int64_t hidden = 0;   // H
    int64_t heads = 0;    // query heads
    int64_t kvHeads = 0;  // key/value heads (GQA) or groups (ChatGLM multi-query)
    int64_t headDim = 0;  // D
    int64_t ffn = 0;      // F
    int64_t vocab = 0;    // V
    double normEps = 1e-5;
    double ropeBase = 10000.0;
    int64_t ropeDims = 0;  // the leading dims of each head that rotate
    RopePairing ropePairing = RopePairing::RotateHalf;
};

int64_t requireInteger(const json& config, const std::string& key) {
    if (!config.contains(key) || !config[key].is_number_integer())
        throw ReferenceError("config.json: " + key + " is missing or not an integer");
    return config[key].get<int64_t>();
}

template <typename T>
T optionalValue(const json& config, const std::string& key, T fallback) {
    if (!config.contains(key) || config[key].is_null())
        return fallback;
    try {
        return config[key].get<T>();
    } catch (const json::exception&) {
        throw ReferenceError("config.json: " + key + " has the wrong type");
    }
}

void requireSetting(bool holds, const std::string& what) {
    if (!holds)
        throw ReferenceError("config.json: " + what + " is not supported by the reference");
}

Config llamaConfig(const json& c) {
    Config config;
    config.layers = requireInteger(c, "num_hidden_layers");
    config.hidden = requireInteger(c, "hidden_size");
    config.heads = requireInteger(c, "num_attention_heads");
    config.kvHeads = optionalValue<int64_t>(c, "num_key_value_heads", config.heads);
    config.headDim = optionalValue<int64_t>(c, "head_dim", config.hidden / config.heads);
    config.ffn = requireInteger(c, "intermediate_size");
    config.vocab = requireInteger(c, "vocab_size");
    config.normEps = optionalValue<double>(c, "rms_norm_eps", 1e-6);
    config.ropeBase = optionalValue<double>(c, "rope_theta", 10000.0);
    config.ropeDims = config.headDim;
    config.ropePairing = RopePairing::RotateHalf;
    requireSetting(optionalValue<std::string>(c, "hidden_act", "silu") == "silu", "hidden_act");
    requireSetting(!c.contains("rope_scaling") || c["rope_scaling"].is_null(), "rope_scaling");
    requireSetting(!optionalValue<bool>(c, "attention_bias", false), "attention_bias");
    requireSetting(!optionalValue<bool>(c, "mlp_bias", false), "mlp_bias");
    return config;
}

Config chatglmConfig(const json& c) {
    Config config;
    config.layers = requireInteger(c, "num_layers");
    config.hidden = requireInteger(c, "hidden_size");
    config.heads = requireInteger(c, "num_attention_heads");
    config.kvHeads = optionalValue<bool>(c, "multi_query_attention", false)
                         ? requireInteger(c, "multi_query_group_num")
                         : config.heads;
    config.headDim = optionalValue<int64_t>(c, "kv_channels", config.hidden / config.heads);
    config.ffn = requireInteger(c, "ffn_hidden_size");
    config.vocab = requireInteger(c, "padded_vocab_size");
    config.normEps = optionalValue<double>(c, "layernorm_epsilon", 1e-5);
    config.ropeBase = 10000.0 * optionalValue<double>(c, "rope_ratio", 1.0);
    config.ropeDims = config.headDim / 2;  // RotaryEmbedding(rotary_dim // 2)
    config.ropePairing = RopePairing::Adjacent;
    requireSetting(optionalValue<bool>(c, "rmsnorm", true), "rmsnorm = false (LayerNorm)");
    requireSetting(!optionalValue<bool>(c, "add_bias_linear", false), "add_bias_linear");
    requireSetting(optionalValue<bool>(c, "add_qkv_bias", true), "add_qkv_bias = false");
    requireSetting(optionalValue<bool>(c, "post_layer_norm", true), "post_layer_norm = false");
    requireSetting(!optionalValue<bool>(c, "apply_residual_connection_post_layernorm", false),
                   "apply_residual_connection_post_layernorm");
    return config;
}

void validate(const Config& c) {
    if (c.layers <= 0 || c.hidden <= 0 || c.heads <= 0 || c.kvHeads <= 0 || c.headDim <= 0 ||
        c.ffn <= 0 || c.vocab <= 0)
        throw ReferenceError("config.json: sizes must be positive");
    if (c.heads % c.kvHeads != 0)
        throw ReferenceError("config.json: the head count is not a multiple of the KV head count");
    if (c.ropeDims % 2 != 0)
        throw ReferenceError("config.json: the rotary dimension must be even");
}

// ---------------------------------------------------------------------------------------------------
// Weights, mapped from each architecture's HF names into one decoder layout.

struct LayerWeights {
    std::vector<double> attentionNorm;  // [H]
    Matrix wq;                          // [heads·D, H]
    Matrix wk;                          // [kv·D, H]
    Matrix wv;                          // [kv·D, H]
    std::vector<double> bq, bk, bv;     // [heads·D], [kv·D], [kv·D]; empty without QKV bias
    Matrix wo;                          // [H, heads·D]
    std::vector<double> ffnNorm;        // [H]
    Matrix wGate;                       // [F, H]
    Matrix wUp;                         // [F, H]
    Matrix wDown;                       // [H, F]
};

struct Weights {
    Matrix embedding;  // [V, H]
    std::vector<LayerWeights> layers;
    std::vector<double> finalNorm;  // [H]
    Matrix output;                  // [V, H]
};

Weights llamaWeights(const SafetensorsDirectory& st, const Config& c, bool tieWordEmbeddings) {
    const int64_t H = c.hidden, Q = c.heads * c.headDim, KV = c.kvHeads * c.headDim, F = c.ffn;
    Weights w;
    w.embedding = st.matrix("model.embed_tokens.weight", c.vocab, H);
    for (int64_t l = 0; l < c.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LayerWeights layer;
        layer.attentionNorm = st.vector(p + "input_layernorm.weight", H);
        layer.wq = st.matrix(p + "self_attn.q_proj.weight", Q, H);
        layer.wk = st.matrix(p + "self_attn.k_proj.weight", KV, H);
        layer.wv = st.matrix(p + "self_attn.v_proj.weight", KV, H);
        layer.wo = st.matrix(p + "self_attn.o_proj.weight", H, Q);
        layer.ffnNorm = st.vector(p + "post_attention_layernorm.weight", H);
        layer.wGate = st.matrix(p + "mlp.gate_proj.weight", F, H);
        layer.wUp = st.matrix(p + "mlp.up_proj.weight", F, H);
        layer.wDown = st.matrix(p + "mlp.down_proj.weight", H, F);
        w.layers.push_back(std::move(layer));
    }
    w.finalNorm = st.vector("model.norm.weight", H);
    const bool tied = tieWordEmbeddings || !st.contains("lm_head.weight");
    w.output = tied ? w.embedding : st.matrix("lm_head.weight", c.vocab, H);
    return w;
}

Weights chatglmWeights(const SafetensorsDirectory& st, const Config& c) {
    const int64_t H = c.hidden, Q = c.heads * c.headDim, KV = c.kvHeads * c.headDim, F = c.ffn;
    Weights w;
    w.embedding = st.matrix("transformer.embedding.word_embeddings.weight", c.vocab, H);
    for (int64_t l = 0; l < c.layers; ++l) {
        const std::string p = "transformer.encoder.layers." + std::to_string(l) + ".";
        LayerWeights layer;
        layer.attentionNorm = st.vector(p + "input_layernorm.weight", H);
        // query_key_value rows: Q [0, Q) head-major, then K [Q, Q + KV), then V; not per-head
        // interleaved.
        const Matrix qkv = st.matrix(p + "self_attention.query_key_value.weight", Q + 2 * KV, H);
        const std::vector<double> qkvBias =
            st.vector(p + "self_attention.query_key_value.bias", Q + 2 * KV);
        layer.wq = sliceRows(qkv, 0, Q);
        layer.wk = sliceRows(qkv, Q, KV);
        layer.wv = sliceRows(qkv, Q + KV, KV);
        layer.bq.assign(qkvBias.begin(), qkvBias.begin() + Q);
        layer.bk.assign(qkvBias.begin() + Q, qkvBias.begin() + Q + KV);
        layer.bv.assign(qkvBias.begin() + Q + KV, qkvBias.end());
        layer.wo = st.matrix(p + "self_attention.dense.weight", H, Q);
        layer.ffnNorm = st.vector(p + "post_attention_layernorm.weight", H);
        // dense_h_to_4h rows: [0, F) the gate (SiLU), [F, 2F) up — torch.chunk(x, 2) in SwiGLU.
        const Matrix h4h = st.matrix(p + "mlp.dense_h_to_4h.weight", 2 * F, H);
        layer.wGate = sliceRows(h4h, 0, F);
        layer.wUp = sliceRows(h4h, F, F);
        layer.wDown = st.matrix(p + "mlp.dense_4h_to_h.weight", H, F);
        w.layers.push_back(std::move(layer));
    }
    w.finalNorm = st.vector("transformer.encoder.final_layernorm.weight", H);
    w.output = st.matrix("transformer.output_layer.weight", c.vocab, H);
    return w;
}

// ---------------------------------------------------------------------------------------------------
// The modules of the forward pass. x is always [T, features], T = number of tokens.

// x / sqrt(mean(x²) + eps) · weight, per row.
Matrix rmsNorm(const Matrix& x, const std::vector<double>& weight, double eps) {
    Matrix out(x.rows, x.cols);
    for (int64_t t = 0; t < x.rows; ++t) {
        double sumSquares = 0;
        for (int64_t i = 0; i < x.cols; ++i)
            sumSquares += x.row(t)[i] * x.row(t)[i];
        const double scale = 1.0 / std::sqrt(sumSquares / double(x.cols) + eps);
        for (int64_t i = 0; i < x.cols; ++i)
            out.row(t)[i] = x.row(t)[i] * scale * weight[i];
    }
    return out;
}

// x rounded to `bits` significant bits, ties to even: x = m · 2^e with m in [0.5, 1) (frexp) is a
// whole number of steps 2^(e − bits), no finer than 2^minExponent (the subnormals' step), rounded
// to an integer in the default rounding mode; past `largest` (the greatest finite value) infinite.
double roundToSignificantBits(double x, int bits, int minExponent, double largest) {
    int exponent = 0;
    (void)std::frexp(x, &exponent);
    const int step = std::max(exponent - bits, minExponent);
    const double rounded = std::ldexp(std::nearbyint(std::ldexp(x, -step)), step);
    return std::fabs(rounded) > largest ? std::copysign(INFINITY, x) : rounded;
}

// x [T, in] · weightᵀ [in, out] (+ bias [out]) → [T, out], like torch.nn.Linear.
Matrix linear(const Matrix& x, const Matrix& weight, const std::vector<double>& bias = {}) {
    if (x.cols != weight.cols)
        throw ReferenceError("linear: inner dimensions differ");
    Matrix in = x;
    if (weight.roundsInputs)
        for (double& value : in.values)
            value = roundToStoredType(value, weight.storedAs);
    Matrix out(x.rows, weight.rows);
    for (int64_t t = 0; t < x.rows; ++t)
        for (int64_t o = 0; o < weight.rows; ++o) {
            double sum = bias.empty() ? 0.0 : bias[o];
            for (int64_t i = 0; i < x.cols; ++i)
                sum += in.row(t)[i] * weight.row(o)[i];
            out.row(t)[o] = sum;
        }
    return out;
}

// Rotates the first `ropeDims` dims of every head of x [T, heads·D]; token t is at position t.
// Pair k (k < ropeDims/2) turns by the angle t · base^(−2k/ropeDims):
//   RotateHalf: (x[k], x[k + ropeDims/2]) — HF's x·cos + rotate_half(x)·sin
//   Adjacent:   (x[2k], x[2k + 1])        — ChatGLM's apply_rotary_pos_emb
// The remaining dims (ChatGLM's second half of each head) pass through.
void applyRope(Matrix& x, int64_t heads, const Config& c, RopePairing pairing) {
    const int64_t half = c.ropeDims / 2;
    for (int64_t t = 0; t < x.rows; ++t)
        for (int64_t h = 0; h < heads; ++h) {
            double* head = x.row(t) + h * c.headDim;  // [D]
            for (int64_t k = 0; k < half; ++k) {
                const double angle =
                    double(t) * std::pow(c.ropeBase, -2.0 * double(k) / double(c.ropeDims));
                const int64_t i = pairing == RopePairing::RotateHalf ? k : 2 * k;
                const int64_t j = pairing == RopePairing::RotateHalf ? k + half : 2 * k + 1;
                const double a = head[i], b = head[j];
                head[i] = a * std::cos(angle) - b * std::sin(angle);
                head[j] = b * std::cos(angle) + a * std::sin(angle);
            }
        }
}

// Causal scaled dot-product attention. q [T, heads·D], k and v [T, kv·D] → [T, heads·D].
// Query head h reads KV head h / (heads / kv).
Matrix causalSelfAttention(const Matrix& q, const Matrix& k, const Matrix& v, const Config& c) {
    const int64_t T = q.rows, D = c.headDim, groupSize = c.heads / c.kvHeads;
    const double scale = 1.0 / std::sqrt(double(D));
    Matrix out(T, c.heads * D);
    std::vector<double> probabilities(static_cast<size_t>(T));  // [positions ≤ t]
    for (int64_t t = 0; t < T; ++t)
        for (int64_t h = 0; h < c.heads; ++h) {
            const int64_t g = h / groupSize;
            const double* query = q.row(t) + h * D;  // [D]
            // scores[s] = q·k / √D for s ≤ t (the causal mask drops s > t), then softmax.
            double maxScore = -INFINITY;
            for (int64_t s = 0; s <= t; ++s) {
                const double* key = k.row(s) + g * D;
                double dot = 0;
                for (int64_t d = 0; d < D; ++d)
                    dot += query[d] * key[d];
                probabilities[s] = dot * scale;
                maxScore = std::max(maxScore, probabilities[s]);
            }
            double sum = 0;
            for (int64_t s = 0; s <= t; ++s) {
                probabilities[s] = std::exp(probabilities[s] - maxScore);
                sum += probabilities[s];
            }
            double* attended = out.row(t) + h * D;  // [D] = Σ_s p[s] · v[s]
            for (int64_t s = 0; s <= t; ++s) {
                const double* value = v.row(s) + g * D;
                for (int64_t d = 0; d < D; ++d)
                    attended[d] += probabilities[s] / sum * value[d];
            }
        }
    return out;
}

// SwiGLU: down(silu(gate(x)) · up(x)). x [T, H] → [T, H].
Matrix mlp(const Matrix& x, const LayerWeights& w) {
    Matrix gate = linear(x, w.wGate);    // [T, F]
    const Matrix up = linear(x, w.wUp);  // [T, F]
    for (size_t i = 0; i < gate.values.size(); ++i) {
        const double g = gate.values[i];
        gate.values[i] = g / (1.0 + std::exp(-g)) * up.values[i];
    }
    return linear(gate, w.wDown);
}

void addInPlace(Matrix& x, const Matrix& y) {
    for (size_t i = 0; i < x.values.size(); ++i)
        x.values[i] += y.values[i];
}

// The decoder, pre-norm with residuals, as both architectures define it: the residual stream
// [T, H] after the last layer. `afterLayer` sees it after every layer (the logit lens's input).
Matrix forward(const Weights& w, const Config& c, const std::vector<int32_t>& ids,
               RopePairing pairing, const std::function<void(const Matrix&)>& afterLayer = {}) {
    const int64_t T = int64_t(ids.size());
    Matrix x(T, c.hidden);  // [T, H]: the residual stream
    for (int64_t t = 0; t < T; ++t) {
        if (ids[t] < 0 || ids[t] >= c.vocab)
            throw ReferenceError("token id " + std::to_string(ids[t]) +
                                 " is outside the vocabulary");
        std::copy(w.embedding.row(ids[t]), w.embedding.row(ids[t]) + c.hidden, x.row(t));
    }

    for (const LayerWeights& layer : w.layers) {
        // Attention block.
        const Matrix normed = rmsNorm(x, layer.attentionNorm, c.normEps);  // [T, H]
        Matrix q = linear(normed, layer.wq, layer.bq);                     // [T, heads·D]
        Matrix k = linear(normed, layer.wk, layer.bk);                     // [T, kv·D]
        const Matrix v = linear(normed, layer.wv, layer.bv);               // [T, kv·D]
        applyRope(q, c.heads, c, pairing);
        applyRope(k, c.kvHeads, c, pairing);
        const Matrix attended = causalSelfAttention(q, k, v, c);  // [T, heads·D]
        addInPlace(x, linear(attended, layer.wo));                // [T, H]

        // Feed-forward block.
        addInPlace(x, mlp(rmsNorm(x, layer.ffnNorm, c.normEps), layer));
        if (afterLayer)
            afterLayer(x);
    }
    return x;
}

// The final norm and the LM head: x [T, H] → logits [T, V].
Matrix logitsOf(const Weights& w, const Config& c, const Matrix& x) {
    return linear(rmsNorm(x, w.finalNorm, c.normEps), w.output);
}

std::vector<std::vector<double>> rowsOf(const Matrix& m) {
    std::vector<std::vector<double>> rows;
    for (int64_t r = 0; r < m.rows; ++r)
        rows.emplace_back(m.row(r), m.row(r) + m.cols);
    return rows;
}

struct LoadedModel {
    Config config;
    Weights weights;
};

LoadedModel loadModel(const std::string& hfDirectory) {
    const fs::path directory(hfDirectory);
    const json configJson = SafetensorsDirectory::readJson(directory / "config.json");
    const std::string modelType = optionalValue<std::string>(configJson, "model_type", "");
    const SafetensorsDirectory safetensors(directory);

    LoadedModel model;
    if (modelType == "llama") {
        model.config = llamaConfig(configJson);
        validate(model.config);
        model.weights = llamaWeights(safetensors, model.config,
                                     optionalValue<bool>(configJson, "tie_word_embeddings", false));
    } else if (modelType == "chatglm") {
        model.config = chatglmConfig(configJson);
        validate(model.config);
        model.weights = chatglmWeights(safetensors, model.config);
    } else {
        throw ReferenceError(hfDirectory + "/config.json: model_type \"" + modelType +
                             "\" is not supported by the reference (llama, chatglm)");
    }
    return model;
}

}  // namespace

double roundToStoredType(double x, const std::string& storedAs) {
    if (storedAs == "F16")
        return roundToSignificantBits(x, 11, -24, 65504.0);
    if (storedAs == "BF16")
        return roundToSignificantBits(x, 8, -133, 3.3895313892515355e38);
    return x;
}

double halfToDouble(uint16_t bits) {
    return decodeBinaryFloat(bits, 5, 10);
}

double bfloat16ToDouble(uint16_t bits) {
    return decodeBinaryFloat(bits, 8, 7);
}

std::vector<std::vector<double>> referenceLogits(const std::string& hfDirectory,
                                                 const std::vector<int32_t>& ids,
                                                 const ReferenceOptions& options) {
    LoadedModel model = loadModel(hfDirectory);
    if (options.roundInputsToWeightType) {
        for (LayerWeights& layer : model.weights.layers)
            for (Matrix* weight : {&layer.wq, &layer.wk, &layer.wv, &layer.wo, &layer.wGate,
                                   &layer.wUp, &layer.wDown})
                weight->roundsInputs = true;
        model.weights.output.roundsInputs = true;
    }
    const RopePairing pairing = options.forceRopePairing.value_or(model.config.ropePairing);
    return rowsOf(
        logitsOf(model.weights, model.config, forward(model.weights, model.config, ids, pairing)));
}

std::vector<std::vector<double>> referenceLayerLogits(const std::string& hfDirectory,
                                                      const std::vector<int32_t>& ids) {
    const LoadedModel model = loadModel(hfDirectory);
    std::vector<std::vector<double>> layers;
    forward(model.weights, model.config, ids, model.config.ropePairing, [&](const Matrix& x) {
        const Matrix last = sliceRows(x, x.rows - 1, 1);  // [1, H]
        layers.push_back(rowsOf(logitsOf(model.weights, model.config, last)).front());
    });
    return layers;
}

}  // namespace inferlens::reference
