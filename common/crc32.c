// SPDX-License-Identifier: BSD-3-Clause
// crc32.h: slicing by 8 (eight tables, built once, consume eight bytes per step).
#include <pthread.h>
#include <string.h>

#include "crc32.h"

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; b++)
        for (int t = 1; t < 8; t++)
            table[t][b] = (table[t - 1][b] >> 8) ^ table[0][table[t - 1][b] & 0xffu];
}

uint32_t scal_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *s = p;
    pthread_once(&table_once, build_tables);
    crc = ~crc;
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= crc;
        crc = table[7][lo & 0xffu] ^ table[6][(lo >> 8) & 0xffu] ^ table[5][(lo >> 16) & 0xffu] ^
              table[4][lo >> 24] ^ table[3][hi & 0xffu] ^ table[2][(hi >> 8) & 0xffu] ^
              table[1][(hi >> 16) & 0xffu] ^ table[0][hi >> 24];
        s += 8;
        n -= 8;
    }
    while (n--)
        crc = table[0][(crc ^ *s++) & 0xffu] ^ (crc >> 8);
    return ~crc;
}
