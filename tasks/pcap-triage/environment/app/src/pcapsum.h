/* pcapsum: summarise a libpcap capture file (see docs/FORMAT.md).
 *
 * How a capture flows through the program:
 *
 *   main.c       parses the command line, opens the file, drives the loop below
 *   pcapfile.c   reads the file header, then one record at a time (ps_record)
 *   report.c     ps_summary_packet(): counts the record, then asks decode.c for the
 *                headers and hands the result to the collectors:
 *   decode.c       link (Ethernet, VLAN tags, raw IP), IPv4/IPv6, TCP/UDP/ICMP
 *   sizes.c        wire-length histogram
 *   services.c     TCP connection attempts and UDP datagrams per destination port
 *   flow.c         one entry per bidirectional flow, TCP session outcome
 *   talkers.c      per-address totals
 *   icmp.c         ICMP message kinds and the packets ICMP errors quote
 *   dns.c          DNS queries/responses and the first question name
 *   http.c         HTTP requests and their Host header
 *   names.c        the counting table dns.c, http.c and icmp.c record texts in
 *   escape.c       the presentation form of bytes taken from packets
 *   addr.c         text form of IPv4 and IPv6 addresses
 *   util.c         byte-order readers, checked allocation, hashing
 *   report.c     ps_report(): prints every section in the documented order
 *
 * Every pointer into packet data comes with the number of bytes that follow it; the
 * record buffer holds exactly the captured bytes and nothing after them. All counters
 * are 64-bit. Timestamps are nanoseconds since the epoch.
 */
#ifndef PCAPSUM_H
#define PCAPSUM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PS_MAX_RECORD 262144u /* a record claiming more captured bytes is damaged */
#define PS_KEY_LEN 38         /* proto, family, a.addr[16], a.port, b.addr[16], b.port */
#define PS_NAME_MAX 1024      /* presentation form of a name, escapes included */

/* ---- util.c ---------------------------------------------------------------------------- */
uint16_t ps_be16(const uint8_t *p);
uint32_t ps_be32(const uint8_t *p);
uint32_t ps_le32(const uint8_t *p);
uint16_t ps_le16(const uint8_t *p);
void *ps_xmalloc(size_t size);
void *ps_xcalloc(size_t count, size_t size);
void *ps_xrealloc(void *ptr, size_t size);
char *ps_xstrdup(const char *text);
void ps_die(const char *fmt, ...);
uint64_t ps_hash(const void *data, size_t len);

/* ---- pcapfile.c ------------------------------------------------------------------------ */
struct ps_capture {
    FILE *fp;
    int big_endian;        /* header fields are big-endian */
    int nanosecond;        /* timestamps are sec + nanoseconds */
    unsigned version_major, version_minor;
    uint32_t snaplen;
    uint32_t linktype;
    int truncated;         /* the file ended inside a record, or a record was damaged */
    uint8_t *buf;          /* the current record's data */
};

struct ps_record {
    const uint8_t *data;
    size_t caplen;         /* bytes present in the file */
    uint64_t wirelen;      /* length on the wire, as used for byte counts */
    uint64_t ts;           /* nanoseconds since the epoch */
};

/* 0 on success; -1 if the file is not a pcap capture (too short or unknown magic). */
int ps_capture_open(struct ps_capture *cap, FILE *fp);
/* 1 and fills rec for the next record; 0 at the end (clean or truncated). */
int ps_capture_next(struct ps_capture *cap, struct ps_record *rec);
void ps_capture_close(struct ps_capture *cap);

/* ---- decode.c -------------------------------------------------------------------------- */
enum ps_l3 { PS_L3_OTHER = 0, PS_L3_IPV4, PS_L3_IPV6, PS_L3_ARP };
enum ps_l4 { PS_L4_NONE = 0, PS_L4_TCP, PS_L4_UDP, PS_L4_ICMP, PS_L4_ICMPV6 };

struct ps_addr {
    uint8_t family;        /* 4 or 6 */
    uint8_t bytes[16];     /* IPv4 uses the first four */
};

struct ps_decoded {
    enum ps_l3 l3;
    enum ps_l4 l4;
    int fragment;          /* the IP packet is a fragment (first or not) */
    uint8_t proto;         /* IP protocol number (after IPv6 extension headers) */
    struct ps_addr src, dst;
    uint16_t sport, dport;
    uint8_t tcp_flags;
    const uint8_t *payload; /* transport payload, NULL if none was parsed */
    size_t paylen;
};

/* 0 when decoded, -1 when the packet is malformed. */
int ps_decode(uint32_t linktype, const uint8_t *data, size_t len, struct ps_decoded *out);

/* ---- addr.c ---------------------------------------------------------------------------- */
/* Writes the text form of addr (dotted quad or RFC 5952) into out (>= 46 bytes). */
void ps_addr_format(const struct ps_addr *addr, char *out, size_t size);

/* ---- flow.c ---------------------------------------------------------------------------- */
struct ps_flow {
    uint8_t key[PS_KEY_LEN];
    uint64_t packets, bytes, a2b, b2a;
    uint64_t first, last;
    uint8_t flags;         /* union of the TCP flags seen */
    uint8_t tcp_state;     /* PS_SEEN_* bits */
    struct ps_flow *next;  /* chain in the table */
};

#define PS_SEEN_SYN 1     /* a packet with SYN set and ACK clear */
#define PS_SEEN_SYNACK 2  /* a packet with SYN and ACK set */
#define PS_SEEN_RST 4     /* a packet with RST set */
#define PS_SEEN_FIN 8     /* a packet with FIN set */

struct ps_flow_table {
    struct ps_flow **slots;
    size_t nslots;
    size_t count;
};

void ps_flows_init(struct ps_flow_table *t);
void ps_flows_add(struct ps_flow_table *t, const struct ps_decoded *d, uint64_t wirelen,
                  uint64_t ts);
/* Writes the "tcp-sessions:" line. */
void ps_flows_sessions(FILE *out, struct ps_flow *const *flows, size_t count);
/* All flows in an array (caller frees the array, not the flows). */
struct ps_flow **ps_flows_list(const struct ps_flow_table *t);
void ps_flows_free(struct ps_flow_table *t);

/* ---- talkers.c ------------------------------------------------------------------------- */
#define PS_TALKER_KEY 17       /* family, address[16] */

struct ps_talker {
    uint8_t key[PS_TALKER_KEY];
    uint64_t packets, bytes, sent, received;
    struct ps_talker *next;
};

struct ps_talker_table {
    struct ps_talker **slots;
    size_t nslots;
    size_t count;
};

void ps_talkers_init(struct ps_talker_table *t);
void ps_talkers_add(struct ps_talker_table *t, const struct ps_decoded *d, uint64_t wirelen);
void ps_talkers_print(FILE *out, const struct ps_talker_table *t, size_t top);
void ps_talkers_free(struct ps_talker_table *t);

/* ---- names.c --------------------------------------------------------------------------- */
struct ps_name {
    char *text;
    uint64_t count;
    struct ps_name *next;
};

struct ps_name_table {
    struct ps_name **slots;
    size_t nslots;
    size_t count;
};

void ps_names_init(struct ps_name_table *t);
void ps_names_add(struct ps_name_table *t, const char *text);
struct ps_name **ps_names_list(const struct ps_name_table *t);
void ps_names_free(struct ps_name_table *t);

/* ---- dns.c ----------------------------------------------------------------------------- */
struct ps_dns_stats {
    uint64_t queries, responses, bad;
    struct ps_name_table names;
};

void ps_dns_init(struct ps_dns_stats *s);
void ps_dns_message(struct ps_dns_stats *s, const uint8_t *msg, size_t len);
/* Decodes the name at off into out (PS_NAME_MAX bytes); 0 on success, -1 if invalid. */
int ps_dns_name(const uint8_t *msg, size_t len, size_t off, char *out);
void ps_dns_free(struct ps_dns_stats *s);

/* ---- http.c ---------------------------------------------------------------------------- */
struct ps_http_stats {
    uint64_t requests, hosts, bad;
    struct ps_name_table names;
};

void ps_http_init(struct ps_http_stats *s);
void ps_http_payload(struct ps_http_stats *s, const uint8_t *data, size_t len);
void ps_http_free(struct ps_http_stats *s);

/* ---- escape.c -------------------------------------------------------------------------- */
/* Appends byte c to out at *pos in presentation form (see FORMAT.md); escape_dot also
 * escapes '.'. out must have room for 4 more bytes plus the terminator. */
void ps_escape_byte(char *out, size_t *pos, uint8_t c, int escape_dot);

/* ---- sizes.c --------------------------------------------------------------------------- */
#define PS_SIZE_BUCKETS 7
struct ps_sizes {
    uint64_t counts[PS_SIZE_BUCKETS];
};

void ps_sizes_add(struct ps_sizes *s, uint64_t wirelen);
void ps_sizes_print(FILE *out, const struct ps_sizes *s);

/* ---- services.c ------------------------------------------------------------------------ */
struct ps_services {
    uint64_t *tcp;         /* SYN packets (without ACK) per destination port */
    uint64_t *udp;         /* UDP packets per destination port */
};

void ps_services_init(struct ps_services *s);
void ps_services_add(struct ps_services *s, const struct ps_decoded *d);
void ps_services_print(FILE *out, const struct ps_services *s, size_t top);
void ps_services_free(struct ps_services *s);

/* ---- icmp.c ---------------------------------------------------------------------------- */
struct ps_icmp_stats {
    uint64_t echo_request, echo_reply, unreachable, time_exceeded, other, quoted;
    struct ps_name_table targets; /* "PROTO ADDR PORT" of quoted IPv4 packets */
};

void ps_icmp_init(struct ps_icmp_stats *s);
/* msg/len: the whole ICMP or ICMPv6 message (at least 4 bytes). */
void ps_icmp_message(struct ps_icmp_stats *s, int v6, const uint8_t *msg, size_t len);
void ps_icmp_print(FILE *out, const struct ps_icmp_stats *s, size_t top);
void ps_icmp_free(struct ps_icmp_stats *s);

/* Ranks a name table and prints "LABEL COUNT TEXT" lines (report.c). */
void ps_print_names(FILE *out, const char *label, const struct ps_name_table *t, size_t top);

/* ---- report.c -------------------------------------------------------------------------- */
struct ps_summary {
    const struct ps_capture *cap;
    uint64_t total, decoded, malformed;
    uint64_t wire_bytes, captured_bytes;
    int have_time;
    uint64_t first, last;
    uint64_t ipv4, ipv6, arp, other;
    uint64_t tcp, udp, icmp, icmpv6, fragments;
    struct ps_sizes sizes;
    struct ps_services services;
    struct ps_flow_table flows;
    struct ps_talker_table talkers;
    struct ps_icmp_stats icmp_stats;
    struct ps_dns_stats dns;
    struct ps_http_stats http;
};

void ps_summary_init(struct ps_summary *s, const struct ps_capture *cap);
void ps_summary_packet(struct ps_summary *s, const struct ps_record *rec);
void ps_report(FILE *out, const struct ps_summary *s, size_t top);
void ps_summary_free(struct ps_summary *s);

#endif
