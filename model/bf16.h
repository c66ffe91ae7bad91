// bf16.h - bfloat16 for the mixed-precision products (train --precision bf16, docs/performance.md):
// float32 to bfloat16 conversion, round to nearest even, and the CPU check that allows it.
// bfloat16 is the top 16 bits of a float32: sign, the same 8-bit exponent, 7 stored mantissa
// bits (8 significant): a converted value is within 2^-8 of the float, relatively (normals:
// half a unit in the last place, 2^-8 of the binade's lower end).
// Conversion: round to nearest, ties to even, on the bit pattern, so denormals round like
// normals (no flush to zero), a float past the largest bfloat16 rounds to infinity, infinities
// stay, and a NaN stays a NaN (quiet, its sign and top payload bits kept).
#ifndef POSGPT_BF16_H
#define POSGPT_BF16_H

#include <stddef.h>
#include <stdint.h>

// the scalar reference: one float's bfloat16 bits
uint16_t bf16_from_f32(float x);
float bf16_to_f32(uint16_t h);
// n floats to bfloat16 (AVX-512 where the CPU has it, else the scalar loop: the same bits)
void bf16_convert(uint16_t *out, const float *in, size_t n);
// n floats rounded to their bfloat16 values, kept as float32 (the same rounding; out may be in)
void bf16_round(float *out, const float *in, size_t n);
// rows x cols of a matrix with leading dimension ld, packed (leading dimension cols): to
// bfloat16 (out16) or rounded in float32 (out32), whichever is not NULL; parallel over rows
// (OpenMP) when called outside a parallel region
void bf16_pack(uint16_t *out16, float *out32, const float *in, int rows, int cols, int ld);
// the loops bf16_convert runs on this CPU: "avx512" or "scalar"; POSGPT_BF16_SCALAR=1 forces
// the scalar loop (the tests compare the two)
const char *bf16_convert_kind(void);

// 1 if this CPU runs bfloat16 products in hardware (x86-64 AVX512-BF16 or AMX-BF16), else 0
// with the missing feature named in why. POSGPT_CPU_NO_BF16=1 answers 0 on any CPU (for the
// refusal's test); POSGPT_BF16_ANY_CPU=1 answers 1 on any CPU (for testing the bf16 numbers on
// a machine without the feature: correct, and slower than float32).
int cpu_has_bf16(char *why, size_t n);
#endif
