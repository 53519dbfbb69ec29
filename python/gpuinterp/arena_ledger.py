# SPDX-License-Identifier: GPL-3.0-or-later
"""Parameters and arithmetic of a predistorter, counted as OpenDPD's DPD Arena v6 counts them, so a
FoM computed here stands next to theirs.

The rule (per output IQ sample, steady state, batch 1, dense, nothing credited for sparsity):

* P: real parameters; a complex coefficient is 2. The LO-leakage constant the scoreboard's fits carry
  is 2 more parameters and 2 ADD (the Arena's least-squares polynomials have none: pass
  ``constant=False`` to count one of theirs).
* OPs = real MUL + real ADD. Delays, indexing, conjugation and table reads are free. A scalar
  nonlinear function (sqrt here) costs 1 MUL + 1 ADD, the Arena's first-order table price.
* Envelope: |x|^2 = i^2 + q^2 (2 MUL, 1 ADD), computed once per new sample and delayed for free.
  A model using an odd power of |x| also takes |x| = sqrt(|x|^2) (1 MUL + 1 ADD) and then one MUL per
  further power up to its highest, |x|^k = |x|^(k-1) |x| (powers 2..h: 2 + (h - 2) MUL in all, the
  Arena's count). A model using even powers only (ph) needs no sqrt: |x|^(2j) = |x|^(2j-2) |x|^2,
  one MUL per even power above 2 (the Arena's rule 4: "their cheapest exact arithmetic").
* Basis products: x[n - l] |x[n - j]|^k depends on (j - l, k) only, up to a free delay, so each
  distinct (j - l, k) with k >= 1 costs one complex-by-real product (2 MUL) per new sample; a
  conjugate-branch term conj(x) |x|^k reuses the same product.
* Coefficients: one complex product per basis term (4 MUL + 2 ADD), and the complex accumulation of
  T terms 2 (T - 1) ADD.

MP-250 (K 5, Q 25) gives P 250, OPs 1013 and GMP-500 (Ka 5, La 14, Kb 3, Lb 12, Mb 3, Kc 3, Lc 12,
Mc 2) P 500, OPs 2043: their published figures (qa_arena checks both).

Neural families are counted by their own ledger: a function ``fn(spec) -> {"params", "mul", "add",
"ops", "items"}`` registered with :func:`register_ledger` for the family (or, when :mod:`.dpd_model`
provides ``neural_ops``, found there). ``gru`` and ``tdnn`` are registered by :mod:`.neural_spec`
(``neural_ledger``, docs/neural_models.md), imported on first need.
"""

__all__ = ["ledger", "polynomial_ledger", "ledger_from_terms", "register_ledger", "LedgerUnavailable",
           "POLYNOMIAL_FAMILIES"]

POLYNOMIAL_FAMILIES = ("ph", "mp", "gmp")
SQRT_COST = (1, 1)  # (MUL, ADD) of one table-priced scalar nonlinearity

_LEDGERS = {}


class LedgerUnavailable(LookupError):
    """No ledger for this family: its FoM cannot be computed (P and OPs are then reported as None)."""


def register_ledger(family, fn):
    """Use ``fn(spec)`` (returning {"params", "mul", "add", "ops", "items"}) for ``family``."""
    _LEDGERS[family] = fn


def ledger_from_terms(terms, constant=True):
    """The counts of a polynomial model given its terms (signal lag l, envelope lag j, power k,
    conjugate), in the rule of the module docstring: {"params", "mul", "add", "ops", "items"}."""
    items = []

    def put(what, mul=0, add=0):
        items.append({"component": what, "mul": int(mul), "add": int(add)})

    t = len(terms)
    powers = sorted({k for _, _, k, _ in terms if k >= 1})
    if powers:
        h = powers[-1]
        if all(k % 2 == 0 for k in powers):
            put(f"envelope |x|^2 and even powers up to {h}", mul=2 + (h // 2 - 1), add=1)
        else:
            put(f"envelope |x|^2, |x| (sqrt) and powers up to {h}", mul=2 + max(0, h - 2) + SQRT_COST[0],
                add=1 + SQRT_COST[1])
    products = {(j - l, k) for l, j, k, _ in terms if k >= 1}
    put(f"basis products x|x|^k, {len(products)} distinct (lag offset, order)", mul=2 * len(products))
    put(f"{t} complex coefficients x complex basis", mul=4 * t, add=2 * t)
    put("complex accumulation", add=2 * max(0, t - 1) + (2 if constant else 0))
    mul = sum(i["mul"] for i in items)
    add = sum(i["add"] for i in items)
    return {"params": 2 * t + (2 if constant else 0), "mul": mul, "add": add, "ops": mul + add,
            "rule": "arena-v6 (configuration-ops-v3) polynomial count", "items": items}


def polynomial_ledger(spec, constant=True):
    from . import dpd_model as dm

    m = dm.parse(spec)
    if m.family not in POLYNOMIAL_FAMILIES:
        raise LedgerUnavailable(f"{m}: not a polynomial family")
    return ledger_from_terms(dm.term_list(m), constant)


def ledger(spec, constant=True):
    """P and OPs of any model spec; raises LedgerUnavailable naming the family when none is known."""
    from . import dpd_model as dm

    text = str(spec)
    family = text.split(":", 1)[0]
    if family in POLYNOMIAL_FAMILIES:
        return polynomial_ledger(text, constant)
    if family not in _LEDGERS:
        from . import neural_spec  # noqa: F401  (registers the neural families' rule: gru, tdnn)
    fn = _LEDGERS.get(family) or getattr(dm, "neural_ops", None)
    if fn is None:
        raise LedgerUnavailable(f"{text}: no operation ledger for the family {family!r} (register one with "
                                "arena_ledger.register_ledger)")
    out = dict(fn(spec))
    out.setdefault("ops", out["mul"] + out["add"])
    return out
