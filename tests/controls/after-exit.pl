#!/usr/bin/perl
# A helper the controls leave behind:  after-exit.pl PID SIGNAL TARGET [DELAY_MS]
# Holds a pidfd of PID before it returns (PID is alive: it is the caller's parent or the caller,
# waiting on it), then, in the background, waits on that pidfd and, once PID has exited (and
# DELAY_MS more, the delayed kill under test), sends SIGNAL to TARGET (a negative TARGET names a
# group). No polling: the pidfd says when PID is gone, whatever the machine's speed.
use strict;
use warnings;

my ($pid, $signal, $target, $delay_ms) = @ARGV;
my $pidfd = syscall(434, $pid + 0, 0);    # pidfd_open (434 on every architecture)
die "after-exit.pl: pidfd_open($pid): $!\n" if $pidfd < 0;
exit 0 if fork();                          # the caller goes on; the helper is held by its pidfd
my $readable = '';
vec($readable, $pidfd, 1) = 1;
select($readable, undef, undef, undef);    # readable once PID has exited
select(undef, undef, undef, $delay_ms / 1000) if $delay_ms;kill $signal, $target + 0;
