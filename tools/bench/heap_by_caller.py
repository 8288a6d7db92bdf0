#!/usr/bin/env python3
"""Summarizes a jemalloc heap profile (MALLOC_CONF=prof:true) by the first
Taskboard frame of each sampled allocation: where the scheduler's live heap
is, by the code that asked for it. jeprof on this Debian attributes every
sample of a PIE binary to one frame, so this script reads the profile's
stacks and mapped libraries itself and symbolizes with addr2line.

  tools/bench/heap_by_caller.py PROFILE.heap [TOP]
"""
import collections
import math
import re
import subprocess
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    lines = open(path).read().split('\n')
    # heap_v2/RATE: one allocation in RATE bytes is sampled; jeprof scales
    # each sample up by 1 / (1 - exp(-size / RATE)), and so does this.
    rate = float(lines[0].split('/')[1])
    stacks, maps, in_maps = [], [], False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('MAPPED_LIBRARIES'):
            in_maps = True
        elif in_maps:
            m = re.match(r'([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s+(\S+)', line)
            if m and 'x' in m.group(3):
                maps.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(4), 16),
                             m.group(5)))
        elif line.startswith('@ '):
            m = re.match(r'\s*t\*: (\d+): (\d+)', lines[i + 1])
            count, size = int(m.group(1)), int(m.group(2))
            if count:
                size *= 1 / (1 - math.exp(-(size / count) / rate))
            stacks.append(([int(a, 16) for a in line[2:].split()][:25], size))
            i += 1
        i += 1

    def locate(addr):
        for lo, hi, offset, lib in maps:
            if lo <= addr < hi:
                return lib, addr - lo + offset
        return None, None

    wanted = collections.defaultdict(set)
    for addrs, _ in stacks:
        for addr in addrs:
            lib, offset = locate(addr - 1)
            if lib:
                wanted[lib].add(offset)
    names = {}
    for lib, offsets in wanted.items():
        offsets = sorted(offsets)
        out = subprocess.run(['addr2line', '-f', '-C', '-e', lib] + [hex(o) for o in offsets],
                             capture_output=True, text=True).stdout.split('\n')
        for k, offset in enumerate(offsets):
            names[(lib, offset)] = out[2 * k] if 2 * k < len(out) else '?'

    by_caller = collections.Counter()
    for addrs, size in stacks:
        frames = [names.get(locate(a - 1), '?') for a in addrs]
        ours = [f for f in frames if 'taskboard::' in f]
        key = ' <- '.join(f[:70] for f in ours[:2]) if ours else next(
            (f for f in frames if f != '?' and 'malloc' not in f and 'operator new' not in f), '?')
        by_caller[key[:160]] += size
    total = sum(size for _, size in stacks)
    print(f'{total / 1e6:8.1f} MB sampled live heap')
    for key, size in by_caller.most_common(top):
        print(f'{size / 1e6:8.1f} MB {100 * size / total:5.1f}%  {key}')


if __name__ == '__main__':
    main()
