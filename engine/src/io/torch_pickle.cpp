#include "io/torch_pickle.h"

#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "core/utf8.h"
#include "io/byte_reader.h"
#include "io/zip_archive.h"

namespace inferlens {
namespace {

// Far above what a state dict needs (torch.save batches SETITEMS by 1,000 pairs, nests marks
// about three deep and memoizes a handful of objects per tensor), far below what could hurt.
constexpr size_t kMaxStack = size_t(1) << 16;
constexpr size_t kMaxMarks = 64;
constexpr size_t kMaxMemo = size_t(1) << 20;
// A state dict needs about 15 objects per tensor: even a 70B shard stays far below this.
constexpr size_t kMaxObjects = size_t(1) << 18;  // ~25 MiB at most
constexpr uint64_t kMaxStringBytes = uint64_t(1) << 20;
constexpr size_t kMaxGlobalLine = 256;
constexpr size_t kMaxDimensions = 8;
constexpr uint8_t kMaxProtocol = 5;

// Opcodes (CPython's Lib/pickle.py names).
enum Opcode : uint8_t {
    MARK = '(',
    STOP = '.',
    BININT = 'J',
    BININT1 = 'K',
    BININT2 = 'M',
    NONE = 'N',
    BINPERSID = 'Q',
    REDUCE = 'R',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    APPENDS = 'e',
    BINGET = 'h',
    LONG_BINGET = 'j',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    SETITEMS = 'u',
    EMPTY_DICT = '}',
    EMPTY_LIST = ']',
    EMPTY_TUPLE = ')',
    PROTO = 0x80,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    SHORT_BINUNICODE = 0x8c,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
};

enum class Kind : uint8_t { None, Bool, Int, String, Tuple, List, Dict, Global, Storage, Tensor };

// What REDUCE may do with a global; storage classes are never called, only named inside
// persistent ids.
enum class Callable : uint8_t { None, OrderedDict, RebuildTensorV2 };

struct AllowedGlobal {
    std::string_view module;
    std::string_view name;
    Callable callable;
};

// The allow-list of callables, each for a reason:
// - collections.OrderedDict: model.state_dict() is one, and so is every tensor's backward_hooks;
// - torch._utils._rebuild_tensor_v2: how every plain tensor pickles itself.
// Besides these, the torch.*Storage classes of kStorageTypes may be named: they only tag
// persistent ids with an element type. The non-float ones are there so that a checkpoint holding,
// say, an int64 buffer still opens, and only a model that needs that tensor is refused.
constexpr AllowedGlobal kAllowedCallables[] = {
    {"collections", "OrderedDict", Callable::OrderedDict},
    {"torch._utils", "_rebuild_tensor_v2", Callable::RebuildTensorV2},
};

constexpr TorchStorageType kStorageTypes[] = {
    {"torch.FloatStorage", 4, DType::F32},     {"torch.HalfStorage", 2, DType::F16},
    {"torch.BFloat16Storage", 2, DType::BF16}, {"torch.DoubleStorage", 8, std::nullopt},
    {"torch.LongStorage", 8, std::nullopt},    {"torch.IntStorage", 4, std::nullopt},
    {"torch.ShortStorage", 2, std::nullopt},   {"torch.CharStorage", 1, std::nullopt},
    {"torch.ByteStorage", 1, std::nullopt},    {"torch.BoolStorage", 1, std::nullopt},
};

struct Object {
    Kind kind = Kind::None;
    bool boolean = false;
    int64_t integer = 0;
    std::string text;                           // String; Global: "module.name"
    Callable callable = Callable::None;         // Global
    std::vector<Object*> items;                 // Tuple, List; Dict: key, value, key, value, ...
    std::unique_ptr<TorchTensorRecord> record;  // Storage (type, key, numel); Tensor (all)
};

const char* kindName(Kind kind) {
    switch (kind) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "a bool";
        case Kind::Int:
            return "an int";
        case Kind::String:
            return "a string";
        case Kind::Tuple:
            return "a tuple";
        case Kind::List:
            return "a list";
        case Kind::Dict:
            return "a dict";
        case Kind::Global:
            return "a global";
        case Kind::Storage:
            return "a storage";
        case Kind::Tensor:
            return "a tensor";
    }
    return "?";
}

std::string hexByte(uint8_t value) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("0x") + kHex[value >> 4] + kHex[value & 15];
}

// The machine owns every object it creates in one arena, and objects point at each other with
// plain pointers: cycles (a list appended to itself) and deep nesting then cost nothing to free,
// and no destructor recurses.
class Machine {
  public:
    Machine(std::span<const std::byte> bytes, const std::string& file, const std::string& entry)
        : bytes_(bytes), reader_(bytes, file), file_(file), entry_(entry) {}

    std::vector<TorchTensorRecord> run() {
        while (true) {
            opcodeAt_ = reader_.position();
            const auto opcode = read<uint8_t>("opcode");
            if (opcode == STOP)
                break;
            step(opcode);
        }
        if (!marks_.empty())
            fail("STOP with an open MARK");
        if (stack_.size() != 1)
            fail("STOP leaves " + std::to_string(stack_.size()) + " objects on the stack, not 1");
        return stateDict(stack_.back());
    }

  private:
    [[noreturn]] void fail(const std::string& problem) const {
        throwFileError(file_, "pickle '" + printableName(entry_) + "' at byte " +
                                  std::to_string(opcodeAt_) + ": " + problem);
    }

    template <typename T>
    T read(std::string_view what) {
        return reader_.read<T>("pickle '" + printableName(entry_) + "' " + std::string(what));
    }

    Object* make(Kind kind) {
        if (arena_.size() >= kMaxObjects)
            fail("more than " + std::to_string(kMaxObjects) + " objects");
        arena_.push_back(std::make_unique<Object>());
        arena_.back()->kind = kind;
        return arena_.back().get();
    }

    void push(Object* object) {
        if (stack_.size() >= kMaxStack)
            fail("the stack grows past " + std::to_string(kMaxStack) + " objects");
        stack_.push_back(object);
    }

    size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }

    Object* top(const char* opcode) {
        if (stack_.size() <= floor())
            fail(std::string("stack underflow in ") + opcode);
        return stack_.back();
    }

    Object* pop(const char* opcode) {
        Object* object = top(opcode);
        stack_.pop_back();
        return object;
    }

    std::vector<Object*> popToMark(const char* opcode) {
        if (marks_.empty())
            fail(std::string(opcode) + " without a MARK");
        const size_t mark = marks_.back();
        marks_.pop_back();
        std::vector<Object*> items(stack_.begin() + ptrdiff_t(mark), stack_.end());
        stack_.resize(mark);
        return items;
    }

    Object* tuple(std::vector<Object*> items) {
        Object* object = make(Kind::Tuple);
        object->items = std::move(items);
        return object;
    }

    Object* integer(int64_t value) {
        Object* object = make(Kind::Int);
        object->integer = value;
        return object;
    }

    Object* string(uint64_t length) {
        if (length > kMaxStringBytes)
            fail("a string of " + std::to_string(length) + " bytes (the limit is " +
                 std::to_string(kMaxStringBytes) + ")");
        const auto bytes =
            reader_.readBytes(length, "pickle '" + printableName(entry_) + "' string");
        Object* object = make(Kind::String);
        object->text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        if (!isValidUtf8(object->text))
            fail("a string that is not valid UTF-8");
        return object;
    }

    // A GLOBAL operand: text up to a newline, within a short bound.
    std::string line(const char* what) {
        const auto window =
            bytes_.subspan(reader_.position(), std::min(reader_.remaining(), kMaxGlobalLine));
        for (size_t i = 0; i < window.size(); ++i) {
            if (window[i] == std::byte{'\n'}) {
                const auto bytes = reader_.readBytes(i + 1, what);
                return std::string(reinterpret_cast<const char*>(bytes.data()), i);
            }
        }
        fail(std::string("GLOBAL ") + what + " has no newline within " +
             std::to_string(kMaxGlobalLine) + " bytes");
    }

    Object* global(const std::string& module, const std::string& name) {
        const std::string qualified = module + "." + name;
        for (const AllowedGlobal& allowed : kAllowedCallables) {
            if (allowed.module == module && allowed.name == name) {
                Object* object = make(Kind::Global);
                object->text = qualified;
                object->callable = allowed.callable;
                return object;
            }
        }
        if (module == "torch" && findTorchStorageType(qualified) != nullptr) {
            Object* object = make(Kind::Global);
            object->text = qualified;
            return object;
        }
        fail("global '" + printableName(module) + "." + printableName(name) +
             "' is not allowed (a PyTorch state dict needs only collections.OrderedDict, "
             "torch._utils._rebuild_tensor_v2 and torch storage types)");
    }

    void memoize(uint32_t index) {
        if (memo_.size() >= kMaxMemo && !memo_.count(index))
            fail("the memo grows past " + std::to_string(kMaxMemo) + " entries");
        memo_[index] = top("PUT");
    }

    void recall(uint32_t index) {
        const auto found = memo_.find(index);
        if (found == memo_.end())
            fail("memo index " + std::to_string(index) + " is out of range (never stored)");
        push(found->second);
    }

    Object* target(Kind kind, const char* opcode) {
        Object* object = top(opcode);
        if (object->kind != kind)
            fail(std::string(opcode) + " on " + kindName(object->kind) + ", not " + kindName(kind));
        return object;
    }

    void setItems(std::vector<Object*> items, const char* opcode) {
        if (items.size() % 2 != 0)
            fail(std::string(opcode) + " with an odd number of keys and values");
        Object* dict = target(Kind::Dict, opcode);
        dict->items.insert(dict->items.end(), items.begin(), items.end());
    }

    void step(uint8_t opcode) {
        switch (opcode) {
            case PROTO: {
                const auto version = read<uint8_t>("protocol");
                if (version > kMaxProtocol)
                    fail("pickle protocol " + std::to_string(version) + " is unknown");
                return;
            }
            case FRAME:
                read<uint64_t>("frame length");  // framing only groups bytes; nothing to do
                return;
            case MARK:
                if (marks_.size() >= kMaxMarks)
                    fail("MARKs nest deeper than " + std::to_string(kMaxMarks));
                marks_.push_back(stack_.size());
                return;
            case EMPTY_DICT:
                return push(make(Kind::Dict));
            case EMPTY_LIST:
                return push(make(Kind::List));
            case EMPTY_TUPLE:
                return push(tuple({}));
            case TUPLE:
                return push(tuple(popToMark("TUPLE")));
            case TUPLE1:
            case TUPLE2:
            case TUPLE3: {
                std::vector<Object*> items(size_t(opcode - TUPLE1 + 1));
                for (size_t i = items.size(); i-- > 0;)
                    items[i] = pop("TUPLEn");
                return push(tuple(std::move(items)));
            }
            case NONE:
                return push(make(Kind::None));
            case NEWTRUE:
            case NEWFALSE: {
                Object* object = make(Kind::Bool);
                object->boolean = opcode == NEWTRUE;
                return push(object);
            }
            case BININT:
                return push(integer(read<int32_t>("BININT")));
            case BININT1:
                return push(integer(read<uint8_t>("BININT1")));
            case BININT2:
                return push(integer(read<uint16_t>("BININT2")));
            case LONG1:
                return push(integer(long1()));
            case BINUNICODE:
                return push(string(read<uint32_t>("BINUNICODE length")));
            case SHORT_BINUNICODE:
                return push(string(read<uint8_t>("SHORT_BINUNICODE length")));
            case BINPUT:
                return memoize(read<uint8_t>("BINPUT index"));
            case LONG_BINPUT:
                return memoize(read<uint32_t>("LONG_BINPUT index"));
            case MEMOIZE:
                return memoize(uint32_t(memo_.size()));
            case BINGET:
                return recall(read<uint8_t>("BINGET index"));
            case LONG_BINGET:
                return recall(read<uint32_t>("LONG_BINGET index"));
            case GLOBAL: {
                const std::string module = line("module");
                const std::string name = line("name");
                return push(global(module, name));
            }
            case STACK_GLOBAL: {
                Object* name = pop("STACK_GLOBAL");
                Object* module = pop("STACK_GLOBAL");
                if (name->kind != Kind::String || module->kind != Kind::String)
                    fail("STACK_GLOBAL needs two strings");
                return push(global(module->text, name->text));
            }
            case BINPERSID:
                return push(storage(pop("BINPERSID")));
            case REDUCE: {
                Object* arguments = pop("REDUCE");
                Object* callable = pop("REDUCE");
                return push(reduce(callable, arguments));
            }
            case BUILD: {
                pop("BUILD");
                // Only an OrderedDict's instance attributes arrive here (a state dict's
                // `_metadata`: per-module versions), which a reader of weights does not need.
                target(Kind::Dict, "BUILD");
                return;
            }
            case SETITEM: {
                Object* value = pop("SETITEM");
                Object* key = pop("SETITEM");
                return setItems({key, value}, "SETITEM");
            }
            case SETITEMS:
                return setItems(popToMark("SETITEMS"), "SETITEMS");
            case APPEND: {
                Object* value = pop("APPEND");
                target(Kind::List, "APPEND")->items.push_back(value);
                return;
            }
            case APPENDS: {
                const auto values = popToMark("APPENDS");
                auto& items = target(Kind::List, "APPENDS")->items;
                items.insert(items.end(), values.begin(), values.end());
                return;
            }
            default:
                fail("unknown or unsupported pickle opcode " + hexByte(opcode) +
                     " (not part of what torch.save writes for a state dict)");
        }
    }

    // LONG1: a little-endian two's-complement integer of n bytes.
    int64_t long1() {
        const auto length = read<uint8_t>("LONG1 length");
        if (length > 8)
            fail("an integer of " + std::to_string(length) + " bytes (more than 64 bits)");
        const auto bytes =
            reader_.readBytes(length, "pickle '" + printableName(entry_) + "' LONG1 value");
        uint64_t value = 0;
        for (size_t i = 0; i < length; ++i)
            value |= uint64_t(bytes[i]) << (8 * i);
        if (length > 0 && length < 8 && (uint64_t(bytes[length - 1]) & 0x80) != 0)
            value |= ~uint64_t(0) << (8 * length);  // sign extension
        return static_cast<int64_t>(value);
    }

    void expect(const Object* object, Kind kind, const std::string& what) {
        if (object->kind != kind)
            fail(what + " is " + kindName(object->kind) + ", not " + kindName(kind));
    }

    // A persistent id as torch.save writes it for a storage:
    // ('storage', torch.<Type>Storage, key, location, numel).
    Object* storage(const Object* id) {
        expect(id, Kind::Tuple, "a persistent id");
        const auto& fields = id->items;
        if (fields.size() != 5 || fields[0]->kind != Kind::String || fields[0]->text != "storage")
            fail("a persistent id that is not ('storage', type, key, location, numel)");
        expect(fields[1], Kind::Global, "the storage type");
        if (fields[1]->callable != Callable::None)
            fail("'" + fields[1]->text + "' is not a storage type");
        expect(fields[2], Kind::String, "the storage key");
        expect(fields[3], Kind::String, "the storage location");
        expect(fields[4], Kind::Int, "the storage size");
        if (fields[4]->integer < 0)
            fail("a storage of negative size");
        Object* object = make(Kind::Storage);
        object->record = std::make_unique<TorchTensorRecord>();
        object->record->storageType = fields[1]->text;
        object->record->storageKey = fields[2]->text;
        object->record->storageNumel = fields[4]->integer;
        return object;
    }

    std::vector<int64_t> integers(const Object* tuple, const std::string& what) {
        expect(tuple, Kind::Tuple, what);
        if (tuple->items.size() > kMaxDimensions)
            fail(what + " has " + std::to_string(tuple->items.size()) + " dimensions (at most " +
                 std::to_string(kMaxDimensions) + ")");
        std::vector<int64_t> values;
        for (const Object* item : tuple->items) {
            expect(item, Kind::Int, "an element of " + what);
            values.push_back(item->integer);
        }
        return values;
    }

    Object* reduce(const Object* callable, const Object* arguments) {
        expect(callable, Kind::Global, "REDUCE's callable");
        expect(arguments, Kind::Tuple, "REDUCE's arguments");
        const auto& args = arguments->items;
        switch (callable->callable) {
            case Callable::OrderedDict:
                // torch.save pickles an OrderedDict as OrderedDict() followed by SETITEMS.
                if (!args.empty())
                    fail("collections.OrderedDict called with arguments");
                return make(Kind::Dict);
            case Callable::RebuildTensorV2: {
                // (storage, storage_offset, size, stride, requires_grad, backward_hooks
                //  [, metadata]); hooks and metadata carry nothing a reader of weights needs.
                if (args.size() != 6 && args.size() != 7)
                    fail("_rebuild_tensor_v2 takes 6 or 7 arguments, not " +
                         std::to_string(args.size()));
                expect(args[0], Kind::Storage, "_rebuild_tensor_v2's storage");
                expect(args[1], Kind::Int, "_rebuild_tensor_v2's storage_offset");
                expect(args[4], Kind::Bool, "_rebuild_tensor_v2's requires_grad");
                expect(args[5], Kind::Dict, "_rebuild_tensor_v2's backward_hooks");
                Object* tensor = make(Kind::Tensor);
                tensor->record = std::make_unique<TorchTensorRecord>(*args[0]->record);
                tensor->record->storageOffset = args[1]->integer;
                tensor->record->size = integers(args[2], "the size");
                tensor->record->stride = integers(args[3], "the stride");
                if (tensor->record->size.size() != tensor->record->stride.size())
                    fail("size and stride have different lengths");
                return tensor;
            }
            case Callable::None:
                break;
        }
        fail("global '" + callable->text + "' cannot be called");
    }

    // The unpickled object must be a dict of name → tensor.
    std::vector<TorchTensorRecord> stateDict(const Object* root) {
        if (root->kind != Kind::Dict)
            fail(std::string("the checkpoint holds ") + kindName(root->kind) +
                 ", not a state dict (a dict of tensors)");
        std::vector<TorchTensorRecord> records;
        std::set<std::string_view> names;
        for (size_t i = 0; i < root->items.size(); i += 2) {
            const Object* key = root->items[i];
            const Object* value = root->items[i + 1];
            if (key->kind != Kind::String)
                fail(std::string("a state dict key is ") + kindName(key->kind) + ", not a string");
            if (value->kind != Kind::Tensor)
                fail("state dict entry '" + printableName(key->text) + "' is " +
                     kindName(value->kind) + ", not a tensor");
            if (!names.insert(key->text).second)
                fail("state dict entry '" + printableName(key->text) + "' appears twice");
            records.push_back(*value->record);
            records.back().name = key->text;
        }
        return records;
    }

    std::span<const std::byte> bytes_;
    ByteReader reader_;
    const std::string& file_;
    const std::string& entry_;
    size_t opcodeAt_ = 0;
    std::vector<std::unique_ptr<Object>> arena_;
    std::vector<Object*> stack_;
    std::vector<size_t> marks_;  // stack heights at each open MARK
    std::unordered_map<uint32_t, Object*> memo_;
};

}  // namespace

const TorchStorageType* findTorchStorageType(std::string_view name) {
    for (const TorchStorageType& type : kStorageTypes)
        if (type.name == name)
            return &type;
    return nullptr;
}

std::vector<TorchTensorRecord> readTorchStateDict(std::span<const std::byte> pickle,
                                                  const std::string& file,
                                                  const std::string& entryName) {
    return Machine(pickle, file, entryName).run();
}

}  // namespace inferlens
