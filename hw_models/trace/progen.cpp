// SPDX-License-Identifier: BSD-2-Clause
// Synthetic programs for trace round trips and benchmarks (see progen.hpp).
#include "progen.hpp"

namespace trace {

namespace {
enum class Op : uint8_t { Lin, Br, Call, ICall, IJump, Jump, Ret, Mret, Back };

struct Slot {
    uint64_t addr = 0;
    uint8_t size = 4;
    Op op = Op::Lin;
    int func = 0, block = 0;
    int tfunc = -1, tblock = -1; // direct targets
    bool backward = false;
};

uint32_t enc_b(unsigned f3, unsigned rs1, unsigned rs2, int32_t off) {
    uint32_t o = uint32_t(off);
    return (o >> 12 & 1) << 31 | (o >> 5 & 0x3F) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
           (o >> 1 & 0xF) << 8 | (o >> 11 & 1) << 7 | 0x63;
}
uint32_t enc_jal(unsigned rd, int32_t off) {
    uint32_t o = uint32_t(off);
    return (o >> 20 & 1) << 31 | (o >> 1 & 0x3FF) << 21 | (o >> 11 & 1) << 20 |
           (o >> 12 & 0xFF) << 12 | rd << 7 | 0x6F;
}
uint32_t enc_jalr(unsigned rd, unsigned rs1) { return rs1 << 15 | rd << 7 | 0x67; }
uint16_t enc_cbnez(unsigned rs1p, int32_t off) {
    uint32_t o = uint32_t(off);
    return uint16_t(7u << 13 | (o >> 8 & 1) << 12 | (o >> 3 & 3) << 10 | rs1p << 7 |
                    (o >> 6 & 3) << 5 | (o >> 1 & 3) << 3 | (o >> 5 & 1) << 2 | 1);
}
uint16_t enc_cj(int32_t off) {
    uint32_t o = uint32_t(off);
    uint32_t imm = (o >> 11 & 1) << 10 | (o >> 4 & 1) << 9 | (o >> 8 & 3) << 7 | (o >> 10 & 1) << 6 |
                   (o >> 6 & 1) << 5 | (o >> 7 & 1) << 4 | (o >> 1 & 7) << 1 | (o >> 5 & 1);
    return uint16_t(5u << 13 | imm << 2 | 1);
}
} // namespace

uint64_t Program::rnd() {
    // xorshift64*: fast and deterministic across platforms.
    rng_ ^= rng_ >> 12, rng_ ^= rng_ << 25, rng_ ^= rng_ >> 27;
    return rng_ * 2685821657736338717ull;
}

Program::Program(const GenConfig &c) : cfg_(c), rng_(c.seed * 0x9E3779B97F4A7C15ull + 1) {
    img_.opts.xlen = c.xlen;
    std::vector<Slot> slots;
    std::vector<std::vector<size_t>> block_start(c.nfuncs + 1); // slot index per block
    auto pick_size = [&](bool can16) { return uint8_t(can16 && c.compressed && rnd() % 3 == 0 ? 2 : 4); };
    // Pass 1: instruction kinds and sizes. Function nfuncs is the trap handler.
    for (unsigned f = 0; f <= c.nfuncs; f++) {
        const bool handler = f == c.nfuncs;
        const int nblocks = handler ? 3 : 3 + int(rnd() % 8);
        for (int b = 0; b < nblocks; b++) {
            block_start[f].push_back(slots.size());
            const int nlin = 1 + int(rnd() % 5);
            for (int k = 0; k < nlin; k++) slots.push_back({0, pick_size(true), Op::Lin, int(f), b});
            Slot t{0, 4, Op::Lin, int(f), b};
            const bool lastb = b == nblocks - 1;
            if (lastb) {
                t.op = handler ? Op::Mret : f == 0 ? Op::Back : Op::Ret;
                t.size = t.op == Op::Ret ? pick_size(true) : 4;
            } else {
                unsigned r = unsigned(rnd() % 100);
                if (f == 0 && !handler) r = 30 + r % 18; // main mostly calls
                if (r < 30) {
                    t.op = Op::Br;
                    t.backward = !handler && rnd() % 3 == 0;
                    t.size = pick_size(true);
                } else if (r < 48 && f + 1 < c.nfuncs && !handler) {
                    t.op = rnd() % 3 ? Op::Call : Op::ICall;
                    t.size = t.op == Op::ICall ? pick_size(true) : 4;
                    t.tfunc = int(f + 1 + rnd() % (c.nfuncs - f - 1));
                } else if (r < 58 && !handler) {
                    t.op = Op::IJump;
                    t.size = pick_size(true);
                } else if (r < 66) {
                    t.op = Op::Jump;
                    t.size = pick_size(true);
                } else {
                    continue; // fall through into the next block
                }
            }
            slots.push_back(t);
        }
    }
    // Addresses.
    uint64_t a = c.base;
    for (Slot &s : slots) s.addr = a, a += s.size;
    auto block_addr = [&](int f, int b) { return slots[block_start[f][b]].addr; };
    const uint64_t end = a;
    std::vector<uint8_t> bytes(end - c.base);
    auto put = [&](const Slot &s, uint32_t w) {
        for (unsigned i = 0; i < s.size; i++) bytes[s.addr - c.base + i] = uint8_t(w >> (8 * i));
    };
    // Pass 2: targets and encodings.
    for (Slot &s : slots) {
        const int nb = int(block_start[s.func].size());
        Meta m;
        uint32_t w = 0;
        switch (s.op) {
        case Op::Lin: {
            unsigned rd = 1 + unsigned(rnd() % 31);
            w = s.size == 2 ? 0x0001 | rd << 7 | 1 << 2 : 0x13 | rd << 7;
            break;
        }
        case Op::Br: {
            int tb;
            if (s.backward) {
                tb = int(rnd() % unsigned(s.block + 1));
                m.pattern = 4, m.period = uint16_t(2 + rnd() % 7);
            } else {
                tb = s.block + 1 + int(rnd() % unsigned(nb - s.block - 1));
                m.pattern = uint8_t(rnd() % 4);
                m.period = uint16_t(2 + rnd() % 4);
            }
            int64_t off = int64_t(block_addr(s.func, tb)) - int64_t(s.addr);
            if (s.size == 2 && (off < -256 || off > 254)) {
                tb = s.block + 1, off = int64_t(block_addr(s.func, tb)) - int64_t(s.addr);
                if (off > 254) off = 2; // to the next instruction: still a valid branch
                m.pattern = uint8_t(rnd() % 4);
            }
            w = s.size == 2 ? enc_cbnez(rnd() % 8, int32_t(off))
                            : enc_b(rnd() % 2, 8 + unsigned(rnd() % 8), 0, int32_t(off));
            meta_[s.addr] = m;
            break;
        }
        case Op::Call: w = enc_jal(1, int32_t(block_addr(s.tfunc, 0) - s.addr)); break;
        case Op::ICall:
            for (int k = 0; k < 3; k++)
                m.targets.push_back(block_addr(s.func + 1 + int(rnd() % (c.nfuncs - s.func - 1)), 0));
            w = s.size == 2 ? 0x9002u | 6u << 7 : enc_jalr(1, 6);
            meta_[s.addr] = m;
            break;
        case Op::IJump:
            for (int k = 0; k < 3; k++)
                m.targets.push_back(block_addr(s.func, s.block + 1 + int(rnd() % unsigned(nb - s.block - 1))));
            w = s.size == 2 ? 0x8002u | 15u << 7 : enc_jalr(0, 15);
            meta_[s.addr] = m;
            break;
        case Op::Jump: {
            int tb = s.block + 1 + int(rnd() % unsigned(nb - s.block - 1));
            int64_t off = int64_t(block_addr(s.func, tb)) - int64_t(s.addr);
            if (s.size == 2 && off > 2046) off = 2;
            w = s.size == 2 ? enc_cj(int32_t(off)) : enc_jal(0, int32_t(off));
            break;
        }
        case Op::Back: w = enc_jal(0, int32_t(block_addr(0, 0) - s.addr)); break;
        case Op::Ret: w = s.size == 2 ? 0x8002u | 1u << 7 : enc_jalr(0, 1); break;
        case Op::Mret: w = 0x30200073; break;
        }
        put(s, w);
    }
    img_.add(c.base, std::move(bytes));
    entry_ = block_addr(0, 0);
    handler_ = block_addr(c.nfuncs, 0);
}

void Program::run(uint64_t n, const std::function<void(const GenEvent &)> &f) {
    std::vector<uint64_t> stack;
    uint64_t pc = entry_, epc = 0, retired = 0;
    bool in_handler = false, tracing = true;
    uint64_t gap_left = 0;
    f({GenEvent::Start, 0, 0, false, pc, 0});
    while (retired < n) {
        if (!in_handler && cfg_.trap_per_million && rnd() % 1000000 < cfg_.trap_per_million) {
            f({GenEvent::Trap, 0, 0, rnd() % 2 == 0, pc, handler_});
            f({GenEvent::Context, 0, 0, false, 3, 0});
            epc = pc, pc = handler_, in_handler = true;
            continue;
        }
        if (tracing && !in_handler && cfg_.gap_per_million && rnd() % 1000000 < cfg_.gap_per_million) {
            f({GenEvent::Stop, 0, 0, false, pc, 0});
            tracing = false, gap_left = 20 + rnd() % 200;
        } else if (!tracing && gap_left-- == 0) {
            f({GenEvent::Start, 0, 0, false, pc, 0});
            tracing = true;
        }
        const rv::Insn *in = img_.at(pc);
        uint64_t next = pc + in->size;
        uint8_t itype = in->itype;
        switch (in->kind) {
        case rv::Kind::Branch: {
            Meta &m = meta_[pc];
            bool taken;
            switch (m.pattern) {
            case 1: taken = true; break;
            case 2: taken = false; break;
            case 3: taken = (m.count++ & 1) != 0; break;
            case 4: taken = ++m.count % m.period != 0; break;
            default: taken = rnd() % 2; break;
            }
            if (taken) next = pc + in->offset;
            itype = taken ? NT_ITYPE_BRANCH_TAKEN : NT_ITYPE_BRANCH_NOT_TAKEN;
            break;
        }
        case rv::Kind::DirectJump:
            if (in->pushes()) stack.push_back(next);
            next = pc + in->offset;
            break;
        case rv::Kind::Indirect: {
            if (in->itype == NT_ITYPE_RETURN) {
                next = stack.back();
                stack.pop_back();
                if (stack.size() >= 2 && rnd() % 1000 < cfg_.bad_return_per_mille) {
                    next = stack.back(); // skip a level: not the predicted address
                    stack.pop_back();
                }
            } else {
                const Meta &m = meta_[pc];
                if (in->pushes()) stack.push_back(next);
                next = m.targets[rnd() % m.targets.size()];
            }
            break;
        }
        case rv::Kind::TrapReturn: next = epc; break;
        default: break;
        }
        f({GenEvent::Retire, in->size, itype, false, pc, 0});
        retired++;
        if (in->kind == rv::Kind::TrapReturn) {
            in_handler = false;
            f({GenEvent::Context, 0, 0, false, 1, 0});
        }
        pc = next;
    }
    if (tracing) f({GenEvent::Stop, 0, 0, false, pc, 0});
}

} // namespace trace
