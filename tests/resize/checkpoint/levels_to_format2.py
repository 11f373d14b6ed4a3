#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Rewrites level files of format 3 as an earlier library wrote them, format 2: the header
# without the padding that aligns the payload (its length field and zero bytes), the format
# field 2, the header's checksum recomputed (levels.hpp, PayloadChecksum, written out from
# its definition), the payload unchanged (its offset in the file then follows the header
# directly, in general not aligned to its elements). For levels_recovery.sh: format 2
# files must still recover.
#   levels_to_format2.py FILE...
import struct
import sys

M = (1 << 64) - 1
KEYS = [0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0, 0x082efa98ec4e6c89,
        0x452821e638d01377, 0xbe5466cf34e90c6c, 0xc0ac29b7c97c50dd, 0x3f84d5b5b5470917]


def mix(x):
    x = (x + 0x9e3779b97f4a7c15) & M
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)


def checksum(data):
    a, b = [0] * 8, [0] * 8
    padded = data + b'\0' * (-len(data) % 64)
    for s in range(0, len(padded), 64):
        for j, w in enumerate(struct.unpack_from('<8Q', padded, s)):
            x = w ^ KEYS[j]
            a[j] = (a[j] + w + (x & 0xffffffff) * (x >> 32)) & M
            b[j] = (b[j] + a[j]) & M
    h = mix(len(data))
    for j in range(8):
        h = mix(mix(h ^ a[j]) ^ b[j])
    return h


def convert(path):
    with open(path, 'rb') as f:
        data = f.read()
    (hlen,) = struct.unpack_from('<Q', data, 8)
    head = data[16:16 + hlen]
    (fmt,) = struct.unpack_from('<q', head, 0)
    if fmt != 3:
        raise SystemExit(f'{path}: format {fmt}, not 3')
    body = head[:-8]  # without the header's checksum
    if checksum(body) != struct.unpack_from('<Q', head, len(head) - 8)[0]:
        raise SystemExit(f"{path}: the header's checksum does not match its definition")
    # The padding is the last field: its length, then that many zero bytes; the fields
    # before it end with the payload's size and checksum.
    for pad in range(63, -1, -1):
        at = len(body) - pad - 8
        if at >= 8 and struct.unpack_from('<Q', body, at)[0] == pad and body[at + 8:] == b'\0' * pad:
            break
    else:
        raise SystemExit(f'{path}: no padding field found')
    fields = struct.pack('<q', 2) + body[8:at]
    new_head = fields + struct.pack('<Q', checksum(fields))
    with open(path, 'wb') as f:
        f.write(data[:8] + struct.pack('<Q', len(new_head)) + new_head + data[16 + hlen:])


for p in sys.argv[1:]:
    convert(p)
