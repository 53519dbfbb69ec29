# SPDX-License-Identifier: GPL-3.0-or-later
"""Transmitter metrics and plots for the DPD loop: Welch PSD, ACLR/ACPR, NMSE, EVM, AM/AM and AM/PM
scatter data, PNG plot helpers (matplotlib, Agg backend), and an OFDM-like test signal.

Conventions (see docs/dpd_loop.md):

* PSD: Welch, Hann window, 50 % overlap, two-sided, centred (fftshift), density in power per Hz so
  that integrating it over a band gives the band power.
* ACLR (dBc) = power integrated over ``channel_bw`` centred at +-``spacing`` divided by the power
  integrated over ``channel_bw`` centred at 0 (negative numbers; lower is better). For LTE-20:
  channel_bw = 18 MHz, spacing = 20 MHz.
* NMSE (dB) = 10 log10(||d - a||^2 / ||d||^2).
* EVM (%) = 100 sqrt(mean|a - d|^2 / mean|d|^2), optionally after removing the best complex gain.
"""

import math

import numpy as np

__all__ = ["welch_psd", "band_power", "opendpd_psd", "opendpd_aclr", "opendpd_evm_db",
           "opendpd_nmse_db", "aclr", "acpr", "nmse_db", "evm_percent", "am_am_pm", "ofdm_test_signal",
           "ofdm_demodulate", "plot_psd", "plot_am_am_pm"]


def welch_psd(x, fs=1.0, nfft=4096, overlap=0.5):
    """Two-sided Welch PSD of complex x: (f [Hz, ascending from -fs/2], psd [power/Hz]). Hann window,
    ``overlap`` fraction of segment overlap, no detrending; x shorter than nfft uses one zero-padded
    segment. scipy.signal.welch does the work."""
    from scipy.signal import welch

    x = np.asarray(x, dtype=np.complex128).ravel()
    if x.size == 0:
        raise ValueError("x: empty signal")
    if nfft < 8:
        raise ValueError(f"nfft: must be >= 8, got {nfft}")
    if not 0 <= overlap < 1:
        raise ValueError(f"overlap: must be in [0, 1), got {overlap}")
    nseg = min(nfft, x.size)
    step = max(1, int(nseg * (1 - overlap)))
    f, psd = welch(x, fs=fs, window="hann", nperseg=nseg, noverlap=nseg - step, nfft=nfft, detrend=False,
                   return_onesided=False, scaling="density")
    return np.fft.fftshift(f), np.fft.fftshift(psd)


# ----------------------------------------------------------------------------------------------
# OpenDPD's metrics (lab-emi/OpenDPD utils/metrics.py, as restated in docs/dpd_loop.md), so figures
# measured here stand next to the ones published on the same datasets.
# ----------------------------------------------------------------------------------------------

def opendpd_psd(x, fs, nperseg):
    """Welch PSD as OpenDPD computes it: Hann, ``nperseg``, two-sided, scaling "spectrum", shifted so
    the frequency axis ascends."""
    from scipy.signal import welch

    x = np.asarray(x, dtype=np.complex128).ravel()
    if x.size < nperseg:
        raise ValueError(f"x: {x.size} samples is shorter than nperseg {nperseg}")
    f, p = welch(x, fs=fs, window="hann", nperseg=nperseg, return_onesided=False, scaling="spectrum")
    return np.fft.fftshift(f), np.fft.fftshift(p)


def _opendpd_channels(f, bw, n_sub_ch):
    main = np.flatnonzero((f >= -bw / 2) & (f <= bw / 2))
    w = main.size // n_sub_ch
    subs = [main[i * w:(i + 1) * w] for i in range(n_sub_ch)]
    left = np.arange(main[0] - w, main[0])
    right = np.arange(main[-1] + 1, main[-1] + 1 + w)
    if left[0] < 0 or right[-1] >= f.size:
        raise ValueError(f"bw: adjacent channels of a {bw:g} Hz main channel fall outside the sampled band")
    return subs, left, right


def opendpd_aclr(x, fs, bw, n_sub_ch, nperseg):
    """(left, right, mean) ACLR in dBc as OpenDPD: adjacent-channel power (the w bins just below /
    above the main channel, w the width of one of its ``n_sub_ch`` sub-channels) over the power of the
    strongest sub-channel."""
    f, p = opendpd_psd(x, fs, nperseg)
    subs, left, right = _opendpd_channels(f, bw, n_sub_ch)
    ref = max(p[s].sum() for s in subs)
    lo = 10 * math.log10(p[left].sum() / ref)
    hi = 10 * math.log10(p[right].sum() / ref)
    return lo, hi, (lo + hi) / 2


def opendpd_evm_db(measured, reference, fs, bw, n_sub_ch, nperseg):
    """OpenDPD's spectral EVM in dB: in each sub-channel of the main channel, mean |spectrum error| over
    mean |reference spectrum| (FFTs of the first ``nperseg`` samples), averaged over the sub-channels,
    in 20 log10. A spectral figure, not a demodulated constellation EVM."""
    a = np.asarray(measured, dtype=np.complex128).ravel()[:nperseg]
    r = np.asarray(reference, dtype=np.complex128).ravel()[:nperseg]
    if a.size < nperseg or r.size < nperseg:
        raise ValueError(f"measured: need {nperseg} samples")
    A = np.fft.fftshift(np.fft.fft(a))
    R = np.fft.fftshift(np.fft.fft(r))
    f = np.fft.fftshift(np.fft.fftfreq(nperseg, 1 / fs))
    subs, _, _ = _opendpd_channels(f, bw, n_sub_ch)
    ratio = np.mean([np.mean(np.abs(A[s] - R[s])) / np.mean(np.abs(R[s])) for s in subs])
    return 20 * math.log10(ratio)


def opendpd_nmse_db(measured, reference, nperseg):
    """NMSE in dB averaged over the ``nperseg``-long segments (a shorter tail is left out), as OpenDPD."""
    a = np.asarray(measured, dtype=np.complex128).ravel()
    r = np.asarray(reference, dtype=np.complex128).ravel()
    nseg = max(1, r.size // nperseg)
    L = min(nperseg, r.size)
    vals = []
    for i in range(nseg):
        d, e = r[i * L:(i + 1) * L], a[i * L:(i + 1) * L]
        vals.append(10 * math.log10(max(np.vdot(d - e, d - e).real / np.vdot(d, d).real, 1e-30)))
    return float(np.mean(vals))


def band_power(f, psd, f_lo, f_hi):
    """Power in [f_lo, f_hi] from a PSD sampled at f (rectangle rule on the bins inside the band,
    the edge bins weighted by the fraction of the bin inside)."""
    f = np.asarray(f)
    df = f[1] - f[0]
    lo = np.clip((f + df / 2 - f_lo) / df, 0, 1)
    hi = np.clip((f_hi - (f - df / 2)) / df, 0, 1)
    w = np.minimum(lo, hi)
    return float(np.sum(np.asarray(psd) * w) * df)


def aclr(x, fs, channel_bw, spacing, nfft=8192, offsets=(-1, 1)):
    """ACLR of x for a channel of ``channel_bw`` Hz (measurement bandwidth) centred at 0 and adjacent
    channels at offsets*``spacing`` Hz. Returns dict(lower, upper, worst [dBc], main_power, psd=(f, p))
    with ``lower``/``upper`` the first and last of ``offsets``."""
    if channel_bw <= 0 or spacing <= 0:
        raise ValueError(f"channel_bw: channel_bw and spacing must be > 0, got {channel_bw}, {spacing}")
    for o in offsets:
        if abs(o * spacing) + channel_bw / 2 > fs / 2 + 1e-9:
            raise ValueError(f"spacing: adjacent channel at {o * spacing:g} Hz +- {channel_bw / 2:g} Hz "
                             f"lies outside the sampled band +-{fs / 2:g} Hz")
    f, p = welch_psd(x, fs, nfft)
    main = band_power(f, p, -channel_bw / 2, channel_bw / 2)
    if main <= 0:
        raise ValueError("x: no power in the main channel")
    vals = [10 * math.log10(max(band_power(f, p, o * spacing - channel_bw / 2,
                                           o * spacing + channel_bw / 2), 1e-300) / main)
            for o in offsets]
    return {"lower": vals[0], "upper": vals[-1], "worst": max(vals), "all": vals, "main_power": main,
            "psd": (f, p)}


def acpr(x, fs, channel_bw, spacing, nfft=8192, offsets=(-1, 1)):
    """Adjacent-channel power ratio: the same measurement as :func:`aclr` (integrated adjacent-channel
    power over integrated main-channel power, dBc); the two names are used interchangeably."""
    return aclr(x, fs, channel_bw, spacing, nfft, offsets)


def nmse_db(reference, measured, normalise_gain=False):
    """NMSE of ``measured`` against ``reference`` in dB; ``normalise_gain`` first removes the least-
    squares complex gain (measured ~ G reference)."""
    d = np.asarray(reference, dtype=np.complex128).ravel()
    a = np.asarray(measured, dtype=np.complex128).ravel()
    if d.shape != a.shape:
        raise ValueError(f"measured: length {a.size} differs from reference length {d.size}")
    den = np.vdot(d, d).real
    if den == 0:
        raise ValueError("reference: all zeros, NMSE undefined")
    if normalise_gain:
        a = a / (np.vdot(d, a) / den)
    return 10 * math.log10(max(np.vdot(d - a, d - a).real / den, 1e-30))


def evm_percent(reference, measured, normalise_gain=True):
    """RMS EVM in percent of ``measured`` symbols against ``reference`` symbols."""
    return 100 * 10 ** (nmse_db(reference, measured, normalise_gain) / 20)


def am_am_pm(x, y, gain=None, max_points=20000, seed=0):
    """AM/AM and AM/PM scatter data of a PA (x input, y output, aligned). Returns dict with
    ``in_amp`` |x|, ``out_amp`` |y/G| and ``phase_deg`` angle(y/(G x)) in degrees, G the given gain or
    the least-squares gain, at most ``max_points`` random points (samples below 2 % of the peak |x| dropped)."""
    x = np.asarray(x, dtype=np.complex128).ravel()
    y = np.asarray(y, dtype=np.complex128).ravel()
    if x.shape != y.shape:
        raise ValueError(f"y: length {y.size} differs from x length {x.size}")
    G = complex(gain) if gain else np.vdot(x, y) / np.vdot(x, x).real
    # The phase of near-zero samples is dominated by memory effects and says nothing about AM/PM.
    keep = np.abs(x) > 0.02 * np.max(np.abs(x))
    idx = np.flatnonzero(keep)
    if idx.size > max_points:
        idx = np.sort(np.random.default_rng(seed).choice(idx, max_points, replace=False))
    yn = y[idx] / G
    return {"in_amp": np.abs(x[idx]), "out_amp": np.abs(yn),
            "phase_deg": np.degrees(np.angle(yn / x[idx])), "gain": G}


def ofdm_test_signal(n_samples, fs=122.88e6, fft_size=8192, used_subcarriers=1200, cp=576, qam=64,
                     rms=0.25, seed=1, return_symbols=False, filter_taps=401, papr_db=None):
    """LTE-like OFDM: ``used_subcarriers`` random QAM subcarriers around DC (DC unused), spaced
    fs/fft_size (15 kHz for the defaults: 1200 x 15 kHz = 18 MHz occupied, an LTE 20 MHz channel at
    122.88 Msample/s), cyclic prefix ``cp``; scaled to ``rms``.

    Plain OFDM has sinc sidelobes (ACLR about -40 dBc), which would hide what a DPD does, so the
    symbol stream is low-pass filtered (Kaiser-windowed sinc, ``filter_taps`` taps, cut-off half-way
    between the occupied edge and the adjacent channel, > 80 dB stop band; 0 disables it). The filter is
    applied circularly, so the returned block repeats seamlessly (vector_source(repeat=True)) and is
    aligned with the symbols (zero-phase).

    ``papr_db``: crest-factor reduction as transmitters do before a PA, by repeated clipping to
    ``papr_db`` above the rms and re-filtering (4 rounds; the result ends slightly above the target);
    None keeps the natural OFDM peaks (~10 dB PAPR over 10^5 samples).

    Returns x (complex128) and, with ``return_symbols``, (x, symbols) with symbols[s, i] the QAM value
    on used subcarrier i of symbol s (complete symbols only)."""
    if used_subcarriers % 2 or used_subcarriers >= fft_size:
        raise ValueError("used_subcarriers: must be even and < fft_size")
    rng = np.random.default_rng(seed)
    m = int(round(math.sqrt(qam)))
    if m * m != qam:
        raise ValueError(f"qam: must be a square constellation size, got {qam}")
    sym_len = fft_size + cp
    nsym = -(-n_samples // sym_len)
    levels = np.arange(-(m - 1), m, 2, dtype=np.float64)
    syms = rng.choice(levels, (nsym, used_subcarriers)) + 1j * rng.choice(levels, (nsym, used_subcarriers))
    syms /= math.sqrt(2 * (m * m - 1) / 3)
    bins = _used_bins(fft_size, used_subcarriers)
    grid = np.zeros((nsym, fft_size), dtype=np.complex128)
    grid[:, bins] = syms
    t = np.fft.ifft(grid, axis=1)
    t = np.hstack([t[:, -cp:], t]) if cp else t
    x = t.ravel()[:n_samples]
    if filter_taps:
        # Cut-off half-way between the occupied edge (0.9 of the channel, as LTE) and the adjacent
        # channel's edge: occupied / 1.8 of fs, 10 MHz for the defaults.
        cutoff = used_subcarriers / fft_size / 1.8
        k = np.arange(filter_taps) - (filter_taps - 1) / 2
        h = 2 * cutoff * np.sinc(2 * cutoff * k) * np.kaiser(filter_taps, 8.0)
        h /= h.sum()
        if x.size < filter_taps:
            raise ValueError(f"n_samples: must be >= filter_taps ({filter_taps}), got {x.size}")
        H = np.fft.fft(np.roll(np.pad(h, (0, x.size - filter_taps)), -(filter_taps - 1) // 2))
        x = np.fft.ifft(np.fft.fft(x) * H)
        if papr_db is not None:
            for _ in range(4):
                a = np.sqrt(np.mean(np.abs(x) ** 2)) * 10 ** (papr_db / 20)
                mag = np.abs(x)
                x = np.where(mag > a, x * a / np.maximum(mag, 1e-300), x)
                x = np.fft.ifft(np.fft.fft(x) * H)
    x *= rms / np.sqrt(np.mean(np.abs(x) ** 2))
    return (x, syms) if return_symbols else x


def _used_bins(fft_size, used):
    half = used // 2
    return np.concatenate([np.arange(fft_size - half, fft_size), np.arange(1, half + 1)])


def ofdm_demodulate(y, fft_size=8192, used_subcarriers=1200, cp=576, nsym=None, timing_advance=None):
    """Inverse of :func:`ofdm_test_signal` for an aligned signal: the used subcarriers of each complete
    symbol, shape (nsym, used_subcarriers).

    The FFT window starts ``timing_advance`` samples (default cp/2) before the end of the cyclic
    prefix, as receivers do, so the spread of the zero-phase band-limiting filter (and of a PA's memory)
    on either side stays inside the prefix; the resulting phase ramp is removed."""
    y = np.asarray(y, dtype=np.complex128).ravel()
    sym_len = fft_size + cp
    adv = cp // 2 if timing_advance is None else int(timing_advance)
    if not 0 <= adv <= cp:
        raise ValueError(f"timing_advance: must be in [0, cp], got {adv}")
    n = y.size // sym_len if nsym is None else nsym
    blocks = y[:n * sym_len].reshape(n, sym_len)[:, cp - adv:cp - adv + fft_size]
    bins = _used_bins(fft_size, used_subcarriers)
    ramp = np.exp(2j * np.pi * bins * adv / fft_size)
    return np.fft.fft(blocks, axis=1)[:, bins] * ramp


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_psd(signals, fs, path, title="Power spectral density", nfft=4096, channel_bw=None, spacing=None,
             normalise=True):
    """Save a PSD plot of ``signals`` ({label: complex array}) as PNG. With ``normalise`` each curve is
    shown in dB relative to its own in-channel peak density; channel edges are marked when given."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    for label, s in signals.items():
        f, p = welch_psd(s, fs, nfft)
        pdb = 10 * np.log10(np.maximum(p, 1e-300))
        if normalise:
            pdb -= np.max(pdb)
        ax.plot(f / 1e6, pdb, label=label, linewidth=1)
    if channel_bw:
        for c in [0] + ([-spacing, spacing] if spacing else []):
            for e in (c - channel_bw / 2, c + channel_bw / 2):
                ax.axvline(e / 1e6, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xlabel("frequency [MHz]")
    ax.set_ylabel("PSD [dB rel. peak]" if normalise else "PSD [dB/Hz]")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=-100 if normalise else None)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_am_am_pm(pairs, path, title="AM/AM and AM/PM", max_points=5000):
    """Save AM/AM (|y/G| vs |x|) and AM/PM scatter plots of ``pairs`` ({label: (x, y)}) as PNG."""
    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for label, (x, y) in pairs.items():
        d = am_am_pm(x, y, max_points=max_points)
        a1.plot(d["in_amp"], d["out_amp"], ".", markersize=1.5, label=label)
        a2.plot(d["in_amp"], d["phase_deg"], ".", markersize=1.5, label=label)
    lim = a1.get_xlim()[1]
    a1.plot([0, lim], [0, lim], "k--", linewidth=0.8)
    a1.set_xlabel("|input|")
    a1.set_ylabel("|output| / |G|")
    a1.set_title("AM/AM")
    a2.set_xlabel("|input|")
    a2.set_ylabel("phase(output/input) [deg]")
    a2.set_title("AM/PM")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(markerscale=6)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
