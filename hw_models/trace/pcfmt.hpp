// SPDX-License-Identifier: BSD-2-Clause
// Text formats of retired-instruction streams, as used by the N-Trace reference C code:
//   PC-only:  one "0xADDR" per retired instruction
//   PC-info:  "0xADDR,TYPE[,0xDEST]" with TYPE = L, BN, BD, JD, JI, CD, CI or R followed by
//             the instruction size in bytes (2 or 4), DEST only for direct taken flow
//             changes (BD, JD, CD). A discontinuity the type does not explain is a trap.
//             The reference code's PC-sequence files (one line per retired instruction,
//             types L, B, BN, J, JI, C, CI, R without DEST) parse as the same records.
//   Both accept CRLF line endings, as in the reference's published files.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "image.hpp"
#include "ntrace_enc.hpp"

namespace trace {

struct PcInfo {
    uint64_t addr = 0;
    uint8_t size = 4;
    char type[3] = "L";
    uint64_t dest = 0;
    bool has_dest = false;
};

// One line (without its end), as the whole-text parsers below read it.
bool parse_pc_line(std::string_view l, uint64_t &v);
bool parse_pcinfo_line(std::string_view l, PcInfo &p);

// Lines of a text file in bounded memory (a chunk at a time): without CR/LF and
// trailing blanks, empty and '#' lines skipped. line() is the 1-based number of the
// line last returned.
class LineReader {
  public:
    explicit LineReader(FILE *f) : f_(f) {}
    bool next(std::string_view &l);
    // The next PC-info (or PC-sequence) line parsed: 1, or 0 at the end, -1 when the
    // line is not one. The canonical spelling is read straight from the buffer.
    int next_pcinfo(PcInfo &p);
    size_t line() const { return line_; }
    bool error() const { return error_; }

  private:
    void refill();
    static constexpr size_t kChunk = 1 << 20, kFastLine = 128;
    FILE *f_;
    std::string buf_;
    size_t pos_ = 0, line_ = 0;
    bool eof_ = false, error_ = false;
};

// PC-only and PC-info lines written to a file through a buffer, formatted without
// printf (the decoder writes one line per instruction: most of its work).
class LineWriter {
  public:
    explicit LineWriter(FILE *f) : f_(f) {}
    ~LineWriter() { flush(); }
    void pc(uint64_t pc) { // "0xADDR\n"
        char *o = room();
        if (((pc ^ last_) >> 16) == 0 && pc >> 16) {
            // Most lines differ from the last in their low four digits only: the last
            // line with those four replaced.
            memcpy(o, last_line_, sizeof last_line_);
            memcpy(o + last_len_ - 5, kPairs[pc >> 8 & 0xFF], 2);
            memcpy(o + last_len_ - 3, kPairs[pc & 0xFF], 2);
            len_ += last_len_;
            return;
        }
        char *e = put_hex(o, pc);
        *e++ = '\n';
        last_len_ = unsigned(e - o), last_ = pc;
        memcpy(last_line_, o, sizeof last_line_);
        len_ = size_t(e - buf_.data());
    }
    void pcinfo(const PcInfo &p); // "0xADDR,TYPE<size>[,0xDEST]\n"
    void text(const char *s, size_t n);
    bool flush(); // false after a write error
    static constexpr size_t kLineMax = 128;

    // "0x" and the value in uppercase hex without leading zeros (the reference code's
    // spelling); stores up to 8 bytes past the digits (room() leaves kLineMax).
    static char *put_hex(char *p, uint64_t v);

  private:
    static constexpr size_t kBuf = 1 << 18;
    char *room() {
        if (len_ > kBuf - kLineMax) flush();
        return buf_.data() + len_;
    }
    static const char kPairs[256][2]; // "00" .. "FF"
    FILE *f_;
    std::vector<char> buf_ = std::vector<char>(kBuf);
    size_t len_ = 0;
    bool error_ = false;
    uint64_t last_ = 0; // pc() only: the last value written in full and its line
    unsigned last_len_ = 0;
    char last_line_[24];
};

// Parse; on error returns false and sets the 1-based line number in err_line.
bool parse_pc_list(std::string_view text, std::vector<uint64_t> &out, size_t &err_line);
bool parse_pcinfo(std::string_view text, std::vector<PcInfo> &out, size_t &err_line);
std::string format_pc_list(const std::vector<uint64_t> &pcs);
std::string format_pcinfo(const std::vector<PcInfo> &v);

// Classifies each retired address with the image (the next address tells taken/not).
std::vector<PcInfo> pcinfo_from_pcs(const Image &img, const std::vector<uint64_t> &pcs);
PcInfo pcinfo_one(const Image &img, uint64_t pc, bool have_next, uint64_t next);

// Code that behaves as a per-address PC-info file says (the reference decoder's program
// input, NexRv -deco -pcinfo): one instruction per line of the line's size and kind
// (L: nop; BD: bne to DEST; JD/CD: jal x0/ra to DEST; JI/CI: jalr x0/ra through t1;
// R: ret), each checked with rv::classify. Bytes from the lowest address on (gaps are
// zero: no instruction); false with err when a line cannot be expressed (no DEST, DEST
// out of reach, a 2-byte call on RV64, overlapping lines).
bool code_from_pcinfo(const std::vector<PcInfo> &v, const rv::Options &o, uint64_t &base, std::vector<uint8_t> &bytes,
                      std::string &err);

// 4-bit itype of a PC-info line (branches 4/5).
uint8_t pcinfo_itype(const PcInfo &p);

// Feeds a PC-info stream to an encoder one record at a time (one behind, to see the
// next address): start, retire (with traps where the next address is not the one the
// type implies), stop at finish(). itype4=false uses the 3-bit itype encoding.
class PcInfoFeeder {
  public:
    PcInfoFeeder(ntrace::Encoder &e, bool itype4) : e_(e), itype4_(itype4) {}
    void feed(const PcInfo &p);
    void finish();

  private:
    void step(uint64_t next);
    ntrace::Encoder &e_;
    bool itype4_;
    PcInfo pend_;
    bool have_ = false;
};
// The same for a whole stream in memory.
void encode_pcinfo(const std::vector<PcInfo> &v, ntrace::Encoder &e, bool itype4);

} // namespace trace
