// What the kernel's receive copy costs by where it writes: five paced TCP feeds on loopback
// (1,126,000-byte frames at 29.97 fps each, the 5 x 270 Mbps row), no hdstream code in the path.
// The receiver reads at most 128 KiB at a time (and never across a frame's end) either into one
// 128 KiB buffer, as iperf3's server does, or into its place in a frame taken in turn from a
// ring of frame buffers, as a receiver that keeps its frames does. The sender hashes each frame
// (XXH3, as hdstream's checksums) and writes it in groups of GROUP bytes (default: the whole frame
// in one write), from its own ring of frames so they are not in cache. Prints each side's CPU
// seconds.
//
//   cc -O2 -o /tmp/recv_destination bench/recv_destination.c -lxxhash
//   perf record -e cpu-clock -F 5000 /tmp/recv_destination ring 40   # frames kept
//   perf record -e cpu-clock -F 5000 /tmp/recv_destination scratch   # iperf3's way
//   /tmp/recv_destination ring 40 393216                             # 384 KiB writes
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

enum { kFeeds = 5, kFrameBytes = 1126000, kReadBytes = 128 * 1024, kSeconds = 10, kRing = 40 };
static const int64_t kPeriodNs = 33366667;  // 29.97 fps
// A frame buffer's allocation: whole pages, as aligned_alloc wants.
static const size_t kFrameAllocation = (kFrameBytes + 4095) / 4096 * 4096;

static char* page_aligned(size_t bytes) {
  char* p = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) exit(1);
  memset(p, 0, bytes);
  return p;
}

static double cpu_seconds(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec +
         r.ru_stime.tv_usec / 1e6;
}

static void send_feeds(const struct sockaddr_in* to, size_t group) {
  int sockets[kFeeds];
  for (int i = 0; i < kFeeds; ++i) {
    sockets[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(sockets[i], (const struct sockaddr*)to, sizeof *to) != 0) exit(1);
  }
  char* frames[kRing];
  for (int i = 0; i < kRing; ++i) frames[i] = page_aligned(kFrameAllocation);
  const double before = cpu_seconds();  // the set-up's page faults are not the sender's cost
  unsigned long long sum = 0;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int64_t n = 0; n < 30 * kSeconds * kFeeds; ++n) {
    // Feed n % kFeeds of frame n / kFeeds, the feeds spread over the period.
    const int64_t due =
        start.tv_nsec + (n / kFeeds) * kPeriodNs + (n % kFeeds) * (kPeriodNs / kFeeds);
    struct timespec at = {start.tv_sec + (time_t)(due / 1000000000), (long)(due % 1000000000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    char* frame = frames[n % kRing];
    for (size_t at_byte = 0; at_byte < kFrameBytes; at_byte += 1024) ++frame[at_byte];
    for (size_t begin = 0; begin < kFrameBytes; begin += group) {
      size_t end = begin + group < kFrameBytes ? begin + group : kFrameBytes;
      for (size_t c = begin; c < end; c += 65536) {
        sum += XXH3_64bits(frame + c, end - c < 65536 ? end - c : 65536);
      }
      for (size_t at_byte = begin; at_byte < end;) {
        ssize_t sent = write(sockets[n % kFeeds], frame + at_byte, end - at_byte);
        if (sent <= 0) exit(1);
        at_byte += (size_t)sent;
      }
    }
  }
  for (int i = 0; i < kFeeds; ++i) close(sockets[i]);
  fprintf(stderr, "sender   %.3f CPU s (%llx)\n", cpu_seconds() - before, sum & 1);
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "ring") != 0 && strcmp(argv[1], "scratch") != 0)) {
    fprintf(stderr, "usage: %s ring FRAMES [GROUP] | scratch [GROUP]\n", argv[0]);
    return 2;
  }
  const int keep = strcmp(argv[1], "ring") == 0;
  const long ring = keep ? (argc > 2 ? strtol(argv[2], NULL, 10) : kRing) : 1;
  const long group = argc > 2 + keep ? strtol(argv[2 + keep], NULL, 10) : kFrameBytes;
  if ((keep && ring < kFeeds) || group <= 0) {
    fprintf(stderr, "FRAMES must be at least %d (one a feed), GROUP above 0\n", kFeeds);
    return 2;
  }
  alarm(60);  // a sender that could not connect leaves accept() waiting: give up

  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr*)&address, sizeof address) != 0 ||
      getsockname(listener, (struct sockaddr*)&address, &length) != 0 || listen(listener, 8)) {
    return 1;
  }
  if (fork() == 0) {
    send_feeds(&address, (size_t)group);
    return 0;
  }
  struct pollfd feeds[kFeeds];
  size_t filled[kFeeds] = {0};
  long frame_of[kFeeds];
  char** frames = malloc(sizeof *frames * (size_t)ring);
  if (!frames) return 1;
  for (long i = 0; i < ring; ++i) frames[i] = page_aligned(keep ? kFrameAllocation : kReadBytes);
  for (int i = 0; i < kFeeds; ++i) {
    feeds[i] = (struct pollfd){.fd = accept(listener, NULL, NULL), .events = POLLIN};
    frame_of[i] = i % ring;
  }
  long next_frame = kFeeds % ring;
  int open_feeds = kFeeds;
  const double before = cpu_seconds();
  while (open_feeds > 0) {
    poll(feeds, kFeeds, -1);
    for (int i = 0; i < kFeeds; ++i) {
      if (!(feeds[i].revents & (POLLIN | POLLHUP))) continue;
      for (;;) {
        size_t want = kFrameBytes - filled[i] < kReadBytes ? kFrameBytes - filled[i] : kReadBytes;
        char* into = keep ? frames[frame_of[i]] + filled[i] : frames[0];
        ssize_t got = recv(feeds[i].fd, into, want, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (got <= 0) {  // the end of the feed, or an error: either way it is over
          feeds[i].fd = -1;
          --open_feeds;
          break;
        }
        filled[i] += (size_t)got;
        if (filled[i] == kFrameBytes) {
          filled[i] = 0;
          frame_of[i] = next_frame;
          next_frame = (next_frame + 1) % ring;
        }
      }
    }
  }
  const double receiver = cpu_seconds() - before;
  wait(NULL);
  fprintf(stderr, "receiver %.3f CPU s (%s)\n", receiver, keep ? "into frames" : "one buffer");
  return 0;
}
