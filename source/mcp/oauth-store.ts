import { chmod, readFile } from 'node:fs/promises'
import { atomicWriteFile } from '../tools/atomic-write.js'

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
      const json = JSON.parse(await readFile(file, 'utf8')) as Partial<FileShape>
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
        await atomicWriteFile(file, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 })
        // An existing file keeps its bits through atomicWriteFile; tokens are never group- or world-readable.
        await chmod(file, 0o600)
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}
