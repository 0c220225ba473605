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
