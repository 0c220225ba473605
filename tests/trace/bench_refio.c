/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A lower bound on the N-Trace reference code's run time (refcode/c of tg-nexus-trace,
 * which cannot be built here), for tests/bench/40-trace.sh: only the C library calls
 * its encoder and decoder make per record, none of their own work.
 *
 *   encode: per input line fgets() and sscanf("%" SCNx64) of the address, strchr() to
 *           the type (its NexusEnco/InfoParse), nothing encoded or written;
 *   decode: fread() of one byte per trace byte (its NexusDeco loop) and, per decoded
 *           instruction, fprintf("0x%08X") and fprintf("\n") to the output file (its
 *           EmitICNT), no decoding and no instruction lookup.
 *
 * Both do strictly less than the reference, so the reference is slower than this
 * program: our speed divided by this program's is a lower bound on our speed-up.
 * Prints the CPU seconds (user + system) of the loop.
 *
 * usage: bench_refio encode PC_TEXT
 *        bench_refio decode NEX_BYTES INSTRUCTIONS OUT_FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
    uint64_t sum = 0;
    double t0;
    if (argc == 3 && !strcmp(argv[1], "encode")) {
        FILE *in = fopen(argv[2], "r");
        if (!in) return perror(argv[2]), 3;
        char line[1000];
        uint64_t a;
        t0 = cpu();
        while (fgets(line, sizeof line, in)) {
            if (sscanf(line, "%" SCNx64, &a) == 1) sum += a;
            const char *t = strchr(line, ',');
            if (t) sum += (unsigned char)t[1];
        }
    } else if (argc == 5 && !strcmp(argv[1], "decode")) {
        FILE *nex = fopen(argv[2], "rb"), *out = fopen(argv[4], "w");
        if (!nex || !out) return perror("open"), 3;
        const uint64_t n = strtoull(argv[3], NULL, 0);
        unsigned char b;
        t0 = cpu();
        while (fread(&b, 1, 1, nex) == 1) sum += b;
        for (uint64_t i = 0; i < n; i++) {
            fprintf(out, "0x%08X", (unsigned)(0x80000000u + 4 * (i & 0xFFFF)));
            fprintf(out, "\n");
        }
        if (fclose(out)) return perror(argv[4]), 3;
    } else {
        fprintf(stderr, "usage: bench_refio encode PC_TEXT | decode NEX_BYTES INSTRUCTIONS OUT_FILE\n");
        return 2;
    }
    printf("%.3f\n", cpu() - t0);
    return sum == 1; /* the loops' results are used */
}
