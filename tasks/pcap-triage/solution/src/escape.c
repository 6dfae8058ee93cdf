/* Presentation form of bytes taken from packets (names, hosts). */
#include "pcapsum.h"

void ps_escape_byte(char *out, size_t *pos, uint8_t c, int escape_dot)
{
    if (c >= 'A' && c <= 'Z')
        c = (uint8_t)(c - 'A' + 'a');
    if (c < 0x21 || c > 0x7e || c == '\\' || (escape_dot && c == '.')) {
        out[(*pos)++] = '\\';
        out[(*pos)++] = (char)('0' + c / 100);
        out[(*pos)++] = (char)('0' + (c / 10) % 10);
        out[(*pos)++] = (char)('0' + c % 10);
    } else {
        out[(*pos)++] = (char)c;
    }
    out[*pos] = '\0';
}
