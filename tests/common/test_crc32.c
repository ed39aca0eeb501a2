// SPDX-License-Identifier: BSD-3-Clause
// Unit test: scal_crc32 (common/crc32.h) gives zlib's crc32 for every length, alignment and split,
// so that snapshots and identity caches written by earlier builds (zlib's checksum) still verify.
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "crc32.h"
#include "scal_test.h"

int main(void)
{
    static unsigned char data[4099];
    uint32_t x = 12345u;
    for (size_t i = 0; i < sizeof(data); i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (unsigned char)(x >> 16);
    }
    CHECK(scal_crc32(0, "123456789", 9) == 0xCBF43926u, "the check value of CRC-32: %#x",
          scal_crc32(0, "123456789", 9));
    CHECK(scal_crc32(0, NULL, 0) == 0u, "the CRC of nothing is 0");
    int bad = 0;
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; n + off <= 300; n++)
            bad += scal_crc32(0, data + off, n) != (uint32_t)crc32(0L, data + off, (uInt)n);
    CHECK(bad == 0, "zlib's value at every length up to 300 and alignment: %d differ", bad);
    CHECK(scal_crc32(0, data, sizeof(data)) == (uint32_t)crc32(0L, data, sizeof(data)),
          "zlib's value for %zu bytes", sizeof(data));
    bad = 0;
    for (size_t cut = 0; cut <= sizeof(data); cut += 97)
        bad += scal_crc32(scal_crc32(0, data, cut), data + cut, sizeof(data) - cut) !=
               (uint32_t)crc32(0L, data, sizeof(data));
    CHECK(bad == 0, "a CRC continued over two pieces is the whole's: %d differ", bad);
    return scal_test_result("crc32");
}
