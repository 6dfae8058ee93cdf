/* pcapsum [-n TOP] CAPTURE.pcap: print a summary report of a capture on stdout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"

static void usage(void)
{
    fputs("usage: pcapsum [-n TOP] CAPTURE.pcap\n", stderr);
    exit(2);
}

static void help(void)
{
    fputs("usage: pcapsum [-n TOP] CAPTURE.pcap\n"
          "\n"
          "Summarise a libpcap capture file (microsecond or nanosecond, either byte\n"
          "order; Ethernet or raw IP): packet and protocol counts, sizes, services,\n"
          "top flows and TCP session outcomes, top talkers, ICMP errors, DNS question\n"
          "names and HTTP hosts. The report format is described in docs/FORMAT.md.\n"
          "\n"
          "  -n TOP   entries in each ranked list (default 10, at most 1000000)\n"
          "  -h       this help\n",
          stdout);
    exit(0);
}

static size_t parse_top(const char *text)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || value > 1000000ULL)
        usage();
    return (size_t)value;
}

int main(int argc, char **argv)
{
    size_t top = 10;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help();
        } else if (strcmp(argv[i], "-n") == 0) {
            if (i + 1 >= argc)
                usage();
            top = parse_top(argv[++i]);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            usage();
        } else if (path) {
            usage();
        } else {
            path = argv[i];
        }
    }
    if (!path)
        usage();
    FILE *fp = fopen(path, "rb");
    if (!fp)
        ps_die("%s: %s", path, strerror(errno));
    static char iobuf[1 << 16];
    setvbuf(fp, iobuf, _IOFBF, sizeof(iobuf));
    struct ps_capture cap;
    if (ps_capture_open(&cap, fp) != 0)
        ps_die("%s: not a pcap capture", path);
    struct ps_summary summary;
    ps_summary_init(&summary, &cap);
    struct ps_record rec;
    while (ps_capture_next(&cap, &rec))
        ps_summary_packet(&summary, &rec);
    ps_report(stdout, &summary, top);
    ps_summary_free(&summary);
    ps_capture_close(&cap);
    fclose(fp);
    return 0;
}
