/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The traced workload's building blocks, shared by the trace payloads
 * (trace.c for the memory-mapped encoder, strc.c for self-hosted trace):
 * recursion, calls and returns, indirect calls through a table and a dense
 * switch (a jump table: an indirect jump without linkage).
 */
#ifndef TSBI_QEMU_PAYLOAD_WORKLOAD_H
#define TSBI_QEMU_PAYLOAD_WORKLOAD_H

static unsigned long __attribute__((noinline)) fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned long __attribute__((noinline)) op_add(unsigned long x) { return x + 3; }
static unsigned long __attribute__((noinline)) op_mul(unsigned long x) { return x * 5; }
static unsigned long __attribute__((noinline)) op_xor(unsigned long x) { return x ^ 0x55; }
static unsigned long __attribute__((noinline)) op_rot(unsigned long x) { return (x << 7) | (x >> 57); }
static unsigned long (*const ops[4])(unsigned long) = { op_add, op_mul, op_xor, op_rot };

static unsigned long __attribute__((noinline)) dispatch(unsigned k, unsigned long x)
{
    switch (k & 7) {
    case 0: return x + 1;
    case 1: return x * 3;
    case 2: return x - 7;
    case 3: return x ^ 0xf0;
    case 4: return x << 2;
    case 5: return x >> 1;
    case 6: return ~x;
    default: return x | 0x100;
    }
}
#endif
