import { createHash } from 'node:crypto'
import { readFile, realpath } from 'node:fs/promises'
import { dirname } from 'node:path'
import { PRIVATE_DIR, readOwnFile, replaceOwnFile } from '../util/safe-files.js'

/**
 * Which `.agent-tui/settings.local.json` files agent-tui itself wrote, and what they held then
 * (`$XDG_STATE_HOME/agent-tui/local-settings.json`: real path → SHA-256 of the bytes). A local settings
 * file is the user's only when it is recorded here unchanged: one that came in an archive (a "Download
 * ZIP" has no git to say it was committed) would otherwise bring allow rules and hooks — a SessionStart
 * hook runs at launch — into a folder nobody trusted.
 */

interface Ledger {
  version: 1
  files: Record<string, { sha256: string; at?: string }>
}

async function readLedger(file: string): Promise<Ledger> {
  try {
    // Not through a link, and a FIFO there cannot stall the start (util/safe-files.ts).
    const parsed = JSON.parse(readOwnFile(dirname(file), file)?.toString('utf8') ?? '') as Partial<Ledger>
    if (parsed && typeof parsed.files === 'object' && parsed.files !== null) {
      return { version: 1, files: parsed.files }
    }
  } catch {
    // Missing or unreadable: nothing is recorded, so nothing is taken as the user's.
  }
  return { version: 1, files: {} }
}

async function fingerprint(settingsPath: string): Promise<{ key: string; sha256: string } | undefined> {
  try {
    const key = await realpath(settingsPath)
    const sha256 = createHash('sha256')
      .update(await readFile(key))
      .digest('hex')
    return { key, sha256 }
  } catch {
    return undefined
  }
}

/** Whether agent-tui wrote `settingsPath` as it is now. */
export async function isRecordedLocalSettings(ledgerFile: string, settingsPath: string): Promise<boolean> {
  const [ledger, now] = await Promise.all([readLedger(ledgerFile), fingerprint(settingsPath)])
  return now !== undefined && ledger.files[now.key]?.sha256 === now.sha256
}

/** Records `settingsPath` as it is now (call right after writing it). Atomic, mode 0600. */
export async function recordLocalSettings(
  ledgerFile: string,
  settingsPath: string,
  now: Date = new Date(),
): Promise<void> {
  const current = await fingerprint(settingsPath)
  if (current === undefined) return
  const ledger = await readLedger(ledgerFile)
  ledger.files[current.key] = { sha256: current.sha256, at: now.toISOString() }
  // Never through a link: a new temp file (O_EXCL), renamed through the open state dir.
  replaceOwnFile(dirname(ledgerFile), ledgerFile, `${JSON.stringify(ledger, null, 2)}\n`, {
    mode: 0o600,
    createDirs: PRIVATE_DIR,
  })
}
