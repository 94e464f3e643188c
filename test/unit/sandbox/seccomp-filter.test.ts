/**
 * The seccomp program's bytes, decoded and run by a small classic-BPF interpreter that accepts only
 * what the kernel's seccomp checker accepts (aligned 32-bit loads inside `struct seccomp_data`,
 * forward jumps in range, a return at the end). The real kernel runs it in bash-sandbox.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { seccompFilterFor } from '../../../source/sandbox/seccomp-filter.js'

const X86_64 = 0xc000003e
const I386 = 0x40000003
const AARCH64 = 0xc00000b7
const ARM = 0x40000028
const ALLOW = 'allow'
const EPERM = 'EPERM'

interface Ins {
  code: number
  jt: number
  jf: number
  k: number
}

function decode(bytes: Uint8Array): Ins[] {
  expect(bytes.length % 8).toBe(0)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.length / 8 }, (_, i) => ({
    code: view.getUint16(i * 8, true),
    jt: view.getUint8(i * 8 + 2),
    jf: view.getUint8(i * 8 + 3),
    k: view.getUint32(i * 8 + 4, true),
  }))
}

/** `struct seccomp_data` for one call: nr, arch, instruction pointer, six 64-bit arguments. */
function data(arch: number, nr: number, args: readonly bigint[] = []): DataView {
  const view = new DataView(new ArrayBuffer(64))
  view.setUint32(0, nr >>> 0, true)
  view.setUint32(4, arch >>> 0, true)
  args.forEach((arg, i) => {
    view.setBigUint64(16 + 8 * i, arg, true)
  })
  return view
}

function run(program: Ins[], input: DataView): string {
  let acc = 0
  for (let pc = 0; pc < program.length; ) {
    const ins = program[pc]!
    const jump = (taken: boolean) => {
      const skip = taken ? ins.jt : ins.jf
      pc += 1 + skip
    }
    switch (ins.code) {
      case 0x20: // ld [k]
        if (ins.k % 4 !== 0 || ins.k > 60) throw new Error(`bad load offset ${ins.k}`)
        acc = input.getUint32(ins.k, true)
        pc++
        break
      case 0x15: // jeq #k
        jump(acc === ins.k)
        break
      case 0x35: // jge #k
        jump(acc >= ins.k)
        break
      case 0x54: // and #k
        acc = (acc & ins.k) >>> 0
        pc++
        break
      case 0x06: // ret #k
        if (ins.k === 0x7fff0000) return ALLOW
        if (ins.k === (0x00050000 | 1)) return EPERM
        throw new Error(`unexpected return ${ins.k.toString(16)}`)
      default:
        throw new Error(`opcode ${ins.code.toString(16)} the filter should not use`)
    }
  }
  throw new Error('ran off the end')
}

function programFor(arch: string): Ins[] {
  const bytes = seccompFilterFor(arch)
  if (!bytes) throw new Error(`no filter for ${arch}`)
  const program = decode(bytes)
  // What the kernel checks before it installs one.
  expect(program.length).toBeLessThanOrEqual(4096)
  expect(program.at(-1)?.code).toBe(0x06)
  program.forEach((ins, pc) => {
    if ((ins.code & 0x07) !== 0x05) return
    expect(pc + 1 + ins.jt).toBeLessThan(program.length)
    expect(pc + 1 + ins.jf).toBeLessThan(program.length)
  })
  return program
}

const AF_UNIX = 1n
const AF_INET = 2n
const AF_INET6 = 10n
const AF_NETLINK = 16n
const SOCK_STREAM = 1n
const SOCK_DGRAM = 2n
const SOCK_RAW = 3n
const SOCK_SEQPACKET = 5n
const SOCK_NONBLOCK = 0o4000n
const SOCK_CLOEXEC = 0o2000000n
const HIGH = 1n << 32n

type Row = [label: string, arch: number, nr: number, args: bigint[], expected: string]

const x64Rows: Row[] = [
  ['socket(AF_UNIX)', X86_64, 41, [AF_UNIX, SOCK_STREAM], EPERM],
  ['socket(AF_UNIX) with junk in the high word the kernel ignores', X86_64, 41, [AF_UNIX | HIGH], EPERM],
  ['socket(AF_INET) with junk in the high word', X86_64, 41, [AF_INET | HIGH], ALLOW],
  ['socket(AF_INET)', X86_64, 41, [AF_INET, SOCK_STREAM], ALLOW],
  ['socket(AF_INET6)', X86_64, 41, [AF_INET6, SOCK_DGRAM], ALLOW],
  ['socket(AF_NETLINK)', X86_64, 41, [AF_NETLINK, SOCK_RAW], ALLOW],
  ['socketpair(stream)', X86_64, 53, [AF_UNIX, SOCK_STREAM], ALLOW],
  [
    'socketpair(stream | CLOEXEC | NONBLOCK)',
    X86_64,
    53,
    [AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK],
    ALLOW,
  ],
  ['socketpair(seqpacket)', X86_64, 53, [AF_UNIX, SOCK_SEQPACKET], ALLOW],
  ['socketpair(dgram)', X86_64, 53, [AF_UNIX, SOCK_DGRAM], EPERM],
  ['socketpair(dgram | NONBLOCK)', X86_64, 53, [AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK], EPERM],
  ['socketpair(raw, which AF_UNIX makes a dgram)', X86_64, 53, [AF_UNIX, SOCK_RAW], EPERM],
  ['ioctl(TIOCSTI)', X86_64, 16, [1n, 0x5412n], EPERM],
  ['ioctl(TIOCLINUX)', X86_64, 16, [1n, 0x541cn], EPERM],
  ['ioctl(TCGETS)', X86_64, 16, [1n, 0x5401n], ALLOW],
  ['ioctl(FIONREAD)', X86_64, 16, [1n, 0x541bn], ALLOW],
  ['io_uring_setup', X86_64, 425, [], EPERM],
  ['io_uring_enter', X86_64, 426, [], EPERM],
  ['io_uring_register', X86_64, 427, [], EPERM],
  ['add_key', X86_64, 248, [], EPERM],
  ['request_key', X86_64, 249, [], EPERM],
  ['keyctl', X86_64, 250, [0n], EPERM],
  ['connect (its socket could only be a TCP/UDP one)', X86_64, 42, [3n], ALLOW],
  ['read', X86_64, 0, [], ALLOW],
  ['openat', X86_64, 257, [], ALLOW],
  ['clone3', X86_64, 435, [], ALLOW],
  ['x32 socket(AF_UNIX)', X86_64, 0x40000000 + 41, [AF_UNIX], EPERM],
  ['x32 read', X86_64, 0x40000000, [], EPERM],
  ['i386 socket(AF_UNIX)', I386, 359, [AF_UNIX], EPERM],
  ['i386 socket(AF_INET)', I386, 359, [AF_INET], ALLOW],
  ['i386 socketpair(dgram)', I386, 360, [AF_UNIX, SOCK_DGRAM], EPERM],
  ['i386 socketpair(stream)', I386, 360, [AF_UNIX, SOCK_STREAM], ALLOW],
  ['i386 socketcall(SYS_SOCKET), whose family the filter cannot see', I386, 102, [1n], EPERM],
  ['i386 socketcall(SYS_SOCKETPAIR)', I386, 102, [8n], EPERM],
  ['i386 socketcall(SYS_CONNECT)', I386, 102, [3n], ALLOW],
  ['i386 ioctl(TIOCSTI)', I386, 54, [1n, 0x5412n], EPERM],
  ['i386 io_uring_setup', I386, 425, [], EPERM],
  ['i386 keyctl', I386, 288, [], EPERM],
  ['288 on x86-64 (accept4 there)', X86_64, 288, [], ALLOW],
  ['i386 dup (41, x86-64’s socket)', I386, 41, [AF_UNIX], ALLOW],
  ['an arm64 call on x86-64', AARCH64, 198, [AF_UNIX], EPERM],
  ['an unknown architecture', 0xdeadbeef, 0, [], EPERM],
]

const arm64Rows: Row[] = [
  ['socket(AF_UNIX)', AARCH64, 198, [AF_UNIX, SOCK_STREAM], EPERM],
  ['socket(AF_INET)', AARCH64, 198, [AF_INET], ALLOW],
  ['socketpair(dgram)', AARCH64, 199, [AF_UNIX, SOCK_DGRAM], EPERM],
  ['socketpair(stream)', AARCH64, 199, [AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC], ALLOW],
  ['ioctl(TIOCSTI)', AARCH64, 29, [0n, 0x5412n], EPERM],
  ['io_uring_setup', AARCH64, 425, [], EPERM],
  ['keyctl', AARCH64, 219, [], EPERM],
  ['add_key', AARCH64, 217, [], EPERM],
  ['connect', AARCH64, 203, [3n], ALLOW],
  ['41 (x86-64’s socket number)', AARCH64, 41, [AF_UNIX], ALLOW],
  ['arm socket(AF_UNIX)', ARM, 281, [AF_UNIX], EPERM],
  ['arm socketpair(dgram)', ARM, 288, [AF_UNIX, SOCK_DGRAM], EPERM],
  ['arm ioctl(TIOCSTI)', ARM, 54, [0n, 0x5412n], EPERM],
  ['arm io_uring_enter', ARM, 426, [], EPERM],
  ['arm keyctl', ARM, 311, [], EPERM],
  ['arm request_key', ARM, 310, [], EPERM],
  ['arm 102 (no socketcall on EABI)', ARM, 102, [1n], ALLOW],
  ['an x86-64 call on arm64', X86_64, 41, [AF_UNIX], EPERM],
]

describe('seccompFilterFor', () => {
  it.each(x64Rows)('x64: %s', (_label, arch, nr, args, expected) => {
    expect(run(programFor('x64'), data(arch, nr, args))).toBe(expected)
  })

  it.each(arm64Rows)('arm64: %s', (_label, arch, nr, args, expected) => {
    expect(run(programFor('arm64'), data(arch, nr, args))).toBe(expected)
  })

  it.each(['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64'])(
    'has none for %s (no sandbox is claimed)',
    (arch) => {
      expect(seccompFilterFor(arch)).toBeUndefined()
    },
  )

  it('is small: one pass over a few dozen instructions per syscall', () => {
    expect(programFor('x64').length).toBeLessThan(64)
    expect(programFor('arm64').length).toBeLessThan(64)
  })
})
