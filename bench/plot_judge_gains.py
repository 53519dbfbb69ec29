#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plot the small-signal gain of every shipped PA model of a dataset outside its captured band: the
quantity the scoreboard's oob floor is computed from (dpd_bench_judges.small_signal_gain), which no
band-limited capture measures. One curve per model, relative to its own in-band mean, about the test
input. Usage: plot_judge_gains.py DATASET_DIR OUT.png"""

import glob
import os
import sys

import numpy as np

from gnuradio.gpuinterp import dpd_bench_data, dpd_bench_judges, dpd_model


def main(directory, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spec, data = dpd_bench_data.load_dataset(directory)
    fs, bw = spec["input_signal_fs"], spec["bw"]
    x = data["test"][0]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    for path in dpd_bench_judges.auto_judges(directory):
        fit = dpd_model.load_model(path)
        f, h = dpd_bench_judges.small_signal_gain(fit.apply, x, fs)
        ref = np.mean(np.abs(h[np.abs(f) < 0.4 * bw]))
        style = "-" if fit.model.startswith("gru") else "--"
        ax.plot(f / 1e6, 20 * np.log10(np.abs(h) / ref), style, lw=1.2,
                label=f"{os.path.basename(path)} ({fit.model.split(':')[0]})")
    for s in (-1, 1):
        ax.axvspan(s * bw / 2e6, s * 1.5 * bw / 1e6, color="0.9", zorder=0)
    ax.axvline(-bw / 2e6, color="0.5", lw=0.8)
    ax.axvline(bw / 2e6, color="0.5", lw=0.8)
    ax.set_xlim(-fs / 2e6, fs / 2e6)
    ax.set_ylim(-10, 10)
    ax.set_xlabel("frequency, MHz (grey: the 1 x 200 MHz plan's adjacent bands)")
    ax.set_ylabel("small-signal gain / in-band mean, dB")
    ax.set_title(f"{os.path.basename(os.path.normpath(directory))}: each PA model's gain outside the captured band")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"saved {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("Usage: ")[1])
    main(*sys.argv[1:])
