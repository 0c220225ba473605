// SPDX-License-Identifier: BSD-2-Clause
// Debug console extension (ext-debug-console.adoc) and the shared-memory
// physical address rules it points to (binary encoding, "Shared memory
// physical address range parameter"). The function tables name
// SBI_ERR_INVALID_PARAM for memory that breaks those rules, so that is what
// every hostile range must get. Console input comes from the runner
// (TSBI-SEND), console output is checked by the runner (TSBI-EXPECT).
#include "payload.hpp"

using namespace pl;

PAYLOAD_NAME("dbcn");

namespace {

namespace D = fid::dbcn;

SbiRet dbcn_write(unsigned long n, unsigned long lo, unsigned long hi = 0) {
    return sbi_call(eid::dbcn, D::write, n, lo, hi);
}
SbiRet dbcn_read(unsigned long n, unsigned long lo, unsigned long hi = 0) {
    return sbi_call(eid::dbcn, D::read, n, lo, hi);
}
SbiRet dbcn_write_byte(unsigned long b) { return sbi_call(eid::dbcn, D::write_byte, b); }
unsigned long addr(const volatile void *p) { return reinterpret_cast<uintptr_t>(p); }

char rx[64];

// After a rejected read with input typed: the byte is still there (rx[0]).
bool input_kept(char want) {
    memset(rx, 0, sizeof rx);
    unsigned long got = 0;
    wait_until(
        [&] {
            got = dbcn_read(1, addr(rx)).value;
            return got != 0;
        },
        kPatience);
    return got == 1 && rx[0] == want;
}

void write_cases() {
    static const char text[] = "dbcn-write-ok\n";
    const unsigned long len = sizeof text - 1;
    clause("dbcn/console_write/writes");
    expect_console_line("write/console_text", "dbcn-write-ok");
    unsigned long done = 0;
    bool ok = true;
    for (int calls = 0; done < len && calls < 100; calls++) {
        SbiRet r = dbcn_write(len - done, addr(text + done));
        // Non-blocking: partial writes are allowed, errors and overshoot not.
        if (r.error != SUCCESS || r.value > len - done) {
            ok = false;
            fail("bad sbiret", "write/call error=%ld value=0x%lx", r.error, r.value);
            break;
        }
        done += r.value;
    }
    expect_true(ok, "write/returns_success");
    expect_eq(done, len, "write/all_bytes_written");
    expect_ret(dbcn_write(0, addr(text)), SUCCESS, 0, "write/zero_bytes");
}

void write_byte_cases() {
    clause("dbcn/console_write_byte/writes");
    expect_console_line("write_byte/console_text", "dbcn-byte-ok!");
    bool ok = true;
    for (const char *s = "dbcn-byte-ok"; *s; s++) {
        SbiRet r = dbcn_write_byte(static_cast<unsigned char>(*s));
        ok &= r.error == SUCCESS && r.value == 0;
    }
    // uint8_t parameter: only the low 8 bits count (binary encoding: data
    // narrower than XLEN uses only its own bits).
    SbiRet hi = dbcn_write_byte(0xABCD00ul | '!');
    dbcn_write_byte('\n');
    expect_true(ok, "write_byte/success_value_zero");
    clause("encoding/32bit_args/write_byte");
    expect_ret(hi, SUCCESS, 0, "write_byte/upper_bits_ignored");
}

void read_cases() {
    clause("dbcn/console_read/reads");
    memset(rx, 0xEE, sizeof rx);
    SbiRet r = dbcn_read(sizeof rx, addr(rx));
    expect_ret(r, SUCCESS, 0, "read/no_input_returns_zero");
    expect_true(rx[0] == char(0xEE) && rx[15] == char(0xEE), "read/no_input_buffer_untouched");
    expect_ret(dbcn_read(0, addr(rx)), SUCCESS, 0, "read/zero_bytes");

    static const char want[] = "tsbi-in";
    const unsigned long len = sizeof want - 1;
    request_input(want);
    unsigned long got = 0;
    bool errors = false;
    wait_until(
        [&] {
            SbiRet x = dbcn_read(len - got, addr(rx + got));
            if (x.error != SUCCESS || x.value > len - got) errors = true;
            else got += x.value;
            return got >= len || errors;
        },
        kPatience);
    expect_true(!errors, "read/input/success");
    expect_eq(got, len, "read/input/byte_count");
    expect_true(got == len && memcmp(rx, want, len) == 0, "read/input/bytes");
}

struct Bad {
    const char *name;
    unsigned long n, lo, hi;
};

void hostile() {
    const Platform &p = platform();
    const unsigned long ram_end = p.ram_base + p.ram_size;
    const unsigned long buf = addr(rx);
    const Bad cases[] = {
        {"fw_region_start", 16, p.fw_base, 0},
        {"fw_region_end_straddle", 16, p.fw_base + p.fw_size - 8, 0},
        {"fw_region_one_byte", 1, p.fw_base + p.fw_size - 1, 0},
        {"covers_fw_region", p.fw_size + 0x1000, p.fw_base, 0},
        {"ram_end_straddle", 16, ram_end - 8, 0},
        {"ram_end", 1, ram_end, 0},
        {"beyond_ram_to_ram_end", p.ram_size, buf, 0},
        {"null", 8, 0, 0},
        {"base_hi_one", 8, buf, 1},
        {"base_hi_all_ones", 8, buf, ~0ul},
        {"wraps_around", ~0ul - buf + 2, buf, 0},
        {"size_all_ones", ~0ul, buf, 0},
        {"high_address", 8, ~0ul - 0xfff, 0},
    };
    // RV32 with RAM up to 2^32 and beyond (above_4g): the end of what
    // ram_size covers is RAM, not a hostile address.
    const bool top_is_ram = p.ram_base + p.ram_size64 > static_cast<uint64_t>(~0ul);
    for (const Bad &c : cases) {
        if (top_is_ram && (!strcmp(c.name, "ram_end_straddle") || !strcmp(c.name, "ram_end") ||
                           !strcmp(c.name, "high_address"))) {
            not_applicable("RAM reaches 2^XLEN", "invalid/%s", c.name);
            continue;
        }
        // binary-encoding.adoc, shared memory: an implementation "may return a
        // generic SBI_ERR_FAILED" for memory outside its own stricter limits;
        // a conformance run accepts it (tsbi: INVALID_PARAM, the DBCN table).
        clause("dbcn/console_write/INVALID_PARAM");
        expect_err_or(dbcn_write(c.n, c.lo, c.hi), ERR_INVALID_PARAM, ERR_FAILED,
                      "write/invalid/%s", c.name);
        clause("dbcn/console_read/INVALID_PARAM");
        expect_err_or(dbcn_read(c.n, c.lo, c.hi), ERR_INVALID_PARAM, ERR_FAILED,
                      "read/invalid/%s", c.name);
        expect_alive("invalid/%s", c.name);
    }
    // A rejected read with input waiting must neither write the firmware
    // nor swallow the input.
    clause("dbcn/console_read/INVALID_PARAM");
    request_input("Q");
    delay_us(200000);
    expect_err(dbcn_read(1, p.fw_base), ERR_INVALID_PARAM, "read/invalid_with_input/fw_region");
    expect_true(input_kept('Q'), "read/invalid_with_input/input_kept");
    expect_alive("read/invalid_with_input");
}

struct SmpWrite {
    SbiRet r;
    char text[32];
};
void smp_write_job(void *arg) {
    auto *s = static_cast<SmpWrite *>(arg);
    s->r = dbcn_write(strlen(s->text), addr(s->text));
}
void smp() {
    const Platform &p = platform();
    if (p.nharts < 2 || !start_secondaries()) return;
    clause("dbcn/console_write/writes");
    for (unsigned i = 0; i < p.nharts; i++) {
        unsigned long h = p.hartids[i];
        if (h == hartid()) continue;
        SmpWrite s{};
        snprintf(s.text, sizeof s.text, "dbcn-from-hart%lu\n", h);
        char line[32], name[32];
        snprintf(line, sizeof line, "dbcn-from-hart%lu", h);
        snprintf(name, sizeof name, "smp/hart%lu/console_text", h);
        expect_console_line(name, line);
        if (!run_on(h, smp_write_job, &s)) {
            fail("job timed out", "smp/hart%lu/write", h);
            continue;
        }
        expect_ret(s.r, SUCCESS, strlen(s.text), "smp/hart%lu/write", h);
    }
}

// RAM above 4 GiB (run with -m 5G): RV32 S-mode names it with base_addr_hi
// (Sv32 maps 34-bit physical addresses), but the firmware's M-mode accesses
// are XLEN bits wide and cannot reach it, so the range is refused
// (binary-encoding.adoc: "inaccessible with respect to its specific limits";
// the DBCN table's INVALID_PARAM, or FAILED) instead of being used through
// its alias below 4 GiB. RV64 refuses any base_addr_hi. A range that crosses
// 2^32 is plain RAM on RV64 and runs past 2^XLEN on RV32.
void above_4g() {
    const Platform &p = platform();
    clause("dbcn/console_read/INVALID_PARAM");
    if (p.ram_base + p.ram_size64 <= (1ull << 32) + 0x01000000) {
        not_applicable("RAM ends below 4 GiB + 16 MiB", "above_4g");
        return;
    }
    for (unsigned i = 0; i < sizeof rx; i++) rx[i] = 'x';
    request_input("H");
    delay_us(200000);
    expect_err_or(dbcn_read(1, addr(rx), 1), ERR_INVALID_PARAM, ERR_FAILED, "above_4g/read_hi_1");
    expect_true(rx[0] == 'x', "above_4g/alias_below_untouched");
    expect_err_or(dbcn_write(8, addr(rx), 1), ERR_INVALID_PARAM, ERR_FAILED, "above_4g/write_hi_1");
    expect_true(input_kept('H'), "above_4g/input_kept");
    // 8 bytes ending at 2^32 + 8, nothing typed: touches no byte.
    SbiRet r = dbcn_read(16, 0xFFFFFFF8ul);
    if constexpr (kXlen == 64) expect_ret(r, SUCCESS, 0, "above_4g/crossing_4g_is_ram");
    else expect_err_or(r, ERR_INVALID_PARAM, ERR_FAILED, "above_4g/crossing_2_to_xlen");
    expect_alive("above_4g");
}

} // namespace

void payload_main() {
    if (!extension_present(eid::dbcn, "present")) return;
    clause("base/probe_extension/tsbi_required");
    if (sbi_probe(eid::dbcn).value == 0) {
        fail("DBCN not available", "probe");
        return;
    }
    write_cases();
    write_byte_cases();
    read_cases();
    hostile();
    above_4g();
    smp();
}
