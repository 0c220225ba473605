// SPDX-License-Identifier: BSD-2-Clause
// E-Trace 2.0 instruction trace packets and flow decoder (see etrace_inst.hpp).
#include "etrace_inst.hpp"

#include <cstdio>

namespace etrace {

namespace {
struct Reader {
    std::span<const uint8_t> b;
    size_t n = 0;
    uint64_t get(unsigned bits) {
        uint64_t v = 0;
        for (unsigned i = 0; i < bits; i++, n++) {
            const bool bit = n < b.size() * 8 ? (b[n / 8] >> (n % 8) & 1) : (b.back() >> 7 & 1);
            if (bit && i < 64) v |= 1ull << i;
        }
        return v;
    }
};
uint64_t sext(uint64_t v, unsigned bits) {
    if (bits < 64 && (v >> (bits - 1) & 1)) v |= ~0ull << bits;
    return v;
}
unsigned map_bits(unsigned branches) {
    return branches <= 1 ? 1 : branches <= 3 ? 3 : branches <= 7 ? 7 : branches <= 15 ? 15 : 31;
}
} // namespace

bool next_inst_packet(const InstParams &p, std::span<const uint8_t> s, size_t &off, unsigned &src,
                      std::span<const uint8_t> &payload, std::string &err, unsigned *flow) {
    while (off < s.size() && s[off] == 0) off++; // null packets
    if (off >= s.size()) return false;
    // The RAM sink pads its last partial word with N-Trace idle bytes (0xFF):
    // fewer than 4 of them and nothing else at the end are that padding.
    if (s.size() - off < 4) {
        bool pad = true;
        for (size_t i = off; i < s.size(); i++) pad &= s[i] == 0xFF;
        if (pad) return off = s.size(), false;
    }
    const unsigned h = s[off], len = h & 0x1F;
    if (h & 0x80) return err = "extended header (timestamp) not supported", false;
    if (off + 1 + p.src_bytes + len > s.size()) return err = "truncated packet", false;
    src = 0;
    for (unsigned i = 0; i < p.src_bytes; i++) src |= unsigned(s[off + 1 + i]) << (8 * i);
    payload = s.subspan(off + 1 + p.src_bytes, len);
    off += 1 + p.src_bytes + len;
    if (flow) *flow = h >> 5 & 3;
    return true;
}

bool parse_inst(const InstParams &p, std::span<const uint8_t> payload, InstPacket &k, std::string &err) {
    if (payload.empty()) return err = "empty payload", false;
    Reader r{payload};
    const unsigned abits = p.iaddress_width - p.iaddress_lsb;
    k = InstPacket{};
    k.format = unsigned(r.get(2));
    auto address_tail = [&](bool full) {
        uint64_t a = sext(r.get(abits), abits);
        const bool msb = a >> 63 & 1;
        k.has_address = true;
        k.address = full ? a << p.iaddress_lsb : uint64_t(int64_t(a) * (1ll << p.iaddress_lsb));
        const bool notify = r.get(1), updiscon = r.get(1);
        r.get(1); // irreport (no return stack: equals updiscon)
        k.notify_flip = notify != msb;
        k.updiscon_flip = updiscon != notify;
    };
    switch (k.format) {
    case 3:
        k.subformat = unsigned(r.get(2));
        if (k.subformat == 3) {
            k.ienable = r.get(1);
            r.get(1); // encoder_mode
            k.qual_status = unsigned(r.get(2));
            r.get(6), r.get(1), r.get(1), r.get(2); // ioptions, denable, dloss, doptions
            return true;
        }
        if (k.subformat != 2) k.branch = unsigned(r.get(1));
        k.privilege = unsigned(r.get(p.privilege_width));
        if (k.subformat == 2) return true;
        if (k.subformat == 1) {
            k.ecause = r.get(p.ecause_width);
            k.interrupt = unsigned(r.get(1));
            k.thaddr = unsigned(r.get(1));
        }
        k.has_address = true;
        k.address = r.get(abits) << p.iaddress_lsb;
        if (k.subformat == 1 && !k.interrupt) k.tval = r.get(p.iaddress_width);
        return true;
    case 2:
        address_tail(false);
        return true;
    case 1:
        k.branches = unsigned(r.get(5));
        k.branch_map = uint32_t(r.get(k.branches ? map_bits(k.branches) : 31));
        if (k.branches) address_tail(false);
        return true;
    default:
        return err = "format 0 (optional extensions) not supported", false;
    }
}

std::string format_inst(const InstPacket &k) {
    char b[200];
    if (k.format == 3 && k.subformat == 3)
        snprintf(b, sizeof b, "support ienable=%u qual_status=%u", k.ienable, k.qual_status);
    else if (k.format == 3 && k.subformat == 2)
        snprintf(b, sizeof b, "context privilege=%u", k.privilege);
    else if (k.format == 3)
        snprintf(b, sizeof b, "%s branch=%u privilege=%u%s address=0x%llx", k.subformat ? "trap" : "sync", k.branch,
                 k.privilege,
                 k.subformat ? (" ecause=" + std::to_string(k.ecause) + " interrupt=" + std::to_string(k.interrupt) +
                                " thaddr=" + std::to_string(k.thaddr))
                                   .c_str()
                             : "",
                 (unsigned long long)k.address);
    else if (k.format == 1 && !k.branches)
        snprintf(b, sizeof b, "branch_map branches=31 map=0x%08x", k.branch_map);
    else
        snprintf(b, sizeof b, "format%u branches=%u map=0x%x diff=%lld%s%s", k.format, k.branches, k.branch_map,
                 (long long)k.address, k.notify_flip ? " notify" : "", k.updiscon_flip ? " updiscon" : "");
    return b;
}

const rv::Insn *InstDecoder::insn(uint64_t pc, bool peek) {
    if (pc - seg_base_ < seg_len_ && !(pc & 1)) {
        const rv::Insn &c = seg_cache_[(pc - seg_base_) >> 1];
        if (c.size) return &c; // never rewritten code (Image::set_volatile)
    }
    if (tp_) {
        uint32_t site;
        unsigned hw;
        if (tp_->find(pc, site, hw)) {
            const trace::PatchSite &s = tp_->site(site);
            uint8_t v = tp_->version(site);
            if (!s.scheduled && walking_) {
                bool found = false;
                for (const Choice &c : choices_)
                    if (c.site == site) v = c.version, found = true;
                // The first pass through a free site: the version believed, and
                // where to come back to take the other one.
                if (!found && !peek && choices_.size() < kMaxChoices)
                    choices_.push_back({site, v, false, pc, out_.size(), bh_, tp_->cursor});
            }
            const rv::Insn &in = s.insn[v][hw];
            return in.size ? &in : nullptr;
        }
    }
    const rv::Insn *i = img_.at(pc);
    if (i) {
        const trace::Image::Seg *seg = img_.segment_of(pc);
        seg_base_ = seg->base, seg_len_ = seg->bytes.size(), seg_cache_ = seg->cache.data();
    }
    return i;
}

InstDecoder::Step InstDecoder::successor(uint64_t pc, uint64_t &next, bool consume) {
    const rv::Insn *i = insn(pc, false);
    if (!i || !i->size) return Step::Bad;
    switch (i->kind) {
    case rv::Kind::Branch:
        if (!bits_left()) return Step::NeedBit;
        next = bits_[bh_] ? pc + int64_t(i->offset) : pc + i->size;
        if (consume) bh_++;
        return Step::Next;
    case rv::Kind::DirectJump: next = pc + int64_t(i->offset); return Step::Next;
    case rv::Kind::Indirect:
    case rv::Kind::TrapReturn:
    case rv::Kind::TableJump: return Step::Uninferable;
    case rv::Kind::Trap: return Step::Bad; // never retires
    default: next = pc + i->size; return Step::Next;
    }
}

void InstDecoder::flush() {
    if (bh_ == bits_.size()) bits_.clear(), bh_ = 0;
    else if (bh_ > (1u << 20)) bits_.erase(bits_.begin(), bits_.begin() + long(bh_)), bh_ = 0;
    if (out_.empty()) return;
    if (bulk_) bulk_(out_.data(), out_.size());
    else
        for (uint64_t pc : out_) retired_(pc);
    out_.clear();
}

void InstDecoder::error(uint64_t off, const std::string &what) {
    if (++errors_ <= 100) fprintf(stderr, "# error at offset %llu: %s\n", (unsigned long long)off, what.c_str());
    else if (errors_ == 101) fprintf(stderr, "# (further errors not shown)\n");
    known_ = false, tentative_ = false;
    bits_.clear(), bh_ = 0;
}

// The walk could not explain the trace: back to the last free site passed whose other
// version was not tried yet, that version taken (the sites passed after it forgotten).
bool InstDecoder::retry(uint64_t &pc) {
    while (!choices_.empty() && choices_.back().retried) choices_.pop_back();
    if (choices_.empty() || ++retries_ > kMaxRetries) return false;
    Choice &c = choices_.back();
    c.version ^= 1, c.retried = true;
    out_.resize(c.out), bh_ = c.bh, tp_->cursor = c.cursor;
    pc = last_ = c.pc; // retired already: the walk goes on from it
    tp_->backtracks++;
    return true;
}

// Stopped at a reported address reached by falling through (no updiscon): if the next
// packet reports an address too, execution went on through the same address again,
// reached by an uninferable jump with no branch in between (E-Trace "Format 2 notify
// and updiscon fields", case 1); otherwise (format 3, end) the stop was right (case 3).
void InstDecoder::settle_tentative(bool next_is_address) {
    if (!tentative_) return;
    tentative_ = false;
    if (!next_is_address) return;
    const size_t saved = bh_;
    uint64_t pc = last_, next = 0;
    std::vector<uint64_t> path;
    for (uint64_t n = 0; n < max_steps; n++) {
        Step s = successor(pc, next, true);
        if (s == Step::Uninferable) {
            for (uint64_t a : path) emit(a);
            emit(tentative_addr_);
            return;
        }
        if (s != Step::Next) break;
        path.push_back(next), pc = next;
    }
    bh_ = saved; // no such path: the stop was right
}

void InstDecoder::packet(const InstPacket &k, uint64_t off) {
    // A support packet while tracing with no change to qualification (data trace
    // switched on or off) says nothing about the instructions.
    if (k.format == 3 && k.subformat == 3 && k.ienable && k.qual_status == 0) return;
    settle_tentative(k.format != 3 && k.has_address);
    if (k.format == 3) {
        switch (k.subformat) {
        case 3:
            if (k.qual_status != 0) known_ = false, bits_.clear(), bh_ = 0;
            return flush();
        case 2: return flush();
        case 1:
            if (!k.thaddr) { // EPC of an exception that never retired: a sync follows
                known_ = false, bits_.clear(), bh_ = 0, ref_ = k.address;
                return flush();
            }
            [[fallthrough]];
        case 0:
            bits_.clear(), bh_ = 0;
            ref_ = k.address;
            emit(k.address);
            known_ = true;
            if (is_branch(k.address)) bits_.push_back(k.branch == 0);
            return flush();
        }
    }
    for (unsigned i = 0; i < (k.branches ? k.branches : 31u); i++)
        if (k.format == 1) bits_.push_back(!(k.branch_map >> i & 1));
    if (!k.has_address) return;
    const uint64_t target = ref_ + k.address;
    ref_ = target;
    if (!known_) return flush(); // before the first sync
    const bool flip = k.updiscon_flip;
    notifies_ += k.notify_flip;
    uint64_t pc = last_, next = 0, prev = ~0ull;
    choices_.clear(), retries_ = 0, walking_ = true;
    const char *why = "walk too long";
    for (uint64_t n = 0; n < max_steps; n++) {
        Step s = successor(pc, next, true);
        if (s == Step::Uninferable) {
            const rv::Insn jump = *insn(pc, true);
            emit(target);
            const size_t own = is_branch(target) ? 1 : 0;
            uint64_t t;
            if (bits_left() != own) {
                why = "branch bits left at the reported address after an updiscon";
            } else if (seq_target(prev, pc, jump, t) && t != target) {
                why = "the jump's target differs from the reported address";
            } else if (!choices_.empty() &&
                       ((jump.pops() && !jump.pushes() && !after_call(target)) ||
                        (jump.pushes() && !jump.pops() && call_target_ok && !call_target_ok(target)))) {
                // Choosing between versions of rewritten code: a return goes to just
                // after a call, a call to a function's entry. Not an error otherwise
                // (code may return anywhere).
                if (retry(pc)) {
                    prev = ~0ull;
                    continue;
                }
                return walk_done();
            } else {
                return walk_done();
            }
        } else if (s == Step::NeedBit) {
            why = "branch map used up before the reported address";
        } else if (s == Step::Bad) {
            why = "no instruction at the walk's address";
        } else {
            emit(next);
            prev = pc, pc = next;
            if (next == target && !flip && bits_left() == (is_branch(target) ? 1u : 0u)) {
                // notify != address[MSB]: a trace-notify report of this arrival, the
                // spec's case 4, 1st iteration: "The decoder has reached the correct
                // instruction"; otherwise cases 1 and 3 wait for the next packet.
                tentative_ = !k.notify_flip, tentative_addr_ = target;
                return walk_done();
            }
            continue;
        }
        if (!tp_ || !retry(pc)) break;
        prev = ~0ull;
    }
    walking_ = false, choices_.clear();
    error(off, why);
    flush();
}

// jalr right after the auipc or lui that loaded its register (at the preceding
// address): its target is known (as the N-Trace decoder's sequential-jump inference).
bool InstDecoder::seq_target(uint64_t prev, uint64_t pc, const rv::Insn &jump, uint64_t &target) {
    if (prev == ~0ull || !jump.jump_reg()) return false;
    const rv::Insn *ld = insn(prev, true);
    if (!ld || ld->loads_constant() != jump.jump_reg() || prev + ld->size != pc) return false;
    uint64_t v = uint64_t(int64_t(ld->offset));
    if (ld->reg & rv::kRegAuipc) v += prev;
    target = (v + uint64_t(int64_t(jump.offset))) & ~1ull;
    return true;
}

// Whether the instruction before addr is a call (jal/jalr/c.jalr linking ra).
bool InstDecoder::after_call(uint64_t addr) {
    const rv::Insn *c = insn(addr - 4, true);
    if (c && c->size == 4 && c->pushes()) return true;
    c = insn(addr - 2, true);
    return c && c->size == 2 && c->pushes();
}

// The walk explained the packet: the free sites keep the versions it took.
void InstDecoder::walk_done() {
    walking_ = false;
    // A site seen in a version: its group (a static key's other sites) is in it too.
    // E-Trace needs that for sites whose versions differ only in straight-line code.
    for (const Choice &c : choices_) tp_->believe(c.site, c.version);
    choices_.clear();
    flush();
}

void InstDecoder::finish() {
    settle_tentative(false);
    flush();
}

} // namespace etrace
