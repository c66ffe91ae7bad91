#!/usr/bin/python3
"""torch_ref.py - posgpt's own PyTorch reference model, written from the project's docs.

A plain PyTorch re-implementation of posgpt, built from docs/model.md (the architecture and
`posgpt eval`), docs/schemes.md (every position scheme) and docs/checkpoint.md (the bytes of
model.bin, formats v1 to v5, read by python/posgpt.py). It does not share code with posgpt; it exists to check that
the docs describe the model completely and that posgpt computes what they say.

As a module (`importlib.util.spec_from_file_location("torch_ref", "tools/torch_ref.py")`):
    read_checkpoint(path) -> (header dict, {tensor name: np.ndarray float32}); the scheme's
        tensors are named "scheme.NAME", with a leading dimension of layers when per layer
    GPT(V, C, L, NH, T, scheme, hp, pos_rows, rand_max, layout=None)      a torch.nn.Module
        .load_tensors(tensors)   copy checkpoint tensors in (parameters bear their names)
        .forward(tok, pos=None)  -> logits (B, T, V) float32
    GPT.from_checkpoint(path)    both steps at once
    heldout_text(data, val=None, whole=False) -> np.uint8 array (docs/model.md, step 1)
    evaluate(model, heldout, L, max_tokens, stride=None) -> (loss, tokens, windows)

Command line (Debian's python3-torch: run with /usr/bin/python3):
    score:  --ckpt FILE --data FILE [--val FILE] [--len L] [--max-tokens N] [--compare] [--tol X]
            prints CSV `source,eval_len,tokens,loss`; with --compare also runs `posgpt eval`,
            prints its row and the absolute difference, and exits 1 if it exceeds --tol
            (2 on errors: bad checkpoint, a request this model cannot serve).
    speed:  --bench --pos S --n-layer N --d-model C --n-head H --T T --batch B
                [--rand-base S] [--max-pos N] --warmup W --steps K --threads N
            AdamW training steps on random bytes; prints `RESULT ... tokens_per_s=X ... peak_rss_mib=Y`
            --eval-bench (same model flags) --eval-T T --warmup W --steps K --threads N
            forward passes with loss at batch 1, length --eval-T; the same RESULT keys.
    (tools/bench.sh runs both with TORCH=1.)

Example:
    OMP_NUM_THREADS=1 /usr/bin/python3 tools/torch_ref.py --ckpt runs/x/model.bin \\
        --data data/kjv.txt --len 256 --max-tokens 8192 --compare
"""
import argparse
import math
import os
import resource
import subprocess
import sys
import time
import zlib

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_POSGPT = os.path.join(REPO, "posgpt")

# ==============================================================================================
# checkpoint (docs/checkpoint.md)

# the file formats (checkpoint header, tensor names and shapes, hyperparameter slots) are
# python/posgpt.py's, the project's importable reader
sys.path.insert(0, os.path.join(REPO, "python"))
from posgpt import (HEADER_SIZE, HYPERS, MAGIC, SCHEMES, TENSOR_NAMES, core_shapes,  # noqa: E402,F401
                    default_hypers, scheme_layout, scheme_tensors)
import posgpt  # noqa: E402


def read_checkpoint(path):
    """Parse a posgpt checkpoint (formats v1 to v5; python/posgpt.py). Returns (header,
    tensors): header a dict of the fields of docs/checkpoint.md, tensors {name: np.ndarray
    float32} with the documented shapes, the scheme's as "scheme.NAME" ((L, ...) when per
    layer; header["layout"] says which are). Raises ValueError naming the check that failed."""
    h, out = posgpt.read_checkpoint(path)
    if h["scheme"] not in SCHEMES:
        raise ValueError(f"{path}: unknown position scheme '{h['scheme']}'")
    return h, out


# ==============================================================================================
# position schemes (docs/schemes.md). Each maps onto one or more of five places of the forward
# pass: input_add (absolute schemes), qk (rotary), bias (added to the scaled logits),
# term (a content-dependent logit term: CoPE, Shaw's keys, Transformer-XL), value (added to
# the attention output: Shaw's values). Positions arrive as int64 tensors; a (1, T) row is
# shared by the whole batch, a (B, T) tensor gives each sequence its own. P is the layer's
# view of the scheme's tensors: the tensor itself for a scheme with one, else {name: tensor}.

class Scheme:
    name = "nope"                                    # "nope": every hook a no-op
    has_bias = has_term = has_value = has_decay = False
    decays_params = False                            # AdamW weight decay on tensor 15 (learned only)

    def __init__(self, C, NH, rows, hp):
        self.C, self.NH, self.HS, self.rows, self.hp = C, NH, C // NH, rows, list(hp)
        self.ext = None                              # eval-time rotary extension (RotaryExt)

    def init(self, P, gen):                          # the scheme's own init (schemes.md): zeros unless said
        P.zero_()

    def constrain(self, P):                          # projection after init and every optimizer step
        pass

    def max_pos(self):                               # largest position + 1 served; 0 = unlimited
        return 0

    def input_add(self, x, pos, P):
        return x

    def qk(self, q, k, pos, T):
        return q, k

    def bias(self, qpos, kpos, P):                   # -> (Bp, NH, nq, nk)
        raise NotImplementedError

    def term(self, q, k, S, P, mask, qpos, kpos):     # -> (B, NH, nq, nk), added to the scaled logits
        raise NotImplementedError

    def value(self, A, P, qpos, kpos):                # A the attention weights -> (B, NH, nq, HS)
        raise NotImplementedError


def distances(qpos, kpos):
    """D = p_i - p_j for queries qpos (Bp, nq) and keys kpos (Bp, nk) -> (Bp, 1, nq, nk) int64.
    Masked pairs (j > i) can be negative: they are clamped to 0 (their logits are discarded),
    so that no bias formula sees a negative distance (no NaN to leak into a gradient)."""
    return (qpos[:, None, :, None] - kpos[:, None, None, :]).clamp(min=0)


class Sinusoidal(Scheme):
    """schemes.md "sinusoidal": x[2i] += s sin(p / 10000^(2i/C)), x[2i+1] += s cos(...);
    s = --sin-scale, 0 meaning 1/sqrt(C). Angles in double, each entry rounded to float."""
    name = "sinusoidal"

    def input_add(self, x, pos, P):
        C = self.C
        s = float(self.hp[0]) if self.hp[0] > 0 else 1.0 / math.sqrt(C)
        i = torch.arange(0, (C + 1) // 2, dtype=torch.float64)
        ang = pos.to(torch.float64)[..., None] * torch.pow(10000.0, -2.0 * i / C)     # (Bp, T, ceil(C/2))
        emb = torch.empty(*ang.shape[:-1], C, dtype=torch.float64)
        emb[..., 0::2] = s * torch.sin(ang)                                          # even channels: sin
        emb[..., 1::2] = (s * torch.cos(ang))[..., :C // 2]                           # odd: cos (odd C: none last)
        return x + emb.to(torch.float32)


class Learned(Scheme):
    """schemes.md "learned": x += P[p], P (pos_rows, C); p >= pos_rows is an error (or, with
    clamp, the last row: eval --clamp-pos)."""
    name = "learned"
    decays_params = True
    clamp = False

    def init(self, P, gen):
        P.normal_(0.0, 0.02, generator=gen)

    def max_pos(self):
        return self.rows

    def input_add(self, x, pos, P):
        if int(pos.max()) >= self.rows:
            if not self.clamp:
                raise ValueError(f"position {int(pos.max())} is beyond the learned table's {self.rows} rows "
                                 f"(posgpt refuses too, unless --clamp-pos)")
            pos = pos.clamp(max=self.rows - 1)
        return x + P[pos]


class T5(Scheme):
    """schemes.md "t5": bias = table[bucket(D)][h]; e = nb/2 exact buckets, then
    min(nb - 1, e + floor(ln(D/e) / ln(M/e) (nb - e))). Buckets computed in double
    (Python's math.log), as a floor of a float expression is sensitive to its rounding."""
    name = "t5"
    has_bias = True

    def __init__(self, *a):
        super().__init__(*a)
        nb, M = int(self.hp[0]), int(self.hp[1])
        e = nb // 2                                   # integer division (C: num_buckets / 2)
        lut = [D if D < e else min(nb - 1, e + int(math.floor(math.log(D / e) / math.log(M / e) * (nb - e))))
               for D in range(M + 1)]
        self.nb, self.M, self.lut = nb, M, torch.tensor(lut, dtype=torch.int64)      # D >= M: bucket nb - 1

    def bias(self, qpos, kpos, P):
        b = self.lut[distances(qpos, kpos).clamp(max=self.M)][:, 0]                  # (Bp, nq, nk)
        return P[b].permute(0, 3, 1, 2)                                              # (Bp, NH, nq, nk)


def alibi_slopes(NH):
    """schemes.md "alibi": 2^(-8(h+1)/NH) for NH a power of two; otherwise the P slopes of the
    largest power of two P below NH, then 2^(-8(2k+1)/(2P)) for k = 0..NH-P-1."""
    P = 1
    while P * 2 <= NH:
        P *= 2
    return ([2.0 ** (-8.0 * (h + 1) / P) for h in range(P)] +
            [2.0 ** (-8.0 * (2 * k + 1) / (2 * P)) for k in range(NH - P)])


class Alibi(Scheme):
    """schemes.md "alibi": bias = -m_h D (float: m_h rounded to float, times float D)."""
    name = "alibi"
    has_bias = True

    def bias(self, qpos, kpos, P):
        m = torch.tensor(alibi_slopes(self.NH), dtype=torch.float32)[None, :, None, None]
        return -(m * distances(qpos, kpos).to(torch.float32))


class RotaryExt:
    """Eval-time context extension of rope/xpos (schemes.md, last section): pi, ntk,
    dynamic-ntk, yarn (rerope is not implemented here). factor 0 = max(1, L_eval/T_train)."""

    def __init__(self, method, factor, train_len):
        if method not in ("pi", "ntk", "dynamic-ntk", "yarn"):
            raise ValueError(f"--rope-scaling {method}: this reference implements pi, ntk, dynamic-ntk, yarn")
        self.method, self.factor, self.train_len = method, factor, train_len

    def scale(self, T):
        if self.method == "dynamic-ntk":
            a = self.factor if self.factor > 0 else 1.0
            s = a * T / self.train_len - (a - 1.0)
        else:
            s = self.factor if self.factor > 0 else T / self.train_len
        return max(1.0, s)


def rotary_plan(HS, base, ext, T):
    """Frequencies theta_k = base^(-2k/HS) (k < HS/2), position scale and magnitude scale, as
    modified by an eval-time extension. All in double."""
    K = HS // 2
    pscale = mscale = 1.0
    s = ext.scale(T) if ext else 1.0
    if ext and ext.method in ("ntk", "dynamic-ntk") and HS > 2:
        base = base * s ** (HS / (HS - 2))
    k = torch.arange(K, dtype=torch.float64)
    freq = torch.pow(torch.tensor(base, dtype=torch.float64), -2.0 * k / HS)
    if ext and ext.method == "pi":
        pscale = 1.0 / s
    if ext and ext.method == "yarn":                  # per pair: ramp between interpolated and kept
        r = ext.train_len / (2.0 * math.pi / freq)
        g = ((r - 1.0) / (32.0 - 1.0)).clamp(0.0, 1.0)
        freq = (1.0 - g) * freq / s + g * freq
        mscale = 0.1 * math.log(s) + 1.0
    return freq, pscale, mscale


def rotate(x, pos, freq, pscale, mscale, interleaved):
    """Rotate channel pair k of x (B, NH, T, HS) by the angle p theta_k: (a, b) -> (a cos - b sin,
    a sin + b cos). Pairs (x_k, x_{k+HS/2}) (rotate-half) or (x_{2k}, x_{2k+1}) (interleaved).
    cos and sin computed in double, rounded to float, the rotation itself in float."""
    ang = (pos.to(torch.float64) * pscale)[..., None] * freq                          # (Bp, T, K)
    c = (mscale * torch.cos(ang)).to(torch.float32)[:, None]                          # (Bp, 1, T, K)
    s = (mscale * torch.sin(ang)).to(torch.float32)[:, None]
    K = x.shape[-1] // 2
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)
    a, b = x[..., :K], x[..., K:]
    return torch.cat((a * c - b * s, a * s + b * c), dim=-1)


class Rope(Scheme):
    """schemes.md "rope": base hp[0], pairing hp[1] (0 rotate-half, 1 interleaved)."""
    name = "rope"

    def qk(self, q, k, pos, T):
        freq, ps, ms = rotary_plan(self.HS, float(self.hp[0]), self.ext, T)
        inter = self.hp[1] != 0
        return rotate(q, pos, freq, ps, ms, inter), rotate(k, pos, freq, ps, ms, inter)


class Xpos(Rope):
    """schemes.md "xpos": rope with interleaved pairs (base hp[0]); then pair k (channels 2k, 2k+1)
    of q at position p is multiplied by zeta_k^((p - c)/B) and of k by zeta_k^(-(p - c)/B),
    zeta_k = (2k + 0.4 HS)/(1.4 HS), B = hp[1]. The attention applies the decay (decay_rates):
    centred on each window in training, on each block of 64 queries in evaluation."""
    name = "xpos"
    has_decay = True

    def qk(self, q, k, pos, T):
        freq, ps, ms = rotary_plan(self.HS, float(self.hp[0]), self.ext, T)
        return rotate(q, pos, freq, ps, ms, True), rotate(k, pos, freq, ps, ms, True)

    def decay_rates(self, T):
        """ln(zeta_k)/B per channel (float64, HS), position interpolation (pi) dividing it by s."""
        HS = self.HS
        f = (1.0 / self.ext.scale(T) if self.ext and self.ext.method == "pi" else 1.0) / float(self.hp[1])
        k = torch.arange(HS // 2, dtype=torch.float64)
        rate = torch.log((2.0 * k + 0.4 * HS) / (1.4 * HS)) * f
        return rate.repeat_interleave(2)


class KerpleLog(Scheme):
    """schemes.md "kerple-log": bias = -r1_h ln(1 + r2_h D); P = (r1 row, r2 row)."""
    name = "kerple-log"
    has_bias = True
    r2_max = 1e30

    def init(self, P, gen):
        P[0].uniform_(0.0, 2.0, generator=gen)
        P[1].uniform_(0.0, 1.0, generator=gen)

    def constrain(self, P):
        P[0].clamp_(min=0.01)
        P[1].clamp_(min=0.01, max=self.r2_max)

    def kernel(self, D, r2):
        # r2 D in float, ln(1 + .) in double, rounded to float
        return torch.log1p((r2 * D.to(torch.float32)).to(torch.float64)).to(torch.float32)

    def bias(self, qpos, kpos, P):
        r1, r2 = P[0][None, :, None, None], P[1][None, :, None, None]
        return -(r1 * self.kernel(distances(qpos, kpos), r2))


class KerplePower(KerpleLog):
    """schemes.md "kerple-power": bias = -r1_h D^(r2_h), r2 clamped to [0.01, 2]."""
    name = "kerple-power"
    r2_max = 2.0

    def kernel(self, D, r2):
        # D^r2 in double (0 at D = 0; the where keeps ln 0 out of r2's gradient)
        Dd = D.to(torch.float64)
        p = torch.pow(Dd.clamp(min=1.0), r2.to(torch.float64))
        return torch.where(Dd > 0, p, torch.zeros_like(p)).to(torch.float32)


class Sandwich(Scheme):
    """schemes.md "sandwich": s(D) = sum_{k=1}^{d'/2} cos(D / 10000^(2k/d')),
    bias = (s(D) - d'/2) / (8 (h+1) / NH). The sum in double, rounded to float; the per-head
    factor NH / (8 (h+1)) rounded to float; their product in float."""
    name = "sandwich"
    has_bias = True

    def __init__(self, *a):
        super().__init__(*a)
        self.table = torch.zeros(0, dtype=torch.float32)

    def shifted_sum(self, n):
        if self.table.numel() < n:
            dp = int(self.hp[0])
            D = np.arange(n, dtype=np.float64)[:, None]
            k = np.arange(1, dp // 2 + 1, dtype=np.float64)
            s = np.cos(D / np.power(10000.0, 2.0 * k / dp)).sum(axis=1) - dp // 2
            self.table = torch.from_numpy(s.astype(np.float32))
        return self.table

    def bias(self, qpos, kpos, P):
        D = distances(qpos, kpos)
        v = self.shifted_sum(int(D.max()) + 1)[D]                                   # (Bp, 1, nq, nk)
        inv = torch.tensor([self.NH / (8.0 * (h + 1)) for h in range(self.NH)], dtype=torch.float32)
        return v * inv[None, :, None, None]


class Fire(Scheme):
    """schemes.md "fire": bias = f(u)_h, u = psi(D) / psi(max(Lth, p_i)), psi(x) = ln(c x + 1),
    f(u) = w2 relu(w1 u + b1) + b2. P = w1 (Hf), b1 (Hf), w2 (NH, Hf), b2 (NH), c, Lth
    (the learned threshold, "L" in schemes.md). As posgpt: c x in float, ln(1 + .) in double
    rounded to float; 1/psi(M) in double rounded to float; the rest in float."""
    name = "fire"
    has_bias = True

    def view(self, P):
        Hf, NH = int(self.hp[0]), self.NH
        w1, b1 = P[:Hf], P[Hf:2 * Hf]
        w2 = P[2 * Hf:2 * Hf + NH * Hf].view(NH, Hf)
        o = 2 * Hf + NH * Hf
        return w1, b1, w2, P[o:o + NH], P[o + NH], P[o + NH + 1]

    def init(self, P, gen):
        Hf, NH = int(self.hp[0]), self.NH
        with torch.no_grad():
            P[:Hf].normal_(0.0, 1.0, generator=gen)
            P[Hf:2 * Hf].uniform_(-1.0, 1.0, generator=gen)
            P[2 * Hf:2 * Hf + NH * Hf].normal_(0.0, 0.02, generator=gen)
            o = 2 * Hf + NH * Hf
            P[o:o + NH].zero_()
            P[o + NH] = 1.0                                                           # c
            P[o + NH + 1] = float(self.hp[1])                                         # threshold

    def constrain(self, P):
        o = 2 * int(self.hp[0]) + self.NH * int(self.hp[0]) + self.NH
        P[o].clamp_(min=1e-3)
        P[o + 1].clamp_(min=1.0)

    def bias(self, qpos, kpos, P):
        w1, b1, w2, b2, c, Lth = self.view(P)
        D = distances(qpos, kpos)[:, 0].to(torch.float32)                              # (Bp, nq, nk)
        psiD = torch.log1p((c * D).to(torch.float64)).to(torch.float32)
        M = torch.maximum(qpos.to(torch.float32), Lth)                                # (Bp, nq)
        inv = (1.0 / torch.log1p((c * M).to(torch.float64))).to(torch.float32)
        u = psiD * inv[..., None]
        hidden = torch.relu(u[..., None] * w1 + b1)                                   # (Bp, nq, nk, Hf)
        return (hidden @ w2.t() + b2).permute(0, 3, 1, 2)                             # (Bp, NH, nq, nk)


class Cope(Scheme):
    """schemes.md "cope": with the scaled logits a_ij, gates g = sigmoid(a), p_ij = sum_{t=j..i} g_it
    clamped to npos - 1, term (1 - w) q_i.e[floor p] + w q_i.e[ceil p], w = p - floor p
    (q_i.e unscaled). e (npos, HS) shared by the heads, one per layer by default."""
    name = "cope"
    has_term = True

    def term(self, q, k, S, P, mask, qpos, kpos):
        g = torch.sigmoid(S) * mask                                                   # keys j > i: 0
        p = torch.flip(torch.cumsum(torch.flip(g, [-1]), -1), [-1])                  # sum over t >= j
        p = p.clamp(max=float(P.shape[0] - 1))
        z = q @ P.t()                                                                 # (B, NH, nq, npos)
        f = torch.floor(p)
        w = p - f
        zf = torch.gather(z, -1, f.long())
        zc = torch.gather(z, -1, torch.ceil(p).long())
        return (1 - w) * zf + w * zc


class Shaw(Scheme):
    """schemes.md "shaw": D' = min(D, k); logit term q_i.a^K[D'] / sqrt(HS), value term
    sum_j p_ij a^V[D']; key, value (k + 1, HS) shared by the heads."""
    name = "shaw"
    has_term = has_value = True

    def init(self, P, gen):
        P["key"].normal_(0.0, 0.02, generator=gen)
        P["value"].normal_(0.0, 0.02, generator=gen)

    def clipped(self, qpos, kpos, shape):
        return distances(qpos, kpos).clamp(max=int(self.hp[0])).expand(shape)        # (B, NH, nq, nk)

    def term(self, q, k, S, P, mask, qpos, kpos):
        z = q @ P["key"].t()                                                          # (B, NH, nq, k + 1)
        return torch.gather(z, -1, self.clipped(qpos, kpos, S.shape)) * (1.0 / math.sqrt(self.HS))

    def value(self, A, P, qpos, kpos):
        D = self.clipped(qpos, kpos, A.shape)
        w = torch.zeros(*A.shape[:-1], int(self.hp[0]) + 1, dtype=A.dtype).scatter_add_(-1, D, A)
        return w @ P["value"]                                                         # (B, NH, nq, HS)


class XL(Scheme):
    """schemes.md "xl": logit term [u_h.k_j + (q_i + v_h).r_h(D)] / sqrt(HS), r_h(D) = W_R^h R(D),
    R(D) the dR/2 sines then the dR/2 cosines of D 10000^(-2m/dR) (double, rounded to float);
    w_r (C, dR) with rows h HS + e; u, v (NH, HS)."""
    name = "xl"
    has_term = True

    def init(self, P, gen):
        for n in ("w_r", "u", "v"):
            P[n].normal_(0.0, 0.02, generator=gen)

    def term(self, q, k, S, P, mask, qpos, kpos):
        dR = int(self.hp[0]) or self.C
        D = distances(qpos, kpos)
        n = int(D.max()) + 1
        ang = torch.arange(n, dtype=torch.float64)[:, None] * torch.pow(10000.0, -2.0 * torch.arange(dR // 2, dtype=torch.float64) / dR)
        R = torch.cat([torch.sin(ang), torch.cos(ang)], dim=1).to(torch.float32)      # (n, dR)
        r = torch.einsum("hed,nd->hne", P["w_r"].view(self.NH, self.HS, dR), R)      # (NH, n, HS)
        z = (q + P["v"][None, :, None, :]) @ r.transpose(-1, -2)[None]                # (B, NH, nq, n)
        uk = (k * P["u"][None, :, None, :]).sum(-1)[:, :, None, :]                    # (B, NH, 1, nk)
        return (torch.gather(z, -1, D.expand(S.shape)) + uk) * (1.0 / math.sqrt(self.HS))


SCHEME_CLASSES = {cls.name: cls for cls in (Sinusoidal, Learned, T5, Alibi, Rope, Scheme, KerpleLog, KerplePower,
                                            Sandwich, Xpos, Fire, Cope, Shaw, XL)}
assert sorted(SCHEME_CLASSES) == sorted(SCHEMES)


# ==============================================================================================
# the model (docs/model.md, "Forward pass")

class GPT(torch.nn.Module):
    """Pre-LN GPT-2 with a tied output head and one of posgpt's position schemes. Parameters
    are named and shaped as the checkpoint's tensors (docs/checkpoint.md), layers stacked."""

    def __init__(self, V=256, C=128, L=4, NH=4, T=128, scheme="alibi", hp=None, pos_rows=0, rand_max=0,
                 clamp_pos=False, layout=None):
        super().__init__()
        if scheme not in SCHEME_CLASSES:
            raise ValueError(f"unknown position scheme '{scheme}'; choose one of {', '.join(SCHEMES)}")
        if C % NH:
            raise ValueError(f"d_model {C} is not divisible by {NH} heads")
        hp = list(hp) if hp is not None else default_hypers(scheme)
        hp += [0.0] * (8 - len(hp))
        if not pos_rows:
            pos_rows = rand_max if rand_max else T
        self.V, self.C, self.L, self.NH, self.T = V, C, L, NH, T
        self.HS = C // NH
        self.scheme_name, self.hp, self.pos_rows, self.rand_max = scheme, hp, pos_rows, rand_max
        self.scheme = SCHEME_CLASSES[scheme](C, NH, pos_rows, hp)
        if scheme in ("rope", "xpos") and self.HS % 2:
            raise ValueError(f"{scheme} needs an even head size, got {self.HS}")
        self.scheme.clamp = clamp_pos
        for name, shape in core_shapes(V, C, L):
            self.register_parameter(name, torch.nn.Parameter(torch.zeros(shape, dtype=torch.float32)))
        # the scheme's tensors: parameter scheme_NAME, (L, ...) when per layer (layout: a bool
        # per tensor; None: the scheme's defaults)
        st = scheme_tensors(scheme, C, NH, pos_rows, hp)
        self.layout = list(layout) if layout is not None else scheme_layout(scheme, C, NH, pos_rows, hp, 0)
        if len(self.layout) != len(st):
            raise ValueError(f"layout {self.layout} for the {len(st)} tensors of '{scheme}'")
        self.sch_names = [n for n, _, _ in st]
        for (n, shape, _), pl in zip(st, self.layout):
            full = ((L,) if pl else ()) + shape
            self.register_parameter("scheme_" + n, torch.nn.Parameter(torch.zeros(full, dtype=torch.float32)))

    def scheme_params(self, l):
        """Layer l's view of the scheme's tensors (the hooks' P): None, the one tensor, or a dict."""
        views = {n: getattr(self, "scheme_" + n)[l] if pl else getattr(self, "scheme_" + n)
                 for n, pl in zip(self.sch_names, self.layout)}
        return None if not views else views[self.sch_names[0]] if len(views) == 1 else views

    @classmethod
    def from_header(cls, h, clamp_pos=False):
        m = cls(h["V"], h["C"], h["L"], h["NH"], h["T"], h["scheme"], h["hp"], h["pos_rows"], h["rand_max"],
                clamp_pos, h.get("layout"))
        if h.get("ext_method"):                       # trained with a context extension: in force
            m.set_rope_scaling(h["ext_method"], h["ext_factor"], h["ext_train_len"])
        return m

    @classmethod
    def from_checkpoint(cls, path, clamp_pos=False):
        h, tensors = read_checkpoint(path)
        m = cls.from_header(h, clamp_pos)
        m.load_tensors(tensors)
        m.eval()
        return m

    def load_tensors(self, tensors):
        """Copy the checkpoint's tensors (read_checkpoint's dict: 15 named as in the file, the
        scheme's as "scheme.NAME") into the parameters; shapes must match exactly."""
        with torch.no_grad():
            for name in TENSOR_NAMES[:-1] + ["scheme." + n for n in self.sch_names]:
                p = getattr(self, name.replace("scheme.", "scheme_"))
                if name not in tensors:
                    raise ValueError(f"tensor {name} is missing")
                a = np.asarray(tensors[name], dtype=np.float32)
                if tuple(a.shape) != tuple(p.shape):
                    raise ValueError(f"tensor {name}: shape {tuple(a.shape)}, the model wants {tuple(p.shape)}")
                p.copy_(torch.from_numpy(a))

    def init_weights(self, seed=1):
        """docs/model.md "Initialisation" (training only; not posgpt's random stream)."""
        g = torch.Generator().manual_seed(seed)
        resid = 0.02 / math.sqrt(2 * self.L)
        with torch.no_grad():
            for name in TENSOR_NAMES[:-1]:
                p = getattr(self, name)
                if name in ("wte", "qkv_w", "fc_w"):
                    p.normal_(0.0, 0.02, generator=g)
                elif name in ("attproj_w", "fcproj_w"):
                    p.normal_(0.0, resid, generator=g)
                elif name in ("ln1_w", "ln2_w", "lnf_w"):
                    p.fill_(1.0)
                else:
                    p.zero_()
            for l in range(self.L if any(self.layout) else 1):   # a shared tensor is drawn again: harmless
                if self.sch_names:
                    self.scheme.init(self.scheme_params(l), g)
            self.constrain()

    def constrain(self):
        with torch.no_grad():
            for l in range(self.L if any(self.layout) else 1):
                if self.sch_names:
                    self.scheme.constrain(self.scheme_params(l))

    def set_rope_scaling(self, method, factor=0.0, train_len=0):
        """Context extension (schemes.md): rope and xpos only. train_len: the length it scales
        from (0: the model's T; a model fine-tuned with one stores its own, rope_from_len)."""
        if self.scheme_name not in ("rope", "xpos"):
            raise ValueError(f"--rope-scaling applies to rope and xpos checkpoints; this one is '{self.scheme_name}'")
        self.scheme.ext = None if method in (None, "none") else RotaryExt(method, factor, train_len or self.T)

    def query_block(self, T):
        """Queries per attention block: memory O(block x T) at long T. xPos centres its decay on
        blocks of 64 queries in evaluation, as posgpt does (schemes.md "xpos")."""
        if self.scheme.has_decay and not self.training:
            return 64
        qb = T if T <= 512 else 256
        if self.scheme_name == "fire":                # its MLP hidden layer is (queries, keys, Hf)
            qb = max(1, min(qb, (1 << 23) // (T * int(self.hp[0]))))
        return qb

    def attention(self, q, k, v, pos, P, cache=None):
        """Causal attention of q, k, v (B, NH, T, HS) at positions pos (Bp, T), in blocks of queries,
        with P the layer's scheme tensors: S_ij = q_i.k_j / sqrt(HS) + bias_h(i, j) (+ a content
        term), softmax over j <= i, out = A v (+ a value term). When the scheme's tensors are
        shared by the layers, so is its bias: with a dict `cache`, the first layer's biases
        (per block) are kept for the others when they are small enough."""
        B, NH, T, HS = q.shape
        scale = torch.tensor(1.0 / math.sqrt(HS), dtype=torch.float32)
        sch = self.scheme
        rate = sch.decay_rates(T) if sch.has_decay else None
        if rate is not None and self.training:        # training: centre the decay on each window
            c = 0.5 * (pos.min(1, keepdim=True).values + pos.max(1, keepdim=True).values).to(torch.float64)
            x = (pos.to(torch.float64) - c)[:, None, :, None] * rate                   # (Bp, 1, T, HS)
            q, k = q * torch.exp(x).to(torch.float32), k * torch.exp(-x).to(torch.float32)
            rate = None
        qb = self.query_block(T)
        keep = cache is not None and sch.has_bias and not any(self.layout) and pos.shape[0] * NH * T * T <= (1 << 24)
        outs = []
        for q0 in range(0, T, qb):
            q1 = min(T, q0 + qb)                      # queries q0..q1-1 see keys 0..q1-1
            Q, K, Vb = q[:, :, q0:q1], k[:, :, :q1], v[:, :, :q1]
            qpos, kpos = pos[:, q0:q1], pos[:, :q1]
            if rate is not None:                      # eval: centre on the block (middle of its queries)
                c = 0.5 * (pos[:, q0] + pos[:, q1 - 1]).to(torch.float64)[:, None]
                fq = torch.exp((qpos.to(torch.float64) - c)[:, None, :, None] * rate).to(torch.float32)
                fk = torch.exp(-(kpos.to(torch.float64) - c)[:, None, :, None] * rate).to(torch.float32)
                Q, K = Q * fq, K * fk
            S = (Q @ K.transpose(-1, -2)) * scale
            mask = (torch.arange(q0, q1)[:, None] >= torch.arange(q1)[None, :])        # (nq, nk): j <= i
            if sch.has_bias:
                bias = cache.get(q0) if keep else None
                if bias is None:
                    bias = sch.bias(qpos, kpos, P)
                    if keep:
                        cache[q0] = bias
                S = S + bias
            if sch.has_term:
                S = S + sch.term(Q, K, S, P, mask.to(S.dtype), qpos, kpos)
            S = S.masked_fill(~mask, float("-inf"))
            A = torch.softmax(S, dim=-1)
            out = A @ Vb
            if sch.has_value:
                out = out + sch.value(A, P, qpos, kpos)
            outs.append(out)
        return torch.cat(outs, dim=2)

    def forward(self, tok, pos=None):
        """tok (B, T) int64 bytes; pos (B, T), (1, T) or (T,) int64 positions (default 0..T-1).
        Returns the logits (B, T, V), float32."""
        if tok.dim() == 1:
            tok = tok[None]
        B, T = tok.shape
        if pos is None:
            pos = torch.arange(T)
        pos = torch.as_tensor(pos, dtype=torch.int64)
        if pos.dim() == 1:
            pos = pos[None]
        if pos.shape[-1] != T or pos.shape[0] not in (1, B):
            raise ValueError(f"positions of shape {tuple(pos.shape)} do not fit tokens {tuple(tok.shape)}")
        if int(pos.min()) < 0:
            raise ValueError("negative position")
        C, NH, HS = self.C, self.NH, self.HS
        ln = lambda x, w, b: F.layer_norm(x, (C,), w, b, 1e-5)
        x = self.scheme.input_add(F.embedding(tok, self.wte), pos, self.scheme_params(0))
        cache = {}                                    # bias blocks shared by the layers
        for l in range(self.L):
            h = ln(x, self.ln1_w[l], self.ln1_b[l])
            qkv = F.linear(h, self.qkv_w[l], self.qkv_b[l])
            q, k, v = (t.reshape(B, T, NH, HS).transpose(1, 2) for t in qkv.split(C, dim=-1))
            q, k = self.scheme.qk(q, k, pos, T)
            o = self.attention(q, k, v, pos, self.scheme_params(l), cache).transpose(1, 2).reshape(B, T, C)
            x = x + F.linear(o, self.attproj_w[l], self.attproj_b[l])
            h = ln(x, self.ln2_w[l], self.ln2_b[l])
            x = x + F.linear(F.gelu(F.linear(h, self.fc_w[l], self.fc_b[l]), approximate="tanh"),
                             self.fcproj_w[l], self.fcproj_b[l])
        return F.linear(ln(x, self.lnf_w, self.lnf_b), self.wte)                      # tied head

    def flop_params(self):
        return sum(getattr(self, n).numel() for n in TENSOR_NAMES[:-1])


# ==============================================================================================
# evaluation (docs/model.md, "Evaluation")

def heldout_text(data=None, val=None, whole=False):
    """Step 1: the bytes of --val, or of all of --data (whole), or the last n/10 bytes of --data:
    bytes [n - n//10, n)."""
    path = val or data
    with open(path, "rb") as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8)
    if val or whole:
        return raw
    n = len(raw)
    return raw[n - n // 10:]


def evaluate(model, heldout, L, max_tokens=65536, stride=None, batch_tokens=8192, offset=0):
    """Steps 2-6: mean loss (nats) over the scored targets of windows of length L, stride S
    (None: S = L, nonoverlapping). Returns (loss, tokens, windows)."""
    S = stride or L
    if not 1 <= S <= L:
        raise ValueError(f"stride must be in [1, {L}], got {S}")
    span = len(heldout)
    if max_tokens > 0:
        span = min(span, max_tokens + 1)
    if span < L + 1:
        raise ValueError(f"held-out text has {span} usable bytes; length {L} needs at least {L + 1}")
    K = 1 + (span - 1 - L) // S
    Bw = max(1, min(K, batch_tokens // L))
    text = torch.from_numpy(np.asarray(heldout[:span], dtype=np.int64))
    pos = (offset + torch.arange(L))[None]
    was_training = model.training
    model.eval()
    total, ntok = 0.0, 0
    with torch.no_grad():
        for k0 in range(0, K, Bw):
            ks = range(k0, min(K, k0 + Bw))
            idx = torch.stack([text[k * S:k * S + L] for k in ks])
            tgt = torch.stack([text[k * S + 1:k * S + L + 1] for k in ks])
            logits = model(idx, pos)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1),
                                   reduction="none").view(len(ks), L).double()
            for b, k in enumerate(ks):                # window 0 scores all L, later ones their last S
                first = 0 if k == 0 else L - S
                total += float(loss[b, first:].sum())
                ntok += L - first
    model.train(was_training)
    return total / ntok, ntok, K


# ==============================================================================================
# command line: scoring and --compare

def fail(prog, msg, code=2):
    print(f"{prog}: error: {msg}", file=sys.stderr)
    sys.exit(code)


def run_posgpt(prog, args, L):
    """`posgpt eval` on the same checkpoint and text; returns (loss, tokens) of its row at length L."""
    cmd = [args.posgpt, "eval", "--ckpt", args.ckpt, "--lengths", str(L), "--max-tokens", str(args.max_tokens),
           "--protocol", args.protocol, "--batch-tokens", str(args.batch_tokens)]
    cmd += ["--val", args.val] if args.val else ["--data", args.data]
    if args.all:
        cmd.append("--all")
    if args.protocol == "sliding" and args.stride:
        cmd += ["--stride", str(args.stride)]
    if args.pos_offset:
        cmd += ["--pos-offset", str(args.pos_offset)]
    if args.clamp_pos:
        cmd.append("--clamp-pos")
    if args.rope_scaling != "none":
        cmd += ["--rope-scaling", args.rope_scaling, "--rope-factor", repr(args.rope_factor)]
    if args.threads > 0:
        cmd += ["--threads", str(args.threads)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        fail(prog, f"`{' '.join(cmd)}` exited with status {r.returncode}:\n{r.stderr.strip()}")
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if len(lines) < 2:
        fail(prog, f"posgpt eval printed no CSV rows:\n{r.stdout}")
    cols = lines[0].split(",")
    for need in ("eval_len", "protocol", "tokens", "loss"):
        if need not in cols:
            fail(prog, f"posgpt eval CSV has no '{need}' column: {lines[0]}")
    rows = [dict(zip(cols, ln.split(","))) for ln in lines[1:]]
    rows = [x for x in rows if x["eval_len"] == str(L) and x["protocol"] == args.protocol]
    if len(rows) != 1:
        fail(prog, f"expected one {args.protocol} row at length {L} from posgpt eval, got {len(rows)}:\n{r.stdout}")
    return float(rows[0]["loss"]), int(rows[0]["tokens"])


def recorded_val_loss(h, args, L):
    """The checkpoint's last validation loss (header, float64) when this run scores what it
    scored: L = T, nonoverlapping, offset 0, --max-tokens = its --val-tokens, and the text is
    the run's (v2 run record: the same size and CRC-32 of --data, or of --val). Else None."""
    if (h["version"] < 2 or not h["data_bytes"] or L != h["T"] or args.protocol != "nonoverlapping"
            or args.pos_offset or args.all or args.rope_scaling != "none" or args.clamp_pos
            or args.max_tokens != h["val_tokens"] or not math.isfinite(h["val_loss"])):
        return None
    try:
        if args.val:
            if not h["val_bytes"]:
                return None
            with open(args.val, "rb") as f:
                b = f.read()
            same = len(b) == h["val_bytes"] and zlib.crc32(b) & 0xFFFFFFFF == h["val_crc"]
        else:
            with open(args.data, "rb") as f:
                b = f.read()
            same = not h["val_bytes"] and len(b) == h["data_bytes"] and zlib.crc32(b) & 0xFFFFFFFF == h["data_crc"]
    except OSError:
        return None
    return h["val_loss"] if same else None


def score_parser(prog, tol_default):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", help="posgpt checkpoint (model.bin, format v1 or v2)")
    ap.add_argument("--data", help="text file; its last 10%% (posgpt's held-out split) is scored")
    ap.add_argument("--val", help="score this file instead (all of it)")
    ap.add_argument("--all", action="store_true", help="score the whole --data file")
    ap.add_argument("--len", type=int, default=0, help="window length (default: the checkpoint's T)")
    ap.add_argument("--max-tokens", type=int, default=65536, help="score the first N targets (0 = all)")
    ap.add_argument("--protocol", default="nonoverlapping", choices=("nonoverlapping", "sliding"))
    ap.add_argument("--stride", type=int, default=0, help="sliding: targets scored per window (0 = len/4)")
    ap.add_argument("--pos-offset", type=int, default=0, help="positions start at K instead of 0")
    ap.add_argument("--clamp-pos", action="store_true", help="learned: positions past the table use its last row")
    ap.add_argument("--rope-scaling", default="none", choices=("none", "pi", "ntk", "dynamic-ntk", "yarn"),
                    help="rope/xpos: eval-time context extension (rerope: not implemented here)")
    ap.add_argument("--rope-factor", type=float, default=0.0, help="its factor (0 = from the length)")
    ap.add_argument("--batch-tokens", type=int, default=8192, help="tokens per torch forward pass")
    ap.add_argument("--threads", type=int, default=1, help="torch (and posgpt) threads; 0 = library default")
    ap.add_argument("--compare", action="store_true", help="also run `posgpt eval` and compare the losses")
    ap.add_argument("--posgpt", default=DEFAULT_POSGPT, help=f"posgpt binary (default {DEFAULT_POSGPT})")
    ap.add_argument("--tol", type=float, default=tol_default, help="--compare: max |loss difference| in nats")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the parsed header to stderr")
    return ap


def score_main(args, prog="torch_ref", source="torch_ref"):
    if not args.ckpt or not (args.data or args.val):
        fail(prog, "give --ckpt FILE and --data FILE (or --val FILE)")
    if args.max_tokens < 0 or args.batch_tokens < 1 or args.len < 0 or args.stride < 0:
        fail(prog, "--len, --max-tokens, --stride must be >= 0 and --batch-tokens >= 1")
    try:
        h, tensors = read_checkpoint(args.ckpt)
    except (OSError, ValueError) as e:
        fail(prog, str(e))
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    L = args.len or h["T"]
    S = L if args.protocol == "nonoverlapping" else min(L, args.stride or max(1, L // 4))
    try:
        model = GPT.from_header(h, clamp_pos=args.clamp_pos)
        model.load_tensors(tensors)
        model.eval()
        if args.rope_scaling != "none":
            model.set_rope_scaling(args.rope_scaling, args.rope_factor)
        if model.scheme.max_pos() and args.pos_offset + L > model.scheme.max_pos() and not args.clamp_pos:
            raise ValueError(f"length {L} needs position {args.pos_offset + L - 1}, but the learned table has "
                             f"{model.scheme.max_pos()} rows (posgpt refuses too, unless --clamp-pos)")
    except ValueError as e:
        fail(prog, f"{args.ckpt}: {e}")
    if args.verbose:
        print(f"header: { {k: v for k, v in h.items() if k != 'rng'} }", file=sys.stderr)
    try:
        text = heldout_text(args.data, args.val, args.all)
        loss, ntok, _ = evaluate(model, text, L, args.max_tokens, S, args.batch_tokens, args.pos_offset)
    except (OSError, ValueError) as e:
        fail(prog, str(e))
    print("source,eval_len,tokens,loss")
    print(f"{source},{L},{ntok},{loss:.6f}", flush=True)
    vl = recorded_val_loss(h, args, L)
    if vl is not None:
        print(f"# the checkpoint's val_loss (the same text, L = T, {args.max_tokens} targets; float64 in the header): "
              f"{vl:.9f}  |diff| {abs(loss - vl):.2e}")
    if not args.compare:
        return 0
    ploss, ptok = run_posgpt(prog, args, L)
    print(f"posgpt,{L},{ptok},{ploss:.6f}")
    diff = abs(loss - ploss)
    ok = diff <= args.tol and ptok == ntok
    label = h["scheme"] if not h["rand_max"] else f"randomized-{h['scheme']}"
    print(f"# {label} L={L}: {source} {loss:.8f}  posgpt {ploss:.6f}  |diff| {diff:.2e}  "
          f"(tol {args.tol:g}, tokens {ntok}/{ptok}; posgpt prints 6 decimals)  {'OK' if ok else 'MISMATCH'}")
    if ptok != ntok:
        print(f"{prog}: token counts differ: {source} {ntok}, posgpt {ptok}", file=sys.stderr)
    return 0 if ok else 1


# ==============================================================================================
# command line: speed (--bench, --eval-bench; tools/bench.sh)

def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0             # Linux: KiB


def bench_model(args, eval_T=0):
    """The model of the bench flags: --pos randomized trains its --rand-base on positions from
    [0, --max-pos) (default 16 T, as build/bench); a learned table has --max-pos rows."""
    randomized = args.pos == "randomized"
    base = args.rand_base if randomized else args.pos
    rand_max = (args.max_pos or 16 * args.T) if randomized else 0
    rows = rand_max if randomized else (args.max_pos or max(args.T, eval_T))
    m = GPT(256, args.d_model, args.n_layer, args.n_head, args.T, base, None, rows, rand_max)
    m.init_weights(1)
    return m


def random_positions(B, T, lmax, gen):
    """T distinct positions from [0, lmax) per row, sorted (schemes.md, randomized)."""
    return torch.sort(torch.rand(B, lmax, generator=gen).topk(T, dim=1).indices, dim=1).values


def bench_train(args):
    m = bench_model(args)
    m.train()
    B, T = args.batch, args.T
    decay = [getattr(m, n) for n in ("wte", "qkv_w", "attproj_w", "fc_w", "fcproj_w")]
    if m.scheme.decays_params:
        decay += [getattr(m, "scheme_" + n) for n in m.sch_names]
    rest = [p for p in m.parameters() if all(p is not d for d in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(42)
    dts, loss = [], float("nan")
    for it in range(args.warmup + args.steps):
        tok = torch.randint(0, 256, (B, T), generator=gen)
        tgt = torch.randint(0, 256, (B, T), generator=gen)
        pos = random_positions(B, T, m.rand_max, gen) if m.rand_max else None       # outside the timer
        t0 = time.perf_counter()
        logits = m(tok, pos)
        l = F.cross_entropy(logits.reshape(-1, 256), tgt.reshape(-1))
        opt.zero_grad(set_to_none=True)
        l.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        m.constrain()
        dt = time.perf_counter() - t0
        loss = float(l)
        if it >= args.warmup:
            dts.append(dt)
    med = float(np.median(dts))
    fpt = 6.0 * m.flop_params() + 12.0 * m.L * T * m.C
    print(f"RESULT kind=train scheme={args.pos} L={m.L} d={m.C} H={m.NH} T={T} B={B} "
          f"threads={torch.get_num_threads()} tokens_per_s={B * T / med:.1f} step_s={med:.4f} min_s={min(dts):.4f} "
          f"max_s={max(dts):.4f} gflops={B * T / med * fpt / 1e9:.2f} loss={loss:.4f} "
          f"peak_rss_mib={peak_rss_mib():.0f}", flush=True)


def bench_eval(args):
    T = args.eval_T
    m = bench_model(args, T)
    m.eval()
    gen = torch.Generator().manual_seed(7)
    tok = torch.randint(0, 256, (1, T), generator=gen)
    tgt = torch.randint(0, 256, (1, T), generator=gen)
    dts, loss = [], float("nan")
    with torch.no_grad():
        for it in range(args.warmup + args.steps):
            t0 = time.perf_counter()
            loss = float(F.cross_entropy(m(tok)[0], tgt[0]))
            if it >= args.warmup:
                dts.append(time.perf_counter() - t0)
    med = float(np.median(dts))
    print(f"RESULT kind=eval scheme={args.pos} L={m.L} d={m.C} H={m.NH} T={T} B=1 threads={torch.get_num_threads()} "
          f"tokens_per_s={T / med:.1f} fwd_s={med:.4f} loss={loss:.4f} peak_rss_mib={peak_rss_mib():.0f}", flush=True)


def bench_main(argv):
    ap = argparse.ArgumentParser(prog="torch_ref --bench|--eval-bench")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--bench", action="store_true", help="training steps")
    mode.add_argument("--eval-bench", action="store_true", help="forward passes at batch 1, length --eval-T")
    ap.add_argument("--pos", required=True, help=f"{'|'.join(SCHEMES)}|randomized")
    ap.add_argument("--rand-base", default="sinusoidal")
    ap.add_argument("--max-pos", type=int, default=0, help="randomized: position range; learned: table rows")
    ap.add_argument("--n-layer", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--T", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--eval-T", type=int, default=1024)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    if args.pos != "randomized" and args.pos not in SCHEMES:
        ap.error(f"--pos must be one of {', '.join(SCHEMES)}, randomized")
    if args.steps < 1 or args.warmup < 0:
        ap.error("--steps must be >= 1 and --warmup >= 0")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.bench:
        bench_train(args)
    else:
        bench_eval(args)
    return 0


def main(argv=None, prog="torch_ref", tol_default=1e-4, source="torch_ref"):
    argv = sys.argv[1:] if argv is None else argv
    if "--bench" in argv or "--eval-bench" in argv:
        return bench_main(argv)
    args = score_parser(prog, tol_default).parse_args(argv)
    return score_main(args, prog, source)


if __name__ == "__main__":
    sys.exit(main())
