#ifndef RELAY_CRELAYLINUX_SHIM_H
#define RELAY_CRELAYLINUX_SHIM_H

// Glibc's Swift overlay does not expose these headers.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

// errno is a thread-local macro; reading it through a function keeps Swift honest.
static inline int relay_errno(void) { return errno; }

#endif
