// SPDX-License-Identifier: BSD-2-Clause
// tsbi-trace: command-line tool for the trace codecs.
//   tsbi-trace ntrace dump|decode|encode|selftest ...
//   tsbi-trace etrace dump|encode ...
//   tsbi-trace tv dump|compare ...
//   tsbi-trace linux decode ...; runs compare|stat|dump ...; acc compare|stat|dump ...
// Exit codes: 0 success, 1 the data is inconsistent (decode errors, traces differ),
// 2 usage error, 3 input/output error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <algorithm>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accrec.hpp"
#include "etrace_data.hpp"
#include "etrace_inst.hpp"
#include "kernel.hpp"
#include "ntrace_dec.hpp"
#include "ntrace_enc.hpp"
#include "ntrace_refenc.hpp"
#include "pcfmt.hpp"
#include "progen.hpp"
#include "runs.hpp"
#include "tvtrace.hpp"

namespace {

enum Exit { kOk = 0, kBadData = 1, kUsage = 2, kIo = 3 };

const char kUsageText[] =
    "usage: tsbi-trace FORMAT COMMAND [options] [FILE]\n"
    "\n"
    "FILE defaults to standard input ('-' also means standard input); output goes to\n"
    "standard output unless -o FILE is given.\n"
    "\n"
    "N-Trace 1.0 (bytes with MSEO in the two low bits):\n"
    "  ntrace dump [--fields] [--mid-stream]        messages, one field per line\n"
    "  ntrace decode IMAGE [--pcinfo] [--events]    retired PCs (\"0xADDR\" lines)\n"
    "                                   [--strict]  the reference code's out-of-spec streams (I-CNT above 22 bits,\n"
    "                                   B-TYPE 0 at an ecall) are errors, not warnings\n"
    "                                   --events: \"# KIND at offset N: ...\" lines (SYNC=6 trace-notify\n"
    "                                   messages as \"# notify ... addr=PC\"); notify count on stderr\n"
    "  ntrace transfers IMAGE [--src N]             BTM (no implicit return, no sequential\n"
    "                                               jumps) -> control transfers as CTR records\n"
    "                                               them: \"0xSOURCE 0xTARGET TYPE\" (the decoding\n"
    "                                               core the firmware uses; \"gap\" after lost data)\n"
    "  ntrace encode [IMAGE] [--pc] ENCODER         PC-info (or --pc: PC-only) text -> bytes\n"
    "  ntrace encode --compat refcode [--nobhm|--norbm] [--cs N] [--rpt N] [IMAGE] [--pc]\n"
    "                                               the N-Trace reference code's choices (NexRv -enco),\n"
    "                                               byte for byte; input may be its PC-sequence file\n"
    "  ntrace selftest [--count N] [--seed N] ENCODER   generate, encode, decode, compare\n"
    "  ntrace gen --elf OUT.elf [--raw OUT.bin] -o OUT.pcinfo [--count N] [--seed N] [--xlen N]\n"
    "             [--traps N]                      (traps per 10^6 instructions, default 500)\n"
    "                                               a generated program and its PC-info\n"
    "    framing:  --src-bits N  --tstamp  --extend-addr  --xlen 32|64\n"
    "    IMAGE:    --elf FILE | --bin FILE --load ADDR (repeatable)  [--jvt ADDR] [--zcmp] [--zcmt]\n"
    "              | --pcinfo-image FILE (per-address PC-info, as the reference decoder reads)\n"
    "    decoder:  --implicit-return  --all-jumps  --seq-jump  --src ID  --mid-stream  --max-steps N\n"
    "              (default 2^24 instructions per input byte), and instead of the flags the encoder's\n"
    "              --te-control X --te-inst-features X --ts-control X\n"
    "    ENCODER:  --mode btm|htm  --implicit-return 0..3  --repeated-history  --all-jumps\n"
    "              --sync-mode 0..3 --sync-max N  --context  --src-bits N --src-id N\n"
    "              --extend-addr --tstamp --icnt-bits N --hist-bits N --stack-depth N\n"
    "              --icnt-sync (BTM: full I-CNT as SYNC=4)\n"
    "              --itype3   or the raw registers: --te-control X --te-inst-features X\n"
    "              --ts-control X (Trace Control Interface values, override the above)\n"
    "\n"
    "E-Trace data trace packets (container: one header byte per packet, [5:0] length,\n"
    "[7:6] msg_type 0 instruction / 1 data trace; records as printed by etrace dump):\n"
    "  etrace dump [PARAMS] FILE                     one packet per line\n"
    "  etrace encode [PARAMS] FILE                   text records -> packets\n"
    "E-Trace instruction trace (the project QEMU's trTeFormat 0 stream: RISC-V packet\n"
    "encapsulation, etrace_inst.hpp):\n"
    "  etrace decode --elf PROG.elf [--elf MORE] [--src-bits N --src HART] [--rv32]\n"
    "                [--data DATA.txt] FILE          one 0xADDR per retired instruction; the\n"
    "                                                data trace (flow 1) as one load/store per line\n"
    "  etrace idump [--src-bits N] [--rv32] FILE     one packet per line (data packets too)\n"
    "    PARAMS: --data-width N --daddress-width N --lrid-width N --csr-width 32|64\n"
    "            --compress 0..3 (bit 0 XOR, bit 1 differential) --no-compress\n"
    "            --split --unified-only --no-addr --no-data\n"
    "\n"
    "Tandem-verification trace (Bluespec protocol):\n"
    "  tv dump FILE                                  one item per line\n"
    "  tv compare FILE1 FILE2 [--partial] [--records N]\n"
    "                                                first divergence (record, pc, field, both\n"
    "                                                values, context) or \"equal, N records\";\n"
    "                                                exit 1 if any; streams (bounded memory)\n"
    "\n"
    "Traced Linux boot (the firmware's boot-time trace buffer in a guest RAM file):\n"
    "  linux decode RAM.bin --image Image [--syms System.map] [-o PREFIX] [--top N]\n"
    "               [--ram-base 0x80000000] [--load 0x80200000] [--virt 0xffffffff80000000]\n"
    "               [--no-patches] [--data PREFIX]\n"
    "      finds the TSBITRCE buffer (2 MiB aligned) in RAM.bin, decodes every traced hart\n"
    "      (boot hart first; N-Trace or E-Trace, as the header's trTeControl.Format says)\n"
    "      against the raw Image seen at its load and link addresses,\n"
    "      following the code the kernel rewrites (needs --syms: kernel.hpp), prints per\n"
    "      hart instructions, bytes, bits/instruction and the top N functions; -o writes\n"
    "      PREFIX.<hart> instruction-run files; --data (E-Trace with data trace) decodes\n"
    "      each hart's data packets into the access-record file PREFIX.<hart>\n"
    "\n"
    "Instruction-run files (runs.hpp: the insnlog plugin's runs=S record, linux decode -o):\n"
    "  runs compare DECODED RECORD [--max-tail N]   streaming comparison; exit 1 unless equal\n"
    "                                               (N: record instructions allowed after the end)\n"
    "  runs stat FILE                                instructions and runs\n"
    "  runs dump FILE                                one \"0xADDR\" line per instruction\n"
    "\n"
    "Access-record files (accrec.hpp: the insnlog plugin's acc=S record, linux decode --data):\n"
    "  acc compare DECODED RECORD [--max-tail N] [--keep CLASS[,CLASS]] [--atomics pair]\n"
    "                          streaming comparison (kind, size, address, value); exit 1\n"
    "                          unless equal, printing the first difference with context.\n"
    "                          Atomic, vector and other accesses are left out on both\n"
    "                          sides and counted unless kept (--keep atomic,vector,other);\n"
    "                          --atomics pair: the record's AMOs, LRs and SCs against the\n"
    "                          decoded atomic packets, loads and stores (accrec.hpp)\n"
    "  acc stat FILE           accesses per class and kind\n"
    "  acc dump FILE           one access per line (load|store size=S addr=0x.. data=0x..)\n"
    "\n"
    "Exit status: 0 ok, 1 inconsistent data or traces differ, 2 usage, 3 I/O error.\n";

int usage(const char *msg = nullptr) {
    if (msg) fprintf(stderr, "tsbi-trace: %s\n", msg);
    fputs("run 'tsbi-trace --help' for usage\n", stderr);
    return kUsage;
}

struct Args {
    std::vector<std::string> pos;
    std::vector<std::pair<std::string, std::string>> opts; // name -> value ("" for flags)
    bool has(const char *n) const {
        for (auto &o : opts)
            if (o.first == n) return true;
        return false;
    }
    const std::string *get(const char *n) const {
        const std::string *r = nullptr;
        for (auto &o : opts)
            if (o.first == n) r = &o.second;
        return r;
    }
};

// Options that take a value.
bool takes_value(const std::string &n) {
    static const char *const v[] = {"-o", "--elf", "--bin", "--load", "--jvt", "--src-bits",
                                    "--xlen", "--src", "--mode",
                                    "--sync-mode", "--sync-max", "--src-id", "--icnt-bits",
                                    "--hist-bits", "--stack-depth", "--te-control",
                                    "--te-inst-features", "--ts-control", "--count", "--seed", "--raw", "--max-steps",
                                    "--data-width", "--daddress-width", "--lrid-width", "--csr-width", "--compress",
                                    "--max-tail", "--image", "--syms", "--top", "--ram-base", "--virt",
                                    "--compat", "--cs", "--rpt", "--traps", "--pcinfo-image", "--records", "--data",
                                    "--keep", "--atomics"};
    for (const char *x : v)
        if (n == x) return true;
    return false;
}
// Options without a value.
bool is_flag(const std::string &n) {
    static const char *const v[] = {"--fields", "--mid-stream", "--pcinfo", "--events", "--pc",
                                    "--tstamp", "--extend-addr", "--zcmp", "--zcmt",
                                    "--repeated-history", "--all-jumps", "--seq-jump", "--context", "--itype3",
                                    "--partial", "--no-compress", "--help", "--icnt-sync", "--split",
                                    "--unified-only", "--no-addr", "--no-data", "--no-patches", "--nobhm", "--strict",
                                    "--norbm"};
    for (const char *x : v)
        if (n == x) return true;
    return false;
}

bool parse_args(int argc, char **argv, int first, Args &a, std::string &err) {
    for (int i = first; i < argc; i++) {
        std::string s = argv[i];
        if (s.size() > 1 && s[0] == '-' ) {
            std::string val;
            size_t eq = s.find('=');
            if (eq != std::string::npos && s.rfind("--", 0) == 0) val = s.substr(eq + 1), s = s.substr(0, eq);
            if (takes_value(s)) {
                if (eq == std::string::npos) {
                    if (i + 1 >= argc) {
                        err = "option " + s + " needs a value";
                        return false;
                    }
                    val = argv[++i];
                }
                a.opts.push_back({s, val});
            } else if (is_flag(s) && eq == std::string::npos) {
                a.opts.push_back({s, ""});
            } else if (s == "--implicit-return") {
                // Optional value: the mode 0..3 (encoder); without one, mode 3 / enabled.
                if (eq == std::string::npos && i + 1 < argc && strlen(argv[i + 1]) == 1 &&
                    argv[i + 1][0] >= '0' && argv[i + 1][0] <= '3')
                    val = argv[++i];
                a.opts.push_back({s, val.empty() ? "3" : val});
            } else {
                err = "unknown option " + s;
                return false;
            }
        } else {
            a.pos.push_back(s);
        }
    }
    return true;
}

bool num(const Args &a, const char *n, uint64_t &v, uint64_t dflt, std::string &err) {
    const std::string *s = a.get(n);
    v = dflt;
    if (!s) return true;
    char *end = nullptr;
    errno = 0;
    v = strtoull(s->c_str(), &end, 0);
    if (s->empty() || *end || errno) {
        err = std::string("bad number for ") + n + ": " + *s;
        return false;
    }
    return true;
}

bool read_input(const std::string &path, std::vector<uint8_t> &out) {
    if (path.empty() || path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    return true;
}

struct Output {
    FILE *f = stdout;
    bool open(const Args &a) {
        if (const std::string *o = a.get("-o"))
            if (*o != "-") f = fopen(o->c_str(), "wb");
        return f != nullptr;
    }
    bool write(const void *p, size_t n) { return fwrite(p, 1, n, f) == n; }
    bool write(const std::string &s) { return write(s.data(), s.size()); }
    bool close() {
        bool ok = fflush(f) == 0 && !ferror(f);
        if (f != stdout) ok = fclose(f) == 0 && ok;
        return ok;
    }
};

bool framing(const Args &a, ntrace::Framing &fr, std::string &err) {
    uint64_t sb, xl;
    if (!num(a, "--src-bits", sb, 0, err) || !num(a, "--xlen", xl, 64, err)) return false;
    if (sb > NT_LIMIT_MAX_SRC || (xl != 32 && xl != 64)) {
        err = "--src-bits must be 0..12 and --xlen 32 or 64";
        return false;
    }
    fr.src_bits = uint8_t(sb), fr.xlen = uint8_t(xl);
    fr.tstamp = a.has("--tstamp"), fr.extend_addr = a.has("--extend-addr");
    return true;
}

// Loads every --elf FILE and every --bin FILE (each with the --load ADDR given after it).
// Returns 0 when no image was requested, 1 loaded, -1 error.
int load_image(const Args &a, trace::Image &img, std::string &err) {
    uint64_t xl, jvt;
    if (!num(a, "--xlen", xl, 64, err) || !num(a, "--jvt", jvt, 0, err)) return -1;
    img.opts.xlen = unsigned(xl);
    img.opts.zcmp = a.has("--zcmp"), img.opts.zcmt = a.has("--zcmt");
    img.jvt = jvt, img.has_jvt = a.has("--jvt");
    int loaded = 0;
    const std::string *bin = nullptr;
    for (const auto &o : a.opts) {
        if (o.first == "--elf") {
            trace::Image tmp;
            if (!tmp.load_elf(o.second, err)) return -1;
            if (!a.has("--xlen")) img.opts.xlen = tmp.opts.xlen;
            for (const auto &sg : tmp.segments()) img.add(sg.base, sg.bytes);
            loaded = 1;
        } else if (o.first == "--pcinfo-image") {
            // The reference decoder's program input: a per-address PC-info file.
            FILE *f = fopen(o.second.c_str(), "rb");
            if (!f) return err = "cannot read " + o.second, -1;
            trace::LineReader lines(f);
            std::vector<trace::PcInfo> v;
            trace::PcInfo p;
            int r;
            while ((r = lines.next_pcinfo(p)) > 0) v.push_back(p);
            fclose(f);
            if (r < 0) return err = o.second + ": bad PC-info at line " + std::to_string(lines.line()), -1;
            uint64_t base;
            std::vector<uint8_t> code;
            if (!trace::code_from_pcinfo(v, img.opts, base, code, err)) return err = o.second + ": " + err, -1;
            img.add(base, std::move(code));
            loaded = 1;
        } else if (o.first == "--bin") {
            bin = &o.second;
        } else if (o.first == "--load") {
            if (!bin) {
                err = "--load must follow --bin FILE";
                return -1;
            }
            char *end = nullptr;
            uint64_t load = strtoull(o.second.c_str(), &end, 0);
            if (o.second.empty() || *end) {
                err = "bad --load address " + o.second;
                return -1;
            }
            if (!img.load_raw(*bin, load, err)) return -1;
            bin = nullptr;
            loaded = 1;
        }
    }
    if (bin) {
        err = "--bin needs --load ADDR";
        return -1;
    }
    return loaded;
}

bool encoder_config(const Args &a, ntrace::EncoderConfig &c, std::string &err) {
    using namespace ntrace;
    ntrace::Framing fr;
    if (!framing(a, fr, err)) return false;
    uint64_t ir, sm, smax, sid, ib, hb, sd, x;
    if (!num(a, "--implicit-return", ir, 0, err) || !num(a, "--sync-mode", sm, 0, err) ||
        !num(a, "--sync-max", smax, 0, err) || !num(a, "--src-id", sid, 0, err) ||
        !num(a, "--icnt-bits", ib, NT_LIMIT_MAX_ICNT, err) ||
        !num(a, "--hist-bits", hb, NT_LIMIT_MAX_HIST, err) ||
        !num(a, "--stack-depth", sd, NT_LIMIT_MAX_CALL_STACK, err))
        return false;
    if (ir > 3 || sm > 3 || smax > 15 || sid > 0xFFF || ib < 2 || ib > NT_LIMIT_MAX_ICNT || hb < 2 ||
        hb > NT_LIMIT_MAX_HIST || sd < 1 || sd > NT_LIMIT_MAX_CALL_STACK) {
        err = "encoder option out of range";
        return false;
    }
    unsigned mode = TCI_INSTMODE_BTM;
    if (const std::string *m = a.get("--mode")) {
        if (*m == "htm") mode = TCI_INSTMODE_HTM;
        else if (*m != "btm") {
            err = "--mode must be btm or htm";
            return false;
        }
    }
    c.xlen = fr.xlen;
    c.icnt_bits = unsigned(ib), c.hist_bits = unsigned(hb), c.stack_depth = unsigned(sd);
    uint32_t t = te_put(0, NT_TE(trTeControl, InstMode), mode);
    t = te_put(t, NT_TE(trTeControl, InstSyncMode), uint32_t(sm));
    t = te_put(t, NT_TE(trTeControl, InstSyncMax), uint32_t(smax));
    t = te_put(t, NT_TE(trTeControl, Context), a.has("--context"));
    t = te_put(t, NT_TE(trTeControl, Format), TCI_FORMAT_NTRACE);
    uint32_t f = te_put(0, NT_TE(trTeInstFeatures, EnImplicitReturn), ir != 0);
    f = te_put(f, NT_TE(trTeInstFeatures, ImplicitReturnMode), uint32_t(ir));
    f = te_put(f, NT_TE(trTeInstFeatures, EnRepeatedHistory), a.has("--repeated-history"));
    f = te_put(f, NT_TE(trTeInstFeatures, EnAllJumps), a.has("--all-jumps"));
    f = te_put(f, NT_TE(trTeInstFeatures, EnSequentialJump), a.has("--seq-jump"));
    f = te_put(f, NT_TE(trTeInstFeatures, ExtendAddrMSB), fr.extend_addr);
    f = te_put(f, NT_TE(trTeInstFeatures, SrcBits), fr.src_bits);
    f = te_put(f, NT_TE(trTeInstFeatures, SrcID), uint32_t(sid));
    c.trTeControl = t, c.trTeInstFeatures = f;
    c.icnt_full_sync = a.has("--icnt-sync");
    c.trTsControl = te_put(0, NT_TE(trTsControl, Enable), fr.tstamp);
    if (!num(a, "--te-control", x, c.trTeControl, err)) return false;
    c.trTeControl = uint32_t(x);
    if (!num(a, "--te-inst-features", x, c.trTeInstFeatures, err)) return false;
    c.trTeInstFeatures = uint32_t(x);
    if (!num(a, "--ts-control", x, c.trTsControl, err)) return false;
    c.trTsControl = uint32_t(x);
    return true;
}

// ---- ntrace -----------------------------------------------------------------------------
struct DumpCb : ntrace::Callbacks {
    const ntrace::Framing &fr;
    bool fields;
    std::string out;
    uint64_t errors = 0;
    explicit DumpCb(const ntrace::Framing &f, bool fl) : fr(f), fields(fl) {}
    void on_msg(const ntrace::Msg &m) override {
        char b[64];
        snprintf(b, sizeof b, "# message at offset %llu\n", (unsigned long long)m.offset);
        out += b;
        out += fields ? ntrace::dump_fields(m) : ntrace::dump(fr, m);
    }
    void on_error(uint64_t off, ntrace::Err e) override {
        char b[128];
        snprintf(b, sizeof b, "# error at offset %llu: %s\n", (unsigned long long)off, ntrace::err_name(e));
        out += b;
        errors++;
    }
};

int ntrace_dump(const Args &a) {
    std::string err;
    ntrace::Framing fr;
    if (!framing(a, fr, err)) return usage(err.c_str());
    std::vector<uint8_t> in;
    if (!read_input(a.pos.size() > 2 ? a.pos[2] : "", in)) return fprintf(stderr, "tsbi-trace: cannot read input\n"), kIo;
    DumpCb cb(fr, a.has("--fields"));
    ntrace::parse(fr, in, cb, a.has("--mid-stream"));
    Output o;
    if (!o.open(a) || !o.write(cb.out) || !o.close()) return kIo;
    return cb.errors ? kBadData : kOk;
}

// Streams decoded PCs (or PC-info lines, one instruction behind to see the next PC) and
// events to the output, so memory stays bounded however long the trace is.
struct StreamSink : ntrace::DecodeSink {
    trace::LineWriter w;
    const trace::Image &img;
    bool pcinfo, events;
    bool have_prev = false;
    uint64_t prev = 0;
    uint64_t notifies = 0; // synchronising messages with SYNC=6 (Trace Event: trace-notify)
    StreamSink(FILE *o, const trace::Image &i, bool pi, bool ev) : w(o), img(i), pcinfo(pi), events(ev) {}
    void info(uint64_t pc, bool have_next, uint64_t next) { w.pcinfo(trace::pcinfo_one(img, pc, have_next, next)); }
    void insns(const uint64_t *a, size_t n) override {
        if (pcinfo) {
            for (size_t i = 0; i < n; i++) {
                if (have_prev) info(prev, true, a[i]);
                prev = a[i], have_prev = true;
            }
            return;
        }
        for (size_t i = 0; i < n; i++) w.pc(a[i]);
    }
    void event(const ntrace::Event &e) override {
        static const char *const names[] = {"sync", "trap", "ownership", "stop", "error", "vendor", "lost"};
        char b[240], ts[40] = "";
        // N-Trace 1.0 SYNC=6: "a marker when debug watchpoint with action=4 triggered";
        // addr is the trigger's PC, the next one decoded.
        const bool notify = e.kind == ntrace::Event::Sync && e.value == NT_SYNC_TRACE_EVENT;
        notifies += notify;
        if (e.has_tstamp) snprintf(ts, sizeof ts, " tstamp=%llu", (unsigned long long)e.tstamp);
        int n = snprintf(b, sizeof b, "# %s at offset %llu: addr=0x%llX value=0x%llX%s%s%s\n", notify ? "notify" : names[e.kind],
                         (unsigned long long)e.offset, (unsigned long long)e.addr, (unsigned long long)e.value, ts,
                         e.kind == ntrace::Event::Error ? " " : "", e.kind == ntrace::Event::Error ? e.what : "");
        if (e.kind == ntrace::Event::Error) fputs(b, stderr);
        // A stop or an error ends the flow the pending PC-info line belongs to.
        if (pcinfo && have_prev &&
            (e.kind == ntrace::Event::Stop || e.kind == ntrace::Event::Error || e.kind == ntrace::Event::Lost)) {
            info(prev, false, 0);
            have_prev = false;
        }
        if (events) w.text(b, size_t(std::min(n, int(sizeof b) - 1)));
    }
    bool finish() {
        if (pcinfo && have_prev) info(prev, false, 0);
        have_prev = false;
        return w.flush();
    }
};

// Reads the trace a piece at a time and writes PCs as they come: memory is one piece,
// the output buffer and the image, whatever the trace's length.
int ntrace_decode(const Args &a) {
    std::string err;
    ntrace::DecoderConfig dc;
    if (!framing(a, dc.fr, err)) return usage(err.c_str());
    trace::Image img;
    int li = load_image(a, img, err);
    if (li < 0) return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo;
    if (li == 0) return usage("ntrace decode needs --elf FILE or --bin FILE --load ADDR");
    uint64_t src;
    if (!num(a, "--src", src, ~0ull, err)) return usage(err.c_str());
    dc.src = a.has("--src") ? int(src & 0xFFF) : -1;
    dc.implicit_return = a.has("--implicit-return");
    dc.all_jumps = a.has("--all-jumps");
    dc.seq_jump = a.has("--seq-jump");
    if (a.has("--te-control") || a.has("--te-inst-features") || a.has("--ts-control")) {
        // The encoder's Trace Control Interface registers decide the stream format.
        ntrace::EncoderConfig c;
        if (!encoder_config(a, c, err)) return usage(err.c_str());
        dc.fr = c.framing();
        dc.implicit_return = c.implicit_return() != 0;
        dc.all_jumps = c.all_jumps();
        dc.seq_jump = c.sequential_jump();
    }
    dc.fr.xlen = uint8_t(img.opts.xlen);
    uint64_t limit;
    if (!num(a, "--max-steps", limit, 0, err)) return usage(err.c_str());
    const bool fixed_limit = a.has("--max-steps");
    dc.max_steps = limit;
    dc.strict = a.has("--strict");
    const std::string path = a.pos.size() > 2 ? a.pos[2] : "";
    FILE *in = path.empty() || path == "-" ? stdin : fopen(path.c_str(), "rb");
    if (!in) return fprintf(stderr, "tsbi-trace: cannot read input\n"), kIo;
    Output o;
    if (!o.open(a)) return kIo;
    StreamSink sink(o.f, img, a.has("--pcinfo"), a.has("--events"));
    ntrace::Decoder d(dc, img, sink);
    ntrace::StreamParser parser(dc.fr, d, a.has("--mid-stream"), true);
    std::vector<uint8_t> piece(1 << 20);
    uint64_t total = 0;
    for (size_t n; (n = fread(piece.data(), 1, piece.size(), in)) > 0;) {
        total += n;
        // Without an explicit limit, bound the work by the input read so far: even a
        // maximally compressed trace expands to far fewer than 2^24 instructions per
        // byte, and a message is decoded only once all its bytes are read.
        if (!fixed_limit) d.set_max_steps((total + 1) << 24);
        parser.feed(piece.data(), n);
    }
    const bool read_error = ferror(in);
    if (in != stdin) fclose(in);
    if (read_error) return fprintf(stderr, "tsbi-trace: cannot read input\n"), o.close(), kIo;
    parser.finish();
    d.finish();
    const bool written = sink.finish();
    if (d.icnt_out_of_spec())
        fprintf(stderr,
                "tsbi-trace: warning: %llu I-CNT values above the spec's %u bits decoded "
                "(--strict rejects them)\n",
                (unsigned long long)d.icnt_out_of_spec(), unsigned(NT_LIMIT_MAX_ICNT));
    if (d.trap_calls())
        fprintf(stderr,
                "tsbi-trace: warning: %llu IndirectBranch messages with B-TYPE 0 ending at a trapping "
                "instruction (ecall/ebreak) decoded as the reference code's indirect calls "
                "(--strict rejects them)\n",
                (unsigned long long)d.trap_calls());
    if (sink.notifies)
        fprintf(stderr, "tsbi-trace: %llu trace-notify messages (SYNC=6)\n", (unsigned long long)sink.notifies);
    if (!o.close() || !written) return kIo;
    return d.errors() ? kBadData : kOk;
}

// The freestanding core's BTM walker (ntrace_core.hpp), as the firmware's CTR feed
// runs it, over a whole file.
int ntrace_transfers(const Args &a) {
    std::string err;
    ntrace::Framing fr;
    if (!framing(a, fr, err)) return usage(err.c_str());
    trace::Image img;
    int li = load_image(a, img, err);
    if (li < 0) return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo;
    if (li == 0) return usage("ntrace transfers needs --elf FILE or --bin FILE --load ADDR");
    uint64_t src;
    if (!num(a, "--src", src, ~0ull, err)) return usage(err.c_str());
    fr.xlen = uint8_t(img.opts.xlen);
    std::vector<uint8_t> in;
    if (!read_input(a.pos.size() > 2 ? a.pos[2] : "", in)) return fprintf(stderr, "tsbi-trace: cannot read input\n"), kIo;
    Output o;
    if (!o.open(a)) return kIo;
    struct Env {
        const trace::Image &img;
        FILE *f;
        bool insn(uint64_t pc, rv::Insn &i) {
            const rv::Insn *p = img.at(pc);
            if (p) i = *p;
            return p != nullptr;
        }
        void transfer(uint64_t s, uint64_t t, uint8_t type) {
            fprintf(f, "0x%llx 0x%llx %u\n", (unsigned long long)s, (unsigned long long)t, type);
        }
        void trap(uint64_t epc, uint64_t h, bool irq) { transfer(epc, h, irq ? 2 : 1); }
        void leave(uint64_t, const rv::Insn *) {}
        void gap() { fputs("gap\n", f); }
    } env{img, o.f};
    ntrace::FlowConfig fc;
    fc.xlen = img.opts.xlen;
    fc.src = a.has("--src") ? int(src & 0xFFF) : -1;
    ntrace::FlowState st{};
    ntrace::Flow<Env> flow(fc, st, env);
    bool bad = false;
    size_t end = ntrace::split_messages(
        in.data(), in.size(), a.has("--mid-stream"),
        [&](const uint8_t *m, size_t n, size_t) {
            ntrace::Fields fl;
            if (ntrace::decode_fields(fr, m, n, fl) == ntrace::Err::None) flow.on_msg(fl);
            else bad = true, ntrace::Flow<Env>::reset(st);
        },
        [&](size_t, ntrace::Err) { bad = true; });
    if (!o.close()) return kIo;
    return bad || end != in.size() || st.errors ? kBadData : kOk;
}

// Streams the input text through the encoder and the bytes to the output, so memory
// stays bounded (a chunk of input, one record, the unwritten output) whatever the size.
int ntrace_encode(const Args &a) {
    std::string err;
    ntrace::EncoderConfig c;
    if (!encoder_config(a, c, err)) return usage(err.c_str());
    std::optional<ntrace::RefcodeOptions> compat;
    if (const std::string *name = a.get("--compat")) {
        if (*name != "refcode") return usage("--compat takes refcode");
        ntrace::RefcodeOptions ro;
        ro.level = a.has("--nobhm") ? 10 : a.has("--norbm") ? 20 : 21;
        for (auto [opt, dst] : {std::pair{"--cs", &ro.call_stack}, std::pair{"--rpt", &ro.repeat}}) {
            if (const std::string *v = a.get(opt)) {
                char *end = nullptr;
                long x = strtol(v->c_str(), &end, 0);
                if (*end || x < -long(ntrace::RefcodeEncoder::kMaxCallStack) ||
                    x > long(ntrace::RefcodeEncoder::kMaxCallStack))
                    return usage("--cs/--rpt value out of range");
                *dst = int(x);
            }
        }
        if (ro.repeat < 0 || ro.repeat > 3) return usage("--rpt takes 0..3");
        compat = ro;
    }
    trace::Image img;
    const bool pcs = a.has("--pc");
    if (pcs) {
        int li = load_image(a, img, err);
        if (li <= 0) return li < 0 ? (fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo)
                                   : usage("--pc input needs --elf or --bin to classify instructions");
    }
    const std::string path = a.pos.size() > 2 ? a.pos[2] : "";
    FILE *in = path.empty() || path == "-" ? stdin : fopen(path.c_str(), "rb");
    if (!in) return fprintf(stderr, "tsbi-trace: cannot read input\n"), kIo;
    Output o;
    if (!o.open(a)) return kIo;

    ntrace::Encoder enc(c);
    std::optional<ntrace::RefcodeEncoder> ref;
    if (compat) ref.emplace(*compat);
    trace::PcInfoFeeder feeder(enc, !a.has("--itype3"));
    std::vector<uint8_t> &bytes = ref ? ref->out() : enc.out();
    bool ok = true;
    auto feed = [&](const trace::PcInfo &p) {
        if (ref) ref->retire(p);
        else feeder.feed(p);
        if (bytes.size() >= 1 << 16) ok &= o.write(bytes.data(), bytes.size()), bytes.clear();
    };
    trace::LineReader lines(in);
    std::string_view l;
    bool have_prev = false;
    uint64_t prev = 0;
    int rc = kOk;
    if (pcs) {
        while (rc == kOk && lines.next(l)) {
            // A PC-only line is classified once the next PC tells taken from not.
            uint64_t pc;
            if (!trace::parse_pc_line(l, pc)) rc = kBadData;
            else if (have_prev) feed(trace::pcinfo_one(img, prev, true, pc));
            prev = pc, have_prev = true;
        }
    } else {
        trace::PcInfo p;
        for (int r; rc == kOk && (r = lines.next_pcinfo(p));) {
            if (r < 0) rc = kBadData;
            else feed(p);
        }
    }
    if (rc != kOk) fprintf(stderr, "tsbi-trace: bad %s at line %zu\n", pcs ? "PC list" : "PC-info", lines.line());
    if (lines.error()) rc = kIo;
    if (in != stdin) fclose(in);
    if (rc != kOk) return o.close(), rc;
    if (have_prev) feed(trace::pcinfo_one(img, prev, false, 0));
    if (ref) ref->finish();
    else feeder.finish();
    ok &= o.write(bytes.data(), bytes.size());
    return ok && o.close() ? kOk : kIo;
}

int ntrace_selftest(const Args &a) {
    std::string err;
    ntrace::EncoderConfig c;
    if (!encoder_config(a, c, err)) return usage(err.c_str());
    uint64_t n, seed;
    if (!num(a, "--count", n, 1000000, err) || !num(a, "--seed", seed, 1, err)) return usage(err.c_str());
    trace::GenConfig g;
    g.seed = seed, g.xlen = c.xlen;
    g.bad_return_per_mille = c.implicit_return() == 1 ? 0 : 10;
    trace::Program p(g);
    ntrace::Encoder e(c);
    std::vector<uint64_t> expected;
    const bool itype4 = !a.has("--itype3");
    p.run(n, [&](const trace::GenEvent &ev) {
        switch (ev.kind) {
        case trace::GenEvent::Start: e.start(ev.addr); break;
        case trace::GenEvent::Stop: e.stop(ev.addr); break;
        case trace::GenEvent::Trap: e.trap(ev.addr, ev.target, ev.interrupt); break;
        case trace::GenEvent::Context: e.context(unsigned(ev.addr), false, 0); break;
        case trace::GenEvent::Retire:
            e.retire(ev.addr, ev.size, itype4 ? ev.itype : rv::itype3(ev.itype));
            expected.push_back(ev.addr);
            break;
        }
    });
    ntrace::DecoderConfig dc;
    dc.fr = c.framing();
    dc.implicit_return = c.implicit_return() != 0;
    dc.all_jumps = c.all_jumps();
    dc.seq_jump = c.sequential_jump();
    struct : ntrace::DecodeSink {
        std::vector<uint64_t> pcs;
        void insns(const uint64_t *x, size_t k) override { pcs.insert(pcs.end(), x, x + k); }
    } sink;
    ntrace::Decoder d(dc, p.image(), sink);
    d.run(e.out());
    const bool same = sink.pcs == expected && d.errors() == 0;
    printf("%llu instructions, %zu bytes (%.3f bits/instruction), decoded %zu: %s\n",
           (unsigned long long)n, e.out().size(), 8.0 * double(e.out().size()) / double(n),
           sink.pcs.size(), same ? "identical" : "DIFFERENT");
    return same ? kOk : kBadData;
}

// Writes a generated program as ELF and the PC-info of one traced execution: test input
// for encode/decode through files.
int ntrace_gen(const Args &a) {
    std::string err;
    uint64_t n, seed, xl, traps;
    trace::GenConfig g;
    if (!num(a, "--count", n, 10000, err) || !num(a, "--seed", seed, 1, err) || !num(a, "--xlen", xl, 64, err) ||
        !num(a, "--traps", traps, g.trap_per_million, err) || traps > 1000000)
        return usage(err.empty() ? "--traps takes 0..1000000" : err.c_str());
    const std::string *elf = a.get("--elf");
    if (!elf) return usage("ntrace gen needs --elf FILE (written) and -o FILE (PC-info)");
    g.seed = seed, g.xlen = unsigned(xl), g.trap_per_million = unsigned(traps);
    g.bad_return_per_mille = 0;
    trace::Program p(g);
    trace::Image img = p.image();
    img.entry = p.entry();
    if (!img.write_elf(*elf, err)) return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo;
    if (const std::string *raw = a.get("--raw")) {
        // The same bytes as a raw binary loaded at the program base (--bin/--load input).
        FILE *f = fopen(raw->c_str(), "wb");
        const auto &sg = img.segments().front();
        if (!f || fwrite(sg.bytes.data(), 1, sg.bytes.size(), f) != sg.bytes.size() || fclose(f))
            return fprintf(stderr, "tsbi-trace: cannot write %s\n", raw->c_str()), kIo;
        printf("raw image loads at 0x%llx\n", (unsigned long long)sg.base);
    }
    // Each line is written once the next address tells taken from not taken, so memory
    // stays bounded whatever the count.
    Output o;
    if (!o.open(a)) return kIo;
    bool written;
    {
        trace::LineWriter w(o.f);
        bool have_prev = false;
        uint64_t prev = 0;
        p.run(n, [&](const trace::GenEvent &ev) {
            if (ev.kind != trace::GenEvent::Retire) return;
            if (have_prev) w.pcinfo(trace::pcinfo_one(img, prev, true, ev.addr));
            prev = ev.addr, have_prev = true;
        });
        if (have_prev) w.pcinfo(trace::pcinfo_one(img, prev, false, 0));
        written = w.flush();
    }
    return o.close() && written ? kOk : kIo;
}

// The project QEMU's E-Trace data trace parameters (hw_models/qemu/README.md "E-Trace
// data trace"), for `etrace decode --data` and `linux decode --data`: unified loads,
// stores and atomics, no CSR accesses (a 3-bit format field: the defaults),
// data_width_p and daddress_width_p 64, XOR and differential compression.
etrace::Params qemu_data_params() {
    return etrace::Params{};
}

// E-Trace instruction trace: decode to retired PCs (as ntrace decode prints them), or
// list the packets.
int etrace_inst_main(const Args &a) {
    std::string err;
    etrace::InstParams p;
    uint64_t sb, src;
    if (!num(a, "--src-bits", sb, 0, err) || !num(a, "--src", src, ~0ull, err)) return usage(err.c_str());
    p.src_bytes = unsigned((sb + 7) / 8);
    if (a.has("--rv32")) p.iaddress_width = 32;
    const bool dump = a.pos[1] == "idump";
    trace::Image img;
    if (!dump) {
        int li = load_image(a, img, err);
        if (li < 0) return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo;
        if (li == 0) return usage("etrace decode needs --elf FILE or --bin FILE --load ADDR");
    }
    const std::string path = a.pos.size() > 2 ? a.pos[2] : "-";
    FILE *in = path == "-" ? stdin : fopen(path.c_str(), "rb");
    if (!in) return fprintf(stderr, "tsbi-trace: cannot read input\n"), kIo;
    std::vector<uint8_t> data;
    std::vector<uint8_t> piece(1 << 20);
    for (size_t n; (n = fread(piece.data(), 1, piece.size(), in)) > 0;) data.insert(data.end(), piece.begin(), piece.begin() + n);
    if (in != stdin) fclose(in);
    Output o;
    if (!o.open(a)) return kIo;
    // Data trace packets (flow 1) of the selected source: the project QEMU's parameters
    // (unified loads, stores and atomics, no CSR: a 3-bit format field; data_width_p and
    // daddress_width_p 64, XOR and differential compression); the support packets tell
    // no-value/no-address.
    FILE *dout = nullptr;
    if (const std::string *dpath = a.get("--data")) {
        dout = *dpath == "-" ? stdout : fopen(dpath->c_str(), "w");
        if (!dout) return fprintf(stderr, "tsbi-trace: cannot write %s\n", dpath->c_str()), kIo;
    }
    const etrace::Params dp = qemu_data_params();
    std::map<unsigned, etrace::Decoder> ddec;
    uint64_t drecords = 0, bad = 0;
    auto data_packet = [&](unsigned id, unsigned type, std::span<const uint8_t> pl, size_t at) -> std::string {
        etrace::Decoder &dd = ddec.try_emplace(id, dp).first->second;
        etrace::Record r;
        const etrace::Err e = dd.decode(type, pl, r);
        if (e != etrace::Err::None) {
            fprintf(stderr, "# error at offset %zu: data trace: %s\n", at, etrace::err_name(e));
            bad++;
            return {};
        }
        if (r.kind == etrace::Kind::Support) return r.dloss ? "data_lost" : "";
        if (r.kind == etrace::Kind::Sync) return {};
        drecords++;
        return etrace::format_record(r);
    };
    std::string buf;
    etrace::InstDecoder d(p, img, [&](uint64_t pc) {
        char line[24];
        buf.append(line, size_t(snprintf(line, sizeof line, "0x%llX\n", (unsigned long long)pc)));
        if (buf.size() > (1 << 16)) o.write(buf), buf.clear();
    });
    size_t off = 0, at = 0;
    unsigned id, flow;
    std::span<const uint8_t> pl;
    while (at = off, etrace::next_inst_packet(p, data, off, id, pl, err, &flow)) {
        if (a.has("--src") && id != src) continue;
        if (flow == etrace::kFlowData) {
            const std::string line = data_packet(id, 1, pl, at);
            if (dump) {
                char head[40];
                snprintf(head, sizeof head, "%zu src=%u data ", at, id);
                o.write(head + line + "\n");
            } else if (dout && !line.empty()) {
                fprintf(dout, "%s\n", line.c_str());
            }
            continue;
        }
        if (flow != etrace::kFlowInst) {
            fprintf(stderr, "# error at offset %zu: unknown flow %u\n", at, flow);
            bad++;
            continue;
        }
        etrace::InstPacket k;
        if (!etrace::parse_inst(p, pl, k, err)) {
            fprintf(stderr, "# error at offset %zu: %s\n", at, err.c_str());
            bad++;
            continue;
        }
        // Synchronization packets restart data compression; support packets carry
        // denable, dloss and doptions.
        if (k.format == 3 && k.subformat != 2) {
            const std::string line = data_packet(id, 0, pl, at);
            if (dout && !dump && !line.empty()) fprintf(dout, "%s\n", line.c_str());
        }
        if (dump) {
            char head[40];
            snprintf(head, sizeof head, "%zu src=%u ", at, id);
            o.write(head + etrace::format_inst(k) + "\n");
        } else {
            d.packet(k, at);
        }
    }
    if (!err.empty()) fprintf(stderr, "# error at offset %zu: %s\n", off, err.c_str()), bad++;
    d.finish();
    o.write(buf);
    if (dout && dout != stdout && fclose(dout)) return kIo;
    if (dout) fprintf(stderr, "# %llu data trace records\n", (unsigned long long)drecords);
    if (d.notifies())
        fprintf(stderr, "tsbi-trace: %llu trace-notify packets (notify != address MSB)\n",
                (unsigned long long)d.notifies());
    if (!o.close()) return kIo;
    return bad || d.errors() ? kBadData : kOk;
}

int ntrace_main(const Args &a) {
    if (a.pos[1] == "gen") return ntrace_gen(a);
    const std::string &cmd = a.pos[1];
    if (cmd == "dump") return ntrace_dump(a);
    if (cmd == "decode") return ntrace_decode(a);
    if (cmd == "transfers") return ntrace_transfers(a);
    if (cmd == "encode") return ntrace_encode(a);
    if (cmd == "selftest") return ntrace_selftest(a);
    return usage(("unknown ntrace command " + cmd).c_str());
}

// ---- linux -----------------------------------------------------------------------------
// The firmware's boot-time trace buffer (README "Traced Linux boot"): a 4096-byte
// header at a 2 MiB aligned address, the SMEM trace bytes after it.
struct TraceHeader {
    uint64_t base, start, limit, wp, harts;
    uint32_t version, state, flags, mode, src_bits, features, control;
};
constexpr uint64_t kTraceMagic = 0x4543525449425354ull; // "TSBITRCE"

bool find_header(const uint8_t *ram, uint64_t size, uint64_t ram_base, TraceHeader &h) {
    for (uint64_t off = (size - 1) & ~((2ull << 20) - 1); off + 4096 <= size; off -= 2ull << 20) {
        uint64_t magic;
        memcpy(&magic, ram + off, 8);
        if (magic == kTraceMagic) {
            auto u32 = [&](unsigned o) { uint32_t v; memcpy(&v, ram + off + o, 4); return v; };
            auto u64 = [&](unsigned o) { uint64_t v; memcpy(&v, ram + off + o, 8); return v; };
            h = {ram_base + off, u64(0x10), u64(0x18), u64(0x20), u64(0x40),
                 u32(0x08), u32(0x28), u32(0x2C), u32(0x30), u32(0x34), u32(0x38), u32(0x3C)};
            return true;
        }
        if (!off) break;
    }
    return false;
}

// Per hart: instructions (optionally to a run file) and, with symbols, a histogram
// by function.
struct LinuxSink : ntrace::DecodeSink {
    const kernel::Symbols *syms;
    uint64_t load, virt, size;
    std::vector<uint64_t> hist;
    uint64_t lo = 0, hi = 0; // current function's range (empty: look up)
    long cur = -1;
    uint64_t n = 0, errors = 0, stops = 0, syncs = 0;
    std::unique_ptr<runs::Writer> w;
    LinuxSink(const kernel::Symbols *s, uint64_t l, uint64_t v, uint64_t sz) : syms(s), load(l), virt(v), size(sz) {
        if (syms) hist.assign(syms->syms.size(), 0);
    }
    void insns(const uint64_t *a, size_t k) override {
        n += k;
        if (w)
            for (size_t i = 0; i < k; i++) w->add(a[i]);
        if (!syms) return;
        for (size_t i = 0; i < k; i++) {
            uint64_t pc = a[i];
            if (pc - load < size) pc = pc - load + virt; // before the MMU: the physical alias
            if (pc - lo >= hi - lo) {
                cur = syms->lookup(pc);
                if (cur < 0) {
                    lo = hi = 0;
                    continue;
                }
                lo = syms->syms[size_t(cur)].addr;
                hi = size_t(cur) + 1 < syms->syms.size() ? syms->syms[size_t(cur) + 1].addr : ~0ull;
            }
            hist[size_t(cur)]++;
        }
    }
    void event(const ntrace::Event &e) override {
        if (e.kind == ntrace::Event::Error || e.kind == ntrace::Event::Lost) {
            if (errors++ < 10)
                fprintf(stderr, "# hart error at offset %llu: addr=0x%llX %s\n", (unsigned long long)e.offset,
                        (unsigned long long)e.addr, e.what);
        }
        if (e.kind == ntrace::Event::Stop) stops++;
        if (e.kind == ntrace::Event::Sync) syncs++;
    }
};

int linux_decode(const Args &a) {
    std::string err;
    if (a.pos.size() != 3) return usage("linux decode RAM.bin --image Image [options]");
    const std::string *image = a.get("--image");
    if (!image) return usage("linux decode needs --image Image");
    uint64_t ram_base, load, virt, top;
    if (!num(a, "--ram-base", ram_base, 0x80000000ull, err) || !num(a, "--load", load, 0x80200000ull, err) ||
        !num(a, "--virt", virt, 0xffffffff80000000ull, err) || !num(a, "--top", top, 10, err))
        return usage(err.c_str());
    const int fd = open(a.pos[2].c_str(), O_RDONLY);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) || st.st_size < 4096)
        return fprintf(stderr, "tsbi-trace: cannot read %s\n", a.pos[2].c_str()), kIo;
    const uint64_t rsize = uint64_t(st.st_size);
    auto *ram = static_cast<const uint8_t *>(mmap(nullptr, rsize, PROT_READ, MAP_SHARED, fd, 0));
    close(fd);
    if (ram == MAP_FAILED) return fprintf(stderr, "tsbi-trace: cannot map %s\n", a.pos[2].c_str()), kIo;
    TraceHeader h;
    if (!find_header(ram, rsize, ram_base, h))
        return fprintf(stderr, "tsbi-trace: no TSBITRCE trace buffer in %s\n", a.pos[2].c_str()), kBadData;
    printf("trace buffer at 0x%llx: version %u, state %u (%s), flags 0x%x%s%s, InstMode %u, SrcBits %u, harts 0x%llx\n",
           (unsigned long long)h.base, h.version, h.state, h.state == 2 ? "stopped and flushed" : "NOT stopped",
           h.flags, h.flags & 1 ? " wrapped" : "", h.flags & 2 ? " DATA LOST" : "", h.mode, h.src_bits,
           (unsigned long long)h.harts);
    if (h.version != 1 || h.state != 2 || h.start < ram_base || h.limit + 4 - ram_base > rsize || h.wp < h.start ||
        h.wp > h.limit + 4 || h.start > h.limit)
        return fprintf(stderr, "tsbi-trace: the buffer is not complete (state %u) or its header is invalid\n", h.state),
               kBadData;
    // Oldest bytes first: after a wrap they start at the write pointer (copied into
    // one piece); otherwise the mapped buffer itself (a data-traced boot has GBs).
    std::vector<uint8_t> wrapped;
    const uint8_t *s = ram + (h.start - ram_base), *w = ram + (h.wp - ram_base), *e = ram + (h.limit + 4 - ram_base);
    const bool mid = h.flags & 1;
    if (mid) {
        wrapped.insert(wrapped.end(), w, e);
        wrapped.insert(wrapped.end(), s, w);
    }
    const std::span<const uint8_t> bytes = mid ? std::span<const uint8_t>(wrapped) : std::span<const uint8_t>(s, w);

    // The image at its load (physical, before the MMU is on) and link addresses.
    std::vector<uint8_t> img_bytes;
    if (!read_input(*image, img_bytes) || img_bytes.empty())
        return fprintf(stderr, "tsbi-trace: cannot read %s\n", image->c_str()), kIo;
    trace::Image img;
    img.add(load, img_bytes);
    img.add(virt, img_bytes);
    kernel::Symbols syms;
    const std::string *sp = a.get("--syms");
    if (sp && !syms.load(*sp, err)) return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kIo;
    trace::TextPatches tp;
    if (!a.has("--no-patches")) {
        if (!sp) return usage("following the kernel's code patching needs --syms (or --no-patches)");
        kernel::PatchSummary ps;
        tp.size = img_bytes.size();
        tp.aliases = {load, virt};
        // The text at the end of the run: RAM at the image's load address.
        const uint8_t *fin = load >= ram_base && load - ram_base + img_bytes.size() <= rsize ? ram + (load - ram_base)
                                                                                             : nullptr;
        if (!kernel::riscv_patches(img_bytes, fin, virt, syms, img.opts, tp, ps, err))
            return fprintf(stderr, "tsbi-trace: %s\n", err.c_str()), kBadData;
        // E-Trace cannot tell a static key's versions apart where they differ only in
        // straight-line code (no instruction counts): such a site is taken in the
        // version it has at the end (keys are mostly set once, early in the boot)
        // until the trace shows otherwise at a site of the same key. The N-Trace
        // decoder sees every difference (I-CNT) and starts from the Image.
        if (ntrace::te_get(h.control, NT_TE(trTeControl, Format)) == TCI_FORMAT_ETRACE)
            for (uint32_t i : ps.final_toggled) tp.belief[i] = 1;
        img.set_volatile(tp.volatile_halfwords());
        printf("rewritten code: %zu ftrace sites (each applied at 0x%llx), %zu alternatives of %zu features (each "
               "applied at 0x%llx), %zu alternatives and %zu static keys followed in the trace, %zu entries skipped\n",
               ps.ftrace, (unsigned long long)ps.ftrace_trigger, ps.alternative, ps.features,
               (unsigned long long)ps.alt_trigger, ps.alternative_free, ps.jump, ps.skipped);
    }

    ntrace::EncoderConfig ec;
    ec.trTeControl = h.control, ec.trTeInstFeatures = h.features;
    ntrace::DecoderConfig dc;
    dc.fr = ec.framing();
    dc.fr.src_bits = uint8_t(h.src_bits);
    dc.fr.xlen = 64;
    dc.implicit_return = ec.implicit_return() != 0;
    dc.all_jumps = ec.all_jumps();
    dc.seq_jump = ec.sequential_jump();
    dc.max_steps = (uint64_t(bytes.size()) + 1) << 24;
    if (!a.has("--no-patches")) dc.patches = &tp;

    // E-Trace (trTeFormat 0, tsbi,trace-format = "etrace"): packets in the RISC-V
    // encapsulation, the SrcID in whole bytes after each header byte.
    const bool etr = ntrace::te_get(h.control, NT_TE(trTeControl, Format)) == TCI_FORMAT_ETRACE;
    etrace::InstParams ep;
    ep.src_bytes = (h.src_bits + 7) / 8;
    const std::string *dpfx = a.get("--data");
    if (dpfx && !etr) return usage("linux decode --data needs an E-Trace buffer (data trace is E-Trace only)");
    if (etr && mid)
        return fprintf(stderr, "tsbi-trace: the E-Trace buffer wrapped: its first packet is cut (use a larger "
                               "tsbi,trace-size)\n"),
               kBadData;
    // Message (packet) bytes per trace source.
    struct Count : ntrace::Callbacks {
        std::vector<uint64_t> bytes = std::vector<uint64_t>(4096);
        uint64_t errors = 0;
        void on_msg(const ntrace::Msg &m) override {
            bytes[m.has(ntrace::Fld::SRC) ? m.get(ntrace::Fld::SRC) & 0xFFF : 0] += m.length;
        }
        void on_error(uint64_t, ntrace::Err) override { errors++; }
    } cnt;
    if (etr) {
        size_t off = 0, at = 0;
        unsigned id;
        std::span<const uint8_t> pl;
        while (at = off, etrace::next_inst_packet(ep, bytes, off, id, pl, err)) cnt.bytes[id & 0xFFF] += off - at;
        if (!err.empty()) fprintf(stderr, "# error at offset %zu: %s\n", off, err.c_str()), cnt.errors++;
    } else {
        ntrace::parse(dc.fr, bytes, cnt, mid);
    }
    printf("%zu trace bytes, %s%s\n", bytes.size(), etr ? "E-Trace" : "N-Trace",
           mid ? " (wrapped: decoding from the first synchronisation)" : "");

    int rc = h.flags & 2 ? kBadData : kOk;
    std::string table = "hart  instructions        bytes  bits/insn  errors\n", tops;
    for (unsigned hart = 0; hart < 64; hart++) {
        if (!(h.harts >> hart & 1)) continue;
        LinuxSink sink(sp ? &syms : nullptr, load, virt, img_bytes.size());
        FILE *f = nullptr;
        if (const std::string *o = a.get("-o")) {
            f = fopen((*o + "." + std::to_string(hart)).c_str(), "wb");
            if (!f) return fprintf(stderr, "tsbi-trace: cannot write %s.%u\n", o->c_str(), hart), kIo;
            setvbuf(f, nullptr, _IOFBF, 1 << 20);
            sink.w = std::make_unique<runs::Writer>(f);
        }
        uint64_t errors;
        // --data: the hart's data packets (flow 1) as an access record; the
        // synchronization and support packets (format 3) restart the data compression
        // and report lost data.
        FILE *df = nullptr;
        std::unique_ptr<acc::Writer> dw;
        if (dpfx) {
            df = fopen((*dpfx + "." + std::to_string(hart)).c_str(), "wb");
            if (!df) return fprintf(stderr, "tsbi-trace: cannot write %s.%u\n", dpfx->c_str(), hart), kIo;
            setvbuf(df, nullptr, _IOFBF, 1 << 20);
            dw = std::make_unique<acc::Writer>(df);
        }
        etrace::Decoder dd(qemu_data_params());
        uint64_t dbytes = 0, dlost = 0, derrors = 0, datomic = 0;
        auto data_packet = [&](unsigned type, std::span<const uint8_t> pl, size_t at) {
            etrace::Record r;
            const etrace::Err e = dd.decode(type, pl, r);
            if (e != etrace::Err::None) {
                if (derrors++ < 10)
                    fprintf(stderr, "# hart %u data error at offset %zu: %s\n", hart, at, etrace::err_name(e));
                return;
            }
            acc::Access x;
            switch (r.kind) {
            case etrace::Kind::Sync: return;
            case etrace::Kind::Support:
                if (!r.dloss) return;
                dlost++;
                x.lost = true;
                break;
            case etrace::Kind::Load:
            case etrace::Kind::Store:
            case etrace::Kind::SplitLoadAddr:
            case etrace::Kind::SplitLoadData: x.store = r.kind == etrace::Kind::Store; break;
            case etrace::Kind::Csr: x.cls = acc::kOther; break;
            case etrace::Kind::Atomic:
            case etrace::Kind::ScFail:
                x.cls = acc::kAtomic, x.packet = true;
                datomic++;
                x.op = uint8_t(r.kind == etrace::Kind::ScFail ? acc::kOpScFail : r.subtype & 7);
                x.operand = r.operand;
                break;
            default: x.cls = acc::kAtomic; break; // split atomics (not from this encoder)
            }
            x.size = uint8_t(r.size), x.addr = r.addr, x.value = r.data;
            dw->add(x);
        };
        if (etr) {
            etrace::InstDecoder d(
                ep, img, etrace::InstDecoder::Bulk([&](const uint64_t *pcs, size_t k) { sink.insns(pcs, k); }),
                a.has("--no-patches") ? nullptr : &tp);
            d.max_steps = dc.max_steps;
            if (sp) {
                // An indirect call into the kernel's text goes to a symbol's address
                // (a function's entry); elsewhere (modules, BPF) anything goes.
                const uint64_t text_end = virt + img_bytes.size();
                d.call_target_ok = [&syms, virt, text_end](uint64_t a) {
                    if (a < virt || a >= text_end) return true;
                    const long i = syms.lookup(a);
                    return i >= 0 && syms.syms[size_t(i)].addr == a;
                };
            }
            size_t off = 0, at = 0;
            unsigned id, flow;
            std::span<const uint8_t> pl;
            std::string perr;
            uint64_t bad = 0;
            while (at = off, etrace::next_inst_packet(ep, bytes, off, id, pl, perr, &flow)) {
                if (id != hart) continue;
                if (flow == etrace::kFlowData) {
                    dbytes += off - at;
                    if (dw) data_packet(1, pl, at);
                    continue;
                }
                if (flow != etrace::kFlowInst) {
                    if (bad++ < 10) fprintf(stderr, "# hart error at offset %zu: unknown flow %u\n", at, flow);
                    continue;
                }
                etrace::InstPacket k;
                if (!etrace::parse_inst(ep, pl, k, perr)) {
                    if (bad++ < 10) fprintf(stderr, "# hart error at offset %zu: %s\n", at, perr.c_str());
                    perr.clear();
                    continue;
                }
                if (dw && k.format == 3 && k.subformat != 2) data_packet(0, pl, at);
                d.packet(k, at);
            }
            d.finish();
            errors = d.errors() + bad + !perr.empty() + derrors;
        } else {
            dc.src = int(hart);
            ntrace::Decoder d(dc, img, sink);
            d.run(bytes, mid);
            errors = d.errors();
        }
        sink.w.reset();
        if (f && fclose(f)) return kIo;
        if (dw) {
            char line[256];
            snprintf(line, sizeof line,
                     "hart %u: %llu data trace accesses decoded from %llu bytes of data packets (%.2f bytes each), "
                     "%llu atomic packets, %llu lost-data reports, %llu data errors\n",
                     hart, (unsigned long long)dw->accesses(), (unsigned long long)dbytes,
                     dw->accesses() ? double(dbytes) / double(dw->accesses()) : 0.0, (unsigned long long)datomic,
                     (unsigned long long)dlost, (unsigned long long)derrors);
            tops += line;
            dw.reset();
            if (fclose(df)) return kIo;
            if (dlost) rc = kBadData;
        }
        if (errors || !sink.n) rc = kBadData;
        const uint64_t b = cnt.bytes[hart];
        char line[160];
        snprintf(line, sizeof line, "%4u  %12llu  %11llu  %9.3f  %6llu\n", hart, (unsigned long long)sink.n,
                 (unsigned long long)b, sink.n ? 8.0 * double(b) / double(sink.n) : 0.0,
                 (unsigned long long)errors);
        table += line;
        if (sp && top) {
            std::vector<size_t> idx;
            for (size_t i = 0; i < sink.hist.size(); i++)
                if (sink.hist[i]) idx.push_back(i);
            std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return sink.hist[x] > sink.hist[y]; });
            snprintf(line, sizeof line, "hart %u: top functions (of %zu executed)\n", hart, idx.size());
            tops += line;
            for (size_t i = 0; i < idx.size() && i < top; i++) {
                snprintf(line, sizeof line, "  %6.2f%%  %12llu  %s\n", 100.0 * double(sink.hist[idx[i]]) / double(sink.n),
                         (unsigned long long)sink.hist[idx[i]], syms.syms[idx[i]].name.c_str());
                tops += line;
            }
        }
    }
    if (!a.has("--no-patches"))
        printf("rewritten code: %zu of %zu ftrace sites and %zu of %zu alternatives applied, %llu version switches "
               "of free sites, %llu backtracks\n",
               tp.cursor[0], tp.scheduled_count(0), tp.cursor[1], tp.scheduled_count(1),
               (unsigned long long)tp.switches, (unsigned long long)tp.backtracks);
    fputs(tops.c_str(), stdout);
    fputs(table.c_str(), stdout);
    munmap(const_cast<uint8_t *>(ram), rsize);
    return rc;
}

// ---- runs ----------------------------------------------------------------------------
int runs_main(const Args &a) {
    std::string err;
    const std::string &cmd = a.pos[1];
    if (cmd == "compare") {
        if (a.pos.size() != 4) return usage("runs compare DECODED RECORD");
        uint64_t tail;
        if (!num(a, "--max-tail", tail, 0, err)) return usage(err.c_str());
        runs::Reader d(a.pos[2]), r(a.pos[3]);
        if (!d.ok() || !r.ok())
            return fprintf(stderr, "tsbi-trace: %s\n", (d.ok() ? r : d).error().c_str()), kIo;
        const runs::CompareResult c = runs::compare(d, r, tail);
        printf("%s\n", c.message.c_str());
        return c.equal ? kOk : kBadData;
    }
    if (cmd == "stat" || cmd == "dump") {
        if (a.pos.size() != 3) return usage(("runs " + cmd + " FILE").c_str());
        runs::Reader r(a.pos[2]);
        if (!r.ok()) return fprintf(stderr, "tsbi-trace: %s\n", r.error().c_str()), kIo;
        uint64_t pc, n = 0, jumps = 0, last = 0;
        std::string line;
        while (r.next(pc)) {
            if (n && pc - last != 2 && pc - last != 4) jumps++;
            last = pc, n++;
            if (cmd == "dump") {
                char b[24];
                snprintf(b, sizeof b, "0x%llX\n", (unsigned long long)pc);
                line += b;
                if (line.size() > 60000) fputs(line.c_str(), stdout), line.clear();
            }
        }
        fputs(line.c_str(), stdout);
        if (!r.error().empty()) return fprintf(stderr, "tsbi-trace: %s\n", r.error().c_str()), kBadData;
        if (cmd == "stat")
            printf("%llu instructions, %llu non-sequential steps\n", (unsigned long long)n, (unsigned long long)jumps);
        return kOk;
    }
    return usage(("unknown runs command " + cmd).c_str());
}

// ---- acc -----------------------------------------------------------------------------
int acc_main(const Args &a) {
    std::string err;
    const std::string &cmd = a.pos[1];
    if (cmd == "compare") {
        if (a.pos.size() != 4) return usage("acc compare DECODED RECORD");
        acc::CompareOptions o;
        if (!num(a, "--max-tail", o.max_tail, 0, err)) return usage(err.c_str());
        if (const std::string *k = a.get("--keep")) {
            for (size_t p = 0; p <= k->size();) {
                size_t q = k->find(',', p);
                if (q == std::string::npos) q = k->size();
                const std::string c = k->substr(p, q - p);
                unsigned i = 1;
                while (i < acc::kClasses && c != acc::class_name(i)) i++;
                if (i == acc::kClasses) return usage(("--keep: unknown class " + c).c_str());
                o.skip &= ~(1u << i);
                p = q + 1;
            }
        }
        if (const std::string *m = a.get("--atomics")) {
            if (*m != "pair" && *m != "skip") return usage("--atomics: pair or skip");
            o.pair_atomics = *m == "pair";
        }
        acc::Reader d(a.pos[2]), r(a.pos[3]);
        if (!d.ok() || !r.ok()) return fprintf(stderr, "tsbi-trace: %s\n", (d.ok() ? r : d).error().c_str()), kIo;
        const acc::CompareResult c = acc::compare(d, r, o);
        printf("%s\n", c.message.c_str());
        return c.equal ? kOk : kBadData;
    }
    if (cmd == "stat" || cmd == "dump") {
        if (a.pos.size() != 3) return usage(("acc " + cmd + " FILE").c_str());
        acc::Reader r(a.pos[2]);
        if (!r.ok()) return fprintf(stderr, "tsbi-trace: %s\n", r.error().c_str()), kIo;
        acc::Access x;
        uint64_t n[acc::kClasses][2] = {}, lost = 0;
        std::string out;
        while (r.next(x)) {
            if (x.lost)
                lost++;
            else
                n[x.cls][x.store]++;
            if (cmd == "dump") {
                out += acc::format(x) + "\n";
                if (out.size() > 60000) fputs(out.c_str(), stdout), out.clear();
            }
        }
        fputs(out.c_str(), stdout);
        if (!r.error().empty()) return fprintf(stderr, "tsbi-trace: %s\n", r.error().c_str()), kBadData;
        if (cmd == "stat") {
            printf("%llu accesses", (unsigned long long)r.read());
            for (unsigned c = 0; c < acc::kClasses; c++)
                if (n[c][0] || n[c][1])
                    printf(", %s: %llu loads %llu stores", acc::class_name(c), (unsigned long long)n[c][0],
                           (unsigned long long)n[c][1]);
            printf(", %llu lost-data markers\n", (unsigned long long)lost);
        }
        return kOk;
    }
    return usage(("unknown acc command " + cmd).c_str());
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2) return usage("missing FORMAT");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(kUsageText, stdout);
        return kOk;
    }
    Args a;
    std::string err;
    if (!parse_args(argc, argv, 1, a, err)) return usage(err.c_str());
    if (a.has("--help")) {
        fputs(kUsageText, stdout);
        return kOk;
    }
    if (a.pos.size() < 2) return usage("missing COMMAND");
    if (a.pos[0] == "ntrace") return ntrace_main(a);
    if (a.pos[0] == "etrace" && (a.pos[1] == "decode" || a.pos[1] == "idump")) return etrace_inst_main(a);
    if (a.pos[0] == "etrace") return etrace::cli_main(a.pos, a.opts);
    if (a.pos[0] == "tv") return tv::cli_main(a.pos, a.opts);
    if (a.pos[0] == "runs") return runs_main(a);
    if (a.pos[0] == "acc") return acc_main(a);
    if (a.pos[0] == "linux" && a.pos[1] == "decode") return linux_decode(a);
    return usage(("unknown FORMAT " + a.pos[0]).c_str());
}
