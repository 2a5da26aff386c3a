#include "atomics.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace s4bxi::portals::atomics {

using ipc::AtomicOp;
using ipc::AtomicType;

namespace {

// An x87 extended long double holds its value in 10 of its 16 bytes: only
// those are written back, so the padding of the target stays as it was.
constexpr std::size_t kLongDoubleValueBytes =
    std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);

template <class T> constexpr std::size_t value_bytes()
{
  return std::is_same_v<T, long double> ? kLongDoubleValueBytes : sizeof(T);
}

// Items are copied, never dereferenced in place: the target need not be aligned.
template <class T> T load(const unsigned char* bytes)
{
  T value{};
  std::memcpy(&value, bytes, value_bytes<T>());
  return value;
}

template <class T> void store(unsigned char* bytes, T value)
{
  std::memcpy(bytes, &value, value_bytes<T>());
}

// Integer arithmetic wraps around as the NIC's would; done in unsigned types
// (at least as wide as unsigned int) so that signed overflow never happens.
template <class T> using Wrapping = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T> T sum(T a, T b)
{
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<Wrapping<T>>(a) + static_cast<Wrapping<T>>(b));
  else
    return a + b;
}

template <class T> T product(T a, T b)
{
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<Wrapping<T>>(a) * static_cast<Wrapping<T>>(b));
  else
    return a * b;
}

// One item: the new target value from the target, the initiator's (source)
// value and the operand. The comparisons of the conditional swaps read
// "operand OP target", as the specification words them.
template <class T> T combine(AtomicOp op, T target, T source, T operand)
{
  switch (op) {
    case AtomicOp::Min: return source < target ? source : target;
    case AtomicOp::Max: return source > target ? source : target;
    case AtomicOp::Sum: return sum(target, source);
    case AtomicOp::Prod: return product(target, source);
    case AtomicOp::Swap: return source;
    case AtomicOp::Cswap: return operand == target ? source : target;
    case AtomicOp::CswapNe: return operand != target ? source : target;
    case AtomicOp::CswapLe: return operand <= target ? source : target;
    case AtomicOp::CswapLt: return operand < target ? source : target;
    case AtomicOp::CswapGe: return operand >= target ? source : target;
    case AtomicOp::CswapGt: return operand > target ? source : target;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const auto t = static_cast<U>(target);
    const auto s = static_cast<U>(source);
    switch (op) {
      case AtomicOp::Lor: return static_cast<T>((t != 0 || s != 0) ? 1 : 0);
      case AtomicOp::Land: return static_cast<T>((t != 0 && s != 0) ? 1 : 0);
      case AtomicOp::Lxor: return static_cast<T>(((t != 0) != (s != 0)) ? 1 : 0);
      case AtomicOp::Bor: return static_cast<T>(t | s);
      case AtomicOp::Band: return static_cast<T>(t & s);
      case AtomicOp::Bxor: return static_cast<T>(t ^ s);
      case AtomicOp::Mswap: {
        const auto mask = static_cast<U>(operand);
        return static_cast<T>((mask & s) | (static_cast<U>(~mask) & t));
      }
      default: break;
    }
  }
  return target; // not defined on this type: allowed() keeps it from happening
}

template <class R> std::complex<R> combine_complex(AtomicOp op, std::complex<R> target, std::complex<R> source,
                                                   std::complex<R> operand)
{
  switch (op) {
    case AtomicOp::Sum: return target + source;
    case AtomicOp::Prod: return target * source;
    case AtomicOp::Swap: return source;
    case AtomicOp::Cswap: return operand == target ? source : target;
    case AtomicOp::CswapNe: return operand != target ? source : target;
    default: return target;
  }
}

template <class T>
void apply_scalar(AtomicOp op, unsigned char* target, const unsigned char* source, const unsigned char* operand,
                  std::size_t items)
{
  const T operand_value = operand != nullptr ? load<T>(operand) : T{};
  for (std::size_t i = 0; i < items; ++i) {
    unsigned char* t = target + i * sizeof(T);
    store<T>(t, combine<T>(op, load<T>(t), load<T>(source + i * sizeof(T)), operand_value));
  }
}

// A complex item is its real part then its imaginary part.
template <class R> std::complex<R> load_complex(const unsigned char* bytes)
{
  return {load<R>(bytes), load<R>(bytes + sizeof(R))};
}

template <class R>
void apply_complex(AtomicOp op, unsigned char* target, const unsigned char* source, const unsigned char* operand,
                   std::size_t items)
{
  const std::complex<R> operand_value = operand != nullptr ? load_complex<R>(operand) : std::complex<R>{};
  for (std::size_t i = 0; i < items; ++i) {
    unsigned char* t = target + i * 2 * sizeof(R);
    const std::complex<R> result =
        combine_complex<R>(op, load_complex<R>(t), load_complex<R>(source + i * 2 * sizeof(R)), operand_value);
    store<R>(t, result.real());
    store<R>(t + sizeof(R), result.imag());
  }
}

bool is_integer(AtomicType type)
{
  return type <= AtomicType::Uint64;
}

bool is_complex(AtomicType type)
{
  return type == AtomicType::FloatComplex || type == AtomicType::DoubleComplex ||
         type == AtomicType::LongDoubleComplex;
}

} // namespace

bool known(AtomicOp op)
{
  return static_cast<uint8_t>(op) < ipc::kAtomicOpCount;
}

bool known(AtomicType type)
{
  return static_cast<uint8_t>(type) < ipc::kAtomicTypeCount;
}

std::size_t item_size(AtomicType type)
{
  switch (type) {
    case AtomicType::Int8:
    case AtomicType::Uint8: return 1;
    case AtomicType::Int16:
    case AtomicType::Uint16: return 2;
    case AtomicType::Int32:
    case AtomicType::Uint32:
    case AtomicType::Float: return 4;
    case AtomicType::Int64:
    case AtomicType::Uint64:
    case AtomicType::Double:
    case AtomicType::FloatComplex: return 8;
    case AtomicType::DoubleComplex: return 16;
    case AtomicType::LongDouble: return sizeof(long double);
    case AtomicType::LongDoubleComplex: return 2 * sizeof(long double);
  }
  return 0;
}

bool is_swap(AtomicOp op)
{
  return op >= AtomicOp::Swap && known(op);
}

bool uses_operand(AtomicOp op)
{
  return op > AtomicOp::Swap && known(op);
}

bool allowed(AtomicOp op, AtomicType type)
{
  if (not known(op) || not known(type))
    return false;
  switch (op) {
    case AtomicOp::Min:
    case AtomicOp::Max:
    case AtomicOp::CswapLe:
    case AtomicOp::CswapLt:
    case AtomicOp::CswapGe:
    case AtomicOp::CswapGt: return not is_complex(type);
    case AtomicOp::Lor:
    case AtomicOp::Land:
    case AtomicOp::Bor:
    case AtomicOp::Band:
    case AtomicOp::Lxor:
    case AtomicOp::Bxor:
    case AtomicOp::Mswap: return is_integer(type);
    case AtomicOp::Sum:
    case AtomicOp::Prod:
    case AtomicOp::Swap:
    case AtomicOp::Cswap:
    case AtomicOp::CswapNe: return true;
  }
  return false;
}

void apply(AtomicOp op, AtomicType type, std::span<unsigned char> target, std::span<const unsigned char> source,
           std::span<const unsigned char> operand)
{
  if (not allowed(op, type) || source.size() < target.size())
    return;
  if (op == AtomicOp::Swap) {
    std::memcpy(target.data(), source.data(), target.size());
    return;
  }
  const std::size_t size = item_size(type);
  const unsigned char* operand_bytes = nullptr;
  if (uses_operand(op)) {
    if (operand.size() < size)
      return;
    operand_bytes = operand.data();
  }
  const std::size_t items = target.size() / size;
  unsigned char* t = target.data();
  const unsigned char* s = source.data();
  switch (type) {
    case AtomicType::Int8: apply_scalar<int8_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Uint8: apply_scalar<uint8_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Int16: apply_scalar<int16_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Uint16: apply_scalar<uint16_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Int32: apply_scalar<int32_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Uint32: apply_scalar<uint32_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Int64: apply_scalar<int64_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Uint64: apply_scalar<uint64_t>(op, t, s, operand_bytes, items); break;
    case AtomicType::Float: apply_scalar<float>(op, t, s, operand_bytes, items); break;
    case AtomicType::Double: apply_scalar<double>(op, t, s, operand_bytes, items); break;
    case AtomicType::LongDouble: apply_scalar<long double>(op, t, s, operand_bytes, items); break;
    case AtomicType::FloatComplex: apply_complex<float>(op, t, s, operand_bytes, items); break;
    case AtomicType::DoubleComplex: apply_complex<double>(op, t, s, operand_bytes, items); break;
    case AtomicType::LongDoubleComplex: apply_complex<long double>(op, t, s, operand_bytes, items); break;
  }
}

} // namespace s4bxi::portals::atomics
