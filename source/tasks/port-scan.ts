import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { endianness } from 'node:os'
import {
  type HeldSocket,
  type ListenSocket,
  parseLsofListen,
  parseProcNetTcp,
  socketInode,
} from './listening-ports.js'

/**
 * Reads which TCP ports the processes of given process groups listen on. Linux: the /proc tables, seen
 * from the job's own processes (a sandboxed job's network namespace is its own). Elsewhere: lsof, best
 * effort. Everything tolerates processes that come and go between two reads.
 */

/** Per group id, its LISTEN sockets; `null` when this host cannot list sockets at all (then only output hints count). */
export type PortScanner = (pgids: readonly number[]) => Promise<Map<number, HeldSocket[]> | null>

export interface ProcScanOptions {
  /** The proc mount (tests may point it elsewhere; default `/proc`). */
  proc?: string
}

interface ProcInfo {
  ppid: number
  pgrp: number
}

/** Every live process's parent and group, from one pass over `/proc/<pid>/stat`; undefined without /proc. */
function readProcessTable(proc: string): Map<number, ProcInfo> | undefined {
  let entries: string[]
  try {
    entries = readdirSync(proc)
  } catch {
    return undefined
  }
  const table = new Map<number, ProcInfo>()
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`${proc}/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // After the command name (which may hold spaces and parentheses): state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (fields[0] === 'Z') continue
    table.set(Number(entry), { ppid: Number(fields[1]), pgrp: Number(fields[2]) })
  }
  return table
}

/**
 * The processes of a job: the live members of its group and everything they started, also what moved
 * to a session or group of its own (a `setsid` daemon) while its parent lives.
 */
export function jobProcesses(table: ReadonlyMap<number, ProcInfo>, pgid: number): number[] {
  const children = new Map<number, number[]>()
  for (const [pid, info] of table) {
    const list = children.get(info.ppid) ?? []
    list.push(pid)
    children.set(info.ppid, list)
  }
  const found = new Set<number>()
  const queue = [...table].filter(([, info]) => info.pgrp === pgid).map(([pid]) => pid)
  while (queue.length > 0) {
    const pid = queue.pop() as number
    if (found.has(pid)) continue
    found.add(pid)
    queue.push(...(children.get(pid) ?? []))
  }
  return [...found]
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path)
  } catch {
    return undefined
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** The socket inodes among a process's open files (none when it is gone or not ours to look at). */
function socketInodes(proc: string, pid: number): number[] {
  let fds: string[]
  try {
    fds = readdirSync(`${proc}/${pid}/fd`)
  } catch {
    return []
  }
  const inodes: number[] = []
  for (const fd of fds) {
    const inode = socketInode(readLink(`${proc}/${pid}/fd/${fd}`) ?? '')
    if (inode !== undefined) inodes.push(inode)
  }
  return inodes
}

/**
 * The Linux scanner. A job's LISTEN sockets are the entries of its network namespace's tables whose inode
 * one of its processes holds; a namespace other than agent-tui's own (bubblewrap's `--unshare-net`) is not
 * reachable from the host's browser.
 */
export function scanProc(
  pgids: readonly number[],
  opts: ProcScanOptions = {},
): Map<number, HeldSocket[]> | null {
  const proc = opts.proc ?? '/proc'
  const table = readProcessTable(proc)
  if (!table) return null
  const ownNet = readLink(`${proc}/self/ns/net`)
  const order = endianness()
  const result = new Map<number, HeldSocket[]>()
  for (const pgid of pgids) {
    // One representative process per namespace reads its tables; the inodes of all are matched against them.
    const byNamespace = new Map<string, { pid: number; inodes: Set<number> }>()
    for (const pid of jobProcesses(table, pgid)) {
      const inodes = socketInodes(proc, pid)
      if (inodes.length === 0) continue
      const ns = readLink(`${proc}/${pid}/ns/net`) ?? 'unknown'
      const entry = byNamespace.get(ns) ?? { pid, inodes: new Set<number>() }
      for (const inode of inodes) entry.inodes.add(inode)
      byNamespace.set(ns, entry)
    }
    const held: HeldSocket[] = []
    for (const [ns, { pid, inodes }] of byNamespace) {
      const listening: ListenSocket[] = [
        ...parseProcNetTcp(readText(`${proc}/${pid}/net/tcp`), order),
        ...parseProcNetTcp(readText(`${proc}/${pid}/net/tcp6`), order),
      ]
      // Unknown namespaces (ours unreadable, or theirs) count as reachable: a URL that may not answer beats none.
      const reachable = ns === 'unknown' || ownNet === undefined || ns === ownNet
      for (const socket of listening) {
        if (inodes.has(socket.inode)) held.push({ address: socket.address, port: socket.port, reachable })
      }
    }
    result.set(pgid, held)
  }
  return result
}

/** At most this long for one lsof run; a hung one must not hold the next poll forever. */
const LSOF_TIMEOUT_MS = 3000

/**
 * The lsof scanner (macOS and other hosts without /proc): selects by process group, so descendants that
 * left the group are not seen. `null` when lsof cannot run. lsof exits 1 when it found nothing.
 */
export function scanLsof(pgids: readonly number[], lsof = 'lsof'): Promise<Map<number, HeldSocket[]> | null> {
  if (pgids.length === 0) return Promise.resolve(new Map())
  return new Promise((resolve) => {
    execFile(
      lsof,
      ['-a', '-iTCP', '-sTCP:LISTEN', '-nP', '-g', pgids.join(','), '-Fgn'],
      { timeout: LSOF_TIMEOUT_MS, maxBuffer: 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } },
      (error, stdout) => {
        // Not installed, timed out, killed: sockets cannot be listed here. Exit 1 with what it found is fine.
        if (error && typeof error.code !== 'number') {
          resolve(null)
          return
        }
        const parsed = parseLsofListen(stdout)
        // On macOS the network is shared (Seatbelt filters, it has no namespaces): every port is reachable.
        resolve(
          new Map(
            pgids.map((pgid) => [
              pgid,
              (parsed.get(pgid) ?? []).map((s) => ({ address: s.address, port: s.port, reachable: true })),
            ]),
          ),
        )
      },
    )
  })
}

/**
 * The scanner for this host: /proc where it exists, lsof elsewhere. `lsof` finds the program (the session
 * passes one that never looks in the workspace, where a planted `lsof` would run with the user's rights);
 * undefined from it: sockets cannot be listed. Without it, `lsof` from PATH.
 */
export function hostScanner(lsof: () => string | undefined = () => 'lsof'): PortScanner {
  return async (pgids) => {
    const fromProc = process.platform === 'linux' ? scanProc(pgids) : null
    if (fromProc) return fromProc
    const program = lsof()
    return program ? scanLsof(pgids, program) : null
  }
}
