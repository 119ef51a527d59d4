"""The streams of ``numpy.random.default_rng([seed, f])`` for many features ``f`` at once.

Monte-Carlo bolstering draws every feature's noise from its own stream (common random
numbers, :class:`~stablefs.selectors.wrappers._criterion_base.Noise`), so a search over 200
features seeds 200 generators; building each one with ``default_rng`` costs about 12 us,
more than drawing its 500 normals. This module computes the 128-bit PCG64 state and
increment of every stream at once, with NumPy's published seeding algorithms:

- ``SeedSequence`` (O'Neill's ``seed_seq_fe`` design, pool of four 32-bit words): the
  entropy ``[seed, f]`` as 32-bit words (each integer least significant word first), hashed
  into the pool and mixed, then eight words generated from the pool;
- PCG64's ``set_seed`` (O'Neill 2014, ``pcg_setseq_128_srandom_r``): the words as
  ``initstate`` and ``initseq``; ``inc = 2 initseq + 1``, then two LCG steps with the state
  advanced by ``initstate`` between them.

The hashing is vectorised over the features (uint32 arithmetic wraps modulo 2^32, as the
reference does); the 128-bit steps use Python integers. :func:`states` is tested equal to
``PCG64(SeedSequence([seed, f])).state`` on edge cases (seed and feature 0, one- and
two-word seeds, features up to 2^32 - 1), and :class:`Noise` checks its first stream against
``default_rng`` and falls back to it if they ever differ.
"""

from __future__ import annotations

import numpy as np

_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_MASK32 = 0xFFFFFFFF
_POOL = 4
#: PCG's default 128-bit LCG multiplier
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645
_MASK128 = (1 << 128) - 1


def _words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (0 is one word)."""
    out = [value & _MASK32]
    value >>= 32
    while value:
        out.append(value & _MASK32)
        value >>= 32
    return out


def states(seed: int, features: np.ndarray) -> list[tuple[int, int]]:
    """``(state, inc)`` of ``PCG64(SeedSequence([seed, f]))`` for every ``f`` of ``features``.

    Parameters
    ----------
    seed : int
        At most 2^64 - 1 (two words, so that ``[seed, f]`` fits the pool of four).
    features : ndarray of int
        Each in ``[0, 2^32)``.
    """
    seed_words = _words(int(seed))
    if len(seed_words) > 2:
        raise ValueError("seed must be below 2**64")
    f = np.asarray(features, dtype=np.int64)
    if f.size and (f.min() < 0 or f.max() > _MASK32):
        raise ValueError("features must be in [0, 2**32)")
    u32 = np.uint32
    hash_const = [_INIT_A]

    def hashmix(value: np.ndarray) -> np.ndarray:
        value = value ^ u32(hash_const[0])
        hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
        value = value * u32(hash_const[0])
        return value ^ (value >> u32(16))

    entropy = [np.full(f.size, w, dtype=u32) for w in seed_words] + [f.astype(u32)]
    entropy += [np.zeros(f.size, dtype=u32)] * (_POOL - len(entropy))
    pool = [hashmix(word) for word in entropy]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                mixed: np.ndarray = (u32(_MIX_MULT_L) * pool[dst]
                                     - u32(_MIX_MULT_R) * hashmix(pool[src]))
                pool[dst] = mixed ^ (mixed >> u32(16))
    hash_const[0] = _INIT_B
    words = []
    for k in range(8):
        value = pool[k % _POOL] ^ u32(hash_const[0])
        hash_const[0] = (hash_const[0] * _MULT_B) & _MASK32
        value = value * u32(hash_const[0])
        words.append((value ^ (value >> u32(16))).astype(np.uint64))
    # generate_state(4, uint64): words (2q, 2q + 1) make the q-th 64-bit value
    w64 = [(words[2 * q] | (words[2 * q + 1] << np.uint64(32))).tolist() for q in range(4)]
    out = []
    for s_hi, s_lo, i_hi, i_lo in zip(*w64):
        inc = ((((i_hi << 64) | i_lo) << 1) | 1) & _MASK128
        state = (inc + ((s_hi << 64) | s_lo)) & _MASK128  # step from 0, then + initstate
        out.append(((state * _PCG_MULT + inc) & _MASK128, inc))
    return out
