/**
 * The seccomp program bubblewrap installs in every sandbox (`--seccomp FD`): classic BPF, built here at
 * run time (no libseccomp, no compiler, nothing shipped as bytes). Pure.
 *
 * What it refuses, with EPERM:
 *  - `socket(AF_UNIX, …)`: a Unix socket reaches host daemons through any socket file the sandbox can
 *    see (Docker, D-Bus, ssh/gpg agents), and a read-only mount does not stop a `connect`; with the
 *    network on it would also reach the host's abstract sockets (X11, containerd).
 *  - `socketpair(…)` of any type but stream and seqpacket: a connected pair is private to the command,
 *    which Node's child_process, Python's multiprocessing pipes and many more need. A datagram one is
 *    not private: `sendto` and `connect` on it reach any datagram socket file (journald, /dev/log).
 *    Stream and seqpacket pairs ignore an address and refuse `connect` (EISCONN).
 *  - `io_uring_setup`/`_enter`/`_register`: an io_uring creates and connects sockets without the
 *    syscalls this filter sees (the fallbacks — libuv's included — take the plain syscalls instead).
 *  - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`: typing into a terminal the command may hold would run
 *    text outside the sandbox.
 *  - `add_key`/`request_key`/`keyctl`: the session keyring (Kerberos tickets, tokens) is inherited
 *    into the sandbox, namespaces or not.
 *  - on x86-64, every x32 syscall (the same numbers with bit 30 set, which the rules above would not
 *    match); the i386 ABI (`int 0x80`) and 32-bit ARM get the same rules with their own numbers, and
 *    i386's `socketcall` cannot show its address family, so socket creation through it is refused.
 * Everything else is allowed: this is a fence for IPC, not a syscall allow-list. The argument words
 * compared are the low 32 bits, as the kernel reads these `int` arguments (high bits are ignored).
 */

/** The architectures a filter exists for, by Node's name. */
export type FilterArch = 'x64' | 'arm64'

/** One ABI's syscall numbers (the kernel's `unistd` tables) and its `AUDIT_ARCH_*` value. */
export interface SyscallAbi {
  name: string
  auditArch: number
  socket: number
  socketpair: number
  ioctl: number
  /** add_key, request_key, keyctl. */
  keyring: readonly [number, number, number]
  /** i386 only: the multiplexer whose first argument is the call (SYS_SOCKET = 1, SYS_SOCKETPAIR = 8). */
  socketcall?: number
  /** x86-64 only: syscalls with this bit set are x32's. */
  x32Bit?: number
}

export const ABIS = {
  x86_64: {
    name: 'x86_64',
    auditArch: 0xc000003e,
    socket: 41,
    socketpair: 53,
    ioctl: 16,
    keyring: [248, 249, 250],
    x32Bit: 0x40000000,
  },
  i386: {
    name: 'i386',
    auditArch: 0x40000003,
    socket: 359,
    socketpair: 360,
    ioctl: 54,
    keyring: [286, 287, 288],
    socketcall: 102,
  },
  aarch64: {
    name: 'aarch64',
    auditArch: 0xc00000b7,
    socket: 198,
    socketpair: 199,
    ioctl: 29,
    keyring: [217, 218, 219],
  },
  // EABI (socketcall is OABI's only, which 64-bit kernels do not run).
  arm: {
    name: 'arm',
    auditArch: 0x40000028,
    socket: 281,
    socketpair: 288,
    ioctl: 54,
    keyring: [309, 310, 311],
  },
} as const satisfies Record<string, SyscallAbi>

/** The native ABI first, then the 32-bit one the same kernel may run. */
const ABIS_OF: Record<FilterArch, readonly SyscallAbi[]> = {
  x64: [ABIS.x86_64, ABIS.i386],
  arm64: [ABIS.aarch64, ABIS.arm],
}

/** The same on every architecture (numbered after the tables were unified). */
export const IO_URING = [425, 426, 427] as const
export const AF_UNIX = 1
/** `socketpair` types kept (the low nibble of the type argument; the rest is SOCK_NONBLOCK/CLOEXEC). */
export const PRIVATE_PAIR_TYPES = [1 /* SOCK_STREAM */, 5 /* SOCK_SEQPACKET */] as const
export const TERMINAL_IOCTLS = [0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */] as const
export const SOCKETCALL_CREATE = [1 /* SYS_SOCKET */, 8 /* SYS_SOCKETPAIR */] as const

export const EPERM = 1
export const RET_ALLOW = 0x7fff0000
export const RET_ERRNO = 0x00050000

// struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args[6] (u64), little-endian
// on both architectures, so an argument's low word is at its own offset.
export const OFFSET_NR = 0
export const OFFSET_ARCH = 4
export const argLow = (i: number): number => 16 + 8 * i

// Classic BPF opcodes (linux/bpf_common.h).
export const BPF = {
  LD_W_ABS: 0x20,
  JEQ_K: 0x15,
  JGE_K: 0x35,
  AND_K: 0x54,
  RET_K: 0x06,
} as const

/** One `struct sock_filter`. `jt`/`jf` are relative: how many instructions to skip. */
export interface BpfInstruction {
  code: number
  jt: number
  jf: number
  k: number
}

/** The filter's bytes for Node's `process.arch`; undefined where none is written (no sandbox claim then). */
export function seccompFilterFor(arch: string): Uint8Array | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined
  return encode(filterProgram(arch))
}

export function filterProgram(arch: FilterArch): BpfInstruction[] {
  const asm = new Assembler()
  const abis = ABIS_OF[arch]
  asm.load(OFFSET_ARCH)
  for (const abi of abis) asm.jumpIfEqual(abi.auditArch, `abi:${abi.name}`)
  // No other ABI can reach this kernel from these processes; if one does, refuse everything.
  asm.ret(RET_ERRNO | EPERM)
  for (const abi of abis) rulesOf(asm, abi)
  asm.label('deny')
  asm.ret(RET_ERRNO | EPERM)
  asm.label('allow')
  asm.ret(RET_ALLOW)
  return asm.assemble()
}

function rulesOf(asm: Assembler, abi: SyscallAbi): void {
  const at = (what: string) => `${abi.name}:${what}`
  asm.label(`abi:${abi.name}`)
  asm.load(OFFSET_NR)
  if (abi.x32Bit !== undefined) asm.jumpIfAtLeast(abi.x32Bit, 'deny')
  asm.jumpIfEqual(abi.socket, at('socket'))
  asm.jumpIfEqual(abi.socketpair, at('socketpair'))
  asm.jumpIfEqual(abi.ioctl, at('ioctl'))
  if (abi.socketcall !== undefined) asm.jumpIfEqual(abi.socketcall, at('socketcall'))
  for (const nr of [...IO_URING, ...abi.keyring]) asm.jumpIfEqual(nr, 'deny')
  asm.ret(RET_ALLOW)

  asm.label(at('socket'))
  asm.load(argLow(0))
  asm.jumpIfEqual(AF_UNIX, 'deny')
  asm.ret(RET_ALLOW)

  asm.label(at('socketpair'))
  asm.load(argLow(1))
  asm.and(0xf)
  for (const type of PRIVATE_PAIR_TYPES) asm.jumpIfEqual(type, 'allow')
  asm.ret(RET_ERRNO | EPERM)

  asm.label(at('ioctl'))
  asm.load(argLow(1))
  for (const request of TERMINAL_IOCTLS) asm.jumpIfEqual(request, 'deny')
  asm.ret(RET_ALLOW)

  if (abi.socketcall !== undefined) {
    asm.label(at('socketcall'))
    asm.load(argLow(0))
    for (const call of SOCKETCALL_CREATE) asm.jumpIfEqual(call, 'deny')
    asm.ret(RET_ALLOW)
  }
}

/** Little-endian `struct sock_filter` array, as bubblewrap reads it from the descriptor. */
export function encode(program: readonly BpfInstruction[]): Uint8Array {
  const bytes = new Uint8Array(program.length * 8)
  const view = new DataView(bytes.buffer)
  program.forEach((ins, i) => {
    view.setUint16(i * 8, ins.code, true)
    view.setUint8(i * 8 + 2, ins.jt)
    view.setUint8(i * 8 + 3, ins.jf)
    view.setUint32(i * 8 + 4, ins.k >>> 0, true)
  })
  return bytes
}

type Pending = { code: number; k: number; jt?: string }

/** Forward jumps to labels; a conditional jump falls through when false. */
class Assembler {
  private readonly code: Pending[] = []
  private readonly labels = new Map<string, number>()

  label(name: string): void {
    if (this.labels.has(name)) throw new Error(`seccomp filter: label ${name} twice`)
    this.labels.set(name, this.code.length)
  }
  load(offset: number): void {
    this.code.push({ code: BPF.LD_W_ABS, k: offset })
  }
  and(mask: number): void {
    this.code.push({ code: BPF.AND_K, k: mask })
  }
  ret(value: number): void {
    this.code.push({ code: BPF.RET_K, k: value })
  }
  jumpIfEqual(k: number, to: string): void {
    this.code.push({ code: BPF.JEQ_K, k, jt: to })
  }
  jumpIfAtLeast(k: number, to: string): void {
    this.code.push({ code: BPF.JGE_K, k, jt: to })
  }
  assemble(): BpfInstruction[] {
    return this.code.map((ins, i) => {
      if (ins.jt === undefined) return { code: ins.code, jt: 0, jf: 0, k: ins.k }
      const target = this.labels.get(ins.jt)
      if (target === undefined) throw new Error(`seccomp filter: no label ${ins.jt}`)
      const skip = target - i - 1
      // Classic BPF jumps only forward, at most 255 instructions.
      if (skip < 0 || skip > 255) throw new Error(`seccomp filter: jump to ${ins.jt} out of range`)
      return { code: ins.code, jt: skip, jf: 0, k: ins.k }
    })
  }
}
