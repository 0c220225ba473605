// SPDX-License-Identifier: BSD-2-Clause
// Streamed binary files of the trace tools (see varfile.hpp).
#include "varfile.hpp"

#include <cstring>

namespace varfile {

void put_varint(FILE *f, uint64_t v) {
    while (v >= 0x80) {
        putc_unlocked(int(v & 0x7F) | 0x80, f);
        v >>= 7;
    }
    putc_unlocked(int(v), f);
}

In::~In() {
    if (f_)
        fclose(f_);
}

bool In::open(const std::string &path, const Magic &magic, const char *what) {
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) {
        err_ = "cannot open " + path;
        return false;
    }
    return adopt(f, path, magic, what);
}

bool In::adopt(FILE *f, const std::string &name, const Magic &magic, const char *what) {
    f_ = f;
    char m[sizeof(Magic)];
    if (fread(m, 1, sizeof m, f_) != sizeof m || memcmp(m, magic, sizeof m)) {
        err_ = name + ": not " + what + " (no " + std::string(magic, sizeof m) + " magic)";
        return false;
    }
    return true;
}

bool In::refill() {
    if (!f_)
        return false;
    len_ = fread(buf_.data(), 1, buf_.size(), f_);
    pos_ = 0;
    return len_ > 0;
}

bool In::varint(uint64_t &v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        int c = get();
        if (c < 0)
            return false;
        v |= uint64_t(c & 0x7F) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

} // namespace varfile
