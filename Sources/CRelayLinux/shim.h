#ifndef RELAY_CRELAYLINUX_SHIM_H
#define RELAY_CRELAYLINUX_SHIM_H

// Glibc's Swift overlay does not expose these headers.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

// errno is a thread-local macro; reading it through a function keeps Swift honest.
static inline int relay_errno(void) { return errno; }

// accept4 is declared only under _GNU_SOURCE, which Swift's Glibc module is built without.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// prctl is variadic, which Swift cannot call; names loop threads for `top -H` and debuggers.
static inline void relay_set_thread_name(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

// EPOLL* constants are enum values Swift imports as EPOLL_EVENTS, not the uint32_t mask epoll_event
// holds; one typed set keeps the call sites free of casts.
static const uint32_t relay_EPOLLIN = EPOLLIN;
static const uint32_t relay_EPOLLOUT = EPOLLOUT;
static const uint32_t relay_EPOLLERR = EPOLLERR;
static const uint32_t relay_EPOLLHUP = EPOLLHUP;

#endif
