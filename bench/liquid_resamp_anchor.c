// SPDX-License-Identifier: GPL-3.0-or-later
// CPU anchor: liquid-dsp 1.5 resamp_crcf (Debian libliquid-dev) at r = 1.37 and 0.73, with the
// polyphase method's length (m = 16: 32 taps), 80 dB, 32 arms. Input samples per second.
//   gcc -O2 bench/liquid_resamp_anchor.c -lliquid -lm -o /tmp/liquid_anchor && /tmp/liquid_anchor
#include <complex.h>
#include <liquid/liquid.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv)
{
    const unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 4000000u;
    const float rates[2] = { 1.37f, 0.73f };
    float complex* x = malloc(sizeof(float complex) * 4096);
    float complex y[8];
    for (int i = 0; i < 4096; i++)
        x[i] = (float)((i * 2654435761u) % 2001) * 1e-3f - 1.0f + I * ((float)((i * 40503u) % 1999) * 1e-3f - 1.0f);
    for (int k = 0; k < 2; k++) {
        const float r = rates[k];
        // fc: cutoff relative to the input rate; for r < 1 liquid does not stretch the filter
        resamp_crcf q = resamp_crcf_create(r, 16, r < 1 ? 0.45f * r : 0.45f, 80.0f, 32);
        unsigned produced = 0, nw;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (unsigned i = 0; i < n; i++) {
            resamp_crcf_execute(q, x[i & 4095], y, &nw);
            produced += nw;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        const double s = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
        printf("| liquid-dsp resamp_crcf (m=16, 80 dB, 32 arms) | %.2f | %.1f | outputs %u |\n", r, n / s / 1e6, produced);
        resamp_crcf_destroy(q);
    }
    free(x);
    return 0;
}
