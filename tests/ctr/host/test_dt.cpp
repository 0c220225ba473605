// SPDX-License-Identifier: BSD-2-Clause
// The device-tree fix-up that advertises emulated CTR (ctr_dt.hpp).
#include <doctest/doctest.h>
#include <libfdt.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ctr_dt.hpp"

namespace {
std::vector<char> load_dtb(unsigned extra) {
    std::ifstream f(CTR_TEST_DATA "/cpus.dtb", std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    REQUIRE(!b.empty());
    b.resize(b.size() + extra);
    REQUIRE(fdt_open_into(b.data(), b.data(), int(b.size())) == 0);
    return b;
}
std::string isa_of(const void *fdt, const char *path) {
    int n = fdt_path_offset(fdt, path);
    const char *s = static_cast<const char *>(fdt_getprop(fdt, n, "riscv,isa", nullptr));
    return s ? s : "";
}
} // namespace

TEST_CASE("dt: riscv,isa gets _ssctr_sscsrind once") {
    char buf[64] = "rv64imac";
    int n = ctr::dt::isa_append(buf, 8, sizeof buf, "ssctr");
    CHECK(std::string(buf) == "rv64imac_ssctr");
    n = ctr::dt::isa_append(buf, n, sizeof buf, "ssctr");
    CHECK(std::string(buf) == "rv64imac_ssctr");
    // "ssc" inside another name is not a match.
    char b2[64] = "rv64i_sscofpmf";
    CHECK(ctr::dt::isa_append(b2, 14, sizeof b2, "ssc") == 18);
    char small[12] = "rv64imac";
    CHECK(ctr::dt::isa_append(small, 8, sizeof small, "sscsrind") == -1);
}

TEST_CASE("dt: advertise adds ssctr and sscsrind to every CPU node") {
    std::vector<char> b = load_dtb(1024);
    void *fdt = b.data();
    REQUIRE(ctr::dt::advertise(fdt) == 0);
    CHECK(isa_of(fdt, "/cpus/cpu@0") == "rv64imafdch_zicsr_zifencei_sstc_ssctr_sscsrind");
    CHECK(isa_of(fdt, "/cpus/cpu@1") == "rv64imac_sscsrind_ssctr");
    int n = fdt_path_offset(fdt, "/cpus/cpu@1");
    int len = 0;
    const char *list = static_cast<const char *>(fdt_getprop(fdt, n, "riscv,isa-extensions", &len));
    CHECK(fdt_stringlist_count(fdt, n, "riscv,isa-extensions") == 6);
    CHECK(fdt_stringlist_contains(list, len, "ssctr"));
    // cpu@0 had no list: none is created.
    CHECK(fdt_getprop(fdt, fdt_path_offset(fdt, "/cpus/cpu@0"), "riscv,isa-extensions", nullptr) ==
          nullptr);
    // Idempotent.
    REQUIRE(ctr::dt::advertise(fdt) == 0);
    CHECK(isa_of(fdt, "/cpus/cpu@1") == "rv64imac_sscsrind_ssctr");
    CHECK(fdt_stringlist_count(fdt, n, "riscv,isa-extensions") == 6);
}

TEST_CASE("dt: no room is reported, not ignored") {
    std::vector<char> b = load_dtb(0);
    CHECK(ctr::dt::advertise(b.data()) == -FDT_ERR_NOSPACE);
}

namespace {
std::string source_prop(const void *fdt, const char *path) {
    const char *s = static_cast<const char *>(fdt_getprop(fdt, fdt_path_offset(fdt, path), "tsbi,ctr-source", nullptr));
    return s ? s : "";
}
ctr::dt::Source hart0_encoder(unsigned long h) {
    return h == 0 ? ctr::dt::Source::encoder : ctr::dt::Source::registers;
}
ctr::dt::Source all_native(unsigned long) { return ctr::dt::Source::native; }
} // namespace

TEST_CASE("dt: annotate names each hart's record source and advertises only where it records") {
    // Issue 30 item 3 / issue 27 item 9: hart 0 fed from its encoder, hart 1 with
    // registers only.
    std::vector<char> b = load_dtb(1024);
    void *fdt = b.data();
    REQUIRE(ctr::dt::annotate(fdt, hart0_encoder, true, false) == 0);
    CHECK(source_prop(fdt, "/cpus/cpu@0") == "encoder");
    CHECK(source_prop(fdt, "/cpus/cpu@1") == "registers");
    CHECK(isa_of(fdt, "/cpus/cpu@0") == "rv64imafdch_zicsr_zifencei_sstc_ssctr_sscsrind");
    CHECK(isa_of(fdt, "/cpus/cpu@1") == "rv64imac_sscsrind"); // untouched
    int n = fdt_path_offset(fdt, "/cpus/cpu@1");
    CHECK(fdt_stringlist_count(fdt, n, "riscv,isa-extensions") == 5);
    // cpu-map (no device_type) is left alone.
    CHECK(source_prop(fdt, "/cpus/cpu-map").empty());

    // /chosen/tsbi,ctr-registers-only: the register interface alone is advertised too.
    std::vector<char> b2 = load_dtb(1024);
    REQUIRE(ctr::dt::annotate(b2.data(), hart0_encoder, true, true) == 0);
    CHECK(isa_of(b2.data(), "/cpus/cpu@1") == "rv64imac_sscsrind_ssctr");
    CHECK(source_prop(b2.data(), "/cpus/cpu@1") == "registers");

    // Without the ratified layout nothing is advertised; the source is still named.
    std::vector<char> b3 = load_dtb(1024);
    REQUIRE(ctr::dt::annotate(b3.data(), hart0_encoder, false, true) == 0);
    CHECK(isa_of(b3.data(), "/cpus/cpu@0") == "rv64imafdch_zicsr_zifencei_sstc");
    CHECK(source_prop(b3.data(), "/cpus/cpu@0") == "encoder");

    // Native harts: named, the hardware's own ISA strings left as they are.
    std::vector<char> b4 = load_dtb(1024);
    REQUIRE(ctr::dt::annotate(b4.data(), all_native, true, true) == 0);
    CHECK(source_prop(b4.data(), "/cpus/cpu@1") == "native");
    CHECK(isa_of(b4.data(), "/cpus/cpu@1") == "rv64imac_sscsrind");
}
