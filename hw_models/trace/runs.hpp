// SPDX-License-Identifier: BSD-2-Clause
// Instruction-run files: a stream of retired instruction addresses stored as runs of
// sequential instructions, written by the insnlog TCG plugin (runs=S, the reference
// record of a traced Linux boot) and by the decoder (its decoded stream), and compared
// by streaming both, so 10^8 and more instructions need neither text files nor memory.
//
// Format: "TSBIRUN1", then per run: varint(zigzag(start - start of the previous run's
// last instruction)), varint(n >= 1), then (n - 1 + 7) / 8 bytes whose bit i (LSB
// first) is 1 when instruction i + 1 starts 4 bytes after instruction i and 0 when it
// starts 2 bytes after it. Varints are LEB128 (7 bits per byte, low first).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "varfile.hpp"

namespace runs {

inline constexpr char kMagic[8] = {'T', 'S', 'B', 'I', 'R', 'U', 'N', '1'};

// Writes addresses; consecutive addresses 2 or 4 bytes apart extend the current run.
class Writer {
  public:
    explicit Writer(FILE *f);
    ~Writer() { flush_run(); }
    void add(uint64_t pc) {
        if (n_ && n_ < kMaxRun && (pc - last_ == 2 || pc - last_ == 4)) {
            if (pc - last_ == 4) steps_[(n_ - 1) / 8] |= uint8_t(1u << ((n_ - 1) % 8));
            last_ = pc, n_++;
            return;
        }
        flush_run();
        start_ = last_ = pc, n_ = 1;
    }
    void flush_run();
    uint64_t instructions() const { return total_; }

  private:
    static constexpr uint32_t kMaxRun = 1u << 16;
    FILE *f_;
    uint64_t start_ = 0, last_ = 0, prev_ = 0, total_ = 0;
    uint32_t n_ = 0;
    uint8_t steps_[kMaxRun / 8] = {};
};

// Reads addresses one at a time.
class Reader {
  public:
    // Opens the file; ok() is false when it cannot be read or has no magic.
    explicit Reader(const std::string &path);
    bool ok() const { return ok_; }
    const std::string &error() const { return err_; }
    // Next address; false at the end of the file (or on a format error: see error()).
    bool next(uint64_t &pc) {
        if (i_ < n_) {
            if (i_) pc_ += (steps_[(i_ - 1) / 8] >> ((i_ - 1) % 8) & 1) ? 4 : 2;
            i_++;
            pc = pc_;
            return true;
        }
        return next_run() && next(pc);
    }

  private:
    bool next_run();
    varfile::In in_;
    bool ok_ = false;
    std::string err_;
    uint64_t pc_ = 0;
    uint32_t n_ = 0, i_ = 0;
    std::vector<uint8_t> steps_;
};

struct CompareResult {
    uint64_t compared = 0;     // equal instructions
    bool equal = false;        // both streams ended together (or only the allowed tail)
    uint64_t record_tail = 0;  // record instructions after the decoded stream ended
    std::string message;       // first difference, or the summary
};

// Compares a decoded stream with a record, instruction by instruction. max_tail: how
// many record instructions may follow the end of the decoded stream (a hart whose
// encoder another hart stopped keeps running until the machine stops).
CompareResult compare(Reader &decoded, Reader &record, uint64_t max_tail);

} // namespace runs
