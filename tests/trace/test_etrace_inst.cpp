// SPDX-License-Identifier: BSD-2-Clause
// E-Trace instruction trace decoder (etrace_inst.hpp): hand-built packets over a small
// program, including the spec's "looplabel" cases that notify/updiscon exist for
// (E-Trace 2.0 "Format 2 notify and updiscon fields"): the same stream prefix must
// decode to different executions depending on what follows.
#include <doctest/doctest.h>

#include "etrace_inst.hpp"

#include <vector>

using namespace etrace;

namespace {
struct Bits {
    std::vector<uint8_t> b;
    unsigned n = 0;
    void put(uint64_t v, unsigned bits) {
        for (unsigned i = 0; i < bits; i++, n++) {
            if (n % 8 == 0) b.push_back(0);
            if (v >> i & 1) b.back() |= uint8_t(1u << (n % 8));
        }
    }
};
constexpr unsigned kAbits = 63;
// Encapsulated packet: header byte (length), no source ID, payload.
void packet(std::vector<uint8_t> &s, const Bits &p) {
    s.push_back(uint8_t(p.b.size()));
    s.insert(s.end(), p.b.begin(), p.b.end());
}
void sync(std::vector<uint8_t> &s, uint64_t addr, unsigned branch = 1) {
    Bits p;
    p.put(3, 2), p.put(0, 2), p.put(branch, 1), p.put(1, 3), p.put(addr >> 1, kAbits);
    packet(s, p);
}
// Format 1 (nmap > 0) or 2 with differential address diff (bytes).
void addr_packet(std::vector<uint8_t> &s, int64_t diff, bool updiscon_flip = false, unsigned nmap = 0,
                 uint32_t map = 0) {
    Bits p;
    if (nmap) {
        const unsigned w = nmap == 1 ? 1 : nmap <= 3 ? 3 : nmap <= 7 ? 7 : nmap <= 15 ? 15 : 31;
        p.put(1, 2), p.put(nmap, 5), p.put(map, w);
    } else {
        p.put(2, 2);
    }
    const uint64_t a = uint64_t(diff >> 1);
    const bool msb = a >> 63 & 1;
    p.put(a, kAbits), p.put(msb, 1), p.put(msb ^ updiscon_flip, 1), p.put(msb ^ updiscon_flip, 1);
    packet(s, p);
}
void support_end(std::vector<uint8_t> &s, unsigned qual) {
    Bits p;
    p.put(3, 2), p.put(3, 2), p.put(0, 1), p.put(0, 1), p.put(qual, 2), p.put(0, 10);
    packet(s, p);
}
std::vector<uint64_t> decode(const trace::Image &img, const std::vector<uint8_t> &s, uint64_t *errors = nullptr) {
    std::vector<uint64_t> out;
    InstParams p;
    InstDecoder d(p, img, [&](uint64_t pc) { out.push_back(pc); });
    size_t off = 0;
    unsigned src;
    std::span<const uint8_t> pl;
    std::string err;
    while (next_inst_packet(p, s, off, src, pl, err)) {
        InstPacket k;
        REQUIRE(parse_inst(p, pl, k, err));
        d.packet(k, off);
    }
    d.finish();
    if (errors) *errors = d.errors();
    return out;
}
void put32(std::vector<uint8_t> &b, uint32_t v) {
    for (int i = 0; i < 4; i++) b.push_back(uint8_t(v >> (8 * i)));
}
// 0x1000 nop; 0x1004 (looplabel) nop; 0x1008 nop; 0x100c jalr x0, 0(t0) (to looplabel)
trace::Image loop_image() {
    std::vector<uint8_t> code;
    for (int i = 0; i < 3; i++) put32(code, 0x00000013);
    put32(code, 0x00028067);
    trace::Image img;
    img.add(0x1000, code);
    return img;
}
} // namespace

TEST_CASE("etrace decode: sync, then the target of an uninferable jump") {
    trace::Image img = loop_image();
    std::vector<uint8_t> s;
    sync(s, 0x1008);
    addr_packet(s, 0x1004 - 0x1008);
    support_end(s, 3);
    CHECK(decode(img, s) == std::vector<uint64_t>{0x1008, 0x100c, 0x1004});
}

TEST_CASE("etrace decode: looplabel reached by falling through, then a format 3 (case 3)") {
    trace::Image img = loop_image();
    std::vector<uint8_t> s;
    sync(s, 0x1000);
    addr_packet(s, 4);  // the last instruction before a trap: looplabel, 1st pass
    support_end(s, 1);  // ended_rep
    CHECK(decode(img, s) == std::vector<uint64_t>{0x1000, 0x1004});
}

TEST_CASE("etrace decode: looplabel reported after the jump, then another address (case 1)") {
    trace::Image img = loop_image();
    std::vector<uint8_t> s;
    sync(s, 0x1000);
    addr_packet(s, 4); // looplabel after the 1st jalr
    addr_packet(s, 0); // and after the 2nd
    support_end(s, 3); // ended_ntr
    CHECK(decode(img, s) ==
          std::vector<uint64_t>{0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008, 0x100c, 0x1004});
}

TEST_CASE("etrace decode: updiscon != notify: looplabel after the jump, a format 3 follows (case 2)") {
    trace::Image img = loop_image();
    std::vector<uint8_t> s;
    sync(s, 0x1000);
    addr_packet(s, 4, true);
    support_end(s, 3);
    CHECK(decode(img, s) == std::vector<uint64_t>{0x1000, 0x1004, 0x1008, 0x100c, 0x1004});
}

TEST_CASE("etrace decode: the branch map (0 = taken), its own bit with the reported branch") {
    // 0x2000 beq x0,x0,+8 ; 0x2004 nop ; 0x2008 bne x0,x0,-8 (never taken) ; 0x200c jalr x0,0(t0)
    std::vector<uint8_t> code;
    put32(code, 0x00000463);
    put32(code, 0x00000013);
    put32(code, 0xfe001ce3);
    put32(code, 0x00028067);
    trace::Image img;
    img.add(0x2000, code);
    std::vector<uint8_t> s;
    sync(s, 0x2000, 0);                 // beq at the sync address, taken: branch = 0
    // bne not taken (1), jalr back to the beq, whose own outcome (taken, 0) the packet
    // reporting it carries
    addr_packet(s, 0x2000 - 0x2000, false, 2, 0b01);
    sync(s, 0x2004);                    // (a resync elsewhere: decoding restarts)
    support_end(s, 1);
    uint64_t errors = 1;
    CHECK(decode(img, s, &errors) == std::vector<uint64_t>{0x2000, 0x2008, 0x200c, 0x2000, 0x2004});
    CHECK(errors == 0);
}

TEST_CASE("etrace decode: a reported branch without its own outcome is an error") {
    std::vector<uint8_t> code;
    put32(code, 0x00000463); // beq needing a bit
    put32(code, 0x00028067);
    trace::Image img2;
    img2.add(0x3000, code);
    std::vector<uint8_t> s;
    sync(s, 0x3004);
    addr_packet(s, 0x3000 - 0x3004); // back to the beq, whose own bit is missing
    addr_packet(s, 0x3004 - 0x3000);
    uint64_t errors = 0;
    decode(img2, s, &errors);
    CHECK(errors == 1);
}
