import { dirname } from 'node:path'
import { atomicWriteFile } from '../tools/atomic-write.js'
import { readOwnFile } from '../util/safe-files.js'

/**
 * OAuth state of remote MCP servers, by server URL, in one file in the user's state dir
 * (`mcp-oauth.json`, mode 0600: it holds tokens). Writes are atomic and serialised within the process;
 * each re-reads the file, so two sessions do not drop each other's servers.
 */

export interface OAuthRecord {
  /** The client registration (dynamic registration's answer, or pre-registered). */
  clientInformation?: Record<string, unknown>
  tokens?: Record<string, unknown>
  /** When the tokens were saved (ms), to tell an expired access token. */
  savedAt?: number
  /** Loopback port of the registered redirect URI, reused so the registration stays valid. */
  redirectPort?: number
  discovery?: Record<string, unknown>
}

export interface OAuthStore {
  readonly file: string
  get(serverUrl: string): Promise<OAuthRecord | undefined>
  /** Applies `change` to the server's record (undefined removes it) and writes the file. */
  update(serverUrl: string, change: (record: OAuthRecord) => OAuthRecord | undefined): Promise<void>
}

interface FileShape {
  version: 1
  servers: Record<string, OAuthRecord>
}

export function createOAuthStore(file: string): OAuthStore {
  let queue: Promise<unknown> = Promise.resolve()
  const read = async (): Promise<FileShape> => {
    try {
      // Not through a link, and a FIFO there cannot stall the sign-in (util/safe-files.ts).
      const json = JSON.parse(readOwnFile(dirname(file), file)?.toString('utf8') ?? '') as Partial<FileShape>
      if (json && typeof json === 'object' && json.servers && typeof json.servers === 'object')
        return { version: 1, servers: json.servers }
    } catch {
      // Missing or unreadable: no stored authorizations (the next sign-in writes a fresh file).
    }
    return { version: 1, servers: {} }
  }
  return {
    file,
    async get(serverUrl) {
      await queue.catch(() => undefined)
      return (await read()).servers[serverUrl]
    },
    update(serverUrl, change) {
      const run = queue.then(async () => {
        const contents = await read()
        const next = change({ ...contents.servers[serverUrl] })
        if (next === undefined) delete contents.servers[serverUrl]
        else contents.servers[serverUrl] = next
        // Exactly 0600 (tokens are never group- or world-readable), set on the file before it is renamed
        // into place; a link at the name is replaced, not written through.
        await atomicWriteFile(file, `${JSON.stringify(contents, null, 2)}\n`, {
          mode: 0o600,
          exactMode: true,
          below: dirname(file),
        })
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}
