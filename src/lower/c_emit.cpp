#include "lower/c_emit.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "lower/prelude.hpp"

namespace steptp::lower {

namespace {
// GCC and Clang: the libm functions the code calls are declared here and numeric.hpp uses the compiler's builtins
// (STEPTP_NUM_BUILTINS), because in C++ <math.h> is <cmath>, whose parsing was two thirds of a kernel's compile
// time. The macros are glibc's definitions for GCC. Other compilers include <math.h>.
const char* const kHostMath = R"MATH(#if defined(__GNUC__)
#define STEPTP_NUM_BUILTINS 1
extern "C" {
float expf(float) noexcept; double exp(double) noexcept; float logf(float) noexcept; double log(double) noexcept;
float sqrtf(float) noexcept; double sqrt(double) noexcept; float erff(float) noexcept; double erf(double) noexcept;
float powf(float, float) noexcept; double pow(double, double) noexcept; float fabsf(float) noexcept;
double fabs(double) noexcept;
}
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#else
#include <math.h>
#endif
)MATH";

const char* const kLeirGlue = R"GLUE(// leir:: names used by the generated code, on top of steptp_num (interp/numeric.hpp). Differences from the
// interpreter on invalid inputs only: integer division/modulo by zero yields 0 (E303 there) and an invalid
// float-to-integer conversion yields 0 (E304 there).
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define LEIR_VECTOR_MATH 1
// SIMD variants of libm functions from glibc's libmvec (the kernel links -lmvec; the names are the x86-64 vector
// ABI's, e.g. _ZGVdN8v_logf): gcc vectorises a loop calling them, which glibc's math.h declares only under
// -ffast-math. Results may differ from the scalar libm call by libmvec's documented error (a few ulp), within
// the lowering check's tolerance; nothing is reassociated.
extern "C" {
__attribute__((simd("notinbranch"))) double exp(double) noexcept;
__attribute__((simd("notinbranch"))) float logf(float) noexcept;
__attribute__((simd("notinbranch"))) double log(double) noexcept;
__attribute__((simd("notinbranch"))) float powf(float, float) noexcept;
__attribute__((simd("notinbranch"))) double pow(double, double) noexcept;
#if __GLIBC_PREREQ(2, 35)
__attribute__((simd("notinbranch"))) double erf(double) noexcept;
#endif
}
#endif
namespace leir {
LEIR_HD inline uint16_t float_to_f16(float f) { return steptp_num::f16_bits_from_f32(f); }
LEIR_HD inline float f16_to_float(uint16_t h) { return steptp_num::f32_from_f16_bits(h); }
LEIR_HD inline uint16_t float_to_bf16(float f) { return steptp_num::bf16_bits_from_f32(f); }
LEIR_HD inline float bf16_to_float(uint16_t h) { return steptp_num::f32_from_bf16_bits(h); }
// Eager selects and byte reads of bools (lower/eager_select.hpp): every argument of select is evaluated; a bool
// element, 0 or 1 as every store leaves it, read as its byte.
template <class T> LEIR_HD inline T select(bool c, T a, T b) { return c ? a : b; }
LEIR_HD inline bool load_bool(const bool& b) { return *reinterpret_cast<const unsigned char*>(&b) != 0; }
LEIR_HD inline float round_f16(float x) { return steptp_num::round_f16(x); }
LEIR_HD inline float round_bf16(float x) { return steptp_num::round_bf16(x); }
LEIR_HD inline int64_t floordiv(int64_t a, int64_t b) { return b == 0 ? 0 : steptp_num::floor_div(a, b); }
LEIR_HD inline int64_t floormod(int64_t a, int64_t b) { return b == 0 ? 0 : steptp_num::floor_mod(a, b); }
LEIR_HD inline uint64_t floordiv(uint64_t a, uint64_t b) { return b == 0 ? 0 : steptp_num::floor_div_u(a, b); }
LEIR_HD inline uint64_t floormod(uint64_t a, uint64_t b) { return b == 0 ? 0 : steptp_num::floor_mod_u(a, b); }
LEIR_HD inline float floordiv(float a, float b) { return steptp_num::floor_div(a, b); }
LEIR_HD inline float floormod(float a, float b) { return steptp_num::floor_mod(a, b); }
LEIR_HD inline double floordiv(double a, double b) { return steptp_num::floor_div(a, b); }
LEIR_HD inline double floormod(double a, double b) { return steptp_num::floor_mod(a, b); }
template <class T> LEIR_HD inline T max(T a, T b) { return steptp_num::nan_max(a, b); }
template <class T> LEIR_HD inline T min(T a, T b) { return steptp_num::nan_min(a, b); }
#if defined(LEIR_VECTOR_MATH)
// f64 exp of an argument below ln of half the smallest subnormal (-745.133) rounds to +0: there the vector call
// gets the lane of leir_exp_zero_arg_f64 (0) and the select answers 0. libmvec sends every lane beyond
// its fast range (a masked attention score's -inf) through the scalar routine, ten times the vector cost. The
// argument's select uses a lower threshold than the result's and a global GCC cannot fold, else it moves the
// select past the call and passes the raw argument.
double leir_exp_zero_arg_f64 = 0.0;
inline double exp(double x) { const double r = ::exp(x < -746.0 ? leir_exp_zero_arg_f64 : x); return x < -745.2 ? 0.0 : r; }
#else
LEIR_HD inline double exp(double x) { return ::exp(x); }
#endif
#if defined(__CUDACC__)
LEIR_HD inline float exp(float x) { return expf(x); }
LEIR_HD inline float erf(float x) { return erff(x); }
#else
// f32 exp on the host (LEIR.md §10.2): x = n·ln2 + r with n = rint(x·log2 e), |r| ≤ ln2/2 (ln2 in two parts),
// e^r = 1 + r + r²·Q(r) with Q of degree 4 (relative error 3e-9), times 2^n as two powers of two so that a
// subnormal result rounds once. The argument is clamped to [-104, 89]: beyond, exp rounds to +0 (answered below
// -103.98) or overflows; NaN fails the comparisons and passes through. Loops calling it vectorise.
inline float exp(float x) {
  const float c = x > 89.0f ? 89.0f : (x < -104.0f ? -104.0f : x);
  const float n = __builtin_rintf(c * 1.44269504f);
  const float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;
  const float q = (((0.00138146477f * r + 0.00836871192f) * r + 0.0416683853f) * r + 0.166665211f) * r + 0.49999994f;
  const float p = 1.0f + (r + r * r * q);
  const int32_t k = c == c ? (int32_t)n : 0, k1 = k >> 1;
  const int32_t b1 = (k1 + 127) << 23, b2 = (k - k1 + 127) << 23;
  float s1, s2;
  __builtin_memcpy(&s1, &b1, 4);
  __builtin_memcpy(&s2, &b2, 4);
  const float y = p * s1 * s2;
  return x < -103.98f ? 0.0f : y;
}
// f32 erf on the host (LEIR.md §10.2): c·P(c²)/Q(c²) with c = x clamped to ±3.93, beyond which erf rounds to ±1;
// a rational fit of relative error 3.6e-8 whose f32 evaluation is within 8 ulp of erf. It is inline arithmetic,
// so loops calling it vectorise without a library call. NaN fails both comparisons and passes through.
inline float erf(float x) {
  const float c = x > 3.93f ? 3.93f : (x < -3.93f ? -3.93f : x);
  const float t = c * c;
  const float p = (((((-9.12489284e-09f * t + 3.93843129e-06f) * t + 0.000351090304f) * t + 0.00370993977f) * t +
                    0.0534943789f) * t + 0.183719411f) * t + 1.12837923f;
  const float q = ((((5.61192865e-05f * t + 0.00124130188f) * t + 0.0150800645f) * t + 0.112791426f) * t +
                   0.496150464f) * t + 1.0f;
  return c * p / q;
}
#endif
LEIR_HD inline float log(float x) { return logf(x); }
LEIR_HD inline double log(double x) { return ::log(x); }
LEIR_HD inline float sqrt(float x) { return sqrtf(x); }
LEIR_HD inline double sqrt(double x) { return ::sqrt(x); }
LEIR_HD inline double erf(double x) { return ::erf(x); }
LEIR_HD inline float square(float a) { return a * a; }
LEIR_HD inline double square(double a) { return a * a; }
LEIR_HD inline float pow(float a, float b) { return powf(a, b); }
LEIR_HD inline double pow(double a, double b) { return ::pow(a, b); }
LEIR_HD inline float abs(float x) { return fabsf(x); }
LEIR_HD inline double abs(double x) { return fabs(x); }
LEIR_HD inline int64_t abs(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }
LEIR_HD inline uint64_t abs(uint64_t x) { return x; }
template <class I> LEIR_HD inline I f2i(double v) {
  int64_t out = 0;
  return steptp_num::float_to_int(v, (int)(sizeof(I) * 8), (I)(-1) < (I)0, &out) ? (I)out : (I)0;
}
}  // namespace leir
)GLUE";
}  // namespace

using ir::BinOp;
using ir::CmpOp;
using ir::DType;
using ir::Expr;
using ir::ExprKind;
using ir::Func;

std::string c_var(std::string_view v) { return "v_" + std::string(v); }

std::string c_storage_type(DType t) {
  if (t == DType::F16 || t == DType::BF16) return "uint16_t";
  return std::string(ir::dtype_c_name(t));
}
std::string c_value_type(DType t) {
  if (t == DType::F16 || t == DType::BF16) return "float";
  return std::string(ir::dtype_c_name(t));
}
std::size_t c_elem_bytes(DType t) { return static_cast<std::size_t>(ir::dtype_bytes(t)); }

std::string tu_prelude(bool cuda) {
  std::string s;
  s += "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";
  if (cuda)
    s += "#include <math.h>\n#include <cuda_runtime.h>\n#define LEIR_HD __host__ __device__\n"
         "#define STEPTP_NUM_FN __host__ __device__ inline\n";
  else
    s += "#define LEIR_HD\n" + std::string(kHostMath);
  s += "// ---- embedded copy of steptp src/interp/numeric.hpp ----\n";
  s += numeric_header_text();
  s += "// ---- end of numeric.hpp ----\n";
  s += kLeirGlue;
  s += "#define LEIR_STR_(x) #x\n";
  s += "#if defined(__CUDACC__) || defined(__clang__)\n#define LEIR_UNROLL(n) _Pragma(LEIR_STR_(unroll n))\n"
       "#else\n#define LEIR_UNROLL(n) _Pragma(LEIR_STR_(GCC unroll n))\n#endif\n";
  if (!cuda)
    s += "#ifdef _OPENMP\nextern \"C\" int omp_get_max_threads(void);\n"
         "static inline bool leir_parallel_team(void) { return omp_get_max_threads() > 1; }\n"
         "#else\nstatic inline bool leir_parallel_team(void) { return false; }\n#endif\n";
  // Intermediates come from malloc, aligned to 64 bytes by hand (the block's start is kept just below it for
  // leir_free). glibc's aligned_alloc of a large block leaves a split remainder beside it, so the freed block was
  // never reused: every call grew the heap by the block and page-faulted all of it again (Swish's 1 MiB
  // intermediate: 256 faults, ~3 ms per call on a KVM guest against 0.1 ms of arithmetic). The aligned pointer is
  // raw plus an offset, never an integer cast back: GCC's points-to analysis then knows each intermediate is its
  // own heap block, so a loop that writes a local block and reads an intermediate needs no run-time alias check
  // (a transposed-B register block ran 2.5x slower, an 8-row block checking aliases inside its reduction loop).
  s += "static inline void* leir_alloc(size_t bytes) {\n"
       "  char* raw = (char*)malloc(bytes + 64 + sizeof(void*));\n"
       "  if (!raw) { fprintf(stderr, \"leir: out of memory\\n\"); _Exit(99); }\n"
       "  char* a = raw + sizeof(void*);\n"
       "  a += (64 - ((uintptr_t)a & 63)) & 63;\n"
       "  ((void**)a)[-1] = raw;\n"
       "  return a;\n}\n"
       "static inline void leir_free(void* p) { if (p) free(((void**)p)[-1]); }\n";
  return s;
}

namespace {

bool is_half(DType t) { return t == DType::F16 || t == DType::BF16; }
bool is_narrow_int(DType t) { return ir::is_int(t) && t != DType::I64 && t != DType::U64; }

std::string round_half(DType t, const std::string& x) {
  return std::string(t == DType::F16 ? "leir::round_f16(" : "leir::round_bf16(") + x + ")";
}

/// Converts C code `x` holding a value of static type `from` to type `to` (LEIR.md §8.3).
std::string convert(const std::string& x, DType from, DType to) {
  if (from == to || from == DType::Invalid) return x;
  if (to == DType::Bool) return "(" + x + " != 0)";
  if (is_half(to)) {
    if (ir::is_float(from) && from != DType::F64) return round_half(to, x);
    return round_half(to, "(float)(" + x + ")");
  }
  if (to == DType::F32) return is_half(from) ? x : "(float)(" + x + ")";
  if (to == DType::F64) return "(double)(" + x + ")";
  // integer target
  if (ir::is_float(from)) return "leir::f2i<" + c_storage_type(to) + ">(" + x + ")";
  return "(" + c_storage_type(to) + ")(" + x + ")";
}

std::string hexfloat(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", d);
  return buf;
}

}  // namespace

std::string CEmitter::literal(const ConstVal& v, DType t) const {
  if (t == DType::Bool) {
    const bool b = v.kind == ConstVal::Bool ? v.b : v.kind == ConstVal::Int ? v.i != 0 : v.f != 0.0;
    return b ? "true" : "false";
  }
  if (ir::is_float(t)) {
    const double d = v.kind == ConstVal::Int ? round_to(double(v.i), t) : round_to(v.as_double(), t);
    const bool f = t != DType::F64;
    if (std::isnan(d)) return f ? "NAN" : "(double)NAN";
    if (std::isinf(d)) return std::string(d < 0 ? "-" : "") + (f ? "INFINITY" : "HUGE_VAL");
    std::string r = python_repr_in(d, f ? DType::F32 : DType::F64);  // value type: float or double
    const bool exact = f ? double(std::strtof(r.c_str(), nullptr)) == d : std::strtod(r.c_str(), nullptr) == d;
    if (!exact) r = hexfloat(d);
    return "(" + r + (f ? "f" : "") + ")";
  }
  std::int64_t i = v.kind == ConstVal::Int ? v.i : static_cast<std::int64_t>(v.as_double());
  if (t == DType::U64) return "UINT64_C(" + std::to_string(static_cast<std::uint64_t>(i)) + ")";
  if (i == std::numeric_limits<std::int64_t>::min()) return "INT64_MIN";
  return "((" + c_storage_type(t) + ")INT64_C(" + std::to_string(i) + "))";
}

std::string CEmitter::index(const Expr& e) const {
  if (auto c = fold_constant(e); c && c->kind == ConstVal::Int) return "INT64_C(" + std::to_string(c->i) + ")";
  switch (e.kind) {
    case ExprKind::Var: return c_var(e.text);
    case ExprKind::Ref: return "(int64_t)(" + load(e) + ")";
    case ExprKind::Group: return index(e.args[0]);
    case ExprKind::Neg: return "(-" + index(e.args[0]) + ")";
    case ExprKind::Binary: {
      const std::string a = index(e.args[0]), b = index(e.args[1]);
      switch (e.bop) {
        case BinOp::Add: return "(" + a + " + " + b + ")";
        case BinOp::Sub: return "(" + a + " - " + b + ")";
        case BinOp::Mul: return "(" + a + " * " + b + ")";
        case BinOp::FloorDiv: return "leir::floordiv((int64_t)" + a + ", (int64_t)" + b + ")";
        case BinOp::Mod: return "leir::floormod((int64_t)" + a + ", (int64_t)" + b + ")";
        default: break;
      }
      break;
    }
    default: break;
  }
  return "0";  // unreachable for validated programs (E211)
}

std::string CEmitter::linear_index(const Expr& ref) const {
  if (ref.args.empty()) return "0";
  const CompactBuffer* cb = nullptr;
  if (compact_)
    if (auto it = compact_->find(ref.text); it != compact_->end()) cb = &it->second;
  const auto& shape = cb ? cb->shape : p_.buffer(ref.text).shape;
  auto entry = [&](std::size_t d) { return cb ? compact_entry_c(ref.args[d], cb->dims[d]) : index(ref.args[d]); };
  std::string s = entry(0);
  for (std::size_t d = 1; d < ref.args.size(); ++d)
    s = (d > 1 ? "(" + s + ")" : s) + " * " + std::to_string(shape[d]) + " + " + entry(d);
  return s;
}

std::string CEmitter::load(const Expr& ref) const {
  const DType t = p_.buffer(ref.text).dtype;
  const std::string a = ref.text + "[" + linear_index(ref) + "]";
  if (t == DType::F16) return "leir::f16_to_float(" + a + ")";
  if (t == DType::BF16) return "leir::bf16_to_float(" + a + ")";
  if (t == DType::Bool && eager_.byte_reads.count(&ref)) return "leir::load_bool(" + a + ")";
  return a;
}

std::string CEmitter::store(const Expr& ref, const std::string& v) const {
  const DType t = p_.buffer(ref.text).dtype;
  const std::string a = ref.text + "[" + linear_index(ref) + "]";
  if (t == DType::F16) return a + " = leir::float_to_f16(" + v + ");";
  if (t == DType::BF16) return a + " = leir::float_to_bf16(" + v + ");";
  return a + " = " + v + ";";
}

std::string CEmitter::value(const Expr& e, DType want) const { return convert(raw(e), e.ty, want); }

std::string CEmitter::raw(const Expr& e) const {
  const DType t = e.ty;
  if (e.kind == ExprKind::Group) return raw(e.args[0]);
  if (auto c = fold_constant(e)) return literal(*c, t == DType::Invalid ? DType::F64 : t);
  auto arg = [&](std::size_t i) { return value(e.args[i], operand_type(e, i)); };
  // result of an arithmetic operation in type t: f16/bf16 rounded, narrow integers wrapped
  auto arith = [&](const std::string& a, const std::string& op, const std::string& b) {
    if (is_half(t)) return round_half(t, a + " " + op + " " + b);
    if (is_narrow_int(t) || t == DType::Bool)
      return "(" + c_storage_type(t) + ")((int64_t)" + a + " " + op + " (int64_t)" + b + ")";
    return "(" + a + " " + op + " " + b + ")";
  };
  auto fdiv = [&](const char* fn) {
    const std::string a = arg(0), b = arg(1);
    if (ir::is_float(t)) {
      const std::string r = std::string("leir::") + fn + "(" + a + ", " + b + ")";
      return is_half(t) ? round_half(t, r) : r;
    }
    if (t == DType::U64) return std::string("leir::") + fn + "(" + a + ", " + b + ")";
    return "(" + c_storage_type(t) + ")leir::" + fn + "((int64_t)" + a + ", (int64_t)" + b + ")";
  };
  switch (e.kind) {
    case ExprKind::Var: return c_var(e.text);
    case ExprKind::Ref: return load(e);
    case ExprKind::Neg: {
      const std::string a = arg(0);
      if (is_narrow_int(t) || t == DType::Bool) return "(" + c_storage_type(t) + ")(-(int64_t)" + a + ")";
      return "(-" + a + ")";
    }
    case ExprKind::Compare: {
      std::string s;
      for (std::size_t k = 0; k < e.cmps.size(); ++k) {
        const DType ct = compare_type(e, k);
        s += (k ? " && " : "") + ("(" + value(e.args[k], ct) + " " + std::string(ir::cmpop_text(e.cmps[k])) + " " +
                                  value(e.args[k + 1], ct) + ")");
      }
      return e.cmps.size() > 1 ? "(" + s + ")" : s;
    }
    case ExprKind::Binary:
      switch (e.bop) {
        case BinOp::And: return "(" + arg(0) + " && " + arg(1) + ")";
        case BinOp::Or: return "(" + arg(0) + " || " + arg(1) + ")";
        case BinOp::Add: return arith(arg(0), "+", arg(1));
        case BinOp::Sub: return arith(arg(0), "-", arg(1));
        case BinOp::Mul: return arith(arg(0), "*", arg(1));
        case BinOp::Div: return arith(arg(0), "/", arg(1));
        case BinOp::FloorDiv: return fdiv("floordiv");
        case BinOp::Mod: return fdiv("floormod");
        case BinOp::Pow: {
          const std::string r =
              ir::is_square(e) ? "leir::square(" + arg(0) + ")" : "leir::pow(" + arg(0) + ", " + arg(1) + ")";
          return is_half(t) ? round_half(t, r) : r;
        }
      }
      break;
    case ExprKind::Call: {
      switch (e.fn) {
        case Func::IfThenElse:
          if (eager_.selects.count(&e))
            return "leir::select<" + c_value_type(t) + ">(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ")";
          return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
        case Func::Max:
        case Func::Min:
          return std::string("leir::") + (e.fn == Func::Max ? "max" : "min") + "<" + c_value_type(t) + ">(" + arg(0) +
                 ", " + arg(1) + ")";
        case Func::Abs:
          if (ir::is_float(t) || t == DType::U64) return "leir::abs(" + arg(0) + ")";
          if (t == DType::Bool) return arg(0);
          return "(" + c_storage_type(t) + ")leir::abs((int64_t)" + arg(0) + ")";
        default: {
          static const char* names[] = {"exp", "log", "sqrt", "abs", "erf"};
          const std::string r = std::string("leir::") + names[static_cast<int>(e.fn)] + "(" + arg(0) + ")";
          return is_half(t) ? round_half(t, r) : r;
        }
      }
    }
    default: break;
  }
  return "0";
}

std::string CEmitter::init_store(const ir::Stmt& s) const {
  const DType t = p_.buffer(s.lhs.text).dtype;
  return store(s.lhs, literal(init_identity(s.init, t), t));
}

void CEmitter::stmt(std::ostream& os, const ir::Stmt& s, int indent, bool inline_init) const {
  const std::string ind(static_cast<std::size_t>(indent) * 2, ' ');
  const DType t = p_.buffer(s.lhs.text).dtype;
  if (s.init != ir::InitKind::None && inline_init) {
    std::string cond;
    for (const auto& r : s.reduction_vars) cond += (cond.empty() ? "" : " && ") + c_var(r) + " == 0";
    const std::string st = init_store(s);
    if (cond.empty()) os << ind << st << "\n";
    else os << ind << "if (" << cond << ") " << st << "\n";
  }
  os << ind << store(s.lhs, value(s.rhs, t)) << "\n";
}

}  // namespace steptp::lower
