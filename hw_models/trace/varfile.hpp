// SPDX-License-Identifier: BSD-2-Clause
// The binary files the trace tools stream by the hundred million entries
// (instruction runs, runs.hpp; access records, accrec.hpp): an 8-byte magic,
// then bytes and LEB128 varints, read through one buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace varfile {

using Magic = char[8];

void put_varint(FILE *f, uint64_t v);
inline uint64_t zigzag(uint64_t d) {
    return (d << 1) ^ uint64_t(int64_t(d) >> 63);
}
inline uint64_t unzigzag(uint64_t z) {
    return (z >> 1) ^ (0 - (z & 1));
}

class In {
  public:
    In() : buf_(1 << 20) {}
    ~In();
    In(const In &) = delete;
    In &operator=(const In &) = delete;
    // Opens PATH (or takes over the open file F, read from its position) and
    // reads MAGIC; false with error() naming the file and WHAT it should be.
    bool open(const std::string &path, const Magic &magic, const char *what);
    bool adopt(FILE *f, const std::string &name, const Magic &magic, const char *what);
    const std::string &error() const { return err_; }
    // Next byte, -1 at the end of the file.
    int get() {
        if (pos_ == len_ && !refill())
            return -1;
        return buf_[pos_++];
    }
    bool at_end() { return pos_ == len_ && !refill(); }
    bool varint(uint64_t &v);

  private:
    bool refill();
    FILE *f_ = nullptr;
    std::string err_;
    std::vector<uint8_t> buf_;
    size_t pos_ = 0, len_ = 0;
};

} // namespace varfile
