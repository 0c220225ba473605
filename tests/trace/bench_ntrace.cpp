// SPDX-License-Identifier: BSD-2-Clause
// N-Trace encoder/decoder throughput and compression on >= 10^7 generated instructions
// for BTM, HTM, and HTM with implicit return and repeated history. The decoded address
// sequence is checked against the generator (rolling hash), so the numbers are for a
// correct decode.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>

#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "progen.hpp"

using namespace ntrace;

namespace {
// Thread CPU time: the machine is shared, and the question is what one core achieves.
double now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}
uint64_t mix(uint64_t h, uint64_t a) { return (h ^ a) * 0x100000001B3ull; }
struct HashSink : DecodeSink {
    uint64_t h = 0xcbf29ce484222325ull, n = 0;
    void insns(const uint64_t *a, size_t k) override {
        for (size_t i = 0; i < k; i++) h = mix(h, a[i]);
        n += k;
    }
};
} // namespace

int main(int argc, char **argv) {
    const uint64_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : 10000000;
    struct Cfg {
        const char *name;
        unsigned mode, ir;
        bool rep;
    } cfgs[] = {{"BTM", TCI_INSTMODE_BTM, 0, false},
                {"HTM", TCI_INSTMODE_HTM, 0, false},
                {"HTM+implicit-return+repeated-history", TCI_INSTMODE_HTM, 3, true}};
    trace::GenConfig g;
    g.seed = 42;
    trace::Program prog(g);
    // Generator alone, to subtract from the encoder timing.
    double t0 = now();
    uint64_t gh = 0xcbf29ce484222325ull;
    prog.run(n, [&](const trace::GenEvent &e) {
        if (e.kind == trace::GenEvent::Retire) gh = mix(gh, e.addr);
    });
    const double tgen = now() - t0;
    int rc = 0;
    printf("%llu instructions; throughput in millions of retired instructions per CPU-second\n",
           (unsigned long long)n);
    printf("%-40s %12s %12s %10s %10s\n", "config", "enc Minstr/s", "dec Minstr/s", "bits/instr", "bytes");
    for (const Cfg &c : cfgs) {
        trace::Program p(g); // fresh branch-pattern state: same execution as above
        EncoderConfig ec;
        ec.trTeControl = te_put(0, NT_TE(trTeControl, InstMode), c.mode);
        uint32_t f = te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), c.ir != 0);
        f = te_put(f, NT_TE(trTeInstFeatures, ImplicitReturnMode), c.ir);
        f = te_put(f, NT_TE(trTeInstFeatures, EnRepeatedHistory), c.rep);
        ec.trTeInstFeatures = f;
        Encoder e(ec);
        e.out().reserve(n / 2);
        t0 = now();
        p.run(n, [&](const trace::GenEvent &ev) { trace::to_encoder(ev, e); });
        const double tenc = std::max(now() - t0 - tgen, 1e-9);
        DecoderConfig dc;
        dc.implicit_return = c.ir != 0;
        // Best of three decodes (the machine is shared; the first also classifies code).
        double tdec = 1e9;
        bool ok = true;
        for (int k = 0; k < 3; k++) {
            HashSink s;
            Decoder d(dc, p.image(), s);
            t0 = now();
            d.run(e.out());
            tdec = std::min(tdec, now() - t0);
            ok = ok && s.n == n && s.h == gh && d.errors() == 0;
        }
        printf("%-40s %12.1f %12.1f %10.3f %10zu %s\n", c.name, double(n) / tenc / 1e6, double(n) / tdec / 1e6,
               8.0 * double(e.out().size()) / double(n), e.out().size(), ok ? "" : "DECODE MISMATCH");
        if (!ok) rc = 1;
    }
    return rc;
}
