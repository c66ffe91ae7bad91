// bf16.c - float32 to bfloat16 conversion and the CPU check for bf16 products. See bf16.h.
#include "bf16.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define BF16_X86 1
#endif

static uint32_t f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

// the float32 bits of x's bfloat16 value (low 16 bits zero): round to nearest even by adding
// 0x7fff plus the kept part's lowest bit (a carry into the exponent is the right answer: the
// next binade, or infinity past the largest finite value); a NaN is kept, made quiet
static uint32_t round_bits(uint32_t u) {
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u | 0x00400000u) & 0xffff0000u;
    return (u + 0x7fffu + (u >> 16 & 1)) & 0xffff0000u;
}

uint16_t bf16_from_f32(float x) { return (uint16_t)(round_bits(f32_bits(x)) >> 16); }

float bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static void convert_scalar(uint16_t *out16, float *out32, const float *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t r = round_bits(f32_bits(in[i]));
        if (out16) out16[i] = (uint16_t)(r >> 16);
        else memcpy(out32 + i, &r, 4);
    }
}

#ifdef BF16_X86
// 16 floats at a time: round_bits on the integer lanes (AVX-512F), then the top halves
// (vpmovdw) or the masked words; the scalar loop takes the tail
__attribute__((target("avx512f"))) static void convert_avx512(uint16_t *out16, float *out32, const float *in, size_t n) {
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    const __m512i half = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), quiet = _mm512_set1_epi32(0x00400000);
    const __m512i top = _mm512_set1_epi32((int)0xffff0000u);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i u = _mm512_loadu_si512(in + i);
        __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, abs_mask), inf);
        __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, half), _mm512_and_si512(_mm512_srli_epi32(u, 16), one));
        r = _mm512_and_si512(_mm512_mask_or_epi32(r, nan, u, quiet), top);
        if (out16) _mm256_storeu_si256((__m256i *)(out16 + i), _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16)));
        else _mm512_storeu_si512(out32 + i, r);
    }
    convert_scalar(out16 ? out16 + i : NULL, out32 ? out32 + i : NULL, in + i, n - i);
}
#endif

static int use_avx512(void) {
    static int use = -1;
    if (use < 0) {
        const char *s = getenv("POSGPT_BF16_SCALAR");
        int forced = s && *s && strcmp(s, "0");
#ifdef BF16_X86
        use = !forced && __builtin_cpu_supports("avx512f");
#else
        (void)forced;
        use = 0;
#endif
    }
    return use;
}

const char *bf16_convert_kind(void) { return use_avx512() ? "avx512" : "scalar"; }

static void convert(uint16_t *out16, float *out32, const float *in, size_t n) {
#ifdef BF16_X86
    if (use_avx512()) {
        convert_avx512(out16, out32, in, n);
        return;
    }
#endif
    convert_scalar(out16, out32, in, n);
}

void bf16_convert(uint16_t *out, const float *in, size_t n) { convert(out, NULL, in, n); }
void bf16_round(float *out, const float *in, size_t n) { convert(NULL, out, in, n); }

void bf16_pack(uint16_t *out16, float *out32, const float *in, int rows, int cols, int ld) {
    use_avx512(); // (decided once, before any team reads it)
#pragma omp parallel for schedule(static) if (!omp_in_parallel() && (long)rows * cols >= (1L << 16))
    for (int i = 0; i < rows; i++)
        convert(out16 ? out16 + (size_t)i * cols : NULL, out32 ? out32 + (size_t)i * cols : NULL, in + (size_t)i * ld,
                (size_t)cols);
}

static int env_set(const char *name) {
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0");
}

int cpu_has_bf16(char *why, size_t n) {
    if (env_set("POSGPT_CPU_NO_BF16")) {
        snprintf(why, n, "AVX512-BF16 or AMX-BF16 (POSGPT_CPU_NO_BF16 is set: the check answers no)");
        return 0;
    }
    if (env_set("POSGPT_BF16_ANY_CPU")) return 1;
#ifdef BF16_X86
    unsigned a, b, c, d, a1 = 0, b1, c1, d1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) d = 0;
    else if (a >= 1) __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1);
    // the OS must save the AVX-512 state (XCR0 bits 5-7, with 1-2) or the AMX tiles (17-18)
    unsigned lo = 0, hi, c1x, x;
    if (__get_cpuid(1, &x, &x, &c1x, &x) && (c1x >> 27 & 1)) __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0)); // (OSXSAVE)
    int avx512_bf16 = (a1 >> 5 & 1) && (lo & 0xe6) == 0xe6, amx_bf16 = (d >> 22 & 1) && (lo >> 17 & 3) == 3;
    if (avx512_bf16 || amx_bf16) return 1;
    snprintf(why, n, "AVX512-BF16 or AMX-BF16 (this CPU has neither%s)",
             (a1 >> 5 & 1) || (d >> 22 & 1) ? ", or the operating system does not enable its registers" : "");
#else
    snprintf(why, n, "AVX512-BF16 or AMX-BF16 of an x86-64 CPU (this build is not for x86-64)");
#endif
    return 0;
}
