// SPDX-License-Identifier: BSD-2-Clause
// Access-record files: a stream of loads and stores (kind, size, address, value), the
// data-trace counterpart of the instruction-run files (runs.hpp). Written by the insnlog
// TCG plugin (`acc=S`: every load and store of S-mode code, the reference record of a
// data-traced Linux boot) and by `tsbi-trace linux decode --data PREFIX` (the decoded
// E-Trace data trace), and compared by streaming both (`tsbi-trace acc compare`), so a
// whole boot's 10^8 and more accesses need neither text files nor memory.
//
// Format: "TSBIACC1", then per access:
//   byte H: [2:0] size (log2 of the bytes, 0..4), [3] 1 store / 0 load,
//           [5:4] class: 0 plain load or store, 1 atomic instruction (AMO, LR, SC: an AMO
//           is a load of the old value and a store of the new one), 2 vector, 3 other
//           (a cache-block operation: QEMU reports cbo.zero as 64 byte stores; a CSR
//           access of the data trace),
//           [6] alone (H = 0x40): lost marker, the encoder reported lost data packets
//           here (no field follows); with class 1: an atomic data packet (below);
//           [7] a pc follows;
//   varint zigzag(address - address of the previous access, any size),
//   varint zigzag(value - value of the previous access of the same size), the value
//           being the access's 2^size bytes as memory holds them, read little endian
//           (its low 64 bits for 16-byte accesses), subtraction modulo 2^64;
//   with [7]: varint zigzag(pc - pc of the previous access that had one);
//   with [6] and class 1, an atomic packet of the data trace (the decoder's AMO or
//   failed SC): a byte op (the packet's subtype: 0 swap, 1 add, 2 and, 3 or, 4 xor,
//   5 max, 6 min, 7 SC failure) and varint(operand); value is the value loaded.
// Varints are LEB128 (7 bits per byte, low first), zigzag(d) = (d << 1) ^ (d >> 63).
// All "previous" values start at 0. The plugin writes the accessing instruction's pc
// with every access (context for a difference); the decoder has none to write.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "varfile.hpp"

namespace acc {

inline constexpr char kMagic[8] = {'T', 'S', 'B', 'I', 'A', 'C', 'C', '1'};

enum Class : uint8_t { kPlain = 0, kAtomic = 1, kVector = 2, kOther = 3 };
inline constexpr unsigned kClasses = 4;
const char *class_name(unsigned c);

// Header byte fields.
inline constexpr uint8_t kSizeMask = 0x07, kStore = 0x08, kClassShift = 4, kClassMask = 0x30, kLost = 0x40,
                         kHasPc = 0x80;
inline constexpr unsigned kMaxSize = 4;

struct Access {
    bool store = false;
    uint8_t size = 0;   // log2 of the bytes
    uint8_t cls = kPlain;
    bool lost = false;  // lost-data marker (no other field)
    bool has_pc = false;
    bool packet = false; // an atomic data packet: op and operand (class atomic)
    uint8_t op = 0;
    uint64_t addr = 0, value = 0, pc = 0, operand = 0;
};
inline constexpr uint8_t kOpScFail = 7;

// The value as recorded: its 2^size bytes (the low 64 bits of larger ones).
inline uint64_t value_mask(unsigned size) { return size >= 3 ? ~0ull : (1ull << (8u << size)) - 1; }

std::string format(const Access &a);

class Writer {
  public:
    explicit Writer(FILE *f);
    void add(const Access &a);
    uint64_t accesses() const { return n_; }

  private:
    FILE *f_;
    uint64_t n_ = 0, addr_ = 0, pc_ = 0;
    std::array<uint64_t, kMaxSize + 1> value_{};
};

class Reader {
  public:
    explicit Reader(const std::string &path);
    // Reads an open file from its current position (tests: tmpfile()); takes it over.
    Reader(FILE *f, const std::string &name);
    bool ok() const { return ok_; }
    const std::string &error() const { return err_; }
    // Next access; false at the end of the file (or on a format error: see error()).
    bool next(Access &a);
    uint64_t read() const { return n_; } // accesses returned so far

  private:
    bool fail(const char *what);
    varfile::In in_;
    std::string name_;
    bool ok_ = false;
    std::string err_;
    uint64_t n_ = 0, addr_ = 0, pc_ = 0;
    std::array<uint64_t, kMaxSize + 1> value_{};
};

struct CompareOptions {
    // Atomics paired (the data trace reports them): each record AMO (a load and a
    // store of one instruction) against an atomic packet (the value loaded; the
    // stored value the operand, as QEMU's parallel TCG reports it, or the operation
    // applied, as serial TCG does; max/min in either signedness), an LR (an atomic
    // load alone) against a load, an SC that stored (its load found the last LR's
    // value, QEMU's success condition) against a store, one that did not against an
    // SC-failure packet; an SC-failure packet with no recorded access (the
    // reservation was gone: QEMU's SC makes no access) passes. Otherwise atomics are
    // left out on both sides (skip, below).
    bool pair_atomics = false;
    // Classes left out on both sides (counted): by default atomics (the project QEMU's
    // data trace does not report them yet), vector accesses and "other" (cache-block
    // operations; neither is in the E-Trace data interface the model implements).
    unsigned skip = 1u << kAtomic | 1u << kVector | 1u << kOther;
    uint64_t max_tail = 0;  // recorded accesses allowed after the decoded stream ends
    unsigned context = 3;   // accesses shown before and after a difference
};

struct CompareResult {
    bool equal = false;
    uint64_t compared = 0;                     // equal accesses
    std::array<uint64_t, kClasses> skipped_decoded{}, skipped_record{};
    uint64_t amos = 0, lrs = 0, sc_stored = 0, sc_failed = 0, sc_no_access = 0; // pair_atomics
    uint64_t record_tail = 0;                  // record accesses after the decoded ones
    std::string message;                       // summary, or the first difference with context
};

// Compares a decoded stream with a record, access by access (kind, size, address,
// value; class unless skipped; the pc is context only). A lost marker in the decoded
// stream is a difference (the accesses can no longer be matched).
CompareResult compare(Reader &decoded, Reader &record, const CompareOptions &o = {});

} // namespace acc
