// SPDX-License-Identifier: BSD-2-Clause
// Program image: ELF (libelf) or raw binary, with lazily classified instructions.
#include "image.hpp"

#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

namespace trace {

void Image::add(uint64_t base, std::vector<uint8_t> bytes) {
    Seg s{base, std::move(bytes), {}};
    s.cache.resize((s.bytes.size() + 1) / 2);
    segs_.push_back(std::move(s));
    last_ = nullptr;
}

bool Image::read(uint64_t addr, void *dst, unsigned n) const {
    for (const Seg &s : segs_) {
        uint64_t off = addr - s.base;
        if (off < s.bytes.size() && s.bytes.size() - off >= n) {
            memcpy(dst, s.bytes.data() + off, n);
            return true;
        }
    }
    return false;
}

uint64_t Image::read_xlen(uint64_t addr, bool &ok) const {
    uint64_t v = 0;
    ok = read(addr, &v, opts.xlen / 8); // little-endian host assumed (x86-64/RISC-V)
    return v;
}

const rv::Insn *Image::classify_at(const Seg &s, uint64_t off) const {
    uint32_t bits = 0;
    size_t avail = s.bytes.size() - off;
    if (avail < 2) return nullptr;
    memcpy(&bits, s.bytes.data() + off, avail >= 4 ? 4 : 2);
    rv::Insn in = rv::classify(bits, opts);
    if (in.size > avail) return nullptr;
    if (!volatile_.empty() && volatile_.count(s.base + off)) {
        scratch_ = in;
        return &scratch_;
    }
    s.cache[off >> 1] = in;
    return &s.cache[off >> 1];
}

const rv::Insn *Image::slow_at(uint64_t pc) const {
    for (const Seg &s : segs_)
        if (pc - s.base < s.bytes.size()) {
            last_ = &s;
            return lookup(s, pc);
        }
    return nullptr;
}

bool Image::load_raw(const std::string &path, uint64_t base, std::string &err) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        err = "cannot open " + path;
        return false;
    }
    std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    add(base, std::move(b));
    return true;
}

bool Image::load_elf(const std::string &path, std::string &err) {
    if (elf_version(EV_CURRENT) == EV_NONE) {
        err = "libelf initialisation failed";
        return false;
    }
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) {
        err = "cannot open " + path;
        return false;
    }
    Elf *e = elf_begin(fd, ELF_C_READ, nullptr);
    bool ok = false;
    size_t n = 0;
    GElf_Ehdr eh;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n)) {
        err = path + ": not an ELF file";
    } else {
        opts.xlen = gelf_getclass(e) == ELFCLASS32 ? 32 : 64;
        entry = eh.e_entry;
        size_t fsize = 0;
        char *raw = elf_rawfile(e, &fsize);
        bool any_exec = false;
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
                any_exec = true;
        }
        ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(e, int(i), &ph) || ph.p_type != PT_LOAD) continue;
            if (any_exec && !(ph.p_flags & PF_X)) continue;
            if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset) {
                err = path + ": segment outside the file";
                ok = false;
                break;
            }
            std::vector<uint8_t> b(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
            add(ph.p_vaddr, std::move(b));
        }
    }
    if (e) elf_end(e);
    close(fd);
    return ok;
}

bool Image::write_elf(const std::string &path, std::string &err) const {
    if (elf_version(EV_CURRENT) == EV_NONE) {
        err = "libelf initialisation failed";
        return false;
    }
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        err = "cannot create " + path;
        return false;
    }
    Elf *e = elf_begin(fd, ELF_C_WRITE, nullptr);
    const int cls = opts.xlen == 32 ? ELFCLASS32 : ELFCLASS64;
    bool ok = e && gelf_newehdr(e, cls);
    GElf_Ehdr eh;
    if (ok && gelf_getehdr(e, &eh)) {
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_type = ET_EXEC;
        eh.e_machine = EM_RISCV;
        eh.e_version = EV_CURRENT;
        eh.e_entry = entry ? entry : (segs_.empty() ? 0 : segs_[0].base);
        ok = gelf_update_ehdr(e, &eh);
    }
    ok = ok && gelf_newphdr(e, segs_.size());
    // One section per segment carries the bytes; the program headers point at them.
    std::vector<Elf_Scn *> scns;
    for (const Seg &sg : segs_) {
        if (!ok) break;
        Elf_Scn *scn = elf_newscn(e);
        Elf_Data *d = scn ? elf_newdata(scn) : nullptr;
        GElf_Shdr sh;
        if (!d || !gelf_getshdr(scn, &sh)) {
            ok = false;
            break;
        }
        d->d_buf = const_cast<uint8_t *>(sg.bytes.data());
        d->d_size = sg.bytes.size();
        d->d_type = ELF_T_BYTE;
        d->d_align = 2;
        sh.sh_type = SHT_PROGBITS;
        sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
        sh.sh_addr = sg.base;
        ok = gelf_update_shdr(scn, &sh);
        scns.push_back(scn);
    }
    // Section names, so that binutils accept the file.
    static const char names[] = "\0.text\0.shstrtab";
    if (ok) {
        Elf_Scn *str = elf_newscn(e);
        Elf_Data *d = str ? elf_newdata(str) : nullptr;
        GElf_Shdr sh;
        if (!d || !gelf_getshdr(str, &sh)) {
            ok = false;
        } else {
            d->d_buf = const_cast<char *>(names);
            d->d_size = sizeof names;
            d->d_type = ELF_T_BYTE;
            d->d_align = 1;
            sh.sh_type = SHT_STRTAB;
            sh.sh_name = 7;
            GElf_Ehdr h;
            ok = gelf_update_shdr(str, &sh) && gelf_getehdr(e, &h);
            h.e_shstrndx = uint16_t(elf_ndxscn(str));
            ok = ok && gelf_update_ehdr(e, &h);
            for (Elf_Scn *t : scns) {
                GElf_Shdr th;
                ok = ok && gelf_getshdr(t, &th);
                th.sh_name = 1;
                ok = ok && gelf_update_shdr(t, &th);
            }
        }
    }
    ok = ok && elf_update(e, ELF_C_NULL) >= 0;
    for (size_t i = 0; ok && i < segs_.size(); i++) {
        GElf_Shdr sh;
        GElf_Phdr ph{};
        ok = gelf_getshdr(scns[i], &sh);
        ph.p_type = PT_LOAD;
        ph.p_flags = PF_R | PF_X;
        ph.p_offset = sh.sh_offset;
        ph.p_vaddr = ph.p_paddr = segs_[i].base;
        ph.p_filesz = ph.p_memsz = segs_[i].bytes.size();
        ph.p_align = 2;
        ok = ok && gelf_update_phdr(e, int(i), &ph);
    }
    ok = ok && elf_update(e, ELF_C_WRITE) >= 0;
    if (!ok) err = std::string("writing ELF failed: ") + elf_errmsg(-1);
    if (e) elf_end(e);
    close(fd);
    return ok;
}

} // namespace trace
