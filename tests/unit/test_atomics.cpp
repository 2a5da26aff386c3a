// The arithmetic of Portals atomic operations (Portals 4.1, section 3.15):
// every operation on every datatype it is defined on, item by item, and the
// datatype restrictions.
#include "portals/atomics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace s4bxi::portals;
using s4bxi::ipc::AtomicOp;
using s4bxi::ipc::AtomicType;

namespace {

template <class T> std::vector<unsigned char> bytes_of(const std::vector<T>& values)
{
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  if (not values.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <class T> std::vector<T> values_of(const std::vector<unsigned char>& bytes)
{
  std::vector<T> values(bytes.size() / sizeof(T));
  if (not values.empty())
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// target := op(target, source) with `operand`, as the NIC applies it.
template <class T>
std::vector<T> run(AtomicOp op, AtomicType type, const std::vector<T>& target, const std::vector<T>& source,
                   T operand = T{})
{
  auto t = bytes_of(target);
  const auto s = bytes_of(source);
  const auto o = bytes_of(std::vector<T>{operand});
  atomics::apply(op, type, t, s, o);
  return values_of<T>(t);
}

const AtomicOp kAllOps[] = {AtomicOp::Min,   AtomicOp::Max,     AtomicOp::Sum,     AtomicOp::Prod,    AtomicOp::Lor,
                            AtomicOp::Land,  AtomicOp::Bor,     AtomicOp::Band,    AtomicOp::Lxor,    AtomicOp::Bxor,
                            AtomicOp::Swap,  AtomicOp::Cswap,   AtomicOp::CswapNe, AtomicOp::CswapLe, AtomicOp::CswapLt,
                            AtomicOp::CswapGe, AtomicOp::CswapGt, AtomicOp::Mswap};
const AtomicType kAllTypes[] = {AtomicType::Int8,         AtomicType::Uint8,        AtomicType::Int16,
                                AtomicType::Uint16,       AtomicType::Int32,        AtomicType::Uint32,
                                AtomicType::Int64,        AtomicType::Uint64,       AtomicType::Float,
                                AtomicType::Double,       AtomicType::FloatComplex, AtomicType::DoubleComplex,
                                AtomicType::LongDouble,   AtomicType::LongDoubleComplex};

bool integer(AtomicType type)
{
  return type <= AtomicType::Uint64;
}

bool complex_type(AtomicType type)
{
  return type == AtomicType::FloatComplex || type == AtomicType::DoubleComplex ||
         type == AtomicType::LongDoubleComplex;
}

} // namespace

TEST(Atomics, ItemSizes)
{
  EXPECT_EQ(atomics::item_size(AtomicType::Int8), 1u);
  EXPECT_EQ(atomics::item_size(AtomicType::Uint16), 2u);
  EXPECT_EQ(atomics::item_size(AtomicType::Int32), 4u);
  EXPECT_EQ(atomics::item_size(AtomicType::Float), 4u);
  EXPECT_EQ(atomics::item_size(AtomicType::Uint64), 8u);
  EXPECT_EQ(atomics::item_size(AtomicType::Double), 8u);
  EXPECT_EQ(atomics::item_size(AtomicType::FloatComplex), 8u);
  EXPECT_EQ(atomics::item_size(AtomicType::DoubleComplex), 16u);
  EXPECT_EQ(atomics::item_size(AtomicType::LongDouble), sizeof(long double));
  EXPECT_EQ(atomics::item_size(AtomicType::LongDoubleComplex), 2 * sizeof(long double));
}

// Table 3.x of the specification, written out case by case.
TEST(Atomics, DatatypeRestrictions)
{
  for (AtomicOp op : kAllOps)
    for (AtomicType type : kAllTypes) {
      bool expected = true;
      switch (op) {
        case AtomicOp::Min:
        case AtomicOp::Max:
        case AtomicOp::CswapLe:
        case AtomicOp::CswapLt:
        case AtomicOp::CswapGe:
        case AtomicOp::CswapGt: expected = not complex_type(type); break;
        case AtomicOp::Lor:
        case AtomicOp::Land:
        case AtomicOp::Bor:
        case AtomicOp::Band:
        case AtomicOp::Lxor:
        case AtomicOp::Bxor:
        case AtomicOp::Mswap: expected = integer(type); break;
        default: expected = true;
      }
      EXPECT_EQ(atomics::allowed(op, type), expected)
          << "operation " << int(op) << " on datatype " << int(type);
    }
  EXPECT_FALSE(atomics::allowed(static_cast<AtomicOp>(18), AtomicType::Int32));
  EXPECT_FALSE(atomics::allowed(AtomicOp::Sum, static_cast<AtomicType>(14)));
}

TEST(Atomics, SwapFamilyAndOperand)
{
  for (AtomicOp op : kAllOps) {
    const bool swap = op >= AtomicOp::Swap;
    EXPECT_EQ(atomics::is_swap(op), swap) << int(op);
    EXPECT_EQ(atomics::uses_operand(op), swap && op != AtomicOp::Swap) << int(op);
  }
}

TEST(Atomics, SignedIntegerArithmetic)
{
  using V = std::vector<int32_t>;
  EXPECT_EQ(run<int32_t>(AtomicOp::Min, AtomicType::Int32, V{5, -7, 3}, V{-2, 1, 3}), (V{-2, -7, 3}));
  EXPECT_EQ(run<int32_t>(AtomicOp::Max, AtomicType::Int32, V{5, -7, 3}, V{-2, 1, 3}), (V{5, 1, 3}));
  EXPECT_EQ(run<int32_t>(AtomicOp::Sum, AtomicType::Int32, V{5, -7}, V{-2, 100}), (V{3, 93}));
  EXPECT_EQ(run<int32_t>(AtomicOp::Prod, AtomicType::Int32, V{5, -7}, V{-2, 3}), (V{-10, -21}));
  // Wraps around like the hardware, without undefined behaviour.
  EXPECT_EQ(run<int32_t>(AtomicOp::Sum, AtomicType::Int32, V{INT32_MAX}, V{1}), (V{INT32_MIN}));
  EXPECT_EQ(run<int32_t>(AtomicOp::Prod, AtomicType::Int32, V{0x10000}, V{0x10000}), (V{0}));

  using S = std::vector<int8_t>;
  EXPECT_EQ(run<int8_t>(AtomicOp::Min, AtomicType::Int8, S{-128, 127}, S{0, -1}), (S{-128, -1}));
  EXPECT_EQ(run<int8_t>(AtomicOp::Sum, AtomicType::Int8, S{127, -128}, S{1, -1}), (S{-128, 127}));
  using W = std::vector<int64_t>;
  EXPECT_EQ(run<int64_t>(AtomicOp::Max, AtomicType::Int64, W{-5, INT64_MIN}, W{-6, INT64_MAX}), (W{-5, INT64_MAX}));
  using H = std::vector<int16_t>;
  EXPECT_EQ(run<int16_t>(AtomicOp::Prod, AtomicType::Int16, H{-300}, H{300}), (H{static_cast<int16_t>(-90000)}));
}

TEST(Atomics, UnsignedIntegerArithmetic)
{
  using V = std::vector<uint16_t>;
  // The signedness of the datatype decides the order: 0xFFFF is the largest.
  EXPECT_EQ(run<uint16_t>(AtomicOp::Min, AtomicType::Uint16, V{0xFFFF, 2}, V{1, 3}), (V{1, 2}));
  EXPECT_EQ(run<uint16_t>(AtomicOp::Max, AtomicType::Uint16, V{0xFFFF, 2}, V{1, 3}), (V{0xFFFF, 3}));
  EXPECT_EQ(run<uint16_t>(AtomicOp::Prod, AtomicType::Uint16, V{0xFFFF}, V{0xFFFF}), (V{1}));
  using S = std::vector<int16_t>;
  EXPECT_EQ(run<int16_t>(AtomicOp::Min, AtomicType::Int16, S{-1, 2}, S{1, 3}), (S{-1, 2}));
  using B = std::vector<uint8_t>;
  EXPECT_EQ(run<uint8_t>(AtomicOp::Sum, AtomicType::Uint8, B{250, 1}, B{10, 2}), (B{4, 3}));
  using Q = std::vector<uint64_t>;
  EXPECT_EQ(run<uint64_t>(AtomicOp::Sum, AtomicType::Uint64, Q{UINT64_MAX}, Q{2}), (Q{1}));
  using U = std::vector<uint32_t>;
  EXPECT_EQ(run<uint32_t>(AtomicOp::Min, AtomicType::Uint32, U{0x80000000U}, U{1}), (U{1}));
}

TEST(Atomics, LogicalAndBitwise)
{
  using V = std::vector<uint32_t>;
  const V t{0, 0, 6, 6};
  const V s{0, 9, 0, 3};
  EXPECT_EQ(run<uint32_t>(AtomicOp::Lor, AtomicType::Uint32, t, s), (V{0, 1, 1, 1}));
  EXPECT_EQ(run<uint32_t>(AtomicOp::Land, AtomicType::Uint32, t, s), (V{0, 0, 0, 1}));
  EXPECT_EQ(run<uint32_t>(AtomicOp::Lxor, AtomicType::Uint32, t, s), (V{0, 1, 1, 0}));
  EXPECT_EQ(run<uint32_t>(AtomicOp::Bor, AtomicType::Uint32, t, s), (V{0, 9, 6, 7}));
  EXPECT_EQ(run<uint32_t>(AtomicOp::Band, AtomicType::Uint32, t, s), (V{0, 0, 0, 2}));
  EXPECT_EQ(run<uint32_t>(AtomicOp::Bxor, AtomicType::Uint32, t, s), (V{0, 9, 6, 5}));
  using S = std::vector<int8_t>;
  EXPECT_EQ(run<int8_t>(AtomicOp::Bxor, AtomicType::Int8, S{-1}, S{0x0F}), (S{static_cast<int8_t>(0xF0)}));
  EXPECT_EQ(run<int8_t>(AtomicOp::Lor, AtomicType::Int8, S{-128}, S{0}), (S{1}));
  using Q = std::vector<int64_t>;
  EXPECT_EQ(run<int64_t>(AtomicOp::Band, AtomicType::Int64, Q{-1}, Q{0x123456789ALL}), (Q{0x123456789ALL}));
}

TEST(Atomics, SwapsOnIntegers)
{
  using V = std::vector<int32_t>;
  EXPECT_EQ(run<int32_t>(AtomicOp::Swap, AtomicType::Int32, V{1, 2}, V{3, 4}), (V{3, 4}));
  // Conditional swaps compare the operand with the target: "operand OP target".
  EXPECT_EQ(run<int32_t>(AtomicOp::Cswap, AtomicType::Int32, V{7}, V{9}, 7), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::Cswap, AtomicType::Int32, V{7}, V{9}, 8), (V{7}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapNe, AtomicType::Int32, V{7}, V{9}, 8), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapNe, AtomicType::Int32, V{7}, V{9}, 7), (V{7}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapLe, AtomicType::Int32, V{7}, V{9}, 7), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapLe, AtomicType::Int32, V{7}, V{9}, 8), (V{7}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapLt, AtomicType::Int32, V{7}, V{9}, 6), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapLt, AtomicType::Int32, V{7}, V{9}, 7), (V{7}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapGe, AtomicType::Int32, V{7}, V{9}, 7), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapGe, AtomicType::Int32, V{7}, V{9}, 6), (V{7}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapGt, AtomicType::Int32, V{7}, V{9}, 8), (V{9}));
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapGt, AtomicType::Int32, V{7}, V{9}, 7), (V{7}));
  // Signed comparison: -1 < 0.
  EXPECT_EQ(run<int32_t>(AtomicOp::CswapLt, AtomicType::Int32, V{0}, V{5}, -1), (V{5}));
  using U = std::vector<uint32_t>;
  EXPECT_EQ(run<uint32_t>(AtomicOp::CswapLt, AtomicType::Uint32, U{0}, U{5}, 0xFFFFFFFFU), (U{0}));
  // Masked swap: the operand's bits choose the initiator's.
  EXPECT_EQ(run<uint32_t>(AtomicOp::Mswap, AtomicType::Uint32, U{0xAAAA5555U}, U{0x12345678U}, 0xFF00FF00U),
            (U{0x12AA5655U}));
  using B = std::vector<int8_t>;
  EXPECT_EQ(run<int8_t>(AtomicOp::Mswap, AtomicType::Int8, B{0x0F}, B{-1}, static_cast<int8_t>(0xF0)), (B{-1}));
}

TEST(Atomics, FloatingPoint)
{
  using F = std::vector<float>;
  EXPECT_EQ(run<float>(AtomicOp::Min, AtomicType::Float, F{1.5F, -2.0F}, F{0.5F, 3.0F}), (F{0.5F, -2.0F}));
  EXPECT_EQ(run<float>(AtomicOp::Max, AtomicType::Float, F{1.5F, -2.0F}, F{0.5F, 3.0F}), (F{1.5F, 3.0F}));
  EXPECT_EQ(run<float>(AtomicOp::Sum, AtomicType::Float, F{1.5F}, F{0.25F}), (F{1.75F}));
  EXPECT_EQ(run<float>(AtomicOp::Prod, AtomicType::Float, F{1.5F}, F{-4.0F}), (F{-6.0F}));
  EXPECT_EQ(run<float>(AtomicOp::CswapGt, AtomicType::Float, F{1.0F}, F{9.0F}, 2.0F), (F{9.0F}));
  using D = std::vector<double>;
  EXPECT_EQ(run<double>(AtomicOp::Sum, AtomicType::Double, D{77.5, 1e300}, D{1.1, 1e300}), (D{77.5 + 1.1, 2e300}));
  EXPECT_EQ(run<double>(AtomicOp::Prod, AtomicType::Double, D{3.0}, D{-0.5}), (D{-1.5}));
  EXPECT_EQ(run<double>(AtomicOp::Cswap, AtomicType::Double, D{0.1}, D{2.0}, 0.1), (D{2.0}));
  EXPECT_EQ(run<double>(AtomicOp::CswapLe, AtomicType::Double, D{0.1}, D{2.0}, 0.2), (D{0.1}));
  EXPECT_EQ(run<double>(AtomicOp::Swap, AtomicType::Double, D{0.1}, D{2.0}), (D{2.0}));
  // Operations not defined on floating point leave the target alone.
  EXPECT_EQ(run<double>(AtomicOp::Bor, AtomicType::Double, D{0.1}, D{2.0}), (D{0.1}));
}

TEST(Atomics, LongDoubleKeepsItsPadding)
{
  std::vector<unsigned char> target(sizeof(long double), 0xEE);
  const long double start = 2.5L;
  std::memcpy(target.data(), &start, std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double));
  const long double add = 0.25L;
  std::vector<unsigned char> source(sizeof(long double), 0);
  std::memcpy(source.data(), &add, sizeof add);
  atomics::apply(AtomicOp::Sum, AtomicType::LongDouble, target, source, {});
  long double result = 0;
  std::memcpy(&result, target.data(), std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double));
  EXPECT_EQ(result, 2.75L);
  if (std::numeric_limits<long double>::digits == 64) {
    for (size_t i = 10; i < target.size(); ++i) {
      EXPECT_EQ(target[i], 0xEE) << "padding byte " << i;
    }
  }

  using L = std::vector<long double>;
  EXPECT_EQ(run<long double>(AtomicOp::Max, AtomicType::LongDouble, L{1.0L, 5.0L}, L{3.0L, -5.0L}), (L{3.0L, 5.0L}));
  EXPECT_EQ(run<long double>(AtomicOp::Prod, AtomicType::LongDouble, L{1.0L / 3}, L{3.0L}),
            (L{(1.0L / 3) * 3.0L}));
  EXPECT_EQ(run<long double>(AtomicOp::CswapGe, AtomicType::LongDouble, L{1.0L}, L{3.0L}, 1.0L), (L{3.0L}));
}

TEST(Atomics, ComplexNumbers)
{
  using C = std::complex<float>;
  using V = std::vector<C>;
  EXPECT_EQ(run<C>(AtomicOp::Sum, AtomicType::FloatComplex, V{{1, 2}}, V{{3, -4}}), (V{{4, -2}}));
  // (1 + 2i)(3 - 4i) = 11 + 2i
  EXPECT_EQ(run<C>(AtomicOp::Prod, AtomicType::FloatComplex, V{{1, 2}}, V{{3, -4}}), (V{{11, 2}}));
  EXPECT_EQ(run<C>(AtomicOp::Cswap, AtomicType::FloatComplex, V{{1, 2}}, V{{3, -4}}, C{1, 2}), (V{{3, -4}}));
  // Equal real parts are not enough.
  EXPECT_EQ(run<C>(AtomicOp::Cswap, AtomicType::FloatComplex, V{{1, 2}}, V{{3, -4}}, C{1, 3}), (V{{1, 2}}));
  EXPECT_EQ(run<C>(AtomicOp::CswapNe, AtomicType::FloatComplex, V{{1, 2}}, V{{3, -4}}, C{1, 3}), (V{{3, -4}}));
  // Not ordered: MIN is not defined on complex numbers.
  EXPECT_EQ(run<C>(AtomicOp::Min, AtomicType::FloatComplex, V{{1, 2}}, V{{0, 0}}), (V{{1, 2}}));

  using D = std::complex<double>;
  using W = std::vector<D>;
  EXPECT_EQ(run<D>(AtomicOp::Prod, AtomicType::DoubleComplex, W{{0, 1}, {2, 0}}, W{{0, 1}, {0.5, 0.5}}),
            (W{{-1, 0}, {1, 1}}));
  EXPECT_EQ(run<D>(AtomicOp::Swap, AtomicType::DoubleComplex, W{{0, 1}}, W{{5, 6}}), (W{{5, 6}}));

  using L = std::complex<long double>;
  using X = std::vector<L>;
  EXPECT_EQ(run<L>(AtomicOp::Sum, AtomicType::LongDoubleComplex, X{{1, 1}}, X{{0.5L, -2}}), (X{{1.5L, -1}}));
  EXPECT_EQ(run<L>(AtomicOp::Prod, AtomicType::LongDoubleComplex, X{{1, 1}}, X{{1, -1}}), (X{{2, 0}}));
  EXPECT_EQ(run<L>(AtomicOp::CswapNe, AtomicType::LongDoubleComplex, X{{1, 1}}, X{{7, 7}}, L{1, 1}), (X{{1, 1}}));
}

// Only whole items are touched; SWAP moves every byte it is given.
TEST(Atomics, PartialTrailingItemAndUnalignedTarget)
{
  std::vector<unsigned char> target(1 + 6, 0);
  const int32_t one = 1;
  std::memcpy(target.data() + 1, &one, 4); // unaligned item at offset 1
  target[5] = 0x11;
  target[6] = 0x22;
  std::vector<unsigned char> source(6, 0);
  const int32_t forty = 40;
  std::memcpy(source.data(), &forty, 4);
  source[4] = 0x99;
  source[5] = 0x99;
  atomics::apply(AtomicOp::Sum, AtomicType::Int32, std::span(target).subspan(1), source, {});
  int32_t result = 0;
  std::memcpy(&result, target.data() + 1, 4);
  EXPECT_EQ(result, 41);
  EXPECT_EQ(target[5], 0x11);
  EXPECT_EQ(target[6], 0x22);

  std::vector<unsigned char> bytes{1, 2, 3};
  const std::vector<unsigned char> other{7, 8, 9};
  atomics::apply(AtomicOp::Swap, AtomicType::Int64, bytes, other, {});
  EXPECT_EQ(bytes, other);
}

TEST(Atomics, MissingOperandOrShortSourceChangesNothing)
{
  std::vector<unsigned char> target = bytes_of(std::vector<int32_t>{7});
  const auto source = bytes_of(std::vector<int32_t>{9});
  atomics::apply(AtomicOp::Cswap, AtomicType::Int32, target, source, {});
  EXPECT_EQ(values_of<int32_t>(target), (std::vector<int32_t>{7}));
  atomics::apply(AtomicOp::Sum, AtomicType::Int32, target, std::span(source).first(2), {});
  EXPECT_EQ(values_of<int32_t>(target), (std::vector<int32_t>{7}));
}
