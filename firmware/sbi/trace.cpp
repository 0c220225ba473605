// SPDX-License-Identifier: BSD-2-Clause
// The firmware-specific SBI trace extension (ext-firmware.adoc: EID
// 0x0A000000 | low 24 bits of the implementation ID = 0x0A736269). Its ABI
// is documented in firmware/trace/README.md; the state behind it is
// firmware/trace/service.cpp. This file decodes and checks the arguments.
#include "ecall_list.hpp"
#include "fw.hpp"
#include "services.hpp"
#include "trace/service.hpp"

namespace sbi {
namespace {

enum : unsigned long {
    TRACE_GET_CAPS = 0,
    TRACE_CONFIGURE = 1,
    TRACE_SET_SINK = 2,
    TRACE_START = 3,
    TRACE_STOP = 4,
    TRACE_GET_STATUS = 5,
    TRACE_READ_SRAM = 6,
    TRACE_SET_FILTER = 7,
};

long probe() { return trace::available(); }

SbiRet result(Error e, unsigned long value = 0) {
    return e == Error::Success ? ok(value) : err(e);
}

// The targets (SBI "Hart list parameter": any hart IDs) as the service's
// mask of encoder slots; a named hart without a slot has no encoder:
// NOT_SUPPORTED, as the service answers for one. Base -1 takes the harts
// that have one.
Error harts_of(unsigned long mask, unsigned long base, trace::HartMask &out) {
    constexpr unsigned xlen = sizeof(long) * 8;
    HartBitmap b;
    out = trace::HartMask{};
    if (Error e = targets_from_mask(mask, base, b); e != Error::Success) return e;
    for (unsigned w = 0, n = fw::hart_words(); w < n; w++)
        for (unsigned long m = b.w[w]; m; m &= m - 1) {
            const unsigned s = trace::slot(fw::hart_at(w * xlen + __builtin_ctzl(m)).hartid);
            if (s == trace::kNoSlot) {
                if (base == ~0ul) continue;
                return Error::NotSupported;
            }
            out.set(s);
        }
    return Error::Success;
}

// A physical address from (lo, hi) as the SBI passes them: hi holds the
// upper bits on RV32 and must be 0 on RV64.
bool phys(unsigned long lo, unsigned long hi, uint64_t &addr) {
    if (sizeof(long) == 8 && hi) return false;
    addr = lo | (sizeof(long) == 4 ? static_cast<uint64_t>(hi) << 32 : 0);
    return true;
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
              unsigned long a4, unsigned long, unsigned long fid) {
    if (!trace::available()) return err(Error::NotSupported);
    trace::HartMask harts;
    Error e;
    uint64_t addr;
    switch (fid) {
    case TRACE_GET_CAPS: {
        if (!fw::hart_valid(a0)) return err(Error::InvalidParam);
        unsigned long v;
        e = trace::get_caps(a0, v);
        return result(e, v);
    }
    case TRACE_CONFIGURE:
        if ((e = harts_of(a0, a1, harts)) != Error::Success) return err(e);
        // The configuration word is 32 bits wide: only a2's low half counts.
        return result(trace::configure(harts, static_cast<uint32_t>(a2)));
    case TRACE_SET_SINK:
        // flags is 32 bits wide; an address in (lo, hi); the size in a3.
        if (!phys(a1, a2, addr)) return err(Error::InvalidAddress);
        return result(trace::set_sink(static_cast<uint32_t>(a0), addr, a3));
    case TRACE_START:
    case TRACE_STOP:
        if ((e = harts_of(a0, a1, harts)) != Error::Success) return err(e);
        return result(fid == TRACE_START ? trace::start(harts) : trace::stop(harts));
    case TRACE_GET_STATUS: {
        if (a0 & (alignof(uint64_t) - 1)) return err(Error::InvalidParam);
        if (!phys(a0, a1, addr) || !trace::s_mode_range_ok(addr, sizeof(trace::Status)))
            return err(Error::InvalidAddress);
        // a2: the first hart ID of the two hart words (README).
        trace::Status s;
        e = trace::get_status(s, a2);
        if (e == Error::Success) {
            auto *dst = reinterpret_cast<volatile uint64_t *>(static_cast<uintptr_t>(addr));
            auto *src = reinterpret_cast<const uint64_t *>(&s);
            for (unsigned i = 0; i < sizeof s / sizeof(uint64_t); i++) dst[i] = src[i];
        }
        return result(e);
    }
    case TRACE_READ_SRAM: {
        if (a3 && (!phys(a1, a2, addr) || !trace::s_mode_range_ok(addr, a3)))
            return err(Error::InvalidAddress);
        uint64_t copied;
        e = trace::read_sram(a0, a3 ? reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(addr)) : nullptr,
                             a3, copied);
        return result(e, static_cast<unsigned long>(copied));
    }
    case TRACE_SET_FILTER:
        // Instruction (virtual) addresses, XLEN bits each; flags in a4.
        if ((e = harts_of(a0, a1, harts)) != Error::Success) return err(e);
        return result(trace::set_filter(harts, a2, a3, a4));
    default: return err(Error::NotSupported);
    }
}
} // namespace

extern const Extension sbi_ext_trace = {probe, handle};
} // namespace sbi
